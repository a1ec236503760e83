//! Secrets out of everything that leaves the transport. A vendor may echo the API
//! key back (a 401 quoting a malformed key, a 500 dumping the request), and a
//! `base_url` may carry `user:password@`; whatever the source, the configured
//! secrets are replaced before a body is decoded, in every string decoding
//! produced (a whole body's completion and a stream's alike), and before an error
//! or a retry reason is handed on, so none reaches the store, an event, the
//! console or a log. A secret is found however a JSON string or a URL spells it
//! (`spelling`: `sk\u002d…`, `sk%2D…`, mixed, one encoding inside another).

use super::spelling::{Found, found_at, may_start};
use crate::core::completion::{Claim, Completion};
use crate::core::error::Error;
use crate::core::event::EventKind;

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Shorter than this is not scrubbed: replacing every `a` of a one-letter
/// "password" would garble every message while protecting nothing.
const MIN_SECRET: usize = 4;

/// Bytes with secrets replaced, and the byte ranges of the original replaced.
type Scrubbed = (Vec<u8>, Vec<(usize, usize)>);

/// The secrets one provider holds.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets(Vec<String>);

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} held)", self.0.len())
    }
}

impl Secrets {
    /// The key, and the credentials in the URL's user-info (the password; the
    /// user name too when it is the only credential, as in `https://TOKEN@host`),
    /// each also in its percent-decoded spelling.
    pub fn new(key: Option<&str>, base_url: &str) -> Self {
        let mut list = Vec::new();
        if let Some(k) = key {
            list.push(k.to_string());
        }
        if let Ok(url) = url::Url::parse(base_url) {
            match url.password() {
                Some(p) => list.push(p.to_string()),
                None if !url.username().is_empty() => list.push(url.username().to_string()),
                None => {}
            }
        }
        let decoded: Vec<String> = list
            .iter()
            .filter_map(|s| percent_decode(s).filter(|d| d != s))
            .collect();
        list.extend(decoded);
        list.retain(|s| s.len() >= MIN_SECRET);
        // Longest first, so a secret containing another is replaced whole.
        list.sort_by_key(|s| std::cmp::Reverse(s.len()));
        list.dedup();
        Secrets(list)
    }

    /// Text with every secret replaced, however spelled.
    pub fn text(&self, text: &str) -> String {
        match self.scrub(text.as_bytes()) {
            Some((out, _)) => String::from_utf8(out)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            None => text.to_string(),
        }
    }

    /// Bytes with every secret replaced, however spelled (bodies need not be UTF-8).
    pub fn bytes(&self, bytes: Vec<u8>) -> Vec<u8> {
        match self.scrub(&bytes) {
            Some((out, _)) => out,
            None => bytes,
        }
    }

    /// `hay` with every secret (longest first where two start at one place)
    /// replaced, and the byte ranges of `hay` replaced; `None` when it holds none.
    /// A secret replaced whole is a run of ASCII or whole characters, so UTF-8
    /// stays UTF-8.
    fn scrub(&self, hay: &[u8]) -> Option<Scrubbed> {
        let firsts: Vec<u8> = self.0.iter().filter_map(|s| s.bytes().next()).collect();
        let mut out: Option<Scrubbed> = None;
        let mut i = 0;
        let mut copied = 0;
        while i < hay.len() {
            let b = hay[i];
            let whole = firsts
                .iter()
                .any(|f| may_start(b, *f))
                .then(|| {
                    self.0.iter().find_map(|s| match found_at(hay, i, s) {
                        Found::Whole(end) => Some(end),
                        _ => None,
                    })
                })
                .flatten();
            match whole {
                Some(end) => {
                    let (bytes, ranges) =
                        out.get_or_insert_with(|| (Vec::with_capacity(hay.len()), Vec::new()));
                    bytes.extend_from_slice(&hay[copied..i]);
                    bytes.extend_from_slice(REDACTED.as_bytes());
                    ranges.push((i, end));
                    i = end;
                    copied = end;
                }
                None => i += 1,
            }
        }
        let (mut bytes, ranges) = out?;
        bytes.extend_from_slice(&hay[copied..]);
        Some((bytes, ranges))
    }

