//! The store on real temp files: dedup rules, NULL vs blank, accounting sums, runs
//! newest first, queries across runs, checkpoints, migrations, concurrent writers —
//! each on both engines (`engines`): a SQLite file and a PostgreSQL database.

#![allow(clippy::unwrap_used)]

use io_harness::core::vendor::Vendor;
use io_harness::store::{CHECKPOINT_FORMAT, Checkpoint, CitationQuery, NewRun, ProviderCall};
use io_harness::{
    Citation, RunId, RunOutcome, ServerToolCall, Store, TaskContract, Usage, Verification,
};

use crate::engines::on_both_engines;

fn cite(url: &str, title: Option<&str>) -> Citation {
    Citation {
        url: url.into(),
        title: title.map(Into::into),
        cited_text: None,
    }
}

fn new_run(store: &Store, goal: &str) -> RunId {
    store
        .begin_run(&NewRun {
            goal: goal.into(),
            provider: Vendor::Anthropic,
            model: "m".into(),
            ..NewRun::default()
        })
        .unwrap()
}

on_both_engines! {
    fn duplicate_urls_in_one_step_are_one_row_and_two_steps_are_two(place) {
        let store = place.open();
        let run = new_run(&store, "g");
        assert_eq!(
            store.record_citations(
                run,
                1,
                &[
                    cite("https://a.test/", Some("A")),
                    cite("https://a.test/", Some("A again"))
                ]
            ),
            1
        );
        assert_eq!(
            store.record_citations(run, 1, &[cite("https://a.test/", None)]),
            0
        );
        assert_eq!(
            store.record_citations(run, 2, &[cite("https://a.test/", None)]),
            1
        );
        let rows = store.citations(run).unwrap();
        assert_eq!(
            rows.iter()
                .map(|r| (r.step, r.title.clone()))
                .collect::<Vec<_>>(),
            vec![(1, Some("A".to_string())), (2, None)]
        );
    }
}

on_both_engines! {
    fn null_and_blank_stay_different(place) {
        let store = place.open();
        let run = new_run(&store, "g");
        store.record_citations(
            run,
            1,
            &[
                cite("https://a.test/", Some("")),
                cite("https://b.test/", None),
            ],
        );
        let rows = store.citations(run).unwrap();
        assert_eq!(rows[0].title.as_deref(), Some(""));
        assert_eq!(rows[1].title, None);
    }
}

on_both_engines! {
    fn server_tool_rows_and_accounting(place) {
        let store = place.open();
        let run = new_run(&store, "g");
        store.record_server_tool_calls(
            run,
            1,
            &[
                ServerToolCall::ok(Vendor::Anthropic, "web_search"),
                ServerToolCall::failed(Vendor::Anthropic, "web_search", "max_uses_exceeded"),
            ],
        );
        let calls = store.server_tool_calls(run).unwrap();
        assert_eq!(
            calls.iter().map(|c| c.error.clone()).collect::<Vec<_>>(),
            vec![None, Some("max_uses_exceeded".into())]
        );
        let u = Usage {
            input_tokens: 10,
            output_tokens: 5,
            server_tool_requests: 2,
            ..Default::default()
        };
        store.record_provider_call(
            run,
            1,
            &ProviderCall {
                provider: Vendor::Anthropic,
                model: "m".into(),
                usage: Some(u),
                stop_reason: "pause_turn".into(),
                latency_ms: 7,
                request_id: Some("req_1".into()),
                ..ProviderCall::default()
            },
        );
        store.record_provider_call(
            run,
            2,
            &ProviderCall {
                provider: Vendor::Anthropic,
                model: "m".into(),
                usage: None,
                stop_reason: "end_turn".into(),
                latency_ms: 3,
                request_id: None,
                ..ProviderCall::default()
            },
        );
        let pc = store.provider_calls(run).unwrap();
        assert_eq!(
            pc.iter().map(|c| c.usage).collect::<Vec<_>>(),
            vec![Some(u), None]
        );
        let requests: u64 = pc
            .iter()
            .filter_map(|c| c.usage)
            .map(|u| u.server_tool_requests)
            .sum();
        assert_eq!(requests, 2);
        // The run's figures: the searches its answers reported, ok or failed.
        let f = store
            .figures(run, &io_harness::PriceTable::builtin())
            .unwrap();
        assert_eq!(
            (
                f.requests,
                f.input_tokens,
                f.output_tokens,
                f.searches,
                f.failed_searches
            ),
            (2, 10, 5, 2, 1)
        );
    }
}

on_both_engines! {
    fn runs_newest_first_with_outcomes_and_empty_tables_read_empty(place) {
        let store = place.open();
        let a = new_run(&store, "first");
        let b = new_run(&store, "second");
        store.finish_run(a, &RunOutcome::Passed).unwrap();
        store
            .finish_run(
                b,
                &RunOutcome::Failed {
                    reason: "nope".into(),
                },
            )
            .unwrap();
        let runs = store.runs(None).unwrap();
        assert_eq!(
            runs.iter().map(|r| r.run_id).collect::<Vec<_>>(),
            vec![b, a]
        );
        assert_eq!(runs[0].outcome_detail.as_deref(), Some("nope"));
        assert_eq!(runs[1].outcome.map(|o| o.as_str()), Some("passed"));
        assert!(
            store.citations(a).unwrap().is_empty() && store.server_tool_calls(a).unwrap().is_empty()
        );
        assert_eq!(store.runs(Some(1)).unwrap().len(), 1);
    }
}

