//! The question set: JSON Lines, one question a line, read and checked
//! before anything runs (`QuestionSet`, fed a line at a time; `questions` for a
//! whole text). Linear in the file's size: ids are checked for repeats in a set.
//!
//! The stated limits: a file of at most `MAX_FILE_BYTES` (64 MiB), a line of at
//! most `MAX_LINE_BYTES` (1 MiB), an id of at most `MAX_ID_CHARS` (200)
//! characters and a question of at most `MAX_QUESTION_CHARS` (32,768). A UTF-8
//! byte-order mark before the first line is skipped; a key given twice on one
//! line is refused (JSON parsers disagree on which one wins).

use std::collections::HashSet;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::core::error::{Error, Result};

/// The largest question file read, in bytes (64 MiB: about half a million
/// questions of a typical set's length).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The longest line, in bytes, its newline not counted (1 MiB: a question at
/// its limit with room for long lists of gold answers and URLs).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The longest id, in characters: an id names a question in tables and
/// commands, it is not text.
pub const MAX_ID_CHARS: usize = 200;

/// The longest question, in characters: a question is a prompt, not a document.
pub const MAX_QUESTION_CHARS: usize = 32_768;

crate::core::word::word! {
    /// How a question's gold answers are read.
    #[derive(Default)]
    pub enum AnswerKind ("answer kind") {
        /// Any one of them found makes the answer correct.
        #[default]
        Any = "any",
        /// Every one is wanted: a set (DeepSearchQA's `Set Answer`), scored by
        /// set recall, precision and F1; correct when all are found.
        All = "all",
    }
}

impl AnswerKind {
    /// `Any`, the default (left out when written).
    pub fn is_any(&self) -> bool {
        *self == AnswerKind::Any
    }
}

/// One question of the set, as a line of the file gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// Its id, unique in the set.
    pub id: String,
    /// The goal each vendor is given.
    pub question: String,
    /// Gold answers: any one found in the final answer makes it correct.
    #[serde(default)]
    pub answers: Vec<String>,
    /// Gold URLs: the sources a good answer cites.
    #[serde(default)]
    pub urls: Vec<String>,
    /// Whether any one gold answer is wanted or all of them.
    #[serde(
        default,
        rename = "answer_kind",
        skip_serializing_if = "AnswerKind::is_any"
    )]
    pub kind: AnswerKind,
}

/// The fields a line may have.
const FIELDS: [&str; 5] = ["id", "question", "answers", "urls", "answer_kind"];

/// A question set being read, a line at a time: each line checked as it comes
/// (`line`), the set once all have (`finish`).
#[derive(Debug)]
pub struct QuestionSet {
    origin: String,
    ids: HashSet<String>,
    questions: Vec<Question>,
}

impl QuestionSet {
    /// An empty set read from `origin` (named in errors).
    pub fn new(origin: &str) -> QuestionSet {
        QuestionSet {
            origin: origin.to_string(),
            ids: HashSet::new(),
            questions: Vec::new(),
        }
    }

    /// Line `n` (from 1), without its line ending: refused when it is empty,
    /// not a JSON object, lacks `id` or `question`, repeats an id or a key, has
    /// a field of the wrong type, one not known, or one over its limit.
    pub fn line(&mut self, n: usize, line: &str) -> Result<()> {
        let at = format!("{}:{n}", self.origin);
        let line = if n == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if line.len() > MAX_LINE_BYTES {
            return Err(line_too_long(&self.origin, n));
        }
        let q = question_line(line, &at)?;
        if self.ids.contains(&q.id) {
            return Err(Error::config(format!(
                "{at}: field `id`: {:?} is already the id of an earlier question; give each question its own id",
                q.id
            )));
        }
        self.ids.insert(q.id.clone());
        self.questions.push(q);
        Ok(())
    }

    /// The questions read, in order; refused when there are none.
    pub fn finish(self) -> Result<Vec<Question>> {
        if self.questions.is_empty() {
            return Err(Error::config(format!(
                "{}: no questions: give one JSON object a line, e.g. {{\"id\": \"q1\", \"question\": \"…\", \"answers\": [\"…\"]}}",
                self.origin
            )));
        }
        Ok(self.questions)
    }
}

