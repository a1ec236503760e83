//! A run's figures, defined once: what every view of a run (`runs`, `compare`,
//! the console's Run and Sources panes, exports) shows of its tokens, searches
//! and money. The store reads a run's requests (its own and its spawned
//! children's, each priced by the one `PriceTable::cost`) and folds them here;
//! nothing else sums them.
//!
//! - **input** is the prompt billed at the plain input rate: cache writes and
//!   reads are not in it (as in `Usage`); **cache write** and **cache read** are
//!   the prompt tokens written to and read from the vendor's cache. Every prompt
//!   token is in exactly one of the three.
//! - **searches** and **fetches** are the provider-executed calls the answers
//!   reported, ok or failed; **failed** counts those the vendor said failed and
//!   those started but never answered (`unanswered`). The fees count what the
//!   vendor billed (its counter where it has one): a different number, said
//!   beside the fees, never as "searches".
//! - A step's line says the same: `in` is the plain input (`292 in, 0 cache
//!   write, 0 cache read / 212 out tokens`, `token_words`), and its searches are
//!   its answer's calls, made and failed (`ServerCounts::of`, `words`), as the
//!   console's Run pane, `runs` and `compare` count them.
//! - **cost** is the sum of the requests' costs (`None` when one could not be
//!   priced; $0 for a run that had no request answered); beside it the
//!   priced requests' sum and how many were unpriced (`RunFigures::cost`, a
//!   `core::money::Total`, what the views show); **fees** its server-tool part; **vendor cost** the part the vendor
//!   reported itself (OpenRouter `usage.cost`), `None` when no request had one.
//! - **wall time** is the run's start to its end.
//! - **cited share**, **verified share** and **unsupported** are what the final
//!   answer's sentences and the run's checked sources come to, as
//!   `core::claims` defines them (the store reads them with the rest).

use serde::{Deserialize, Serialize};

use crate::core::claims::ClaimFigures;
use crate::core::completion::Usage;
pub use crate::core::counts::ServerCounts;
use crate::core::event::Cost;
use crate::core::money::Total;
use crate::core::price::Recorded;

// `ServerCounts` is defined in `counts.rs` (events carry it, and `event.rs`
// is below this file); what fees make of it is here, beside the prices.
impl ServerCounts {
    /// The calls that ran: what fees count where the vendor has no counter.
    pub fn ran(&self) -> Recorded {
        Recorded {
            searches: self.searches.saturating_sub(self.failed_searches),
            fetches: self.fetches.saturating_sub(self.failed_fetches),
        }
    }
}

/// A run's figures (its spawned children's requests included). Serialized with
/// the same field names wherever a run is given as JSON (`runs --json`,
/// `compare --json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFigures {
    /// Requests answered.
    pub requests: u64,
    /// Prompt tokens at the plain input rate (cache writes and reads not included).
    pub input_tokens: u64,
    /// Prompt tokens written to the vendor's cache.
    pub cache_write_tokens: u64,
    /// Prompt tokens read from the vendor's cache.
    pub cache_read_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// Server-side searches made, ok or failed.
    pub searches: u64,
    /// Of them, those the vendor said failed.
    pub failed_searches: u64,
    /// Server-side fetches made, ok or failed.
    pub fetches: u64,
    /// Of them, those the vendor said failed.
    pub failed_fetches: u64,
    /// The server-tool fees, in millionths of a US dollar (a vendor's own figure
    /// counts 0: its fees are inside it); `None` when a request's are unknown.
    pub fees_micro_usd: Option<u64>,
    /// The whole cost, in millionths of a US dollar; `None` when a request could
    /// not be priced.
    pub cost_micro_usd: Option<u64>,
    /// The priced requests' sum, in millionths of a US dollar (the cost when
    /// every request was priced).
    #[serde(default)]
    pub priced_micro_usd: u64,
    /// How many requests could not be priced.
    #[serde(default)]
    pub unpriced_requests: u64,
    /// Of the cost, what the vendor itself reported; `None` when no request had
    /// a figure of the vendor's.
    pub vendor_cost_micro_usd: Option<u64>,
    /// True when the fees count calls this program recorded (no vendor counter).
    pub fees_counted_here: bool,
    /// Why the cost is unknown; `null` when it is known (always in the JSON,
    /// as docs/compare.md's table names it).
    #[serde(default)]
    pub unpriced: Option<String>,
    /// Started to finished, in milliseconds; `None` while it runs.
    pub wall_ms: Option<u64>,
    /// Sentences of the final answer with a source ÷ its sentences; `None` when
    /// it has no sentence.
    #[serde(default)]
    pub cited_share: Option<f64>,
    /// Citations whose verdict is `found` ÷ citations checked; `None` when none
    /// was checked.
    #[serde(default)]
    pub verified_share: Option<f64>,
    /// Sentences whose every source was checked and none found; `None` when none
    /// was checked.
    #[serde(default)]
    pub unsupported: Option<u64>,
    /// Sources `check-sources` did not read because the policy does not allow
    /// fetching them (unchecked: they say nothing about the source).
    #[serde(default)]
    pub sources_not_allowed: u64,
    /// Sources whose page could not be fetched or read (unchecked).
    #[serde(default)]
    pub sources_unreachable: u64,
}

