//! The question sets `eval` reads as they are published, each recognised from
//! its header (or named with `--set`), each row turned into a `Question`
//! (`SetRows`, fed a row at a time by the file reader). What each set's file
//! is, and how its rows map, is in docs/eval.md; in short:
//!
//! | set | file | id | answers | urls |
//! | --- | --- | --- | --- | --- |
//! | `simpleqa` | CSV `metadata,problem,answer` | `simpleqa-ROW` | `answer` | `metadata`'s `urls` (a Python dict literal) |
//! | `simpleqa-verified` | CSV `original_index,problem,answer,…,urls` | `sqv-ORIGINAL_INDEX` | `answer` (its stated range read as numbers) | `urls`, one comma-joined cell |
//! | `frames` | TSV `[Unnamed: 0,]Prompt,Answer,…,wiki_links` | `frames-INDEX` (else `frames-ROW`) | `Answer` | `wiki_links` (a Python list literal), else the `wikipedia_link_*` cells |
//! | `sealqa` | JSON Lines or CSV `question,answer,urls,…` | `sealqa-ROW` | `answer` | `urls` |
//! | `deepsearchqa` | CSV `[example_id,]problem,problem_category,answer,answer_type` | `dsqa-EXAMPLE_ID` (else `dsqa-ROW`) | `Single Answer`: `answer`; `Set Answer`: every item of `answer` split at `, ` | none |
//! | `browsecomp` | CSV `problem,answer,problem_topic,canary` | `browsecomp-ROW` | `answer`, decrypted | none |
//!
//! ROW counts data rows from 0 (pandas' index). Columns beyond these are
//! allowed (the sets add some over time) and not read; a column a set needs is
//! required. A malformed row is refused naming the file, the line and the
//! field. An empty gold answer is no gold (the question is run, not graded).

use std::collections::HashSet;

use super::browsecomp::decrypt;
use super::pyliteral::{self, Literal};
use super::question::{AnswerKind, MAX_ID_CHARS, MAX_QUESTION_CHARS, Question};
use crate::core::error::{Error, Result};

crate::core::word::word! {
    /// A question set's name (`--set`), as reports and the store spell it.
    #[derive(Default)]
    pub enum SetName ("question set") {
        /// io-harness's own JSON Lines (`{"id", "question", "answers", "urls"}`).
        #[default]
        Own = "jsonl",
        /// OpenAI's SimpleQA (`simple_qa_test_set.csv`).
        SimpleQa = "simpleqa",
        /// Google DeepMind's SimpleQA Verified (`simpleqa_verified.csv`).
        SimpleQaVerified = "simpleqa-verified",
        /// Google's FRAMES (`test.tsv`).
        Frames = "frames",
        /// SealQA (Seal-0, Seal-Hard, LongSeal; Parquet converted to JSON Lines or CSV).
        SealQa = "sealqa",
        /// Google DeepMind's DeepSearchQA (`DSQA-full.csv`).
        DeepSearchQa = "deepsearchqa",
        /// OpenAI's BrowseComp (`browse_comp_test_set.csv`, encrypted cells).
        BrowseComp = "browsecomp",
    }
}

impl SetName {
    /// The columns its file must have.
    pub fn required(self) -> &'static [&'static str] {
        match self {
            SetName::Own => &["id", "question"],
            SetName::SimpleQa => &["metadata", "problem", "answer"],
            SetName::SimpleQaVerified => &["original_index", "problem", "answer", "urls"],
            SetName::Frames => &["Prompt", "Answer"],
            SetName::SealQa => &["question", "answer"],
            SetName::DeepSearchQa => &["problem", "answer", "answer_type"],
            SetName::BrowseComp => &["problem", "answer", "canary"],
        }
    }

    /// Its authors ask that its plaintext not be published: its evals are
    /// private unless told otherwise.
    pub fn private_by_default(self) -> bool {
        self == SetName::BrowseComp
    }

    /// Its gold answers are free text that the set's own grader (a model)
    /// reads leniently: answer match is a lower bound on its accuracy.
    pub fn free_text(self) -> bool {
        self != SetName::Own
    }

    /// The set a header's cells are, if any (a published header, in any order).
    pub fn of_header(cells: &[&str]) -> Option<SetName> {
        let has = |c: &str| cells.contains(&c);
        let all = |s: SetName| s.required().iter().all(|c| has(c));
        [
            SetName::BrowseComp,
            SetName::SimpleQaVerified,
            SetName::DeepSearchQa,
            SetName::SimpleQa,
            SetName::Frames,
            SetName::SealQa,
        ]
        .into_iter()
        .find(|s| all(*s))
    }
}

