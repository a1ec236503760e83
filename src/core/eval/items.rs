//! A set answer (DeepSearchQA's `Set Answer`: every item is wanted) scored
//! without a model: **recall** is the share of the gold items found in the
//! final answer (each as `correct` finds one answer: whole normalised words,
//! or a number as a number); **precision** is the share of the answer's own
//! items that hold a gold item, where the answer's items are its pieces
//! between line breaks, list markers, `;`, `,` and the words `and` / `or`
//! (normalised, each once). Prose around a list makes pieces of its own, so
//! precision is a **lower bound** on what a grader that reads the list would
//! give; **F1** is their harmonic mean, and a lower bound with it. Pure.

use super::score::{correct, normalise};

/// A set answer's three figures (each 0 to 1).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SetScore {
    /// Gold items found ÷ gold items.
    pub recall: f64,
    /// The answer's items holding a gold item ÷ the answer's items (a lower bound).
    pub precision: f64,
    /// Their harmonic mean (0 when both are 0).
    pub f1: f64,
}

/// The harmonic mean of `a` and `b`; 0 when both are 0.
pub fn harmonic(a: f64, b: f64) -> f64 {
    if a + b > 0.0 {
        2.0 * a * b / (a + b)
    } else {
        0.0
    }
}

/// The answer's items (see the module), normalised, each once, in order.
pub fn answer_items(answer: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in answer.lines() {
        let line = line
            .trim_start()
            .trim_start_matches(['-', '*', '•', '+'])
            .trim_start();
        let line = strip_number_marker(line);
        for piece in pieces(line) {
            let words = normalise(piece);
            let mut item: Vec<&str> = Vec::new();
            for w in words.split(' ').chain(std::iter::once("and")) {
                if w == "and" || w == "or" {
                    let joined = item.join(" ");
                    if !joined.is_empty() && !out.contains(&joined) {
                        out.push(joined);
                    }
                    item.clear();
                } else if !w.is_empty() {
                    item.push(w);
                }
            }
        }
    }
    out
}

/// A line's pieces between `;` and `,` — a comma between digits (`1,250`)
/// is a number's, not a separator.
fn pieces(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_digit = chars.peek().is_some_and(|(_, n)| n.is_ascii_digit());
        let prev_digit = line[..i].ends_with(|p: char| p.is_ascii_digit());
        if c == ';' || (c == ',' && !(prev_digit && next_digit)) {
            out.push(&line[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&line[start..]);
    out
}

/// A line without its `1.` / `2)` list marker.
fn strip_number_marker(line: &str) -> &str {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match line[digits..].chars().next() {
        Some('.' | ')') if digits > 0 => line[digits + 1..].trim_start(),
        _ => line,
    }
}

/// The set figures of `answer` against the gold `items`; `None` without items.
pub fn score(answer: &str, items: &[String]) -> Option<SetScore> {
    let gold: Vec<String> = items
        .iter()
        .filter(|g| !normalise(g).is_empty())
        .cloned()
        .collect();
    if gold.is_empty() {
        return None;
    }
    let found = gold
        .iter()
        .filter(|g| correct(answer, std::slice::from_ref(g)) == Some(true))
        .count();
    let recall = found as f64 / gold.len() as f64;
    let said = answer_items(answer);
    let holding = said
        .iter()
        .filter(|item| correct(item, &gold) == Some(true))
        .count();
    let precision = if said.is_empty() {
        0.0
    } else {
        holding as f64 / said.len() as f64
    };
    Some(SetScore {
        recall,
        precision,
        f1: harmonic(recall, precision),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gold(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_set_answer_is_scored_item_by_item() {
        let g = gold(&["Testford", "Mockburg", "Sampleton"]);
        // All three, nothing else: 3/3 found, 3 items all gold.
        let s = score("Testford, Mockburg and Sampleton.", &g).expect("gold");
        assert_eq!((s.recall, s.precision, s.f1), (1.0, 1.0, 1.0));
        // Two of three, and one wrong city: recall 2/3, precision 2/3, F1 2/3.
        let s = score("- Testford\n- Mockburg\n- Exampleville", &g).expect("gold");
        assert_eq!(s.recall, 2.0 / 3.0);
        assert_eq!(s.precision, 2.0 / 3.0);
        assert!((s.f1 - 2.0 / 3.0).abs() < 1e-12);
        // Prose is an item of its own: "the cities were testford" holds a gold
        // item, "all in exampleshire" does not: precision 3/4, recall 1.
        let s = score(
            "The cities were Testford, Mockburg, Sampleton; all in Exampleshire",
            &g,
        )
        .expect("gold");
        assert_eq!((s.recall, s.precision), (1.0, 0.75));
        assert_eq!(s.f1, 2.0 * 0.75 / 1.75);
        // Nothing said: 0 everywhere.
        let s = score("I could not find out.", &g).expect("gold");
        assert_eq!((s.recall, s.precision, s.f1), (0.0, 0.0, 0.0));
        assert_eq!(score("x", &[]), None);
        assert_eq!(
            answer_items("1,250; 3,5"),
            vec!["1250".to_string(), "3 5".to_string()]
        );
        assert_eq!(
            answer_items("1. North Example\n2) East Placeholder"),
            vec!["north example".to_string(), "east placeholder".to_string()]
        );
    }
}
