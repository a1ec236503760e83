//! A step's provider-executed calls counted, defined once: searches and
//! fetches made (ok or failed) and of each those that failed — a vendor's own
//! failure or a call started and never answered (`unanswered`). Every view
//! counts them so: the step's line, the console's Run pane, `runs`, `compare`
//! (`core::figures` sums them over a run and says what fees make of them). Pure.

use serde::{Deserialize, Serialize};

use crate::core::completion::ServerToolCall;

/// The provider-executed calls one answer reported, made and failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerCounts {
    /// Searches, ok or failed.
    pub searches: u64,
    /// Of them, those that failed or were never answered.
    pub failed_searches: u64,
    /// Fetches, ok or failed.
    pub fetches: u64,
    /// Of them, those that failed or were never answered.
    pub failed_fetches: u64,
}

impl ServerCounts {
    /// Count one call by its tool name (`web_fetch`, `web_search`, …); a tool
    /// that is neither is not counted.
    pub fn add(&mut self, tool: &str, failed: bool) {
        let failed = u64::from(failed);
        if tool.contains("fetch") {
            self.fetches += 1;
            self.failed_fetches += failed;
        } else if tool.contains("search") {
            self.searches += 1;
            self.failed_searches += failed;
        }
    }

    /// The calls one answer reported, counted.
    pub fn of<'a>(calls: impl IntoIterator<Item = &'a ServerToolCall>) -> ServerCounts {
        let mut n = ServerCounts::default();
        for c in calls {
            n.add(&c.tool, !c.succeeded());
        }
        n
    }

    /// As every view words them: `1 search`, `3 searches (1 failed)`, `0
    /// searches`; fetches only when there were any (`1 search, 2 fetches (1
    /// failed)`).
    pub fn words(&self) -> String {
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut out = plural(self.searches, "search", "searches");
        if self.failed_searches > 0 {
            out.push_str(&format!(" ({} failed)", self.failed_searches));
        }
        if self.fetches > 0 {
            out.push_str(&format!(", {}", plural(self.fetches, "fetch", "fetches")));
            if self.failed_fetches > 0 {
                out.push_str(&format!(" ({} failed)", self.failed_fetches));
            }
        }
        out
    }

    /// The Run pane's cell: calls made, and failed in parentheses (`3(1)`).
    pub fn cell(&self) -> String {
        let failed = self.failed_searches.saturating_add(self.failed_fetches);
        if failed > 0 {
            format!("{}({failed})", self.made())
        } else {
            self.made().to_string()
        }
    }

    /// Searches and fetches made, ok or failed.
    pub fn made(&self) -> u64 {
        self.searches.saturating_add(self.fetches)
    }

    pub(crate) fn sum(&mut self, other: &ServerCounts) {
        self.searches = self.searches.saturating_add(other.searches);
        self.failed_searches = self.failed_searches.saturating_add(other.failed_searches);
        self.fetches = self.fetches.saturating_add(other.fetches);
        self.failed_fetches = self.failed_fetches.saturating_add(other.failed_fetches);
    }
}