/// The column an unnamed pandas index is written under.
const INDEX_COLUMNS: [&str; 2] = ["Unnamed: 0", ""];

/// A published set being read, a row at a time.
#[derive(Debug)]
pub struct SetRows {
    set: SetName,
    origin: String,
    header: Vec<String>,
    ids: HashSet<String>,
    questions: Vec<Question>,
}

impl SetRows {
    /// Set `set` read from `origin`, whose header (line 1) is `header`: refused
    /// naming the first column the set needs that it lacks.
    pub fn new(set: SetName, origin: &str, header: &[&str]) -> Result<SetRows> {
        let header: Vec<String> = header
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let h = h.trim();
                if i == 0 {
                    h.trim_start_matches('\u{feff}')
                } else {
                    h
                }
                .to_string()
            })
            .collect();
        if let Some(missing) = set
            .required()
            .iter()
            .find(|c| !header.iter().any(|h| h == *c))
        {
            return Err(Error::config(format!(
                "{origin}:1: the header has no column `{missing}`, which the published {set} file has ({}); is this the {set} file? Name another set with --set, or leave --set out to recognise it from its header",
                set.required().join(", ")
            )));
        }
        Ok(SetRows {
            set,
            origin: origin.to_string(),
            header,
            ids: HashSet::new(),
            questions: Vec::new(),
        })
    }

    /// The set being read.
    pub fn set(&self) -> SetName {
        self.set
    }

    /// A data row that starts on line `line`: its cells, in the header's order.
    pub fn row(&mut self, line: u64, cells: &[&str]) -> Result<()> {
        if cells.len() != self.header.len() {
            return Err(Error::config(format!(
                "{}:{line}: the row has {} fields and the header {}; a field holding the delimiter, a quote or a line break must be quoted",
                self.origin,
                cells.len(),
                self.header.len()
            )));
        }
        let row = Row {
            at: format!("{}:{line}", self.origin),
            header: &self.header,
            cells,
        };
        let q = question(self.set, &row, self.questions.len())?;
        self.push(&row.at, q)
    }

    /// A JSON Lines row (SealQA converted from Parquet) on line `line`.
    pub fn json_row(&mut self, line: u64, text: &str) -> Result<()> {
        let at = format!("{}:{line}", self.origin);
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| Error::config(format!("{at}: not JSON: {e}")))?;
        let Some(object) = value.as_object() else {
            return Err(Error::config(format!("{at}: a row is a JSON object")));
        };
        let text_of = |field: &str| -> Result<String> {
            match object.get(field) {
                Some(serde_json::Value::String(s)) => Ok(s.clone()),
                None | Some(serde_json::Value::Null) => Ok(String::new()),
                Some(_) => Err(Error::config(format!(
                    "{at}: field `{field}` is not a string"
                ))),
            }
        };
        let urls = match object.get("urls") {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .map(|u| u.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    Error::config(format!("{at}: field `urls` is not a list of strings"))
                })?,
            Some(_) => {
                return Err(Error::config(format!(
                    "{at}: field `urls` is not a list of strings"
                )));
            }
        };
        let q = checked(
            &at,
            format!("sealqa-{}", self.questions.len()),
            ("question", text_of("question")?),
            gold(&text_of("answer")?),
            urls,
        )?;
        self.push(&at, q)
    }

    fn push(&mut self, at: &str, q: Question) -> Result<()> {
        if !self.ids.insert(q.id.clone()) {
            return Err(Error::config(format!(
                "{at}: the id {:?} is already an earlier row's; the file has a row twice",
                q.id
            )));
        }
        self.questions.push(q);
        Ok(())
    }

    /// The questions read, in order; refused when there are none.
    pub fn finish(self) -> Result<Vec<Question>> {
        if self.questions.is_empty() {
            return Err(Error::config(format!(
                "{}: the {} file has a header and no rows",
                self.origin, self.set
            )));
        }
        Ok(self.questions)
    }
}

