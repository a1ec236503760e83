//! Citation quality as the attribution literature (ALCE) measures it, from the
//! verdicts `check-sources` recorded — no model judges here, and every report
//! names what did (`VERIFIER`):
//!
//! - a citation **supports** the sentence it is attached to when its quote was
//!   found on the page fetched (`found`), or, where the vendor quoted nothing
//!   (`no_quote`), when at least `OVERLAP_SUPPORTS` of the sentence's content
//!   words are in one passage of that page (`core::claims::overlap`);
//! - a citation is **checked** when its verdict reached the page
//!   (`Verdict::reached_page`); one not allowed by the policy, or unreachable,
//!   says nothing and is left out;
//! - **citation recall**: the final answer's sentences whose citations support
//!   them ÷ its sentences whose support is known — a sentence with no citation
//!   counts as unsupported (as ALCE counts it), one whose citations were not
//!   all checked and none supports is unknown and left out;
//! - **citation precision**: checked citations that support their sentence ÷
//!   checked citations.
//!
//! Both are `None` until some citation of the run was checked. Pure.

use crate::core::claims::{ClaimSentence, Source};
use crate::core::verdict::Verdict;

/// The share of a quote-less claim's content words that must be in one
/// passage of its page for the page to count as supporting it.
pub const OVERLAP_SUPPORTS: f64 = 0.8;

/// What decided support, as every report names it.
pub const VERIFIER: &str = "the quote found on the page fetched under [policy] (for a citation \
without a quote: 80% of the sentence's content words in one passage of it); not an entailment model";

/// Whether source `s` supports the sentence it is attached to.
pub fn supports(s: &Source) -> bool {
    match s.verdict {
        Some(Verdict::Found) => true,
        Some(Verdict::NoQuote) => s.overlap.is_some_and(|o| o >= OVERLAP_SUPPORTS),
        _ => false,
    }
}

fn checked(s: &Source) -> bool {
    s.verdict.is_some_and(Verdict::reached_page)
}

/// Citation recall and precision of a final answer's sentences (see the module).
pub fn quality(sentences: &[ClaimSentence]) -> (Option<f64>, Option<f64>) {
    let all: Vec<&Source> = sentences.iter().flat_map(|s| &s.citations).collect();
    let checked_all: Vec<&Source> = all.iter().copied().filter(|c| checked(c)).collect();
    if checked_all.is_empty() {
        return (None, None);
    }
    let (mut supported, mut known) = (0usize, 0usize);
    for s in sentences {
        if s.citations.iter().any(supports) {
            supported += 1;
            known += 1;
        } else if s.citations.iter().all(checked) {
            // No citation, or every one read and none supports.
            known += 1;
        }
    }
    let share = |n: usize, d: usize| (d > 0).then(|| n as f64 / d as f64);
    let good = checked_all.iter().filter(|c| supports(c)).count();
    (share(supported, known), share(good, checked_all.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(citations: &[(Option<Verdict>, Option<f64>)]) -> ClaimSentence {
        ClaimSentence {
            text: "s".into(),
            citations: citations
                .iter()
                .map(|(verdict, overlap)| Source {
                    url: "https://e.org".into(),
                    verdict: *verdict,
                    overlap: *overlap,
                })
                .collect(),
            ..ClaimSentence::default()
        }
    }

    #[test]
    fn recall_and_precision_worked_by_hand() {
        use Verdict::*;
        let answer = [
            // 1: two citations, the quote of one found: supported.
            sentence(&[(Some(Found), None), (Some(NotFound), None)]),
            // 2: no citation: known, unsupported.
            sentence(&[]),
            // 3: a quote-less citation whose claim's words are 90% on the page: supported.
            sentence(&[(Some(NoQuote), Some(0.9))]),
            // 4: read, 50% of the words: known, unsupported.
            sentence(&[(Some(NoQuote), Some(0.5))]),
            // 5: not allowed by the policy: unknown, left out.
            sentence(&[(Some(NotAllowed), None)]),
            // 6: never checked: unknown, left out.
            sentence(&[(None, None)]),
        ];
        // Recall: supported {1, 3} of known {1, 2, 3, 4} = 2/4.
        // Precision: checked citations found/no_quote/not_found = 4 (1a, 1b, 3, 4);
        // supporting {1a, 3} = 2/4.
        assert_eq!(quality(&answer), (Some(0.5), Some(0.5)));
        // Exactly at the threshold counts.
        assert_eq!(
            quality(&[sentence(&[(Some(NoQuote), Some(OVERLAP_SUPPORTS))])]),
            (Some(1.0), Some(1.0))
        );
        // Nothing checked: unknown, not 0.
        assert_eq!(
            quality(&[sentence(&[]), sentence(&[(None, None)])]),
            (None, None)
        );
        assert_eq!(quality(&[]), (None, None));
    }
}
