//! Gemini's claims: what each source of a grounded answer was cited for, read
//! from `groundingMetadata.groundingSupports` (a segment of the answer and the
//! chunks that support it). Pure: the grounding and the answer text in, claims out.

use serde_json::Value;

use super::json::str_field;
use crate::core::completion::Claim;

/// What each source was cited for: per `groundingSupports` entry, its segment
/// (`startIndex` to `endIndex`, bytes of the part `partIndex` names, 0 where
/// absent) with the web chunks it names. A segment whose offsets do not hold its
/// own `text` is found by that text in the answer instead; one found neither way
/// is left out.
pub(crate) fn claims(g: &Value, text: &str, offsets: &[usize]) -> Vec<Claim> {
    let urls: Vec<Option<String>> = g
        .get("groundingChunks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|chunk| chunk.get("web").and_then(|w| str_field(w, "uri")))
        .collect();
    let mut out = Vec::new();
    let supports = g.get("groundingSupports").and_then(Value::as_array);
    for support in supports.into_iter().flatten() {
        let Some(segment) = support.get("segment") else {
            continue;
        };
        let Some((start, end)) = segment_span(segment, text, offsets) else {
            continue;
        };
        let indices = support
            .get("groundingChunkIndices")
            .and_then(Value::as_array);
        for i in indices.into_iter().flatten().filter_map(Value::as_u64) {
            let url = usize::try_from(i).ok().and_then(|i| urls.get(i)?.as_ref());
            if let Some(url) = url {
                Claim::add(&mut out, text, start, end, url);
            }
        }
    }
    out
}

/// A segment's span in the answer text, in bytes.
fn segment_span(segment: &Value, text: &str, offsets: &[usize]) -> Option<(usize, usize)> {
    let n = |k: &str| segment.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let base = offsets
        .get(n("partIndex").unwrap_or(0))
        .copied()
        .unwrap_or(0);
    let said = str_field(segment, "text");
    let start = base.saturating_add(n("startIndex").unwrap_or(0));
    let end = n("endIndex").map(|e| base.saturating_add(e));
    if let Some(end) = end.filter(|e| *e <= text.len() && start < *e) {
        let held = text.get(start..end);
        if said.is_none() || held.is_some() && held == said.as_deref() {
            return Some((start, end));
        }
    }
    let said = said.filter(|s| !s.is_empty())?;
    let at = text.find(&said)?;
    Some((at, at + said.len()))
}
