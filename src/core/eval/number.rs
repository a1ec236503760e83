//! Numbers compared as numbers: a gold answer that is a number alone (`1,250`,
//! `3.14`, `$1.2 million`, `45%`) is matched by any number in the answer that
//! agrees with it **to the precision the gold is written to** — both rounded to
//! the gold's last written digit (`3.14` is matched by `3.1416`, `330` by
//! `330.2`, `1.2 million` by `1,234,567`; `330` is not matched by `331`). A gold
//! that states a range, as SimpleQA Verified writes its numeric answers (`12,400
//! (acceptable range: anything between 12,276 and 12,524)`), is matched by any
//! number of the answer inside the range, ends included. Scale words after a
//! number (`thousand`, `million`, `billion`, `trillion`) multiply it; other
//! units are not read (the question states them). Pure.

use std::sync::LazyLock;

/// A number as text: digits with thousands commas, or digits; a decimal part;
/// then a scale word.
static NUMBER: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:\s*(thousand|million|billion|trillion)\b)?",
    )
    .ok()
});

/// A gold answer that is a number alone: optional currency sign, the number,
/// an optional scale word, an optional `%`.
static GOLD: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)^[\s$€£¥~≈]*((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*(?:thousand|million|billion|trillion))?)\s*%?\s*\.?\s*$",
    )
    .ok()
});

/// SimpleQA Verified's range, after the number it qualifies.
static RANGE: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)\(\s*acceptable range:?\s*(?:anything\s+)?between\s+(\S+)\s+and\s+([^)\s]+)\s*\)",
    )
    .ok()
});

/// One number read from text: its value, and the size of its last written
/// digit (`3.14` → 0.01; `1.2 million` → 100,000).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number {
    /// Its value.
    pub value: f64,
    /// The place value of its last written digit.
    pub unit: f64,
}

fn scale(word: Option<&str>) -> f64 {
    match word.map(str::to_ascii_lowercase).as_deref() {
        Some("thousand") => 1e3,
        Some("million") => 1e6,
        Some("billion") => 1e9,
        Some("trillion") => 1e12,
        _ => 1.0,
    }
}

/// Every number in `text`, in order.
pub fn numbers(text: &str) -> Vec<Number> {
    let Some(re) = NUMBER.as_ref() else {
        return Vec::new();
    };
    re.captures_iter(text)
        .filter_map(|c| {
            let whole: String = c.get(1)?.as_str().chars().filter(|&ch| ch != ',').collect();
            let frac = c.get(2).map_or("", |m| m.as_str());
            let s = scale(c.get(3).map(|m| m.as_str()));
            let value: f64 = format!("{whole}.{frac}0").parse().ok()?;
            let places = i32::try_from(frac.len()).unwrap_or(i32::MAX);
            Some(Number {
                value: value * s,
                unit: 10f64.powi(-places) * s,
            })
        })
        .collect()
}

/// What a gold answer accepts as a number, if it is one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Accepts {
    /// A number agreeing with this one to its last written digit.
    Near(Number),
    /// Any number from the first to the second, ends included.
    Between(f64, f64),
}

/// What `gold` accepts as a number: a range it states, or itself when it is a
/// number alone; `None` for any other gold.
pub fn accepts(gold: &str) -> Option<Accepts> {
    if let Some(c) = RANGE.as_ref().and_then(|re| re.captures(gold)) {
        let bound = |i: usize| {
            c.get(i)
                .and_then(|m| numbers(m.as_str()).first().copied())
                .map(|n| n.value)
        };
        if let (Some(a), Some(b)) = (bound(1), bound(2)) {
            return Some(Accepts::Between(a.min(b), a.max(b)));
        }
    }
    let number = GOLD.as_ref()?.captures(gold)?.get(1)?.as_str();
    numbers(number).first().copied().map(Accepts::Near)
}

/// `n` rounded to a whole count of `unit`s (half away from zero).
fn units(n: f64, unit: f64) -> f64 {
    (n / unit).round()
}

/// Whether some number of `answer` is one `gold` accepts.
pub fn matches(answer: &str, gold: Accepts) -> bool {
    numbers(answer).iter().any(|n| match gold {
        Accepts::Near(g) => units(n.value, g.unit) == units(g.value, g.unit),
        Accepts::Between(lo, hi) => lo <= n.value && n.value <= hi,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_agrees_to_the_precision_the_gold_is_written_to() {
        let yes = |answer: &str, gold: &str| matches(answer, accepts(gold).expect(gold));
        assert!(yes("about 330.2 m", "330"));
        assert!(!yes("331 metres", "330"));
        assert!(yes("pi is 3.14159", "3.14"));
        assert!(!yes("pi is 3.1", "3.14"));
        assert!(yes("1250 widgets", "1,250"));
        assert!(yes("1,250.0 widgets", "1,250"));
        assert!(yes("some 1,234,567 people", "1.2 million"));
        assert!(!yes("some 1,300,000 people", "1.2 million"));
        assert!(yes("$2.5 billion", "$2.5 billion"));
        assert!(yes("It was 45 percent.", "45%"));
        // A range, ends included; outside it, no.
        let range = "12,400 (acceptable range: anything between 12,276 and 12,524)";
        assert!(yes("about 12,300 seats", range));
        assert!(yes("12,524", range));
        assert!(!yes("12,600 seats", range));
        // Not a number alone: nothing to compare as numbers.
        assert_eq!(accepts("March 3, 2001"), None);
        assert_eq!(accepts("Route 66"), None);
        assert_eq!(
            numbers("1.5 thousand"),
            vec![Number {
                value: 1500.0,
                unit: 100.0
            }]
        );
    }
}