/// The refusal of line `n` of `origin`: longer than `MAX_LINE_BYTES`.
pub fn line_too_long(origin: &str, n: usize) -> Error {
    Error::config(format!(
        "{origin}:{n}: the line is longer than 1 MiB ({MAX_LINE_BYTES} bytes); a question is at most {MAX_QUESTION_CHARS} characters — is this a question file?"
    ))
}

/// The refusal of a file of `bytes` bytes: larger than `MAX_FILE_BYTES`.
pub fn file_too_large(origin: &str, bytes: u64) -> Error {
    Error::config(format!(
        "{origin} is {bytes} bytes; a question file is at most 64 MiB ({MAX_FILE_BYTES} bytes): split it into several evals"
    ))
}

/// The questions of a JSON Lines text (`origin` names it in errors), checked
/// as `QuestionSet` checks them.
pub fn questions(text: &str, origin: &str) -> Result<Vec<Question>> {
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(file_too_large(origin, text.len() as u64));
    }
    let mut set = QuestionSet::new(origin);
    for (i, line) in text.lines().enumerate() {
        set.line(i + 1, line)?;
    }
    set.finish()
}

fn question_line(line: &str, at: &str) -> Result<Question> {
    if line.trim().is_empty() {
        return Err(Error::config(format!(
            "{at}: the line is empty; every line is one question (remove the empty line)"
        )));
    }
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| Error::config(format!("{at}: not JSON: {e}")))?;
    let Some(object) = value.as_object() else {
        let shown: String = line.chars().take(40).collect();
        return Err(Error::config(format!(
            "{at}: a question is a JSON object, not {shown}"
        )));
    };
    if let Some(unknown) = object.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(Error::config(format!(
            "{at}: field `{unknown}` is not known; a question has id, question, answers, urls and answer_kind"
        )));
    }
    // Parsed once more for what a map keeps quiet: a key given twice.
    if let Ok(Repeated(Some(key))) = serde_json::from_str::<Repeated>(line) {
        return Err(Error::config(format!(
            "{at}: field `{key}` is given twice; give each field once"
        )));
    }
    let text = |field: &str, limit: usize, what: &str| -> Result<String> {
        match object.get(field) {
            Some(serde_json::Value::String(s)) if s.trim().is_empty() => {
                Err(Error::config(format!("{at}: field `{field}` is empty")))
            }
            Some(serde_json::Value::String(s)) => {
                let n = s.chars().count();
                if n > limit {
                    return Err(Error::config(format!(
                        "{at}: field `{field}` is {n} characters long; {what} is at most {limit} characters"
                    )));
                }
                Ok(s.clone())
            }
            Some(_) => Err(Error::config(format!(
                "{at}: field `{field}` is not a string"
            ))),
            None => Err(Error::config(format!("{at}: field `{field}` is missing"))),
        }
    };
    let list = |field: &str| -> Result<Vec<String>> {
        let Some(v) = object.get(field) else {
            return Ok(Vec::new());
        };
        v.as_array()
            .and_then(|a| {
                a.iter()
                    .map(|s| s.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| Error::config(format!("{at}: field `{field}` is not a list of strings")))
    };
    let kind = match object.get("answer_kind") {
        None => AnswerKind::Any,
        Some(serde_json::Value::String(k)) => k.parse().map_err(|e| {
            Error::config(format!(
                "{at}: field `answer_kind`: {e} (`all`: every answer is wanted)"
            ))
        })?,
        Some(_) => {
            return Err(Error::config(format!(
                "{at}: field `answer_kind` is not a string: give \"any\" or \"all\""
            )));
        }
    };
    Ok(Question {
        id: text("id", MAX_ID_CHARS, "an id")?,
        question: text("question", MAX_QUESTION_CHARS, "a question")?,
        answers: list("answers")?,
        urls: list("urls")?,
        kind,
    })
}

/// The first key an object gives twice, if any (its values are skipped).
struct Repeated(Option<String>);

impl<'de> Deserialize<'de> for Repeated {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_map(RepeatedKeys)
    }
}

struct RepeatedKeys;

impl<'de> Visitor<'de> for RepeatedKeys {
    type Value = Repeated;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> std::result::Result<Repeated, M::Error> {
        let mut seen = HashSet::new();
        let mut repeated = None;
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<IgnoredAny>()?;
            if !seen.insert(key.clone()) && repeated.is_none() {
                repeated = Some(key);
            }
        }
        Ok(Repeated(repeated))
    }
}
