//! The field's question sets read as published (issue 36): each loader on a
//! small file in exactly its set's published form (tests/fixtures/sets/, whose
//! README says where each form comes from), a malformed row of each refused
//! naming the file, the line and the field, and `--limit` / `--sample --seed`
//! picking a reproducible subset that the report names with the file's hash.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use io_harness::core::eval::{AnswerKind, Question, SetName};
use io_harness::launch::read_set;
use pretty_assertions::assert_eq;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sets")
        .join(name)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn ids(qs: &[Question]) -> Vec<&str> {
    qs.iter().map(|q| q.id.as_str()).collect()
}

/// SHA-256 of a file, as `sha256sum` prints it.
fn sha256(path: &Path) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, &std::fs::read(path).unwrap());
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn simpleqa_reads_its_python_dict_metadata() {
    let path = fixture("simple_qa_test_set.sample.csv");
    let f = read_set(&path, None).unwrap();
    assert_eq!(f.set, SetName::SimpleQa);
    assert_eq!(f.revision, sha256(&path));
    assert_eq!(
        ids(&f.questions),
        ["simpleqa-0", "simpleqa-1", "simpleqa-2", "simpleqa-3"]
    );
    let q = &f.questions[2];
    assert_eq!(
        q.question,
        "On what day, month, and year was the invented album \"Example Songs\" released?"
    );
    assert_eq!(q.answers, strings(&["March 3, 2001"]));
    // A URL holding an apostrophe, double-quoted by Python's repr and its
    // quotes doubled by the CSV writer.
    assert_eq!(
        q.urls,
        strings(&[
            "https://en.wikipedia.org/wiki/Nobody's_Example_Album",
            "https://example.net/discography"
        ])
    );
    assert_eq!(f.questions[3].answers, strings(&["1,250"]));
    assert!(!f.set.private_by_default());
}

#[test]
fn simpleqa_verified_reads_its_comma_joined_urls_and_ranges() {
    let f = read_set(&fixture("simpleqa_verified.sample.csv"), None).unwrap();
    assert_eq!(f.set, SetName::SimpleQaVerified);
    assert_eq!(
        ids(&f.questions),
        ["sqv-17", "sqv-203", "sqv-958", "sqv-4101"]
    );
    let q = &f.questions[1];
    assert_eq!(
        q.answers,
        strings(&["12,400 (acceptable range: anything between 12,276 and 12,524)"])
    );
    assert_eq!(
        q.urls,
        strings(&[
            "https://example.com/arena/facts",
            "https://en.wikipedia.org/wiki/Example_Arena"
        ])
    );
    // One URL: a bare cell.
    assert_eq!(
        f.questions[2].urls,
        strings(&["https://example.net/bands/the-samples"])
    );
}

#[test]
fn frames_reads_its_tab_separated_rows_and_wiki_links() {
    let f = read_set(&fixture("frames_test.sample.tsv"), None).unwrap();
    assert_eq!(f.set, SetName::Frames);
    assert_eq!(ids(&f.questions), ["frames-0", "frames-1", "frames-2"]);
    assert_eq!(f.questions[0].answers, strings(&["1712"]));
    assert_eq!(
        f.questions[0].urls,
        strings(&[
            "https://en.wikipedia.org/wiki/Example_Article_1",
            "https://en.wikipedia.org/wiki/Example_Article_2"
        ])
    );
    // A quoted prompt holding quotes.
    assert!(f.questions[1].question.contains("\"Example Atlas\""));
    // Twelve articles: the 11th and 12th from the list, not the run-together cell.
    assert_eq!(f.questions[2].urls.len(), 12);
    assert_eq!(
        f.questions[2].urls[11],
        "https://en.wikipedia.org/wiki/Example_Article_12"
    );
}

