//! The vocabulary at the store's edge: each word of `core` as its column
//! spelling (`ToValue`) and back (`FromValue`), and each id as the database's
//! integer. The columns hold the spellings io.toml, the command line and JSON
//! use (`anthropic`, `passed`, `found`); a spelling this build does not know is
//! an error naming the column's value, never a guess.

use super::value::{FromValue, ToValue, Value};
use crate::core::eval::QuestionStatus;
use crate::core::id::{EvalId, GroupId, RunId, SessionId};
use crate::core::outcome::Outcome;
use crate::core::vendor::{Vendor, Wire};
use crate::core::verdict::Verdict;
use crate::core::word::Word;

/// `ToValue` and `FromValue` for words, through their one spelling.
macro_rules! column_words {
    ($($word:ty),+ $(,)?) => {$(
        impl ToValue for $word {
            fn to_value(&self) -> Value {
                Value::Text(Word::as_str(*self).to_string())
            }
        }

        impl FromValue for $word {
            fn from_value(v: &Value) -> Result<Self, String> {
                match v {
                    Value::Text(s) => <$word as Word>::parse_word(s).map_err(|e| e.to_string()),
                    other => Err(format!("expected a word, found {other:?}")),
                }
            }
        }
    )+};
}

column_words!(Vendor, Wire, Outcome, Verdict, QuestionStatus);

/// `ToValue` and `FromValue` for ids, through the database's integer.
macro_rules! column_ids {
    ($($id:ty),+ $(,)?) => {$(
        impl ToValue for $id {
            fn to_value(&self) -> Value {
                Value::Int(self.0)
            }
        }

        impl FromValue for $id {
            fn from_value(v: &Value) -> Result<Self, String> {
                i64::from_value(v).map(<$id>::from)
            }
        }
    )+};
}

column_ids!(RunId, GroupId, EvalId, SessionId);
