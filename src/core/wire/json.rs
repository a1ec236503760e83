//! The readers every wire's decoder uses (fields, counts, the request id, the
//! retry-after hint, the body snippet for a decode error) and what every wire
//! shares at its ends: a request finished as compact JSON bytes; a response's
//! decode prologue (status, then parse, then the wire's own reader); a decoded
//! answer finished as one `Completion`.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::core::completion::{ClaimSet, Completion};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result, VendorError};
use crate::core::turn::{HeaderValue, WireRequest, WireResponse};
use crate::core::vendor::Vendor;

/// The claim of a `url_citation` annotation in a text that begins at byte
/// `offset` of `answer`: its `start_index` to `end_index` (characters of that
/// text, `part` its index; nested under `url_citation` on Chat, flat on
/// Responses), or the whole text when both are 0, absent or past its end
/// (OpenRouter often sends 0).
pub(crate) fn annotation_claim(
    claims: &mut ClaimSet,
    a: &Value,
    answer: &str,
    offset: usize,
    part: &CharIndex<'_>,
) {
    if a.get("type").and_then(Value::as_str) != Some("url_citation") {
        return;
    }
    let c = a.get("url_citation").unwrap_or(a);
    let Some(url) = c.get("url").and_then(Value::as_str) else {
        return;
    };
    let index = |k: &str| c.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let (start, end) = match (index("start_index"), index("end_index")) {
        (Some(s), Some(e)) if e > 0 && s <= e && e <= part.chars() => (part.byte(s), part.byte(e)),
        _ => (0, part.text.len()),
    };
    claims.add(answer, offset + start, offset + end, url);
}

/// Characters of a text found by their position without walking from its start
/// each time: the byte offset of every `STRIDE`th character is kept, so a lookup
/// walks at most `STRIDE` characters — an answer with many annotations costs time
/// in proportion to them and to its length, not to their product. The marks are
/// made on first use: an answer whose annotations give no span (xAI's, 0/0)
/// never walks its text.
pub(crate) struct CharIndex<'a> {
    text: &'a str,
    built: std::cell::OnceCell<(Vec<usize>, usize)>,
}

const STRIDE: usize = 128;

impl<'a> CharIndex<'a> {
    /// The index of `text` (its one pass made when first asked).
    pub(crate) fn new(text: &'a str) -> Self {
        CharIndex {
            text,
            built: std::cell::OnceCell::new(),
        }
    }

    /// The marks and the count of characters, made once.
    fn built(&self) -> &(Vec<usize>, usize) {
        self.built.get_or_init(|| {
            let mut marks = Vec::with_capacity(self.text.len() / STRIDE + 1);
            let mut chars = 0;
            for (b, _) in self.text.char_indices() {
                if chars % STRIDE == 0 {
                    marks.push(b);
                }
                chars += 1;
            }
            (marks, chars)
        })
    }

    /// How many characters the text has.
    pub(crate) fn chars(&self) -> usize {
        self.built().1
    }

    /// The byte offset of the `n`th character (the text's length past the end),
    /// as `completion::char_offset` gives it.
    pub(crate) fn byte(&self, n: usize) -> usize {
        let Some(&mark) = self.built().0.get(n / STRIDE) else {
            return self.text.len();
        };
        self.text[mark..]
            .char_indices()
            .nth(n % STRIDE)
            .map_or(self.text.len(), |(i, _)| mark + i)
    }
}

/// The first 200 characters of a body, for an error message.
pub(crate) fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut s: String = text.chars().take(200).collect();
    if text.chars().count() > 200 {
        s.push('…');
    }
    if s.is_empty() {
        "(empty body)".to_string()
    } else {
        s
    }
}

/// Parse a body as JSON, or a decode error naming the vendor.
pub(crate) fn parse_json(provider: Vendor, response: &WireResponse) -> Result<Value> {
    serde_json::from_slice(&response.body).map_err(|e| Error::Decode {
        provider,
        message: format!("HTTP {} body is not JSON: {e}", response.status),
        snippet: snippet(&response.body),
    })
}

/// A decode error for a 2xx body without the part a decoder reads (`what`: "the
/// response has no choices").
pub(crate) fn missing(provider: Vendor, response: &WireResponse, what: &str) -> Error {
    Error::Decode {
        provider,
        message: what.to_string(),
        snippet: snippet(&response.body),
    }
}