/// One data row, its cells read by column name.
struct Row<'a> {
    at: String,
    header: &'a [String],
    cells: &'a [&'a str],
}

impl Row<'_> {
    /// The cell under `column`; `None` when the header has no such column.
    fn get(&self, column: &str) -> Option<&str> {
        let i = self.header.iter().position(|h| h == column)?;
        self.cells.get(i).copied()
    }

    /// The cell under a column the set requires (checked by `SetRows::new`).
    fn cell(&self, column: &str) -> &str {
        self.get(column).unwrap_or_default()
    }

    fn refuse(&self, column: &str, why: &str) -> Error {
        Error::config(format!("{}: field `{column}`: {why}", self.at))
    }
}

/// One gold answer, or none when the cell is empty.
fn gold(answer: &str) -> Vec<String> {
    let a = answer.trim();
    if a.is_empty() {
        Vec::new()
    } else {
        vec![a.to_string()]
    }
}

/// A question checked against the question file's limits.
fn checked(
    at: &str,
    id: String,
    (field, text): (&str, String),
    answers: Vec<String>,
    urls: Vec<String>,
) -> Result<Question> {
    if text.trim().is_empty() {
        return Err(Error::config(format!("{at}: field `{field}` is empty")));
    }
    let n = text.chars().count();
    if n > MAX_QUESTION_CHARS {
        return Err(Error::config(format!(
            "{at}: field `{field}` is {n} characters long; a question is at most {MAX_QUESTION_CHARS} characters"
        )));
    }
    let id_chars = id.chars().count();
    if id_chars > MAX_ID_CHARS {
        return Err(Error::config(format!(
            "{at}: the id {id:.40}… is {id_chars} characters long; an id is at most {MAX_ID_CHARS} characters"
        )));
    }
    let mut seen = HashSet::new();
    let urls = urls
        .into_iter()
        .map(|u| u.trim().to_string())
        .filter(|u| !u.is_empty() && seen.insert(u.clone()))
        .collect();
    Ok(Question {
        id,
        question: text,
        answers,
        urls,
        kind: AnswerKind::Any,
    })
}

