//! The vocabulary at the store's edge: each word of `core` as its column
//! spelling (`ToSql`) and back (`FromSql`). The columns hold the spellings
//! io.toml, the command line and JSON use (`anthropic`, `passed`, `found`); a
//! spelling this build does not know is an error naming the column's value,
//! never a guess.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::core::eval::QuestionStatus;
use crate::core::id::{EvalId, GroupId, RunId, SessionId};
use crate::core::outcome::Outcome;
use crate::core::vendor::{Vendor, Wire};
use crate::core::verdict::Verdict;
use crate::core::word::Word;

/// `ToSql` and `FromSql` for words, through their one spelling.
macro_rules! column_words {
    ($($word:ty),+ $(,)?) => {$(
        impl ToSql for $word {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(Word::as_str(*self)))
            }
        }

        impl FromSql for $word {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                <$word as Word>::parse_word(value.as_str()?)
                    .map_err(|e| FromSqlError::Other(Box::new(e)))
            }
        }
    )+};
}

column_words!(Vendor, Wire, Outcome, Verdict, QuestionStatus);

/// `ToSql` and `FromSql` for ids, through the database's integer.
macro_rules! column_ids {
    ($($id:ty),+ $(,)?) => {$(
        impl ToSql for $id {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.0))
            }
        }

        impl FromSql for $id {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                value.as_i64().map(<$id>::from)
            }
        }
    )+};
}

column_ids!(RunId, GroupId, EvalId, SessionId);
