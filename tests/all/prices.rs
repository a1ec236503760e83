//! The built-in price table: every row parses, is dated and names the vendor page
//! it was read from; the project's default models are priced; a dollar budget on a
//! model with no price is refused before any request.

#![allow(clippy::unwrap_used)]

use io_harness::price::BUILTIN_TABLE;
use io_harness::{PriceTable, Vendor};

#[test]
fn every_builtin_row_parses_and_is_dated_and_sourced() {
    let table = PriceTable::parse(BUILTIN_TABLE).unwrap();
    let rows: Vec<_> = table.rows().collect();
    assert!(rows.len() >= 6, "{rows:?}");
    for r in &rows {
        let day = r.read_on.as_deref().unwrap_or_default();
        assert!(
            chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_ok(),
            "{}: read_on {day:?} is not YYYY-MM-DD",
            r.model
        );
        for url in std::iter::once(&r.source).chain(r.fees_source.iter()) {
            let parsed = url::Url::parse(url).unwrap();
            assert_eq!(parsed.scheme(), "https", "{}: {url}", r.model);
        }
        assert!(
            r.vendor.is_some(),
            "{}: a built-in row names its vendor",
            r.model
        );
        let p = &r.price;
        for v in [
            Some(p.input_per_mtok),
            Some(p.output_per_mtok),
            p.cache_write_per_mtok,
            p.cache_read_per_mtok,
            p.per_search_request,
            p.per_fetch_request,
        ]
        .into_iter()
        .flatten()
        {
            assert!(v.is_finite() && v >= 0.0, "{}: {v}", r.model);
        }
    }
    // The default models of the vendors the table can source are priced.
    for v in [Vendor::Anthropic, Vendor::OpenAi] {
        assert!(
            table.row(v.default_model()).is_some(),
            "{}",
            v.default_model()
        );
    }
    assert_eq!(PriceTable::builtin(), table);
}

#[test]
fn a_model_with_no_row_says_why_and_guesses_nothing() {
    let table = PriceTable::builtin();
    assert_eq!(
        table.provenance("openai/gpt-5.2"),
        "no price for openai/gpt-5.2: not in the built-in table or [prices]"
    );
    let cost = table.cost(
        "openai/gpt-5.2",
        Some(&io_harness::Usage {
            input_tokens: 1000,
            ..Default::default()
        }),
        Default::default(),
    );
    assert_eq!(cost.total_micro_usd, None);
    assert_eq!(
        cost.unpriced.as_deref(),
        Some("no price for openai/gpt-5.2")
    );
}
