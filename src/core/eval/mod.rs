//! An eval: a question set run across vendors and scored deterministically —
//! a model judges only when asked (`judge`). Pure: the question file read
//! (`questions`; the published sets' rows, `set`), the scores of one run
//! (`score_run`) and the matrix of them (`report`), from rows the store read.
//!
//! - **normalisation** (`normalise`): lowercased; every run of characters that
//!   are not letters or digits is one space; a number's thousands commas are
//!   dropped (`1,234` → `1234`, only in groups of three) and a decimal's
//!   trailing zeros too (`3.50` → `3.5`, `2.0` → `2`); a number with more than
//!   one dot (a version, `0.22.0`) is kept as written.
//! - **correct**: some gold answer, normalised, appears in the normalised final
//!   answer as whole words (`1` is not found in `10`), or, for a gold that is a
//!   number alone or states a range, a number of the answer agrees with it to
//!   the precision it is written to (`number`); every gold item for a set
//!   answer (`items`); `None` without gold answers.
//! - **URL recall**: the share of the gold URLs the run cited, each URL compared
//!   by its identity (`core::record::identity`: fragment, tracking parameters
//!   and a path's trailing `/` dropped); **domain recall** beside it: the share
//!   of gold URLs whose domain (`core::record::domain`, `www.` folded) the run
//!   cited any page of.
//! - **wall time** percentiles are nearest-rank (`percentile`).

pub mod browsecomp;
pub mod citation;
pub mod items;
pub mod judge;
pub mod number;
pub mod pyliteral;
mod question;
mod ran;
mod report;
mod score;
pub mod set;
mod status;
pub mod subset;
pub mod table;
#[cfg(test)]
mod worked;

