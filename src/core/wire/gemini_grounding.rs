//! What a Gemini answer's `groundingMetadata` says, read for the whole-body
//! decoder (`gemini`), its claims (`gemini_claims`) and the stream assembler
//! alike: the searches (`webSearchQueries`), the citations (each supporting
//! segment with the web chunks it names, then the chunks no segment names),
//! and the readers under them. Each is read in one pass and held to the
//! per-step caps as it is read (`cap`), so what a vendor lists — a query a
//! million times, one chunk named a million times — costs what its bytes do.
//! Pure.

use serde_json::Value;

use super::cap::Citations;
use crate::core::capability::MAX_SERVER_TOOL_CALLS;
use crate::core::completion::{Citation, ServerToolCall};
use crate::core::vendor::Vendor;

const PROVIDER: Vendor = Vendor::Gemini;

/// One search per `webSearchQueries` entry, with its query, up to the per-step
/// cap (`capability::MAX_SERVER_TOOL_CALLS`); the entries past it are counted in
/// the returned number, not allocated (a million of them is a 4 MB body).
/// (`web_search`, the crate's name for a search, which the ledger and the prices
/// count by.)
pub(crate) fn searches(g: &Value) -> (Vec<ServerToolCall>, u64) {
    let queries = g
        .get("webSearchQueries")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut kept = Vec::new();
    let mut left = 0u64;
    for q in queries.iter().filter_map(Value::as_str) {
        if kept.len() < MAX_SERVER_TOOL_CALLS {
            kept.push(ServerToolCall::ok(PROVIDER, "web_search").with_input(q));
        } else {
            left += 1;
        }
    }
    (kept, left)
}

/// The citations of a grounding, in the answer's reading order: one per
/// `groundingSupports` segment and chunk it names (`groundingChunks[].web`: the
/// url as sent, the title), the segment's text as the cited text — a chunk
/// named twice by one segment once; then each chunk no segment names, without a
/// quote. Indices out of range are ignored; non-web chunks (Maps, file search)
/// are not web sources and give none. Built in one pass, and only while the
/// per-step caps hold (`cap::Citations`): a segment naming one chunk a million
/// times, or a long segment naming many chunks, costs what its bytes do; the
/// citations left out are counted in the returned number.
pub(crate) fn citations(g: &Value) -> (Vec<Citation>, u64) {
    let chunks = web_chunks(g);
    let mut budget = Citations::default();
    let mut out = Vec::new();
    // The support that last named each chunk (a repeat within one is skipped),
    // and whether any support named it.
    let mut named_by = vec![usize::MAX; chunks.len()];
    for (n, support) in supports(g).iter().enumerate() {
        let Some(text) = support
            .get("segment")
            .and_then(|s| s.get("text"))
            .and_then(Value::as_str)
        else {
            continue;
        };
        for i in chunk_indices(support, chunks.len()) {
            if named_by[i] == n {
                continue;
            }
            named_by[i] = n;
            if let Some((url, title)) = chunks[i] {
                let size = url.len() + title.map_or(0, str::len) + text.len();
                if budget.admit(size) {
                    out.push(Citation {
                        url: url.to_string(),
                        title: title.map(str::to_string),
                        cited_text: Some(text.to_string()),
                    });
                }
            }
        }
    }
    for (i, chunk) in chunks.iter().enumerate() {
        if let (usize::MAX, Some((url, title))) = (named_by[i], chunk) {
            if budget.admit(url.len() + title.map_or(0, str::len)) {
                out.push(Citation {
                    url: url.to_string(),
                    title: title.map(str::to_string),
                    cited_text: None,
                });
            }
        }
    }
    (out, budget.cut())
}

/// Each grounding chunk's web source (its url and title, borrowed), `None` for a
/// chunk that is not a web source.
pub(crate) fn web_chunks(g: &Value) -> Vec<Option<(&str, Option<&str>)>> {
    g.get("groundingChunks")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|chunk| {
            let web = chunk.get("web")?;
            let url = web.get("uri").and_then(Value::as_str)?;
            Some((url, web.get("title").and_then(Value::as_str)))
        })
        .collect()
}

/// The grounding's supports.
pub(crate) fn supports(g: &Value) -> &[Value] {
    g.get("groundingSupports")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The chunk indices a support names that are in range, in order.
pub(crate) fn chunk_indices(support: &Value, chunks: usize) -> impl Iterator<Item = usize> + '_ {
    support
        .get("groundingChunkIndices")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_u64)
        .filter_map(move |i| usize::try_from(i).ok().filter(|i| *i < chunks))
}