/// One request as the figures count it: its counts, its cost, its calls.
#[derive(Debug, Clone, Copy)]
pub struct RequestFigures<'a> {
    /// Counts, where the vendor sent them.
    pub usage: Option<&'a Usage>,
    /// Its cost.
    pub cost: &'a Cost,
    /// The provider-executed calls its answer reported.
    pub server: ServerCounts,
}

impl RunFigures {
    /// The figures of a run's requests, in any order, and its wall time.
    pub fn of<'a>(
        requests: impl IntoIterator<Item = RequestFigures<'a>>,
        wall_ms: Option<u64>,
    ) -> RunFigures {
        let requests: Vec<RequestFigures<'a>> = requests.into_iter().collect();
        let costs = || requests.iter().map(|r| r.cost);
        let mut usage = Usage::default();
        let mut server = ServerCounts::default();
        for r in &requests {
            usage.add(&r.usage.copied().unwrap_or_default());
            server.sum(&r.server);
        }
        let vendor: Vec<u64> = costs().filter_map(|c| c.vendor_micro_usd).collect();
        let total = Total::of(costs().map(|c| c.total_micro_usd));
        RunFigures {
            requests: requests.len() as u64,
            input_tokens: usage.input_tokens,
            cache_write_tokens: usage.cache_write_tokens,
            cache_read_tokens: usage.cache_read_tokens,
            output_tokens: usage.output_tokens,
            searches: server.searches,
            failed_searches: server.failed_searches,
            fetches: server.fetches,
            failed_fetches: server.failed_fetches,
            fees_micro_usd: fees_sum(costs()),
            cost_micro_usd: total.whole(),
            priced_micro_usd: total.priced_micro_usd,
            unpriced_requests: total.unpriced,
            vendor_cost_micro_usd: (!vendor.is_empty())
                .then(|| vendor.iter().fold(0u64, |t, v| t.saturating_add(*v))),
            fees_counted_here: costs().any(|c| c.fees_counted_here),
            unpriced: costs().find_map(|c| c.unpriced.clone()),
            wall_ms,
            ..RunFigures::default()
        }
    }

    /// The claim figures among these.
    pub fn claims(&self) -> ClaimFigures {
        ClaimFigures {
            cited_share: self.cited_share,
            verified_share: self.verified_share,
            unsupported: self.unsupported,
            not_allowed: self.sources_not_allowed,
            unreachable: self.sources_unreachable,
        }
    }

    /// These figures with the claim figures `c`.
    pub fn with_claims(mut self, c: ClaimFigures) -> RunFigures {
        self.cited_share = c.cited_share;
        self.verified_share = c.verified_share;
        self.unsupported = c.unsupported;
        self.sources_not_allowed = c.not_allowed;
        self.sources_unreachable = c.unreachable;
        self
    }

    /// Every token: input, cache writes and reads, and output (what `[budget]
    /// tokens` counts), saturating.
    pub fn tokens(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_write_tokens)
            .saturating_add(self.cache_read_tokens)
            .saturating_add(self.output_tokens)
    }

    /// The cost as a total over the requests: the whole cost when it is known,
    /// else the priced ones' sum and how many were not priced (at least one).
    pub fn cost(&self) -> Total {
        match self.cost_micro_usd {
            Some(whole) => Total {
                priced_micro_usd: whole,
                unpriced: 0,
            },
            None => Total {
                priced_micro_usd: self.priced_micro_usd,
                unpriced: self.unpriced_requests.max(1),
            },
        }
    }

    /// True when some of the cost is the vendor's own figure (shown `v`).
    pub fn vendor_reported(&self) -> bool {
        self.vendor_cost_micro_usd.is_some()
    }
}

