//! The per-step caps every wire shares (`core::capability`:
//! `MAX_SERVER_TOOL_CALLS`, `MAX_CITATIONS`, `MAX_CITED_BYTES`), applied here
//! and nowhere else. `bound` holds a decoded answer to them — `wire::decode_wire`
//! and the stream assembler's `finish` both end in it, so a whole body and a
//! stream meet the same caps on every wire — and counts what it leaves out in
//! `Completion::cut`. `Citations` lets a decoder stop allocating at the cap
//! (Gemini's grounding can name one chunk a million times); `Live` holds the
//! deltas a stream reports as it arrives to the same numbers. Pure.

use crate::core::capability::{MAX_CITATIONS, MAX_CITED_BYTES, MAX_SERVER_TOOL_CALLS};
use crate::core::completion::{Citation, Completion};

/// What one citation costs against `MAX_CITED_BYTES`: its URL, title and quote.
pub fn size(c: &Citation) -> usize {
    c.url.len()
        + c.title.as_ref().map_or(0, String::len)
        + c.cited_text.as_ref().map_or(0, String::len)
}

/// A step's citations so far, against the caps: each is admitted while it fits
/// (in number and in bytes), else counted as left out.
#[derive(Debug, Default)]
pub struct Citations {
    kept: usize,
    bytes: usize,
    cut: u64,
}

impl Citations {
    /// Whether one more citation of `size` bytes is kept; counted when not.
    pub fn admit(&mut self, size: usize) -> bool {
        if self.kept < MAX_CITATIONS && self.bytes.saturating_add(size) <= MAX_CITED_BYTES {
            self.kept += 1;
            self.bytes += size;
            true
        } else {
            self.cut = self.cut.saturating_add(1);
            false
        }
    }

    /// How many were left out.
    pub fn cut(&self) -> u64 {
        self.cut
    }
}

/// An answer held to the per-step caps: the server-tool calls past
/// `MAX_SERVER_TOOL_CALLS`, the citations that do not fit, and the claims'
/// links past `MAX_CITATIONS`, each counted in `cut` (added to what its decoder
/// already counted) and dropped. An answer within the caps is returned as it was.
pub fn bound(mut c: Completion) -> Completion {
    if c.server_tools.len() > MAX_SERVER_TOOL_CALLS {
        for call in c.server_tools.drain(MAX_SERVER_TOOL_CALLS..) {
            c.cut.call(&call);
        }
    }
    let mut budget = Citations::default();
    c.citations.retain(|x| budget.admit(size(x)));
    c.cut.citations = c.cut.citations.saturating_add(budget.cut());
    let mut links = 0usize;
    for claim in &mut c.claims {
        let room = MAX_CITATIONS.saturating_sub(links);
        if claim.urls.len() > room {
            let left = (claim.urls.len() - room) as u64;
            c.cut.claim_links = c.cut.claim_links.saturating_add(left);
            claim.urls.truncate(room);
        }
        links += claim.urls.len();
    }
    c.claims.retain(|claim| !claim.urls.is_empty());
    c
}

/// What a stream has reported so far, against the same caps: the deltas past
/// them are not reported (the answer's `cut` counts them once it is complete).
#[derive(Debug, Default)]
pub struct Live {
    started: usize,
    returned: usize,
    citations: Citations,
}

impl Live {
    /// Whether a server-tool call's start is reported.
    pub fn started(&mut self) -> bool {
        self.started += 1;
        self.started <= MAX_SERVER_TOOL_CALLS
    }

    /// Whether a server-tool call's result is reported.
    pub fn returned(&mut self) -> bool {
        self.returned += 1;
        self.returned <= MAX_SERVER_TOOL_CALLS
    }

    /// Whether a citation is reported.
    pub fn citation(&mut self, c: &Citation) -> bool {
        self.citations.admit(size(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::completion::{Claim, ServerToolCall};
    use crate::core::vendor::Vendor;

    #[test]
    fn an_answer_past_the_caps_keeps_the_first_and_counts_the_rest() {
        let mut calls = vec![ServerToolCall::failed(Vendor::Gemini, "web_search", "x"); 2];
        calls.extend(vec![ServerToolCall::ok(Vendor::Gemini, "web_search"); 100]);
        calls.push(ServerToolCall::ok(Vendor::Gemini, "web_fetch"));
        let cite = |n: usize| Citation {
            url: format!("https://a.example/{n}"),
            title: None,
            cited_text: None,
        };
        let c = bound(Completion {
            server_tools: calls,
            citations: (0..300).map(cite).collect(),
            claims: vec![Claim {
                start: 0,
                end: 0,
                urls: (0..300).map(|n| n.to_string()).collect(),
            }],
            ..Completion::default()
        });
        assert_eq!(c.server_tools.len(), MAX_SERVER_TOOL_CALLS);
        assert_eq!(c.citations.len(), MAX_CITATIONS);
        assert_eq!(c.claims[0].urls.len(), MAX_CITATIONS);
        assert_eq!(c.cut.server_tool_calls, 103 - 64);
        assert_eq!((c.cut.searches, c.cut.fetches), (103 - 64 - 1, 1));
        assert_eq!((c.cut.citations, c.cut.claim_links), (44, 44));
        // One quote as long as the byte cap: it alone is kept.
        let long = Citation {
            cited_text: Some("x".repeat(MAX_CITED_BYTES - 20)),
            ..cite(0)
        };
        let c = bound(Completion {
            citations: vec![long, cite(1)],
            ..Completion::default()
        });
        assert_eq!((c.citations.len(), c.cut.citations), (1, 1));
    }
}
