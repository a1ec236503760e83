//! What each source was cited for, sentence by sentence, defined once: the
//! sentences of an answer, the sources of each, a run's three claim figures, and
//! the lexical overlap `check-sources` reports for a claim without a quote. Pure:
//! text and rows in, sentences and numbers out; no model judges anything here.
//!
//! - A **sentence** is a piece of the answer between two Unicode sentence
//!   boundaries (UAX #29, as `unicode-segmentation`'s `split_sentence_bound_indices`
//!   finds them), white space trimmed from both ends; a piece that is only white
//!   space is none. A line break ends a sentence, so each heading or list item is one.
//!   A boundary inside a URL, a Markdown link (`[text](target)`) or inline code
//!   is none: `https://x.io/a?b=c` ends no sentence at its `?`.
//! - A sentence's **sources** are the URLs of every claim (`Claim`) of its step
//!   whose span overlaps it, in order, each once.
//! - **cited share**: sentences of the final answer with at least one source ÷
//!   its sentences (`None` when it has none).
//! - A citation is **checked** when its verdict reached the page
//!   (`Verdict::reached_page`: found, not found, no quote). One the policy did
//!   not allow, or that was unreachable, says nothing about the source: it stays
//!   unchecked, as one never looked at does.
//! - **verified share**: the run's checked citations whose quote was `found` ÷
//!   its checked citations (`None` when none was checked).
//! - **unsupported**: sentences with sources, every source checked and none
//!   supporting it (`None` when none of the run's citations was checked).

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use crate::core::completion::Claim;
use crate::core::verdict::Verdict;

/// Spans a sentence boundary never falls inside, each on one line: inline code
/// (`` `x` ``, ``` ``x`` ```), a Markdown link with its target (one level of
/// parentheses inside it), a bare URL.
static UNBREAKABLE: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(
        r"``[^\n]+?``|`[^`\n]+`|\[[^\]\n]*\]\((?:[^()\s]|\([^()\s]*\))*\)|[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>()\[\]`]+",
    )
    .ok()
});

/// The sentences of `text`, as byte spans (start, end), in order. A UAX #29
/// boundary inside a URL, a Markdown link or inline code is not one (a `?` in a
/// link's query string ends no sentence).
pub fn sentences(text: &str) -> Vec<(usize, usize)> {
    let keep: Vec<(usize, usize)> = UNBREAKABLE
        .as_ref()
        .map(|re| re.find_iter(text).map(|m| (m.start(), m.end())).collect())
        .unwrap_or_default();
    let inside = |at: usize| keep.iter().any(|&(s, e)| s < at && at < e);
    let mut out = Vec::new();
    let mut from = 0;
    for (at, piece) in text.split_sentence_bound_indices() {
        let to = at + piece.len();
        if to < text.len() && inside(to) {
            continue;
        }
        let piece = &text[from..to];
        let lead = piece.len() - piece.trim_start().len();
        let body = piece.trim();
        if !body.is_empty() {
            out.push((from + lead, from + lead + body.len()));
        }
        from = to;
    }
    out
}

/// One source of a sentence, with what `check-sources` found for it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// The cited URL.
    pub url: String,
    /// What `check-sources` found; `None` when it was not run on it.
    pub verdict: Option<Verdict>,
    /// For a claim without a quote, the share of its content words on the page
    /// (a lexical overlap: a hint, not proof); `None` otherwise.
    pub overlap: Option<f64>,
}

/// One sentence of an answer and its sources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaimSentence {
    /// The step whose answer it is in.
    pub step: u32,
    /// Where it starts in the step's text, in bytes.
    pub start: usize,
    /// Where it ends (exclusive), in bytes.
    pub end: usize,
    /// The sentence.
    pub text: String,
    /// Its sources; empty when it has none.
    pub citations: Vec<Source>,
}

/// Whether a claim's span touches the sentence `(start, end)` (an empty span
/// touches the sentence it is in).
fn touches(c: &Claim, (start, end): (usize, usize)) -> bool {
    if c.start == c.end {
        return start <= c.start && c.start < end;
    }
    c.start < end && start < c.end
}

/// Step `step`'s `text` sentence by sentence, each with the URLs of the claims
/// that touch it, and what `checked` says of each (its verdict and overlap).
pub fn by_sentence(
    step: u32,
    text: &str,
    claims: &[Claim],
    checked: impl Fn(&str) -> (Option<Verdict>, Option<f64>),
) -> Vec<ClaimSentence> {
    sentences(text)
        .into_iter()
        .map(|span| {
            let mut urls: Vec<&str> = Vec::new();
            for c in claims.iter().filter(|c| touches(c, span)) {
                for u in &c.urls {
                    if !urls.contains(&u.as_str()) {
                        urls.push(u);
                    }
                }
            }
            let citations = urls
                .into_iter()
                .map(|url| {
                    let (verdict, overlap) = checked(url);
                    Source {
                        url: url.to_string(),
                        verdict,
                        overlap,
                    }
                })
                .collect();
            ClaimSentence {
                step,
                start: span.0,
                end: span.1,
                text: text[span.0..span.1].to_string(),
                citations,
            }
        })
        .collect()
}

