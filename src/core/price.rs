//! Prices and the cost derived from them. The built-in table (`prices.toml`, beside
//! this file) holds what each vendor's pricing page said on a stated day, with the
//! page; `[prices."MODEL"]` in io.toml overrides a row field by field, or adds one.
//! Nothing is guessed: a model with no row has no token cost, a fee the vendor
//! states nowhere is not charged, and a count with no rate leaves the cost unknown
//! rather than low.
//!
//! Money is whole millionths of a US dollar (`u64`), so a run's total is exactly the
//! sum of its requests' costs on every surface. Costs are derived when read, from
//! the recorded counts; only a vendor's own reported figure is stored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::core::completion::Usage;
use crate::core::event::Cost;
use crate::core::vendor::Vendor;

pub use super::money::{describe, fees_or_included, usd, usd_or_dash};

/// The built-in table's text, parsed by `PriceTable::builtin`.
pub const BUILTIN_TABLE: &str = include_str!("prices.toml");

/// The prices of one model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// US dollars per million input tokens.
    pub input_per_mtok: f64,
    /// US dollars per million output tokens.
    pub output_per_mtok: f64,
    /// US dollars per million tokens written to the cache; `None` where none is billed.
    pub cache_write_per_mtok: Option<f64>,
    /// US dollars per million tokens read from the cache.
    pub cache_read_per_mtok: Option<f64>,
    /// US dollars per million tokens written to the cache for an hour (Anthropic's
    /// `ttl: "1h"`); `None` where the vendor has no such write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h_per_mtok: Option<f64>,
    /// US dollars per provider-executed search.
    pub per_search_request: Option<f64>,
    /// US dollars per provider-executed fetch.
    pub per_fetch_request: Option<f64>,
    /// US dollars per request that searched at all, however many searches it made
    /// (Gemini 2.5's "per grounded prompt"); where set, searches are billed by it
    /// instead of `per_search_request`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_grounded_prompt: Option<f64>,
    /// US dollars per request, searched or not (Sonar's request fee).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_request: Option<f64>,
}

/// `[prices."MODEL"]` in io.toml: the same keys as a row, each optional; what is
/// given replaces the built-in row's field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceOverride {
    /// Replaces `input_per_mtok`.
    pub input_per_mtok: Option<f64>,
    /// Replaces `output_per_mtok`.
    pub output_per_mtok: Option<f64>,
    /// Replaces `cache_write_per_mtok`.
    pub cache_write_per_mtok: Option<f64>,
    /// Replaces `cache_read_per_mtok`.
    pub cache_read_per_mtok: Option<f64>,
    /// Replaces `cache_write_1h_per_mtok`.
    pub cache_write_1h_per_mtok: Option<f64>,
    /// Replaces `per_search_request`.
    pub per_search_request: Option<f64>,
    /// Replaces `per_fetch_request`.
    pub per_fetch_request: Option<f64>,
    /// Replaces `per_grounded_prompt`.
    pub per_grounded_prompt: Option<f64>,
    /// Replaces `per_request`.
    pub per_request: Option<f64>,
}

impl PriceOverride {
    /// Every field with its `[prices]` key, in table order.
    fn fields(&self) -> [(&'static str, Option<f64>); 9] {
        [
            ("input_per_mtok", self.input_per_mtok),
            ("output_per_mtok", self.output_per_mtok),
            ("cache_write_per_mtok", self.cache_write_per_mtok),
            ("cache_read_per_mtok", self.cache_read_per_mtok),
            ("cache_write_1h_per_mtok", self.cache_write_1h_per_mtok),
            ("per_search_request", self.per_search_request),
            ("per_fetch_request", self.per_fetch_request),
            ("per_grounded_prompt", self.per_grounded_prompt),
            ("per_request", self.per_request),
        ]
    }

    /// The keys this override sets, in table order.
    pub fn keys(&self) -> Vec<&'static str> {
        self.fields()
            .into_iter()
            .filter_map(|(k, v)| v.map(|_| k))
            .collect()
    }