#[test]
fn sealqa_reads_its_rows_as_json_lines_and_refuses_parquet_saying_how_to_convert() {
    let f = read_set(&fixture("seal-0.sample.jsonl"), None).unwrap();
    assert_eq!(f.set, SetName::SealQa);
    assert_eq!(ids(&f.questions), ["sealqa-0", "sealqa-1", "sealqa-2"]);
    assert_eq!(f.questions[1].answers, strings(&["7"]));
    assert_eq!(
        f.questions[1].urls,
        strings(&["https://example.net/planets/examplus"])
    );
    assert!(f.questions[2].urls.is_empty());
    let e = read_set(&fixture("seal-0.sample.parquet"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("seal-0.sample.parquet: a Parquet file"), "{e}");
    assert!(e.contains("pyarrow.parquet"), "{e}");
}

#[test]
fn deepsearchqa_reads_set_answers_as_every_item_wanted() {
    for name in [
        "DSQA-full.sample.csv",
        "DSQA-full.kaggle-variant.sample.csv",
    ] {
        let f = read_set(&fixture(name), None).unwrap();
        assert_eq!(f.set, SetName::DeepSearchQa, "{name}");
        assert_eq!(ids(&f.questions), ["dsqa-0", "dsqa-1", "dsqa-2", "dsqa-3"]);
        let q = &f.questions[1];
        assert_eq!(q.kind, AnswerKind::All);
        assert_eq!(q.answers, strings(&["Testford", "Mockburg", "Sampleton"]));
        assert_eq!(f.questions[0].kind, AnswerKind::Any);
        assert_eq!(f.questions[0].answers, strings(&["Placeholdia"]));
        assert!(q.urls.is_empty());
    }
}

#[test]
fn browsecomp_is_decrypted_on_load_and_private_by_default() {
    let f = read_set(&fixture("browse_comp_test_set.sample.csv"), None).unwrap();
    assert_eq!(f.set, SetName::BrowseComp);
    assert!(f.set.private_by_default());
    assert_eq!(
        ids(&f.questions),
        [
            "browsecomp-0",
            "browsecomp-1",
            "browsecomp-2",
            "browsecomp-3"
        ]
    );
    assert_eq!(f.questions[1].answers, strings(&["Placeholder Park"]));
    assert!(
        f.questions[1]
            .question
            .starts_with("An imaginary football club")
    );
    // Bytes, not characters: the accented answer decrypts whole.
    assert_eq!(
        f.questions[3].answers,
        strings(&["Résumé of Sample Widgets"])
    );
}

/// `text` written as `name` in a fresh folder, read.
fn refused(name: &str, text: &str, set: Option<SetName>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    read_set(&path, set).unwrap_err().to_string()
}

#[test]
fn a_malformed_row_is_refused_naming_file_line_and_field() {
    let cases: [(&str, &str, &str); 8] = [
        (
            "simple_qa_test_set.csv",
            "metadata,problem,answer\n\"{'topic': 'Art', 'urls': []}\",Q?,A\n\"{'topic': 'Art', 'urls': [}\",Q2?,B\n",
            "simple_qa_test_set.csv:3: field `metadata`: not a Python dict literal",
        ),
        (
            "simpleqa_verified.csv",
            "original_index,problem,answer,topic,answer_type,multi_step,requires_reasoning,urls\nx,Q?,A,Art,Person,False,False,https://a.org\n",
            "simpleqa_verified.csv:2: field `original_index`",
        ),
        (
            "test.tsv",
            "Unnamed: 0\tPrompt\tAnswer\twiki_links\n0\tQ?\tA\t['https://a.org'\n",
            "test.tsv:2: field `wiki_links`: not a Python list literal",
        ),
        (
            "seal-0.jsonl",
            "{\"question\": \"Q?\", \"answer\": \"A\", \"urls\": []}\n{\"question\": \"Q2?\", \"answer\": \"B\", \"urls\": \"https://a.org\"}\n",
            "seal-0.jsonl:2: field `urls` is not a list of strings",
        ),
        (
            "DSQA-full.csv",
            "problem,problem_category,answer,answer_type\nQ?,Sports,A,Many Answers\n",
            "DSQA-full.csv:2: field `answer_type`",
        ),
        (
            "browse_comp_test_set.csv",
            "problem,answer,problem_topic,canary\nnot base64!,AAAA,Art,c\n",
            "browse_comp_test_set.csv:2: field `problem`: not base64",
        ),
        // A quoted field spanning lines: the next row's line is counted.
        (
            "simple_qa_test_set.csv",
            "metadata,problem,answer\n\"{'urls': []}\",\"Q\nstill Q?\",A\n\"{'urls': []}\",,B\n",
            "simple_qa_test_set.csv:4: field `problem` is empty",
        ),
        (
            "DSQA-full.csv",
            "problem,problem_category,answer,answer_type\nQ?,Sports,A\n",
            "DSQA-full.csv:2: the row has 3 fields and the header 4",
        ),
    ];
    for (name, text, said) in cases {
        let e = refused(name, text, None);
        assert!(e.contains(said), "{name}: {e}");
    }
    // A header no set has, or the wrong --set: refused saying what to do.
    let e = refused("x.csv", "q,a\nQ?,A\n", None);
    assert!(
        e.contains("x.csv:1: the header `q,a` is not one of the sets"),
        "{e}"
    );
    let e = refused(
        "x.csv",
        "metadata,problem,answer\n\"{}\",Q?,A\n",
        Some(SetName::BrowseComp),
    );
    assert!(
        e.contains("x.csv:1: the header has no column `canary`"),
        "{e}"
    );
}

/// FRAMES' cleaned file (`test_clean.tsv`, today's `test.tsv` on one revision)
/// has no index column: ids count rows, and the links come from the
/// `wikipedia_link_*` cells when there is no `wiki_links`.
#[test]
fn frames_without_its_index_column_counts_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test_clean.tsv");
    std::fs::write(
        &path,
        "Prompt\tAnswer\twikipedia_link_1\twikipedia_link_2\treasoning_types\nQ one?\t1712\ten.wikipedia.org/wiki/A (NOT REQUIRED, BUT HELPFUL),\thttps://en.m.wikipedia.org/wiki/B\tNumerical reasoning\nQ two?\tX\t\t\tPost processing\n",
    )
    .unwrap();
    let f = read_set(&path, None).unwrap();
    assert_eq!(f.set, SetName::Frames);
    assert_eq!(ids(&f.questions), ["frames-0", "frames-1"]);
    assert_eq!(
        f.questions[0].urls,
        strings(&[
            "https://en.wikipedia.org/wiki/A",
            "https://en.m.wikipedia.org/wiki/B"
        ])
    );
    assert!(f.questions[1].urls.is_empty());
}
