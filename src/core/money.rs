//! Money as text: millionths of a US dollar shown to the millionth, and one
//! request's cost itemised on a line. Every view that shows a dollar figure
//! formats it here (re-exported from `price`).
//!
//! A **total** (`Total`) is defined once, here: over parts (a run's requests, an
//! eval's runs) some of which may be unpriced, it is the sum of the priced
//! parts and how many were not — shown `$0.156214 + 1 run unpriced`, never `—`
//! because one part is. No parts is $0.

use serde::{Deserialize, Serialize};

use crate::core::event::Cost;

/// A sum of money over parts some of which may not have been priced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Total {
    /// The priced parts' sum, in millionths of a US dollar.
    pub priced_micro_usd: u64,
    /// How many parts could not be priced.
    pub unpriced: u64,
}

/// What a total's parts are, as its text names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A run's requests.
    Request,
    /// An eval's (or a vendor's) runs.
    Run,
}

impl Part {
    fn noun(self, n: u64) -> &'static str {
        match (self, n) {
            (Part::Request, 1) => "request",
            (Part::Request, _) => "requests",
            (Part::Run, 1) => "run",
            (Part::Run, _) => "runs",
        }
    }
}

impl Total {
    /// The total of `parts`, each priced (`Some`) or not (`None`), saturating.
    pub fn of(parts: impl IntoIterator<Item = Option<u64>>) -> Total {
        parts.into_iter().fold(Total::default(), Total::with)
    }

    /// This total with one more part.
    pub fn with(self, part: Option<u64>) -> Total {
        match part {
            Some(m) => Total {
                priced_micro_usd: self.priced_micro_usd.saturating_add(m),
                ..self
            },
            None => Total {
                unpriced: self.unpriced.saturating_add(1),
                ..self
            },
        }
    }

    /// Two totals over parts of one kind, as one.
    pub fn plus(self, other: Total) -> Total {
        Total {
            priced_micro_usd: self.priced_micro_usd.saturating_add(other.priced_micro_usd),
            unpriced: self.unpriced.saturating_add(other.unpriced),
        }
    }

    /// The whole amount, when every part was priced.
    pub fn whole(self) -> Option<u64> {
        (self.unpriced == 0).then_some(self.priced_micro_usd)
    }

    /// As text: `$0.156214`, or `$0.156214 + 1 run unpriced`.
    pub fn text(self, part: Part) -> String {
        match self.unpriced {
            0 => usd(self.priced_micro_usd),
            n => format!(
                "{} + {n} {} unpriced",
                usd(self.priced_micro_usd),
                part.noun(n)
            ),
        }
    }
}

/// Millionths of a dollar as dollars, every digit shown: `$0.011712`.
pub fn usd(micro: u64) -> String {
    format!("${}.{:06}", micro / 1_000_000, micro % 1_000_000)
}

/// An optional amount, `—` when unknown.
pub fn usd_or_dash(micro: Option<u64>) -> String {
    micro.map_or_else(|| "—".to_string(), usd)
}

/// The fees of a set of requests as a cell: `incl.` when nothing was itemised
/// but a vendor's own figure (whose fees it includes, unitemised) is among them,
/// so a vendor-reported run never reads as having had free searches.
pub fn fees_or_included(itemised: Option<u64>, vendor_reported: bool) -> String {
    match itemised {
        Some(0) if vendor_reported => "incl.".to_string(),
        other => usd_or_dash(other),
    }
}

/// One request's cost as one line of text, itemised: the whole, then tokens, cache
/// and fees (or that it is the vendor's own figure), or why it is unknown.
pub fn describe(cost: &Cost) -> String {
    if let Some(v) = cost.vendor_micro_usd {
        return format!("{} (the vendor's own figure, fees included)", usd(v));
    }
    let Some(total) = cost.total_micro_usd else {
        return format!(
            "cost — ({})",
            cost.unpriced.as_deref().unwrap_or("not priced")
        );
    };
    let n = cost.fee_requests;
    format!(
        "{} = tokens {} + cache {} + fees {} ({n} {}{})",
        usd(total),
        usd_or_dash(cost.tokens_micro_usd),
        usd_or_dash(cost.cache_micro_usd),
        usd_or_dash(cost.fees_micro_usd),
        if n == 1 {
            "search/fetch"
        } else {
            "searches/fetches"
        },
        if cost.fees_counted_here {
            ", counted here: the vendor reported no counter"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_is_the_known_sum_and_the_count_of_unpriced_parts() {
        assert_eq!(Total::of([]).text(Part::Run), "$0.000000");
        let t = Total::of([Some(100_000), None, Some(56_214)]);
        assert_eq!(t.text(Part::Run), "$0.156214 + 1 run unpriced");
        assert_eq!(t.whole(), None);
        let t = t.plus(Total::of([None]));
        assert_eq!(t.text(Part::Request), "$0.156214 + 2 requests unpriced");
        assert_eq!(Total::of([Some(5)]).whole(), Some(5));
    }

    #[test]
    fn money_is_shown_to_the_millionth() {
        assert_eq!(usd(36_912), "$0.036912");
        assert_eq!(usd(2_000_000), "$2.000000");
        assert_eq!(usd_or_dash(None), "—");
    }
}