/// A run's three claim figures (see the module's definitions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaimFigures {
    /// Sentences with a source ÷ sentences.
    pub cited_share: Option<f64>,
    /// Checked citations `found` ÷ checked citations.
    pub verified_share: Option<f64>,
    /// Sentences whose every source was checked and none supports.
    pub unsupported: Option<u64>,
    /// Citations whose check did not reach the page because the policy does
    /// not allow fetching it: unchecked, and said why.
    #[serde(default)]
    pub not_allowed: u64,
    /// Citations whose page could not be fetched or read: unchecked.
    #[serde(default)]
    pub unreachable: u64,
}

impl ClaimFigures {
    /// The figures of a final answer's sentences and the verdicts of every
    /// citation of its run that was checked.
    pub fn of(
        sentences: &[ClaimSentence],
        verdicts: impl IntoIterator<Item = Verdict>,
    ) -> ClaimFigures {
        let all: Vec<Verdict> = verdicts.into_iter().collect();
        let checked: Vec<Verdict> = all.iter().copied().filter(|v| v.reached_page()).collect();
        let share = |part: usize, whole: usize| (whole > 0).then(|| part as f64 / whole as f64);
        let cited = sentences.iter().filter(|s| !s.citations.is_empty()).count();
        let found = checked.iter().filter(|v| v.supports()).count();
        let unsupported = sentences
            .iter()
            .filter(|s| {
                !s.citations.is_empty()
                    && s.citations
                        .iter()
                        .all(|c| c.verdict.is_some_and(|v| v.reached_page() && !v.supports()))
            })
            .count() as u64;
        let count = |want: Verdict| all.iter().filter(|v| **v == want).count() as u64;
        ClaimFigures {
            cited_share: share(cited, sentences.len()),
            verified_share: share(found, checked.len()),
            unsupported: (!checked.is_empty()).then_some(unsupported),
            not_allowed: count(Verdict::NotAllowed),
            unreachable: count(Verdict::Unreachable),
        }
    }

    /// Why sources were looked at but not read, in words (`3 not allowed by
    /// [policy], 1 unreachable`); `None` when every checked source was read.
    pub fn unread(&self) -> Option<String> {
        let parts: Vec<String> = [
            (self.not_allowed, "not allowed by [policy]"),
            (self.unreachable, "unreachable"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, why)| format!("{n} {why}"))
        .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// Words that carry no content of their own; left out of a claim's words.
const FUNCTION_WORDS: [&str; 64] = [
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he",
    "her", "his", "how", "i", "if", "in", "into", "is", "it", "its", "may", "more", "most", "no",
    "not", "of", "on", "or", "our", "she", "so", "some", "such", "than", "that", "the", "their",
    "then", "there", "these", "they", "this", "to", "was", "were", "which", "will", "with",
];

/// The words of `text`, lower case (Unicode words: letters or digits).
pub fn words(text: &str) -> Vec<String> {
    text.unicode_words().map(str::to_lowercase).collect()
}

/// The content words of `text`: its words less `FUNCTION_WORDS`, each once.
pub fn content_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words(text) {
        if !FUNCTION_WORDS.contains(&w.as_str()) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// Markdown links and bare URLs: a citation's marker, not the claim's wording.
static LINKS: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r"\(?\[[^\]]*\]\([^)]*\)\)?|https?://\S+").ok());

/// The wording a claim is looked for by: the sentences of `answer` its span
/// touches, Markdown links and bare URLs left out (OpenAI's span is often the
/// link it inserted after the sentence).
pub fn claim_wording(answer: &str, claim: &Claim) -> String {
    let text = sentences(answer)
        .into_iter()
        .filter(|s| touches(claim, *s))
        .map(|(s, e)| &answer[s..e])
        .collect::<Vec<_>>()
        .join(" ");
    match LINKS.as_ref() {
        Some(re) => re.replace_all(&text, " ").into_owned(),
        None => text,
    }
}

/// How much of `claim`'s wording is on `page`: of every run of page words twice
/// as long as the claim has content words, the most of those words one run
/// holds, ÷ the claim's content words. 0 to 1; `None` when the claim has no
/// content word. A lexical overlap: a hint, not proof.
pub fn overlap(claim: &str, page: &str) -> Option<f64> {
    let wanted = content_words(claim);
    if wanted.is_empty() {
        return None;
    }
    let page = words(page);
    let window = (2 * wanted.len()).max(1);
    let mut counts: HashMap<&str, usize> = wanted.iter().map(|w| (w.as_str(), 0)).collect();
    let (mut present, mut best) = (0usize, 0usize);
    for (i, w) in page.iter().enumerate() {
        if let Some(n) = counts.get_mut(w.as_str()) {
            *n += 1;
            present += usize::from(*n == 1);
        }
        if i >= window {
            if let Some(n) = counts.get_mut(page[i - window].as_str()) {
                *n -= 1;
                present -= usize::from(*n == 0);
            }
        }
        best = best.max(present);
    }
    Some(best as f64 / wanted.len() as f64)
}

impl ClaimFigures {
    /// The three figures as every view words them: the cited share, then the
    /// verified share and the unsupported count, or "not checked" for both.
    pub fn words(&self) -> [String; 3] {
        let pct = crate::core::text::share;
        let checked = self.verified_share.is_some();
        [
            pct(self.cited_share),
            if checked {
                pct(self.verified_share)
            } else {
                "not checked".to_string()
            },
            self.unsupported
                .map_or("not checked".to_string(), |n| n.to_string()),
        ]
    }
}