pub use judge::{Grade, JudgeFigures, JudgeSpec};
pub use question::{
    AnswerKind, MAX_FILE_BYTES, MAX_ID_CHARS, MAX_LINE_BYTES, MAX_QUESTION_CHARS, Question,
    QuestionSet, file_too_large, line_too_long, questions,
};
pub use report::{
    EvalReport, JudgingRecord, QuestionRecord, RunRecord, Scored, VendorRow, report, score_run,
};
pub use score::{correct, normalise, percentile, url_recall};
pub use set::{SetName, SetRows};
pub use status::QuestionStatus;
pub use subset::Subset;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::figures::RunFigures;
    use crate::core::id::{EvalId, GroupId, RunId};
    use crate::core::outcome::Outcome;
    use crate::core::vendor::Vendor;

    const A: Vendor = Vendor::Anthropic;
    const B: Vendor = Vendor::OpenAi;

    fn gold(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn answers_are_compared_without_case_punctuation_spacing_or_number_format() {
        assert_eq!(
            normalise("  The ANSWER:\n  1,234.50 km!  "),
            "the answer 1234.5 km"
        );
        assert_eq!(normalise("2.0, 3.000 and 0.22.0"), "2 3 and 0.22.0");
        assert_eq!(normalise("Rust's 1,5"), "rust s 1 5");
        assert_eq!(
            correct("It was released in 2015.", &gold(&["2015"])),
            Some(true)
        );
        assert_eq!(correct("About 1,000 people", &gold(&["1000"])), Some(true));
        assert_eq!(
            correct("Version 0.22.0 is out", &gold(&["v0.21", "0.22.0"])),
            Some(true)
        );
        // Whole words: 1 is not in 10, nor "rust" in "rustc".
        assert_eq!(correct("10 of them", &gold(&["1"])), Some(false));
        assert_eq!(correct("rustc", &gold(&["Rust"])), Some(false));
        assert_eq!(correct("The Rust language", &gold(&["rust"])), Some(true));
        assert_eq!(correct("anything", &[]), None);
        assert_eq!(correct("anything", &gold(&["  ", "!"])), None);
    }

    #[test]
    fn gold_urls_are_found_by_normalised_url_and_by_domain() {
        // A URL's identity itself is core::record's (and tested there).
        let g = gold(&[
            "https://crates.io/crates/io-harness",
            "https://docs.rs/io-harness",
        ]);
        let cited = gold(&[
            "https://crates.io/crates/io-harness?utm_source=openai",
            "https://www.docs.rs/other",
        ]);
        assert_eq!(url_recall(&g, &cited), (Some(0.5), Some(1.0)));
        assert_eq!(url_recall(&[], &cited), (None, None));
        assert_eq!(url_recall(&g, &[]), (Some(0.0), Some(0.0)));
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&v, 50), Some(10));
        assert_eq!(percentile(&v, 95), Some(19));
        assert_eq!(percentile(&v, 100), Some(20));
        assert_eq!(percentile(&[7], 95), Some(7));
        assert_eq!(percentile(&[], 50), None);
    }

    #[test]
    fn a_bad_line_is_refused_naming_file_line_and_field() {
        let ok = "{\"id\":\"q1\",\"question\":\"Why?\",\"answers\":[\"42\"]}\n{\"id\":\"q2\",\"question\":\"How?\"}\n";
        let qs = questions(ok, "set.jsonl").expect("two questions");
        assert_eq!(qs.len(), 2);
        assert_eq!(qs[0].answers, vec!["42".to_string()]);
        let refused = |text: &str| questions(text, "set.jsonl").expect_err(text).to_string();
        assert!(refused("{\"id\":\"q1\"}").contains("set.jsonl:1: field `question` is missing"));
        assert!(
            refused("{\"id\":\"q1\",\"question\":\"a\"}\nnot json")
                .contains("set.jsonl:2: not JSON")
        );
        assert!(
            refused("{\"id\":\"q1\",\"question\":\"a\"}\n\n{\"id\":\"q2\",\"question\":\"b\"}")
                .contains("set.jsonl:2: the line is empty")
        );
        let twice = "{\"id\":\"q1\",\"question\":\"a\"}\n{\"id\":\"q1\",\"question\":\"b\"}";
        assert!(refused(twice).contains("set.jsonl:2: field `id`"));
        assert!(
            refused("{\"id\":\"q1\",\"question\":\"a\",\"answer\":[\"x\"]}")
                .contains("field `answer` is not known")
        );
        assert!(
            refused("{\"id\":\"q1\",\"question\":\"a\",\"urls\":\"x\"}")
                .contains("field `urls` is not a list")
        );
        assert!(refused("").contains("set.jsonl: no questions"));
    }

    #[test]
    fn the_matrix_counts_only_runs_and_grades_only_gold() {
        let q = |id: &str, answers: &[&str]| Question {
            id: id.into(),
            question: "?".into(),
            answers: gold(answers),
            urls: gold(&["https://a.com/x"]),
            ..Question::default()
        };
        let run = |id: i64, vendor: Vendor, answer: &str, wall: u64| RunRecord {
            run_id: RunId(id),
            vendor,
            outcome: Some(Outcome::Passed),
            answer: answer.into(),
            cited: gold(&["https://a.com/x"]),
            figures: RunFigures {
                cost_micro_usd: Some(100),
                wall_ms: Some(wall),
                searches: 2,
                failed_searches: 1,
                ..RunFigures::default()
            },
            claims: vec![],
        };
        let records = vec![
            QuestionRecord {
                question: q("q1", &["yes"]),
                group_id: Some(GroupId(1)),
                status: QuestionStatus::Done,
                runs: vec![run(1, A, "Yes.", 10), run(2, B, "no", 30)],
                refusals: vec![],
                judgings: vec![],
            },
            QuestionRecord {
                question: q("q2", &[]),
                group_id: Some(GroupId(2)),
                status: QuestionStatus::Done,
                runs: vec![run(3, A, "x", 20)],
                refusals: vec![(B, "refused web".into())],
                judgings: vec![],
            },
            QuestionRecord {
                question: q("q3", &["y"]),
                status: QuestionStatus::Skipped,
                ..QuestionRecord::default()
            },
        ];
        let r = report(EvalId(7), "f", &[A, B], &records);
        assert_eq!(r.not_run, vec!["q3".to_string()]);
        assert_eq!(r.questions.len(), 6);
        let a = &r.vendors[0];
        assert_eq!(
            (a.runs, a.correct, a.graded, a.accuracy),
            (2, 1, 1, Some(1.0))
        );
        assert_eq!(
            (a.cost_micro_usd, a.mean_cost_micro_usd),
            (Some(200), Some(100))
        );
        assert_eq!((a.wall_ms_p50, a.wall_ms_p95), (Some(10), Some(20)));
        assert_eq!((a.searches, a.failed_searches, a.not_run), (4, 2, 1));
        assert_eq!(a.url_recall, Some(1.0));
        assert_eq!(a.cited_share, None);
        let b = &r.vendors[1];
        assert_eq!((b.runs, b.accuracy, b.not_run), (1, Some(0.0), 2));
        assert_eq!(r.questions[3].note.as_deref(), Some("refused web"));
        assert_eq!(r.cost_micro_usd, Some(300));
    }

    /// No layout panics on any length: an id far over the file's limit (an
    /// eval stored before the limit, or built in code) still renders in every
    /// shape.
    #[test]
    fn no_table_layout_panics_on_a_long_cell() {
        let long = "i".repeat(70_000);
        let records = vec![QuestionRecord {
            question: Question {
                id: long.clone(),
                question: "q".into(),
                answers: vec![],
                urls: vec![],
                ..Question::default()
            },
            status: QuestionStatus::Pending,
            ..QuestionRecord::default()
        }];
        let r = report(EvalId(1), &long, &[A], &records);
        for text in [
            table::render(&r),
            table::markdown(&r),
            table::csv(&r),
            table::columns(&table::QUESTION_HEAD, &[vec![long.clone(); 10]]),
        ] {
            assert!(text.contains(&long));
        }
    }

    /// What the question file and the vendors wrote reaches the Markdown and
    /// CSV exports as the sources' exports have it: no raw HTML or link in the
    /// Markdown, no formula a spreadsheet would run in the CSV.
    #[test]
    fn the_exports_carry_no_injected_content() {
        let evil = "<img src=x onerror=alert(1)>[x](javascript:y)";
        let records = vec![
            QuestionRecord {
                question: Question {
                    id: evil.into(),
                    question: "q".into(),
                    answers: vec![],
                    urls: vec![],
                    ..Question::default()
                },
                group_id: Some(GroupId(1)),
                status: QuestionStatus::Done,
                runs: vec![],
                refusals: vec![(A, "=HYPERLINK(\"http://e\") <b>".into())],
                judgings: vec![],
            },
            QuestionRecord {
                question: Question {
                    id: "=cmd|' /C calc'!A0".into(),
                    question: "q".into(),
                    answers: vec![],
                    urls: vec![],
                    ..Question::default()
                },
                status: QuestionStatus::Pending,
                ..QuestionRecord::default()
            },
        ];
        let r = report(EvalId(7), "<script>x</script>.jsonl", &[A], &records);
        let md = table::markdown(&r);
        for raw in ["<img", "<b>", "<script>", "](javascript:"] {
            assert!(!md.contains(raw), "{raw} in {md}");
        }
        assert!(
            md.contains("&lt;img src=x onerror=alert\\(1\\)&gt;"),
            "{md}"
        );
        let csv = table::csv(&r);
        assert!(csv.contains("\"'=HYPERLINK"), "{csv}");
        assert!(csv.contains("'=cmd"), "{csv}");
        assert!(!csv.contains(",=cmd"), "{csv}");
    }
}