    /// A key whose value is negative or not a number, if any.
    pub fn invalid_key(&self) -> Option<&'static str> {
        self.fields()
            .into_iter()
            .find(|(_, v)| v.is_some_and(|x| !x.is_finite() || x < 0.0))
            .map(|(k, _)| k)
    }
}

/// One row of the table: a model's prices, where they were read and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceRow {
    /// The vendor whose page gave the row; `None` for a model only io.toml prices.
    pub vendor: Option<Vendor>,
    /// The model name as sent.
    pub model: String,
    /// The prices.
    #[serde(flatten)]
    pub price: Price,
    /// The day the vendor's page was read (YYYY-MM-DD); `None` for io.toml's own rows.
    pub read_on: Option<String>,
    /// The vendor's page (https), or `io.toml` for a row only io.toml states.
    pub source: String,
    /// The page the fees were read from, when not `source`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fees_source: Option<String>,
    /// The fields io.toml replaced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overridden: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    row: Vec<FileRow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRow {
    vendor: Vendor,
    model: String,
    input_per_mtok: f64,
    output_per_mtok: f64,
    cache_write_per_mtok: Option<f64>,
    cache_read_per_mtok: Option<f64>,
    cache_write_1h_per_mtok: Option<f64>,
    per_search_request: Option<f64>,
    per_fetch_request: Option<f64>,
    per_grounded_prompt: Option<f64>,
    per_request: Option<f64>,
    read_on: String,
    source: String,
    fees_source: Option<String>,
}

/// What this program saw run in one request, from the recorded server-tool calls:
/// the count used for fees where the vendor reported no counter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Searches that ran.
    pub searches: u64,
    /// Fetches that ran.
    pub fetches: u64,
}

impl Recorded {
    /// Count the calls that ran, by tool name.
    pub fn of<'a>(calls: impl IntoIterator<Item = (&'a str, bool)>) -> Recorded {
        let mut r = Recorded::default();
        for (tool, _) in calls.into_iter().filter(|(_, ok)| *ok) {
            if tool.contains("fetch") {
                r.fetches += 1;
            } else if tool.contains("search") {
                r.searches += 1;
            }
        }
        r
    }
}

/// Prices by model name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable {
    rows: BTreeMap<String, PriceRow>,
}

impl PriceTable {
    /// A table from `(model, price)` pairs, each sourced as stated in io.toml.
    pub fn new(prices: impl IntoIterator<Item = (String, Price)>) -> Self {
        PriceTable {
            rows: prices
                .into_iter()
                .map(|(model, price)| {
                    let row = PriceRow {
                        vendor: None,
                        model: model.clone(),
                        price,
                        read_on: None,
                        source: "io.toml".to_string(),
                        fees_source: None,
                        overridden: Vec::new(),
                    };
                    (model, row)
                })
                .collect(),
        }
    }

    /// Parse a table in the built-in format; an error names the problem.
    pub fn parse(text: &str) -> Result<PriceTable, String> {
        let file: TableFile = toml::from_str(text).map_err(|e| e.message().to_string())?;
        let mut rows = BTreeMap::new();
        for r in file.row {
            let row = PriceRow {
                vendor: Some(r.vendor),
                model: r.model.clone(),
                price: Price {
                    input_per_mtok: r.input_per_mtok,
                    output_per_mtok: r.output_per_mtok,
                    cache_write_per_mtok: r.cache_write_per_mtok,
                    cache_read_per_mtok: r.cache_read_per_mtok,
                    cache_write_1h_per_mtok: r.cache_write_1h_per_mtok,
                    per_search_request: r.per_search_request,
                    per_fetch_request: r.per_fetch_request,
                    per_grounded_prompt: r.per_grounded_prompt,
                    per_request: r.per_request,
                },
                read_on: Some(r.read_on),
                source: r.source,
                fees_source: r.fees_source,
                overridden: Vec::new(),
            };
            if rows.insert(r.model.clone(), row).is_some() {
                return Err(format!("model {:?} has two rows", r.model));
            }
        }
        Ok(PriceTable { rows })
    }

    /// The built-in, dated and sourced table. It is compiled in and tested; a
    /// table that did not parse would be a build defect, and prices nothing.
    pub fn builtin() -> PriceTable {
        PriceTable::parse(BUILTIN_TABLE).unwrap_or_default()
    }

