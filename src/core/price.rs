//! `PriceTable`: operator-stated prices, and the cost derived from them. A cost is
//! computed when read, never stored, and nothing is priced that the operator did
//! not price: an unknown model has no token cost, and search requests cost nothing
//! here unless `per_search_request` was stated.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::core::completion::Usage;
use crate::core::event::Cost;

/// The prices of one model, as written under `[prices."MODEL"]` in `io.toml`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// US dollars per million input tokens.
    pub input_per_mtok: f64,
    /// US dollars per million output tokens.
    pub output_per_mtok: f64,
    /// US dollars per provider-executed search request, when stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_search_request: Option<f64>,
}

/// Prices by model name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable {
    prices: BTreeMap<String, Price>,
}

impl PriceTable {
    /// A table from `(model, price)` pairs.
    pub fn new(prices: impl IntoIterator<Item = (String, Price)>) -> Self {
        PriceTable {
            prices: prices.into_iter().collect(),
        }
    }

    /// The stated price of a model, if any.
    pub fn price(&self, model: &str) -> Option<&Price> {
        self.prices.get(model)
    }

    /// The cost of one call. `None` parts where nothing was stated.
    pub fn cost(&self, model: &str, usage: Option<&Usage>) -> Cost {
        let (Some(price), Some(usage)) = (self.price(model), usage) else {
            return Cost::default();
        };
        let tokens = usage.input_tokens as f64 / 1e6 * price.input_per_mtok
            + usage.output_tokens as f64 / 1e6 * price.output_per_mtok;
        Cost {
            tokens_usd: Some(tokens),
            search_usd: price
                .per_search_request
                .map(|p| p * usage.server_tool_requests as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_priced_that_was_not_stated() {
        let t = PriceTable::new([(
            "m".to_string(),
            Price {
                input_per_mtok: 3.0,
                output_per_mtok: 15.0,
                per_search_request: None,
            },
        )]);
        let u = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            server_tool_requests: 2,
        };
        let c = t.cost("m", Some(&u));
        assert_eq!(c.tokens_usd, Some(4.5));
        assert_eq!(c.search_usd, None);
        assert_eq!(t.cost("other", Some(&u)), Cost::default());
    }

    #[test]
    fn search_requests_priced_only_when_stated() {
        let t = PriceTable::new([(
            "m".to_string(),
            Price {
                input_per_mtok: 0.0,
                output_per_mtok: 0.0,
                per_search_request: Some(0.01),
            },
        )]);
        let u = Usage {
            input_tokens: 0,
            output_tokens: 0,
            server_tool_requests: 3,
        };
        assert_eq!(t.cost("m", Some(&u)).search_usd, Some(0.03));
    }
}
