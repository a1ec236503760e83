//! Money as text: millionths of a US dollar shown to the millionth, and one
//! request's cost itemised on a line. Every view that shows a dollar figure
//! formats it here (re-exported from `price`).

use crate::core::event::Cost;

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
    fn money_is_shown_to_the_millionth() {
        assert_eq!(usd(36_912), "$0.036912");
        assert_eq!(usd(2_000_000), "$2.000000");
        assert_eq!(usd_or_dash(None), "—");
    }
}