on_both_engines! {
    fn citations_across_runs_by_domain_and_text(place) {
        let store = place.open();
        let a = new_run(&store, "a");
        let b = new_run(&store, "b");
        store.record_citations(
            a,
            1,
            &[
                cite("https://example.com/x", Some("Example")),
                cite("https://badexample.com/y", None),
            ],
        );
        store.record_citations(
            b,
            1,
            &[cite("https://docs.example.com/z", Some("Docs 100%"))],
        );
        let by_domain = store
            .search_citations(&CitationQuery {
                domain: Some("example.com".into()),
                ..CitationQuery::default()
            })
            .unwrap();
        assert_eq!(
            by_domain.iter().map(|c| c.url.as_str()).collect::<Vec<_>>(),
            vec!["https://docs.example.com/z", "https://example.com/x"]
        );
        let by_text = store
            .search_citations(&CitationQuery {
                text: Some("EXAMPLE".into()),
                ..CitationQuery::default()
            })
            .unwrap();
        assert_eq!(by_text.len(), 3);
        let pct = store
            .search_citations(&CitationQuery {
                text: Some("100%".into()),
                ..CitationQuery::default()
            })
            .unwrap();
        assert_eq!(pct.len(), 1);
    }
}

on_both_engines! {
    fn checkpoints_round_trip_and_another_format_is_refused(place) {
        let store = place.open();
        let run = new_run(&store, "g");
        let cp = Checkpoint {
            format: CHECKPOINT_FORMAT,
            step: 2,
            observations: vec!["[step 1] x".into()],
            tokens_used: 9,
            continuations: 0,
            contract: TaskContract::workspace("g", ".", Verification::None),
        };
        store.save_checkpoint(run, &cp).unwrap();
        assert_eq!(store.load_checkpoint(run).unwrap(), Some(cp.clone()));
        store
            .save_checkpoint(run, &Checkpoint { format: 6, ..cp })
            .unwrap();
        assert!(
            store
                .load_checkpoint(run)
                .unwrap_err()
                .to_string()
                .contains("format 6")
        );
        assert_eq!(store.load_checkpoint(RunId(999)).unwrap(), None);
    }
}

on_both_engines! {
    fn data_survives_reopen_and_an_older_schema_upgrades(place) {
        let path = place.location().to_path_buf();
        if !place.is_postgres() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        }
        {
            let old = Store::open_at_schema(&path, 1).unwrap();
            assert_eq!(old.schema_version().unwrap(), 1);
        }
        {
            // A row as an older release wrote it: only schema-1 columns.
            place.exec(
                "INSERT INTO runs (started_at, goal, provider, model, outcome, finished_at)
                 VALUES ('2026-01-01T00:00:00Z', 'recorded before 0.22.0', 'anthropic', 'm', 'passed', '2026-01-01T00:01:00Z');
                 INSERT INTO provider_calls (run_id, step, provider, model, input_tokens, output_tokens,
                   server_tool_requests, has_usage, stop_reason, latency_ms, created_at)
                 VALUES (1, 1, 'anthropic', 'claude-sonnet-4-5', 1000, 100, 1, '1', 'end_turn', 5, '2026-01-01T00:00:30Z');",
            );
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(
            store.schema_version().unwrap(),
            io_harness::store::SCHEMA_VERSION as i64
        );
        let runs = store.runs(None).unwrap();
        assert_eq!(runs[0].goal, "recorded before 0.22.0");
        assert!(store.citations(runs[0].run_id).unwrap().is_empty());
        // The old accounting row reads with no cache tokens and no vendor figure, and
        // is priced from its counts: 1000 × $3 + 100 × $15 per million, one $0.01 search.
        let ledger = store
            .ledger(runs[0].run_id, &io_harness::PriceTable::builtin())
            .unwrap();
        let u = ledger.lines[0].call.usage.unwrap();
        assert_eq!(
            (
                u.cache_write_tokens,
                u.cache_read_tokens,
                u.reported_cost_micro_usd
            ),
            (0, 0, None)
        );
        assert_eq!(ledger.total_micro_usd(), Some(3_000 + 1_500 + 10_000));
        drop(store);
        assert_eq!(
            Store::open(&path).unwrap().schema_version().unwrap(),
            io_harness::store::SCHEMA_VERSION as i64
        );
    }
}

on_both_engines! {
    fn two_connections_on_one_file_lose_no_rows(place) {
        let path = place.location().to_path_buf();
        let run = new_run(&place.open(), "g");
        let handles: Vec<_> = (0..2)
            .map(|t| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let store = Store::open(&path).unwrap();
                    for i in 0..100 {
                        store.record_citations(
                            run,
                            1,
                            &[cite(&format!("https://t{t}.test/{i}"), None)],
                        );
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(
            Store::open(&path).unwrap().citations(run).unwrap().len(),
            200
        );
    }
}
