//! The deterministic scores of one answer: `normalise`, `correct` (whole
//! words, or a number as a number: `core::eval::number`), `url_recall`, and
//! the nearest-rank `percentile` of wall times (see the module's notes in
//! `core::eval`).

use std::collections::BTreeSet;
use std::sync::LazyLock;

use super::number;
use crate::core::record::{domain, identity};

static TOKEN: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(r"\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)+|[\p{L}\p{N}]+").ok()
});

/// Text as answers are compared (see the module's notes): lowercased words and
/// numbers, one space between.
pub fn normalise(text: &str) -> String {
    let lower = text.to_lowercase();
    let Some(token) = TOKEN.as_ref() else {
        return crate::core::text::one_line(&lower);
    };
    token
        .find_iter(&lower)
        .map(|m| number(m.as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A number token: thousands commas dropped, a decimal's trailing zeros too.
fn number(token: &str) -> String {
    if !token.starts_with(|c: char| c.is_ascii_digit()) {
        return token.to_string();
    }
    let plain: String = token.chars().filter(|&c| c != ',').collect();
    match plain.split_once('.') {
        Some((whole, frac)) if !frac.contains('.') => {
            let frac = frac.trim_end_matches('0');
            if frac.is_empty() {
                whole.to_string()
            } else {
                format!("{whole}.{frac}")
            }
        }
        _ => plain,
    }
}

/// Whether some gold answer is in `answer` — as whole words, both
/// normalised, or, for a gold that is a number alone or states a range, as a
/// number it accepts (`core::eval::number`); `None` when there are no gold
/// answers.
pub fn correct(answer: &str, gold: &[String]) -> Option<bool> {
    let golds: Vec<(&String, String)> = gold
        .iter()
        .map(|g| (g, normalise(g)))
        .filter(|(_, n)| !n.is_empty())
        .collect();
    if golds.is_empty() {
        return None;
    }
    let said = format!(" {} ", normalise(answer));
    Some(golds.iter().any(|(g, n)| {
        said.contains(&format!(" {n} "))
            || number::accepts(g).is_some_and(|a| number::matches(answer, a))
    }))
}

/// The share of `gold` URLs among `cited` (by `core::record::identity`), and the share whose
/// domain is among the cited domains; `None` when there are no gold URLs.
pub fn url_recall(gold: &[String], cited: &[String]) -> (Option<f64>, Option<f64>) {
    let gold: BTreeSet<String> = gold.iter().map(|u| identity(u)).collect();
    if gold.is_empty() {
        return (None, None);
    }
    let cited: BTreeSet<String> = cited.iter().map(|u| identity(u)).collect();
    let cited_domains: BTreeSet<String> = cited.iter().filter_map(|u| domain(u)).collect();
    let n = gold.len() as f64;
    let urls = gold.intersection(&cited).count() as f64 / n;
    let domains = gold
        .iter()
        .filter(|u| domain(u).is_some_and(|d| cited_domains.contains(&d)))
        .count() as f64
        / n;
    (Some(urls), Some(domains))
}

/// The nearest-rank `p`th percentile (0–100) of `values`; `None` when empty.
pub fn percentile(values: &[u64], p: u32) -> Option<u64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    if sorted.is_empty() {
        return None;
    }
    let rank = (u64::from(p.min(100)) * sorted.len() as u64).div_ceil(100);
    let i = usize::try_from(rank.max(1) - 1).unwrap_or(0);
    sorted.get(i.min(sorted.len() - 1)).copied()
}