    /// An underlying error kept as it is, unless its text carries a secret: then
    /// only the scrubbed text is kept.
    fn source(&self, source: crate::core::error::Source) -> crate::core::error::Source {
        let said = source.to_string();
        let clean = self.text(&said);
        if clean == said { source } else { clean.into() }
    }

    /// An error with every secret replaced in every text it carries.
    pub fn error(&self, e: Error) -> Error {
        if self.0.is_empty() {
            return e;
        }
        match e {
            Error::Config(m) => Error::Config(self.text(&m)),
            // Built from io.toml and the capability table, never from what a
            // vendor sent: nothing in it can be a key.
            Error::Refusal(r) => Error::Refusal(r),
            Error::Vendor(mut v) => {
                v.message = self.text(&v.message);
                v.error_type = v.error_type.map(|t| self.text(&t));
                v.code = v.code.map(|t| self.text(&t));
                v.request_id = v.request_id.map(|t| self.text(&t));
                Error::Vendor(v)
            }
            Error::Decode {
                provider,
                message,
                snippet,
            } => Error::Decode {
                provider,
                message: self.text(&message),
                snippet: self.text(&snippet),
            },
            Error::Transport {
                provider,
                message,
                retryable,
            } => Error::Transport {
                provider,
                message: self.text(&message),
                retryable,
            },
            Error::Refused(m) => Error::Refused(self.text(&m)),
            Error::Store { what, source } => Error::Store {
                what: self.text(&what),
                source: source.map(|s| self.source(s)),
            },
            Error::Io { path, source } => Error::Io {
                path: self.text(&path),
                source: self.source(source),
            },
            Error::Export { what, source } => Error::Export {
                what: self.text(&what),
                source: self.source(source),
            },
            Error::Terminal { what, source } => Error::Terminal {
                what: self.text(&what),
                source,
            },
            Error::Cancelled => Error::Cancelled,
        }
    }
}

impl Secrets {
    /// A value with every secret scrubbed from every string in it — every
    /// string as decoded, keys included, walked through its JSON form (a stream's
    /// completion and events are assembled, a whole body's decoded: either may
    /// hold a spelling the bytes did not). A value whose scrubbed form does not
    /// read back is returned as it was only when it held no secret.
    fn value<T: serde::Serialize + serde::de::DeserializeOwned>(&self, v: T) -> Option<T> {
        let mut json = serde_json::to_value(&v).ok()?;
        if !self.walk(&mut json) {
            return Some(v);
        }
        serde_json::from_value(json).ok()
    }

    /// Scrub every string of `v` in place; true when one changed.
    fn walk(&self, v: &mut serde_json::Value) -> bool {
        use serde_json::Value;
        match v {
            Value::String(s) => match self.scrub(s.as_bytes()) {
                Some((out, _)) => {
                    *s = String::from_utf8_lossy(&out).into_owned();
                    true
                }
                None => false,
            },
            Value::Array(items) => items.iter_mut().fold(false, |c, i| self.walk(i) | c),
            Value::Object(map) => {
                let keys: Vec<String> = map
                    .keys()
                    .filter(|k| self.scrub(k.as_bytes()).is_some())
                    .cloned()
                    .collect();
                let mut changed = !keys.is_empty();
                for k in keys {
                    if let Some(x) = map.remove(&k) {
                        map.insert(self.text(&k), x);
                    }
                }
                for x in map.values_mut() {
                    changed |= self.walk(x);
                }
                changed
            }
            _ => false,
        }
    }

    /// A completion with every secret scrubbed from every string decoding
    /// produced. The answer's claims are byte spans of its text: where a secret
    /// in the text was replaced, they are moved to where their text now is.
    pub fn completion(&self, mut c: Completion) -> Completion {
        if self.0.is_empty() {
            return c;
        }
        if let Some((text, ranges)) = self.scrub(c.text.as_bytes()) {
            c.text = String::from_utf8_lossy(&text).into_owned();
            c.claims = moved(std::mem::take(&mut c.claims), &ranges, &c.text);
        }
        self.value(c.clone()).unwrap_or_else(|| Completion {
            text: REDACTED.to_string(),
            tool_calls: Vec::new(),
            citations: Vec::new(),
            claims: Vec::new(),
            server_tools: Vec::new(),
            blocks: Vec::new(),
            search_suggestions: None,
            ..c
        })
    }