/// Row `n` (from 0) of `set` as a question.
fn question(set: SetName, row: &Row<'_>, n: usize) -> Result<Question> {
    let at = &row.at;
    match set {
        SetName::Own => Err(Error::config(format!(
            "{at}: io-harness's own question files are JSON Lines, not a table"
        ))),
        SetName::SimpleQa => simpleqa(row, n),
        SetName::SimpleQaVerified => {
            let index = row.cell("original_index").trim();
            if index.is_empty() || !index.chars().all(|c| c.is_ascii_digit()) {
                return Err(row.refuse("original_index", &format!("{index:?} is not a row number")));
            }
            let problem = row.cell("problem").to_string();
            let urls = comma_joined(row.cell("urls"));
            checked(
                at,
                format!("sqv-{index}"),
                ("problem", problem),
                gold(row.cell("answer")),
                urls,
            )
        }
        SetName::Frames => {
            let id = match INDEX_COLUMNS.iter().find_map(|c| row.get(c)) {
                Some(i) if !i.trim().is_empty() => format!("frames-{}", i.trim()),
                _ => format!("frames-{n}"),
            };
            let urls = match row.get("wiki_links").filter(|l| !l.trim().is_empty()) {
                Some(links) => pyliteral::parse(links)
                    .map_err(|why| {
                        row.refuse("wiki_links", &format!("not a Python list literal: {why}"))
                    })?
                    .strings()
                    .ok_or_else(|| row.refuse("wiki_links", "not a list of strings"))?,
                None => wikipedia_link_cells(row),
            };
            let urls = urls.iter().map(|u| wiki_link(u)).collect();
            let prompt = row.cell("Prompt").to_string();
            checked(at, id, ("Prompt", prompt), gold(row.cell("Answer")), urls)
        }
        SetName::SealQa => {
            let urls = match row.get("urls").map(str::trim).filter(|u| !u.is_empty()) {
                None => Vec::new(),
                Some(u) if u.starts_with('[') => pyliteral::parse(u)
                    .ok()
                    .and_then(|l| l.strings())
                    .ok_or_else(|| row.refuse("urls", "not a list of strings"))?,
                Some(u) => comma_joined(u),
            };
            let question = row.cell("question").to_string();
            checked(
                at,
                format!("sealqa-{n}"),
                ("question", question),
                gold(row.cell("answer")),
                urls,
            )
        }
        SetName::DeepSearchQa => deepsearchqa(row, n),
        SetName::BrowseComp => {
            let canary = row.cell("canary");
            let problem =
                decrypt(row.cell("problem"), canary).map_err(|why| row.refuse("problem", &why))?;
            let answer =
                decrypt(row.cell("answer"), canary).map_err(|why| row.refuse("answer", &why))?;
            checked(
                at,
                format!("browsecomp-{n}"),
                ("problem", problem),
                gold(&answer),
                Vec::new(),
            )
        }
    }
}

/// A SimpleQA row: its `urls` from the Python dict literal in `metadata`.
fn simpleqa(row: &Row<'_>, n: usize) -> Result<Question> {
    let at = &row.at;
    let urls = match pyliteral::parse(row.cell("metadata")) {
        Ok(Literal::Dict(d)) => match d.get("urls") {
            None => Vec::new(),
            Some(u) => u
                .strings()
                .ok_or_else(|| row.refuse("metadata", "its `urls` is not a list of strings"))?,
        },
        Ok(_) => return Err(row.refuse("metadata", "not a Python dict literal")),
        Err(why) => {
            return Err(row.refuse("metadata", &format!("not a Python dict literal: {why}")));
        }
    };
    let problem = row.cell("problem").to_string();
    checked(
        at,
        format!("simpleqa-{n}"),
        ("problem", problem),
        gold(row.cell("answer")),
        urls,
    )
}

/// A DeepSearchQA row: a `Set Answer`'s items split at `, `, every one wanted.
fn deepsearchqa(row: &Row<'_>, n: usize) -> Result<Question> {
    let at = &row.at;
    let id = match row.get("example_id").map(str::trim) {
        Some(i) if !i.is_empty() => format!("dsqa-{i}"),
        _ => format!("dsqa-{n}"),
    };
    let answer = row.cell("answer");
    let (answers, kind) = match row.cell("answer_type").trim() {
        "Single Answer" => (gold(answer), AnswerKind::Any),
        "Set Answer" => (
            answer
                .split(", ")
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_string)
                .collect(),
            AnswerKind::All,
        ),
        other => {
            return Err(row.refuse(
                "answer_type",
                &format!("{other:?} is neither `Single Answer` nor `Set Answer`"),
            ));
        }
    };
    let problem = row.cell("problem").to_string();
    let q = checked(at, id, ("problem", problem), answers, Vec::new())?;
    Ok(Question { kind, ..q })
}