    /// This table with io.toml's `[prices]` applied field by field. A model with no
    /// row must state both token prices; an error says which is missing.
    pub fn with_overrides(
        mut self,
        overrides: &BTreeMap<String, PriceOverride>,
    ) -> Result<PriceTable, String> {
        for (model, o) in overrides {
            if let Some(key) = o.invalid_key() {
                return Err(format!(
                    "[prices.\"{model}\"] {key} must be a non-negative number of US dollars"
                ));
            }
            let keys: Vec<String> = o.keys().into_iter().map(str::to_string).collect();
            match self.rows.get_mut(model) {
                Some(row) => {
                    let p = &mut row.price;
                    p.input_per_mtok = o.input_per_mtok.unwrap_or(p.input_per_mtok);
                    p.output_per_mtok = o.output_per_mtok.unwrap_or(p.output_per_mtok);
                    p.cache_write_per_mtok = o.cache_write_per_mtok.or(p.cache_write_per_mtok);
                    p.cache_read_per_mtok = o.cache_read_per_mtok.or(p.cache_read_per_mtok);
                    p.cache_write_1h_per_mtok =
                        o.cache_write_1h_per_mtok.or(p.cache_write_1h_per_mtok);
                    p.per_search_request = o.per_search_request.or(p.per_search_request);
                    p.per_fetch_request = o.per_fetch_request.or(p.per_fetch_request);
                    p.per_grounded_prompt = o.per_grounded_prompt.or(p.per_grounded_prompt);
                    p.per_request = o.per_request.or(p.per_request);
                    row.overridden = keys;
                }
                None => {
                    let (Some(input), Some(output)) = (o.input_per_mtok, o.output_per_mtok) else {
                        return Err(format!(
                            "[prices.\"{model}\"] needs input_per_mtok and output_per_mtok: the built-in table has no row for {model} to fill in the rest (`io-harness prices` lists it)"
                        ));
                    };
                    let price = Price {
                        input_per_mtok: input,
                        output_per_mtok: output,
                        cache_write_per_mtok: o.cache_write_per_mtok,
                        cache_read_per_mtok: o.cache_read_per_mtok,
                        cache_write_1h_per_mtok: o.cache_write_1h_per_mtok,
                        per_search_request: o.per_search_request,
                        per_fetch_request: o.per_fetch_request,
                        per_grounded_prompt: o.per_grounded_prompt,
                        per_request: o.per_request,
                    };
                    self.rows
                        .extend(PriceTable::new([(model.clone(), price)]).rows);
                }
            }
        }
        Ok(self)
    }

    /// Every row, by model name.
    pub fn rows(&self) -> impl Iterator<Item = &PriceRow> {
        self.rows.values()
    }

    /// The row of a model, if any.
    pub fn row(&self, model: &str) -> Option<&PriceRow> {
        self.rows.get(model)
    }

    /// The prices of a model, if any.
    pub fn price(&self, model: &str) -> Option<&Price> {
        self.rows.get(model).map(|r| &r.price)
    }

    /// Where a model's prices come from, for the screen: `prices: built-in,
    /// platform.claude.com, 2026-12-03`, `prices: io.toml`, or why there is none.
    pub fn provenance(&self, model: &str) -> String {
        match self.rows.get(model) {
            None => format!("no price for {model}: not in the built-in table or [prices]"),
            Some(r) => match &r.read_on {
                None => "prices: io.toml".to_string(),
                Some(day) => {
                    let host = r
                        .source
                        .trim_start_matches("https://")
                        .split('/')
                        .next()
                        .unwrap_or("");
                    let edited = if r.overridden.is_empty() {
                        String::new()
                    } else {
                        format!(", {} from io.toml", r.overridden.join(", "))
                    };
                    format!("prices: built-in, {host}, {day}{edited}")
                }
            },
        }
    }