    /// The byte length of the longest end of `text` that could be the start of
    /// a secret however spelled (not a whole one): what must wait for the next
    /// piece before it can be shown.
    fn partial_tail(&self, text: &str) -> usize {
        let b = text.as_bytes();
        // A character is spelled in at most 36 bytes (a `\uXXXX` whose every
        // character is itself escaped), so a secret's start lies no further back.
        let reach = self
            .0
            .iter()
            .map(|s| s.chars().count() * 36)
            .max()
            .unwrap_or(0);
        let from = b.len().saturating_sub(reach);
        let firsts: Vec<u8> = self.0.iter().filter_map(|s| s.bytes().next()).collect();
        (from..b.len())
            .filter(|&i| text.is_char_boundary(i) && firsts.iter().any(|f| may_start(b[i], *f)))
            .find(|&i| self.0.iter().any(|s| found_at(b, i, s) == Found::Start))
            .map_or(0, |i| b.len() - i)
    }

    /// An event with every secret scrubbed.
    pub fn event(&self, kind: EventKind) -> EventKind {
        if self.0.is_empty() {
            return kind;
        }
        self.value(kind).unwrap_or(EventKind::TextDelta {
            text: REDACTED.to_string(),
        })
    }
}

/// Live text, scrubbed even when a secret arrives split across pieces (a stream
/// cuts anywhere): each piece is joined to what was held back, scrubbed whole, and
/// passed on except for an end that could be the start of a secret, which waits
/// for the next piece. `flush` hands on what is held: as is when it is too short to
/// be a secret, redacted when it is most of one.
#[derive(Debug, Default)]
pub struct TextScrubber {
    held: String,
}

impl TextScrubber {
    /// The text that can be shown now, if any.
    pub fn push(&mut self, secrets: &Secrets, piece: &str) -> Option<String> {
        self.held.push_str(piece);
        let scrubbed = secrets.text(&self.held);
        let cut = scrubbed.len() - secrets.partial_tail(&scrubbed);
        self.held = scrubbed[cut..].to_string();
        let ready = &scrubbed[..cut];
        (!ready.is_empty()).then(|| ready.to_string())
    }

    /// The text still held back, once no more is coming.
    pub fn flush(&mut self) -> Option<String> {
        let held = std::mem::take(&mut self.held);
        match held.len() {
            0 => None,
            n if n >= MIN_SECRET => Some(REDACTED.to_string()),
            _ => Some(held),
        }
    }
}

/// A URL with the password (or a lone user name) of its user-info replaced, for
/// showing where a provider points without showing how it logs in.
pub fn display_url(raw: &str) -> String {
    Secrets::new(None, raw).text(raw)
}

/// A URL's user-info credentials replaced where they are written, whatever
/// their length, for listing io.toml: `http://user:secret@host` becomes
/// `http://user:[redacted]@host`, `https://TOKEN@host` becomes
/// `https://[redacted]@host`. `None` when `raw` is not a URL with credentials;
/// the whole value when the credentials cannot be told apart from the rest.
pub fn userinfo_redacted(raw: &str) -> Option<String> {
    let url = url::Url::parse(raw.trim()).ok()?;
    if url.password().is_none() && url.username().is_empty() {
        return None;
    }
    let cut = || -> Option<String> {
        let start = raw.find("://")? + 3;
        let rest = &raw[start..];
        let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
        let at = authority.rfind('@')?;
        let shown = match authority[..at].split_once(':') {
            Some((user, _)) => format!("{user}:{REDACTED}"),
            None => REDACTED.to_string(),
        };
        Some(format!("{}{shown}{}", &raw[..start], &rest[at..]))
    };
    Some(cut().unwrap_or_else(|| REDACTED.to_string()))
}

