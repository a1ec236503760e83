//! Gemini's claims: what each source of a grounded answer was cited for, read
//! from `groundingMetadata.groundingSupports` (a segment of the answer and the
//! chunks that support it). Pure: the grounding and the answer text in, claims
//! out, in time linear in them: a segment naming a chunk twice links it once, a
//! claim finds its span and its URLs by a map and a set (`ClaimSet`), and the
//! links past the per-step cap are counted, not kept.

use std::collections::HashMap;

use serde_json::Value;

use super::gemini_grounding::{chunk_indices, supports, web_chunks};
use crate::core::capability::MAX_CITATIONS;
use crate::core::completion::{Claim, ClaimSet};

/// How far a segment whose offsets miss its text is looked for in the answer,
/// all segments together: this many times the answer's length (and a megabyte
/// besides). Each search reads the answer from its start, so an unbounded
/// number of them would cost the answer's length once per segment; past the
/// budget a segment is placed by its offsets only, else left out.
const SEARCH_BUDGET: usize = 16;

/// What each source was cited for: per `groundingSupports` entry, its segment
/// (`startIndex` to `endIndex`, bytes of the part `partIndex` names, 0 where
/// absent) with the web chunks it names. A segment whose offsets do not hold its
/// own `text` is found by that text in the answer instead; one found neither way
/// is left out. Returns the claims and how many links were left out.
pub(crate) fn claims(g: &Value, text: &str, offsets: &[usize]) -> (Vec<Claim>, u64) {
    let chunks = web_chunks(g);
    let mut out = ClaimSet::new(MAX_CITATIONS);
    let mut named_by = vec![usize::MAX; chunks.len()];
    let mut finder = Finder::new(text);
    for (n, support) in supports(g).iter().enumerate() {
        let Some(segment) = support.get("segment") else {
            continue;
        };
        let Some((start, end)) = segment_span(segment, text, offsets, &mut finder) else {
            continue;
        };
        for i in chunk_indices(support, chunks.len()) {
            if named_by[i] == n {
                continue;
            }
            named_by[i] = n;
            if let Some((url, _)) = chunks[i] {
                out.add(text, start, end, url);
            }
        }
    }
    out.finish()
}

/// Segment texts looked for in the answer: each text once, within the budget.
struct Finder<'a> {
    text: &'a str,
    found: HashMap<&'a str, Option<usize>>,
    left: usize,
}

impl<'a> Finder<'a> {
    fn new(text: &'a str) -> Self {
        Finder {
            text,
            found: HashMap::new(),
            left: text
                .len()
                .saturating_mul(SEARCH_BUDGET)
                .saturating_add(1 << 20),
        }
    }

    /// Where `said` first is in the answer, while the budget lasts.
    fn find(&mut self, said: &'a str) -> Option<usize> {
        if let Some(at) = self.found.get(said) {
            return *at;
        }
        if self.left == 0 {
            return None;
        }
        let at = self.text.find(said);
        let read = at.map_or(self.text.len(), |a| a + said.len());
        self.left = self.left.saturating_sub(read.max(1));
        self.found.insert(said, at);
        at
    }
}

/// A segment's span in the answer text, in bytes.
fn segment_span<'a>(
    segment: &'a Value,
    text: &str,
    offsets: &[usize],
    finder: &mut Finder<'a>,
) -> Option<(usize, usize)> {
    let n = |k: &str| segment.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let base = offsets
        .get(n("partIndex").unwrap_or(0))
        .copied()
        .unwrap_or(0);
    let said = segment.get("text").and_then(Value::as_str);
    let start = base.saturating_add(n("startIndex").unwrap_or(0));
    let end = n("endIndex").map(|e| base.saturating_add(e));
    if let Some(end) = end.filter(|e| *e <= text.len() && start < *e) {
        let held = text.get(start..end);
        if said.is_none() || held.is_some() && held == said {
            return Some((start, end));
        }
    }
    let said = said.filter(|s| !s.is_empty())?;
    let at = finder.find(said)?;
    Some((at, at + said.len()))
}