    /// What is missing to price requests of `model` in dollars (`None`: nothing):
    /// for a dollar budget, which must be able to count every request.
    pub fn missing_for_budget(&self, model: &str, searches: bool, fetches: bool) -> Option<String> {
        let Some(p) = self.price(model) else {
            return Some(format!(
                "model {model} has no price (no row in the built-in table, no [prices.\"{model}\"] in io.toml)"
            ));
        };
        if searches && p.per_search_request.is_none() && p.per_grounded_prompt.is_none() {
            return Some(format!(
                "model {model} has no per_search_request price and web search is declared"
            ));
        }
        if fetches && p.per_fetch_request.is_none() {
            return Some(format!(
                "model {model} has no per_fetch_request price and web fetch is declared"
            ));
        }
        None
    }

    /// The cost of one request. The vendor's own figure wins when it reported one;
    /// otherwise tokens, cache and fees at this table's prices. Fees count the
    /// vendor's `server_tool_requests` where it reported any, else the calls this
    /// program recorded (and say so).
    pub fn cost(&self, model: &str, usage: Option<&Usage>, recorded: Recorded) -> Cost {
        let u = usage.copied().unwrap_or_default();
        let (searches, fetches, counted_here) = if u.server_tool_requests > 0 {
            let fetches = u.web_fetch_requests.min(u.server_tool_requests);
            (u.server_tool_requests - fetches, fetches, false)
        } else {
            (
                recorded.searches,
                recorded.fetches,
                recorded.searches + recorded.fetches > 0,
            )
        };
        let mut cost = Cost {
            fee_requests: searches.saturating_add(fetches),
            fees_counted_here: counted_here,
            ..Cost::default()
        };
        if let Some(v) = u.reported_cost_micro_usd {
            cost.vendor_micro_usd = Some(v);
            cost.total_micro_usd = Some(v);
            return cost;
        }
        let Some(p) = self.price(model) else {
            cost.unpriced = Some(format!("no price for {model}"));
            return cost;
        };
        let per_token = |n: u64, rate: Option<f64>, key: &str| -> Result<u64, String> {
            match (n, rate) {
                (0, _) => Ok(0),
                (n, Some(r)) => Ok((n as f64 * r).round() as u64),
                (_, None) => Err(format!("no {key} for {model}")),
            }
        };
        let per_call = |n: u64, rate: Option<f64>, key: &str| -> Result<u64, String> {
            match (n, rate) {
                (0, _) => Ok(0),
                (n, Some(r)) => Ok((n as f64 * r * 1e6).round() as u64),
                (_, None) => Err(format!("no {key} for {model}")),
            }
        };
        // Tokens × dollars per million tokens is millionths of a dollar.
        let tokens =
            per_token(u.input_tokens, Some(p.input_per_mtok), "input_per_mtok").and_then(|i| {
                per_token(u.output_tokens, Some(p.output_per_mtok), "output_per_mtok")
                    .map(|o| i.saturating_add(o))
            });
        // A 1-hour write is priced at its own rate; the rest of the writes at the
        // default (5-minute) rate.
        let hour = u.cache_write_1h_tokens.min(u.cache_write_tokens);
        let write = per_token(
            u.cache_write_tokens - hour,
            p.cache_write_per_mtok,
            "cache_write_per_mtok",
        )
        .and_then(|w| {
            per_token(hour, p.cache_write_1h_per_mtok, "cache_write_1h_per_mtok")
                .map(|h| w.saturating_add(h))
        });
        let read = per_token(
            u.cache_read_tokens,
            p.cache_read_per_mtok,
            "cache_read_per_mtok",
        );
        cost.cache_write_micro_usd = write.as_ref().ok().copied();
        cost.cache_read_micro_usd = read.as_ref().ok().copied();
        let cache = write.and_then(|w| read.map(|r| w.saturating_add(r)));
        // Billed per request that searched (Gemini 2.5), else per search.
        let search_fee = match p.per_grounded_prompt {
            Some(rate) => per_call(u64::from(searches > 0), Some(rate), "per_grounded_prompt"),
            None => per_call(searches, p.per_search_request, "per_search_request"),
        };
        // A request fee is owed by every request, searched or not (Sonar).
        let request_fee = per_call(
            u64::from(p.per_request.is_some()),
            p.per_request,
            "per_request",
        );
        let fees = search_fee
            .and_then(|s| {
                per_call(fetches, p.per_fetch_request, "per_fetch_request")
                    .map(|f| s.saturating_add(f))
            })
            .and_then(|f| request_fee.map(|r| f.saturating_add(r)));
        cost.tokens_micro_usd = tokens.as_ref().ok().copied();
        cost.cache_micro_usd = cache.as_ref().ok().copied();
        cost.fees_micro_usd = fees.as_ref().ok().copied();
        match (tokens, cache, fees) {
            (Ok(t), Ok(c), Ok(f)) => {
                cost.total_micro_usd = Some(t.saturating_add(c).saturating_add(f))
            }
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => cost.unpriced = Some(e),
        }
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, searches: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            server_tool_requests: searches,
            ..Usage::default()
        }
    }

    #[test]
    fn nothing_is_priced_that_was_not_stated() {
        let t = PriceTable::new([(
            "m".to_string(),
            Price {
                input_per_mtok: 3.0,
                output_per_mtok: 15.0,
                ..Price::default()
            },
        )]);
        let c = t.cost(
            "m",
            Some(&usage(1_000_000, 100_000, 0)),
            Recorded::default(),
        );
        assert_eq!(c.tokens_micro_usd, Some(4_500_000));
        assert_eq!(c.total_micro_usd, Some(4_500_000));
        let other = t.cost("other", Some(&usage(1, 1, 0)), Recorded::default());
        assert_eq!(other.total_micro_usd, None);
        assert_eq!(other.unpriced.as_deref(), Some("no price for other"));
        // Searches reported with no stated fee: the cost is unknown, not low.
        let c = t.cost("m", Some(&usage(0, 0, 2)), Recorded::default());
        assert_eq!(c.total_micro_usd, None);
        assert_eq!(c.unpriced.as_deref(), Some("no per_search_request for m"));
    }

    #[test]
    fn fees_come_from_the_vendor_counter_else_from_recorded_calls() {
        let t = PriceTable::new([(
            "m".to_string(),
            Price {
                per_search_request: Some(0.01),
                per_fetch_request: Some(0.0),
                ..Price::default()
            },
        )]);
        let reported = t.cost("m", Some(&usage(0, 0, 3)), Recorded::default());
        assert_eq!(
            (reported.fees_micro_usd, reported.fees_counted_here),
            (Some(30_000), false)
        );
        let counted = t.cost(
            "m",
            Some(&usage(0, 0, 0)),
            Recorded::of([
                ("web_search", true),
                ("web_search", false),
                ("web_fetch", true),
            ]),
        );
        assert_eq!(counted.fee_requests, 2);
        assert_eq!(
            (counted.fees_micro_usd, counted.fees_counted_here),
            (Some(10_000), true)
        );
    }

    #[test]
    fn the_vendors_own_figure_wins() {
        let t = PriceTable::builtin();
        let u = Usage {
            reported_cost_micro_usd: Some(7_764),
            ..usage(1829, 25, 0)
        };
        let c = t.cost("claude-sonnet-4-5", Some(&u), Recorded::default());
        assert_eq!(
            (c.vendor_micro_usd, c.total_micro_usd, c.tokens_micro_usd),
            (Some(7_764), Some(7_764), None)
        );
    }

    #[test]
    fn overrides_replace_fields_and_new_models_need_both_token_prices() {
        let mut o = BTreeMap::new();
        o.insert(
            "claude-sonnet-4-5".to_string(),
            PriceOverride {
                input_per_mtok: Some(2.0),
                ..PriceOverride::default()
            },
        );
        let t = PriceTable::builtin().with_overrides(&o).unwrap();
        let row = t.row("claude-sonnet-4-5").unwrap();
        assert_eq!(
            (row.price.input_per_mtok, row.price.output_per_mtok),
            (2.0, 15.0)
        );
        assert_eq!(row.overridden, vec!["input_per_mtok".to_string()]);
        o.insert(
            "mine".to_string(),
            PriceOverride {
                input_per_mtok: Some(1.0),
                ..PriceOverride::default()
            },
        );
        let err = PriceTable::builtin().with_overrides(&o).unwrap_err();
        assert!(
            err.contains("[prices.\"mine\"] needs input_per_mtok and output_per_mtok"),
            "{err}"
        );
    }
}