/// URLs joined by commas in one cell (SimpleQA Verified): split only where a
/// comma is followed by `http` (a URL may hold a comma), each entry without
/// the quotes or an unmatched `)` some entries carry.
pub fn comma_joined(cell: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in cell.match_indices(',') {
        let rest = cell[i + 1..].trim_start().trim_start_matches('\'');
        if rest.starts_with("http://") || rest.starts_with("https://") {
            out.push(&cell[start..i]);
            start = i + 1;
        }
    }
    out.push(&cell[start..]);
    out.into_iter()
        .map(|u| {
            let mut u = u.trim().to_string();
            loop {
                let before = u.len();
                u = u.trim().trim_matches('\'').to_string();
                if u.ends_with(')') && u.matches(')').count() > u.matches('(').count() {
                    u.pop();
                }
                if u.len() == before {
                    return u;
                }
            }
        })
        .filter(|u| !u.is_empty())
        .collect()
}

/// FRAMES' `wikipedia_link_1` … `wikipedia_link_11+` cells, in order: each
/// cell one link (a note after it kept for `wiki_link` to drop), but the last,
/// which runs several together — split where a comma is followed by a link.
fn wikipedia_link_cells(row: &Row<'_>) -> Vec<String> {
    let starts_link = |rest: &str| {
        let rest = rest.trim_start();
        [
            "http://",
            "https://",
            "en.wikipedia.org",
            "en.m.wikipedia.org",
            "www.",
        ]
        .iter()
        .any(|p| rest.starts_with(p))
    };
    let mut out = Vec::new();
    for (h, c) in row.header.iter().zip(row.cells) {
        if !h.starts_with("wikipedia_link_") {
            continue;
        }
        if h != "wikipedia_link_11+" {
            out.push(c.to_string());
            continue;
        }
        let mut start = 0;
        for (i, _) in c.match_indices(',') {
            if starts_link(&c[i + 1..]) {
                out.push(c[start..i].to_string());
                start = i + 1;
            }
        }
        out.push(c[start..].to_string());
    }
    out.retain(|l| !l.trim().is_empty());
    out
}

/// A FRAMES link as a URL: a trailing comma and a parenthesised note
/// (` (NOT REQUIRED, BUT HELPFUL)`) dropped, a missing scheme added.
fn wiki_link(link: &str) -> String {
    let mut l = link.trim().trim_end_matches(',').trim();
    if let Some(i) = l.find(" (") {
        l = &l[..i];
    }
    if l.starts_with("http://") || l.starts_with("https://") || l.is_empty() {
        l.to_string()
    } else {
        format!("https://{l}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comma_joined_urls_split_before_each_url_only() {
        assert_eq!(
            comma_joined("https://a.org/x,https://b.org/y_(z),'https://c.org/1,2')"),
            vec![
                "https://a.org/x",
                "https://b.org/y_(z)",
                "https://c.org/1,2"
            ]
        );
        assert_eq!(comma_joined("https://a.org/x"), vec!["https://a.org/x"]);
        assert!(comma_joined(" ").is_empty());
        assert_eq!(
            wiki_link("en.wikipedia.org/wiki/A (NOT REQUIRED, BUT HELPFUL),"),
            "https://en.wikipedia.org/wiki/A"
        );
    }

    #[test]
    fn a_header_names_its_set() {
        let of = |h: &str| SetName::of_header(&h.split(',').collect::<Vec<_>>());
        assert_eq!(of("metadata,problem,answer"), Some(SetName::SimpleQa));
        assert_eq!(
            of(
                "original_index,problem,answer,topic,answer_type,multi_step,requires_reasoning,urls"
            ),
            Some(SetName::SimpleQaVerified)
        );
        assert_eq!(
            of("problem,problem_category,answer,answer_type"),
            Some(SetName::DeepSearchQa)
        );
        assert_eq!(
            of("example_id,problem,problem_category,answer,answer_type"),
            Some(SetName::DeepSearchQa)
        );
        assert_eq!(
            of("problem,answer,problem_topic,canary"),
            Some(SetName::BrowseComp)
        );
        assert_eq!(
            of("Unnamed: 0,Prompt,Answer,wiki_links"),
            Some(SetName::Frames)
        );
        assert_eq!(of("question,answer,urls,freshness"), Some(SetName::SealQa));
        assert_eq!(of("q,a"), None);
    }
}