/// A request's tokens as every view words them: `in` is the plain input, as
/// `RunFigures::input_tokens` and the Run pane's `in` column count it; cache
/// writes and reads beside it, each prompt token in exactly one of the three.
pub fn token_words(u: &Usage) -> String {
    format!(
        "{} in, {} cache write, {} cache read / {} out tokens",
        u.input_tokens, u.cache_write_tokens, u.cache_read_tokens, u.output_tokens
    )
}

/// The total of some requests' costs: `None` if any is unknown; $0 when there
/// are none (a run that has had nothing answered has cost nothing, as its fees
/// say) — the console's live rows and a stored run's figures alike.
pub fn sum<'a>(costs: impl IntoIterator<Item = &'a Cost>) -> Option<u64> {
    Total::of(costs.into_iter().map(|c| c.total_micro_usd)).whole()
}

/// The fee part of some requests' costs, saturating: a vendor's own figure counts
/// 0 (its fees are inside it, unitemised); `None` if another request's are unknown.
pub fn fees_sum<'a>(costs: impl IntoIterator<Item = &'a Cost>) -> Option<u64> {
    costs
        .into_iter()
        .map(|c| c.fees_micro_usd.or(c.vendor_micro_usd.map(|_| 0)))
        .try_fold(0u64, |total, f| f.map(|f| total.saturating_add(f)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_the_sum_of_its_requests() {
        let priced = |t: u64| Cost {
            total_micro_usd: Some(t),
            fees_micro_usd: Some(1),
            ..Cost::default()
        };
        let (a, b) = (priced(10), priced(20));
        let u = Usage {
            input_tokens: 1,
            cache_write_tokens: 2,
            cache_read_tokens: 3,
            output_tokens: 4,
            ..Usage::default()
        };
        let mut server = ServerCounts::default();
        server.add("web_search", false);
        server.add("web_search", true);
        server.add("web_fetch", false);
        let f = RunFigures::of(
            [
                RequestFigures {
                    usage: Some(&u),
                    cost: &a,
                    server,
                },
                RequestFigures {
                    usage: None,
                    cost: &b,
                    server: ServerCounts::default(),
                },
            ],
            Some(5),
        );
        assert_eq!(
            (f.requests, f.input_tokens, f.cache_write_tokens),
            (2, 1, 2)
        );
        assert_eq!(
            (f.cache_read_tokens, f.output_tokens, f.tokens()),
            (3, 4, 10)
        );
        assert_eq!((f.searches, f.failed_searches, f.fetches), (2, 1, 1));
        assert_eq!((f.cost_micro_usd, f.fees_micro_usd), (Some(30), Some(2)));
        assert_eq!(f.vendor_cost_micro_usd, None);
        assert_eq!(
            f.cost().text(crate::core::money::Part::Request),
            "$0.000030"
        );
        // A run that had no request answered cost nothing.
        let none = RunFigures::of([], None);
        assert_eq!(
            (none.cost_micro_usd, none.fees_micro_usd),
            (Some(0), Some(0))
        );
        let unpriced = Cost::default();
        let half = RunFigures::of(
            [
                RequestFigures {
                    usage: None,
                    cost: &a,
                    server: ServerCounts::default(),
                },
                RequestFigures {
                    usage: None,
                    cost: &unpriced,
                    server: ServerCounts::default(),
                },
            ],
            None,
        );
        assert_eq!(half.cost_micro_usd, None);
        assert_eq!(
            half.cost().text(crate::core::money::Part::Request),
            "$0.000010 + 1 request unpriced"
        );
        assert_eq!(
            server.ran(),
            Recorded {
                searches: 1,
                fetches: 1
            }
        );
    }
}
