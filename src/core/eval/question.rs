//! The question set: JSON Lines, one question a line, read and checked
//! before anything runs (`questions`).

use serde::{Deserialize, Serialize};

use crate::core::error::{Error, Result};

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
}

/// The fields a line may have.
const FIELDS: [&str; 4] = ["id", "question", "answers", "urls"];

/// The questions of a JSON Lines file (`origin` names it in errors): a line
/// that is empty, not a JSON object, lacks `id` or `question`, repeats an id,
/// has a field of the wrong type or one not known is refused, naming the file,
/// the line and the field.
pub fn questions(text: &str, origin: &str) -> Result<Vec<Question>> {
    let mut out: Vec<Question> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = format!("{origin}:{}", n + 1);
        let q = question_line(line, &at)?;
        if out.iter().any(|o| o.id == q.id) {
            return Err(Error::config(format!(
                "{at}: field `id`: {:?} is already the id of an earlier question; give each question its own id",
                q.id
            )));
        }
        out.push(q);
    }
    if out.is_empty() {
        return Err(Error::config(format!(
            "{origin}: no questions: give one JSON object a line, e.g. {{\"id\": \"q1\", \"question\": \"…\", \"answers\": [\"…\"]}}"
        )));
    }
    Ok(out)
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
        return Err(Error::config(format!(
            "{at}: a question is a JSON object, not {line:.40}"
        )));
    };
    if let Some(unknown) = object.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(Error::config(format!(
            "{at}: field `{unknown}` is not known; a question has id, question, answers and urls"
        )));
    }
    let text = |field: &str| -> Result<String> {
        match object.get(field) {
            Some(serde_json::Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(serde_json::Value::String(_)) => {
                Err(Error::config(format!("{at}: field `{field}` is empty")))
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
    Ok(Question {
        id: text("id")?,
        question: text("question")?,
        answers: list("answers")?,
        urls: list("urls")?,
    })
}