/// Claims over a text whose `ranges` (of the text before) were each replaced by
/// `REDACTED`: each end moved by what the replacements before it changed, an end
/// inside one moved to its edge; a claim left empty is dropped.
fn moved(claims: Vec<Claim>, ranges: &[(usize, usize)], text: &str) -> Vec<Claim> {
    let at = |old: usize, inside_to_end: bool| {
        let mut shift: isize = 0;
        for &(s, e) in ranges {
            let grown = REDACTED.len() as isize - (e - s) as isize;
            if old >= e {
                shift += grown;
            } else if old > s {
                let edge = if inside_to_end { s + REDACTED.len() } else { s };
                return (edge as isize + shift).max(0) as usize;
            } else {
                break;
            }
        }
        (old as isize + shift).max(0) as usize
    };
    claims
        .into_iter()
        .map(|c| Claim {
            start: crate::core::completion::floor_boundary(text, at(c.start, false)),
            end: crate::core::completion::floor_boundary(text, at(c.end, true)),
            ..c
        })
        .filter(|c| c.start < c.end)
        .collect()
}

fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return None;
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urls_credentials_are_redacted_where_written_whatever_their_length() {
        let r = |s: &str| userinfo_redacted(s);
        assert_eq!(
            r("http://user:pw@host:4318/x?q=a@b").as_deref(),
            Some("http://user:[redacted]@host:4318/x?q=a@b")
        );
        assert_eq!(
            r("https://TOKEN@gw.example").as_deref(),
            Some("https://[redacted]@gw.example")
        );
        assert_eq!(r("http://host:4318/v1/traces"), None);
        assert_eq!(r("not a url"), None);
        // Credentials the text cannot be cut around: the whole value goes.
        assert_eq!(r("http:user:pw@host").as_deref(), Some(REDACTED));
    }

    #[test]
    fn a_secret_split_anywhere_across_pieces_is_scrubbed_whole() {
        // A secret that overlaps itself ("abab" in "ababab") is the hard case: a
        // naive hold-back can pass on half of one occurrence.
        let secrets = Secrets::new(Some("abab"), "https://h");
        let text = "x ababab y abab; ab z";
        let want = secrets.text(text);
        assert_eq!(want, "x [redacted]ab y [redacted]; ab z");
        let n = text.len();
        for i in 0..=n {
            for j in i..=n {
                let mut t = TextScrubber::default();
                let mut shown = String::new();
                for piece in [&text[..i], &text[i..j], &text[j..]] {
                    shown.extend(t.push(&secrets, piece));
                }
                shown.extend(t.flush());
                assert_eq!(shown, want, "cut at {i} and {j}");
            }
        }
        // The start of a secret at the very end: redacted from MIN_SECRET bytes on,
        // shown when shorter (an answer ending in "s" beside a key "sk-…" keeps it).
        let secrets = Secrets::new(Some("sk-test-SECRET"), "https://h");
        let mut t = TextScrubber::default();
        assert_eq!(t.push(&secrets, "ends sk-test"), Some("ends ".to_string()));
        assert_eq!(t.flush(), Some(REDACTED.to_string()));
        let mut t = TextScrubber::default();
        assert_eq!(t.push(&secrets, "versions"), Some("version".to_string()));
        assert_eq!(t.flush(), Some("s".to_string()));
    }

    #[test]
    fn key_password_and_lone_user_are_scrubbed() {
        let s = Secrets::new(Some("sk-abc-123"), "https://me:p%40ss-word@h.test/api");
        assert_eq!(
            s.text("key sk-abc-123 pw p%40ss-word or p@ss-word, user me"),
            "key [redacted] pw [redacted] or [redacted], user me"
        );
        let token = Secrets::new(None, "https://tok-0123456@h.test");
        assert_eq!(
            token.text("GET https://tok-0123456@h.test"),
            "GET https://[redacted]@h.test"
        );
        assert_eq!(
            s.bytes(b"\xff sk-abc-123 \xfe".to_vec()),
            b"\xff [redacted] \xfe".to_vec()
        );
        assert_eq!(Secrets::new(Some("ab"), "nonsense").text("ab"), "ab");
        assert_eq!(
            display_url("http://u:secret-pw@127.0.0.1:9"),
            "http://u:[redacted]@127.0.0.1:9"
        );
    }
}
