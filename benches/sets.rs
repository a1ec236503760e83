//! Loading the field's question sets at their published sizes, each file
//! generated in its published shape (invented rows of a typical length):
//! SimpleQA's 4,326 rows, SimpleQA Verified's 1,000, FRAMES' 824, SealQA's
//! Seal-Hard 254 (JSON Lines), DeepSearchQA's 900 and BrowseComp's 1,266
//! (decrypted as read). Target: SimpleQA within 50 ms in release, and time
//! linear in rows — printed as `linear`, the time for twice SimpleQA's rows
//! over the time for its rows (≈ 2), before criterion's figures.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use io_harness::core::eval::SetName;
use io_harness::core::eval::browsecomp::encrypt;
use io_harness::launch::read_set;

fn p<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A CSV cell, quoted when it must be.
fn cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\t']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn question(i: usize) -> String {
    format!(
        "In which year did the invented \"Example Society {i}\" first meet, according to its made-up founding charter, and who chaired it?"
    )
}

fn simpleqa(rows: usize) -> String {
    let mut out = String::from("metadata,problem,answer\n");
    for i in 0..rows {
        let meta = format!(
            "{{'topic': 'History', 'answer_type': 'Date', 'urls': ['https://en.wikipedia.org/wiki/Example_Society_{i}', \"https://example.org/societies/{i}/founder's-charter\", 'https://example.net/archive/{i}']}}"
        );
        out.push_str(&format!(
            "{},{},{}\n",
            cell(&meta),
            cell(&question(i)),
            cell("March 3, 1901")
        ));
    }
    out
}

fn simpleqa_verified(rows: usize) -> String {
    let mut out = String::from(
        "original_index,problem,answer,topic,answer_type,multi_step,requires_reasoning,urls\n",
    );
    for i in 0..rows {
        let urls = format!("https://example.org/s/{i},https://en.wikipedia.org/wiki/Example_{i}");
        out.push_str(&format!(
            "{i},{},{},History,Number,True,False,{}\n",
            cell(&question(i)),
            cell("12,400 (acceptable range: anything between 12,276 and 12,524)"),
            cell(&urls)
        ));
    }
    out
}

fn frames(rows: usize) -> String {
    let mut head = vec!["Unnamed: 0".to_string(), "Prompt".into(), "Answer".into()];
    head.extend((1..=10).map(|n| format!("wikipedia_link_{n}")));
    head.extend([
        "wikipedia_link_11+".into(),
        "reasoning_types".into(),
        "wiki_links".into(),
    ]);
    let mut out = head.join("\t") + "\n";
    for i in 0..rows {
        let links: Vec<String> = (1..=4)
            .map(|n| format!("https://en.wikipedia.org/wiki/Example_{i}_{n}"))
            .collect();
        let mut cells = vec![i.to_string(), cell(&question(i)), "1712".into()];
        cells.extend(links.iter().cloned());
        cells.extend(std::iter::repeat_n(String::new(), 7));
        cells.push("Numerical reasoning | Temporal reasoning".into());
        cells.push(format!("['{}']", links.join("', '")));
        out.push_str(&(cells.join("\t") + "\n"));
    }
    out
}

fn sealqa(rows: usize) -> String {
    (0..rows)
        .map(|i| {
            serde_json::json!({
                "question": question(i), "answer": "Dana Sample",
                "urls": [format!("https://example.org/q/{i}"), format!("https://example.com/r/{i}")],
                "freshness": "slow-changing", "question_types": ["advanced reasoning"],
                "effective_year": "2024", "search_results": "conflicting", "topic": "Science",
                "canary": format!("sealqa-sample:{i}"),
            })
            .to_string()
                + "\n"
        })
        .collect()
}

fn deepsearchqa(rows: usize) -> String {
    let mut out = String::from("problem,problem_category,answer,answer_type\n");
    for i in 0..rows {
        let (answer, kind) = if i % 3 == 0 {
            ("Placeholdia", "Single Answer")
        } else {
            ("Testford, Mockburg, Sampleton, North Example", "Set Answer")
        };
        out.push_str(&format!(
            "{},Sports,{},{kind}\n",
            cell(&question(i)),
            cell(answer)
        ));
    }
    out
}

fn browsecomp(rows: usize) -> String {
    let canary =
        "SAMPLE DATA NOT FROM BROWSECOMP. canary GUID sample:0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9";
    let mut out = String::from("problem,answer,problem_topic,canary\n");
    for i in 0..rows {
        out.push_str(&format!(
            "{},{},Art,{canary}\n",
            encrypt(&question(i).repeat(3), canary),
            encrypt("Lamp at Dusk", canary)
        ));
    }
    out
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    p(std::fs::write(&path, text));
    path
}

/// The median of `n` timed loads of `path`, in microseconds.
fn median_load_us(path: &Path, n: usize) -> f64 {
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let start = Instant::now();
            black_box(p(read_set(path, None)));
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[n / 2]
}

fn sets(c: &mut Criterion) {
    let dir = p(tempfile::tempdir());
    let files = [
        (
            SetName::SimpleQa,
            write(dir.path(), "simple_qa_test_set.csv", &simpleqa(4_326)),
        ),
        (
            SetName::SimpleQaVerified,
            write(
                dir.path(),
                "simpleqa_verified.csv",
                &simpleqa_verified(1_000),
            ),
        ),
        (SetName::Frames, write(dir.path(), "test.tsv", &frames(824))),
        (
            SetName::SealQa,
            write(dir.path(), "seal-hard.jsonl", &sealqa(254)),
        ),
        (
            SetName::DeepSearchQa,
            write(dir.path(), "DSQA-full.csv", &deepsearchqa(900)),
        ),
        (
            SetName::BrowseComp,
            write(dir.path(), "browse_comp_test_set.csv", &browsecomp(1_266)),
        ),
    ];
    let half = write(dir.path(), "simple_qa_half.csv", &simpleqa(2_163));
    let double = write(dir.path(), "simple_qa_x2.csv", &simpleqa(8_652));
    let (h, one, two) = (
        median_load_us(&half, 15),
        median_load_us(&files[0].1, 15),
        median_load_us(&double, 15),
    );
    println!(
        "linear: SimpleQA 2,163 rows {:.1} ms, 4,326 rows {:.1} ms, 8,652 rows {:.1} ms: ×{:.2} and ×{:.2} for ×2 rows",
        h / 1e3,
        one / 1e3,
        two / 1e3,
        one / h,
        two / one
    );
    let mut g = c.benchmark_group("sets");
    g.sample_size(10);
    for (set, path) in &files {
        let read = p(read_set(path, None));
        assert_eq!(read.set, *set);
        g.bench_function(format!("load {set} ({} rows)", read.questions.len()), |b| {
            b.iter(|| black_box(p(read_set(path, None))))
        });
    }
    g.finish();
}

criterion_group!(benches, sets);
criterion_main!(benches);
