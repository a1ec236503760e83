//! A comparison of the runs of one group, side by side: per run what it did and
//! cost, and between each pair how much their sources overlap (Jaccard: shared
//! over all, of cited domains and of cited URLs, each URL by its identity and
//! domain as `core::record` defines them). Pure: built from rows the store read;
//! `compare` prints it, the console's Compare screen draws it.

pub mod table;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::core::figures::RunFigures;
use crate::core::id::{GroupId, RunId};
use crate::core::outcome::Outcome;
use crate::core::record;
use crate::core::vendor::{Vendor, Wire};

/// One run of a group, as compared.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// The run's id.
    pub run_id: RunId,
    /// The vendor.
    pub vendor: Vendor,
    /// The model.
    pub model: String,
    /// The wire it spoke, from its stored plan (`RunPlan::wire`): what tells
    /// OpenAI Chat from OpenAI Responses; `None` for a run stored without a plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<Wire>,
    /// How it ended; `None` (`running` in JSON) while it runs.
    #[serde(with = "crate::core::outcome::or_running")]
    pub outcome: Option<Outcome>,
    /// Why, where the outcome says more (which budget, the failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome_detail: Option<String>,
    /// Its figures (tokens, searches, cost, wall time; spawned children's
    /// requests included), under the names `runs --json` gives them.
    #[serde(flatten)]
    pub figures: RunFigures,
    /// Citations recorded (its spawned children's included).
    pub citations: u64,
    /// Distinct cited domains.
    pub domains: u64,
    /// The final answer's first lines.
    pub answer: Vec<String>,
    /// Where its workspace copy is, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Who ran it (`user@host`), where recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Its cited URLs, for the overlaps (not printed).
    #[serde(skip)]
    pub urls: BTreeSet<String>,
}

/// The overlap of two runs' sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overlap {
    /// One run.
    pub a: RunId,
    /// The other.
    pub b: RunId,
    /// Jaccard of their cited domains, 0 to 1; `None` when neither cited any.
    pub domains: Option<f64>,
    /// Jaccard of their cited URLs.
    pub urls: Option<f64>,
}

/// A group compared.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The group.
    pub group_id: GroupId,
    /// Its goal.
    pub goal: String,
    /// Its dollar cap, in millionths, when one was set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_usd_micro: Option<u64>,
    /// Its runs, oldest first.
    pub runs: Vec<Column>,
    /// Vendors that did not run: the refusal of one that cannot carry the
    /// declaration, or why it could not start (a key not set).
    pub not_run: Vec<NotRun>,
    /// Every pair of runs, in order.
    pub overlaps: Vec<Overlap>,
}

/// A vendor of the group that did not run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotRun {
    /// The vendor.
    pub vendor: Vendor,
    /// Why, as said.
    pub message: String,
}

impl Comparison {
    /// The comparison of `runs` (their `urls` filled), with the overlaps computed.
    pub fn new(group_id: GroupId, goal: String, runs: Vec<Column>, not_run: Vec<NotRun>) -> Self {
        let mut overlaps = Vec::new();
        for (i, a) in runs.iter().enumerate() {
            for b in &runs[i + 1..] {
                overlaps.push(Overlap {
                    a: a.run_id,
                    b: b.run_id,
                    domains: jaccard(&domains(&a.urls), &domains(&b.urls)),
                    urls: jaccard(&a.urls, &b.urls),
                });
            }
        }
        Comparison {
            group_id,
            goal,
            max_usd_micro: None,
            runs,
            not_run,
            overlaps,
        }
    }
}

/// Shared over all: `None` when both sets are empty (nothing to overlap).
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> Option<f64> {
    let union = a.union(b).count();
    (union > 0).then(|| a.intersection(b).count() as f64 / union as f64)
}

/// The distinct domains of `urls`.
pub fn domains(urls: &BTreeSet<String>) -> BTreeSet<String> {
    urls.iter().filter_map(|u| record::domain(u)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| record::identity(s)).collect()
    }

    #[test]
    fn jaccard_is_shared_over_all_and_none_for_two_empty_sets() {
        let a = set(&["https://a.com/1", "https://b.com/x"]);
        let b = set(&["https://a.com/1", "https://c.org/"]);
        assert_eq!(jaccard(&a, &b), Some(1.0 / 3.0));
        assert_eq!(jaccard(&a, &a), Some(1.0));
        assert_eq!(jaccard(&a, &BTreeSet::new()), Some(0.0));
        assert_eq!(jaccard(&BTreeSet::new(), &BTreeSet::new()), None);
    }

    #[test]
    fn domains_are_counted_as_the_record_defines_them() {
        let a = set(&["https://www.a.com/1", "https://a.com/2"]);
        assert_eq!(domains(&a).len(), 1);
    }

    #[test]
    fn every_pair_is_compared_once_in_order() {
        let col = |id, urls: &[&str]| Column {
            run_id: RunId(id),
            urls: set(urls),
            ..Column::default()
        };
        let c = Comparison::new(
            GroupId(1),
            "g".into(),
            vec![
                col(1, &["https://a.com/1"]),
                col(2, &["https://a.com/2"]),
                col(3, &[]),
            ],
            vec![],
        );
        let pairs: Vec<(i64, i64)> = c.overlaps.iter().map(|o| (o.a.0, o.b.0)).collect();
        assert_eq!(pairs, vec![(1, 2), (1, 3), (2, 3)]);
        assert_eq!(c.overlaps[0].domains, Some(1.0));
        assert_eq!(c.overlaps[0].urls, Some(0.0));
        assert_eq!(c.overlaps[2].urls, Some(0.0));
    }
}