/// A string field, `None` when absent or null.
pub(crate) fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// An unsigned counter, 0 when absent or negative; a count beyond
/// `Usage::MAX_COUNT` (including one too large for a u64, which JSON carries as a
/// float) is clamped to it rather than wrapped or read as 0, so it can neither
/// overflow a sum nor slip under a budget.
pub(crate) fn u64_field(v: &Value, key: &str) -> u64 {
    let Some(n) = v.get(key).filter(|n| n.is_number()) else {
        return 0;
    };
    let max = crate::core::completion::Usage::MAX_COUNT;
    match n.as_u64() {
        Some(n) => n.min(max),
        None => match n.as_f64() {
            Some(f) if f >= max as f64 => max,
            Some(f) if f > 0.0 => f as u64,
            _ => 0,
        },
    }
}

/// `retry-after-ms`, else `retry-after` in seconds or as an HTTP date (relative to
/// the response's own `date` header, so the core stays clock-free).
pub(crate) fn retry_after(response: &WireResponse) -> Option<Duration> {
    if let Some(ms) = response
        .header("retry-after-ms")
        .and_then(|v| v.trim().parse::<f64>().ok())
    {
        return (ms >= 0.0).then(|| Duration::from_millis(ms as u64));
    }
    let value = response.header("retry-after")?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs >= 0.0).then(|| Duration::from_millis((secs * 1000.0) as u64));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let now = httpdate::parse_http_date(response.header("date")?).ok()?;
    Some(at.duration_since(now).unwrap_or_default())
}

/// The request id the vendor sent in a header.
pub(crate) fn header_request_id(response: &WireResponse) -> Option<String> {
    response
        .header("request-id")
        .or_else(|| response.header("x-request-id"))
        .map(str::to_string)
}

/// A vendor error for a body that is not the vendor's error shape.
pub(crate) fn opaque_error(provider: Vendor, response: &WireResponse) -> VendorError {
    VendorError {
        provider,
        status: response.status,
        error_type: None,
        code: None,
        message: snippet(&response.body),
        request_id: header_request_id(response),
        retry_after: retry_after(response),
    }
}

/// A tool call's arguments, sent as JSON text, as its input: `{}` when blank, the
/// text itself when it is not JSON (so the tool can say so).
pub(crate) fn arguments(raw: String) -> Value {
    if raw.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(&raw).unwrap_or(Value::String(raw))
    }
}

/// A code that may be a string or a number.
pub(crate) fn code_string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Finish a request: compact JSON bytes exactly as sent.
pub(crate) fn request(
    endpoint: &Endpoint,
    headers: Vec<(String, HeaderValue)>,
    body: Map<String, Value>,
) -> Result<WireRequest> {
    let bytes = serde_json::to_vec(&Value::Object(body))
        .map_err(|e| Error::export("the request body", e))?;
    Ok(WireRequest {
        method: "POST".to_string(),
        url: endpoint.url(),
        headers,
        body: bytes,
    })
}

/// The one way every decoder starts: a non-2xx is the wire's error envelope
/// (`http_error`); a 2xx body is parsed and read by the wire's own `read` (which
/// the stream assemblers call too, with the body they rebuilt).
pub(crate) fn decode_with(
    provider: Vendor,
    response: &WireResponse,
    http_error: fn(Vendor, &WireResponse) -> VendorError,
    read: fn(&WireResponse, &Value) -> Result<Completion>,
) -> Result<Completion> {
    if !(200..300).contains(&response.status) {
        return Err(Error::from(http_error(provider, response)));
    }
    let v = parse_json(provider, response)?;
    read(response, &v)
}

/// The one way every decoder ends: what it read (`c`: text, calls, citations,
/// server tools, stop reason, usage), with the provider, the model the body names,
/// and the request id from the headers, else the body's `id`.
pub(crate) fn finish(
    provider: Vendor,
    response: &WireResponse,
    v: &Value,
    c: Completion,
) -> Completion {
    Completion {
        provider,
        model: str_field(v, "model"),
        request_id: header_request_id(response).or_else(|| str_field(v, "id")),
        response_id: str_field(v, "id"),
        ..c
    }
}
