//! Values crossing the store's edge, whichever engine holds it: a parameter or
//! column as a `Value` (null, integer, real, text, bytes), Rust values to and
//! from it (`ToValue`, `FromValue`; the core words and ids in `words`), a row
//! read back with typed getters, and what the database said (`DbError`).

use rusqlite::types::{ToSqlOutput, ValueRef};

/// One parameter or column value, as both engines can hold it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// SQL NULL.
    Null,
    /// An integer (a PostgreSQL boolean reads as 0 or 1).
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text (a PostgreSQL `timestamptz` reads as RFC 3339, `jsonb` as its text).
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Int(_) => "an integer",
            Value::Real(_) => "a real",
            Value::Text(_) => "text",
            Value::Blob(_) => "a blob",
        }
    }
}

/// A Rust value as a parameter.
pub(crate) trait ToValue {
    /// The parameter.
    fn to_value(&self) -> Value;
}

/// A column value as a Rust value; `Err` says why it is not one.
pub(crate) trait FromValue: Sized {
    /// The value, or why the column does not hold one.
    fn from_value(v: &Value) -> Result<Self, String>;
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}

impl ToValue for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
}

impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::Text(self.to_string())
    }
}

impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::Text(self.clone())
    }
}

impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Int(i64::from(*self))
    }
}

impl ToValue for f64 {
    fn to_value(&self) -> Value {
        Value::Real(*self)
    }
}

impl ToValue for [u8] {
    fn to_value(&self) -> Value {
        Value::Blob(self.to_vec())
    }
}

macro_rules! int_values {
    ($($t:ty),+) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Value {
                Value::Int(i64::from(*self))
            }
        }

        impl FromValue for $t {
            fn from_value(v: &Value) -> Result<Self, String> {
                match v {
                    Value::Int(i) => <$t>::try_from(*i)
                        .map_err(|_| format!("{i} is out of range for {}", stringify!($t))),
                    other => Err(format!("expected an integer, found {}", other.kind())),
                }
            }
        }
    )+};
}

int_values!(i64, i32, u32, u16, u8);

impl FromValue for bool {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Int(i) => Ok(*i != 0),
            other => Err(format!("expected a flag, found {}", other.kind())),
        }
    }
}

impl FromValue for f64 {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Real(r) => Ok(*r),
            #[allow(clippy::cast_precision_loss)]
            Value::Int(i) => Ok(*i as f64),
            other => Err(format!("expected a number, found {}", other.kind())),
        }
    }
}

impl FromValue for String {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Text(s) => Ok(s.clone()),
            other => Err(format!("expected text, found {}", other.kind())),
        }
    }
}

impl FromValue for Vec<u8> {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Blob(b) => Ok(b.clone()),
            Value::Text(s) => Ok(s.as_bytes().to_vec()),
            other => Err(format!("expected bytes, found {}", other.kind())),
        }
    }
}

impl FromValue for Value {
    fn from_value(v: &Value) -> Result<Self, String> {
        Ok(v.clone())
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            Value::Real(r) => ToSqlOutput::Borrowed(ValueRef::Real(*r)),
            Value::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Value::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

/// Parameters for a statement: `params![a, b]` is `&[Value]`, each taken by
/// reference (`ToValue`).
macro_rules! params {
    () => {
        &[] as &[$crate::store::value::Value]
    };
    ($($x:expr),+ $(,)?) => {
        &[$($crate::store::value::ToValue::to_value(&$x)),+] as &[$crate::store::value::Value]
    };
}
pub(crate) use params;

/// What went wrong with the PostgreSQL store, naming it (without a password).
#[cfg(feature = "postgres")]
#[derive(Debug)]
pub(crate) struct PgError {
    /// The store, as shown.
    pub store: String,
    /// What happened, in words.
    pub message: String,
}

#[cfg(feature = "postgres")]
impl std::fmt::Display for PgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.store)
    }
}

#[cfg(feature = "postgres")]
impl std::error::Error for PgError {}

/// A row read back: its values, in the order selected.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row(pub(crate) Vec<Value>);

impl Row {
    /// Column `i` as a `T`.
    pub(crate) fn get<T: FromValue>(&self, i: usize) -> Result<T, DbError> {
        let v = self.0.get(i).ok_or(DbError::Column {
            index: i,
            why: format!("the row has {} columns", self.0.len()),
        })?;
        T::from_value(v).map_err(|why| DbError::Column { index: i, why })
    }
}

/// What the database (or reading its answer) said.
#[derive(Debug)]
pub(crate) enum DbError {
    /// SQLite's own error.
    Sqlite(rusqlite::Error),
    /// PostgreSQL's own error, or its connection's.
    /// PostgreSQL's own error, or its connection's.
    #[cfg(feature = "postgres")]
    Postgres(PgError),
    /// A column did not hold what was read.
    Column {
        /// Its position in the row.
        index: usize,
        /// What it held instead.
        why: String,
    },
    /// A statement that must return a row returned none.
    NoRow,
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbError::Sqlite(e) => e.fmt(f),
            #[cfg(feature = "postgres")]
            DbError::Postgres(e) => e.fmt(f),
            DbError::Column { index, why } => write!(f, "column {index}: {why}"),
            DbError::NoRow => f.write_str("no row was returned"),
        }
    }
}

impl std::error::Error for DbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DbError::Sqlite(e) => Some(e),
            _ => None,
        }
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError::Sqlite(e)
    }
}

impl DbError {
    /// SQLite's generic error (`SQLITE_ERROR`): what FTS5 answers a query it
    /// cannot parse with, rather than a busy or broken store.
    pub(crate) fn is_sqlite_generic(&self) -> bool {
        matches!(
            self,
            DbError::Sqlite(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::Unknown
        )
    }
}

pub(crate) fn from_sqlite(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_row_names_the_column_it_cannot_read() {
        let row = Row(vec![Value::Text("x".into()), Value::Null]);
        assert_eq!(row.get::<String>(0).unwrap(), "x");
        assert_eq!(row.get::<Option<i64>>(1).unwrap(), None);
        assert_eq!(
            row.get::<i64>(0).unwrap_err().to_string(),
            "column 0: expected an integer, found text"
        );
        assert!(row.get::<i64>(2).is_err());
        assert_eq!(
            Row(vec![Value::Int(-1)])
                .get::<u32>(0)
                .unwrap_err()
                .to_string(),
            "column 0: -1 is out of range for u32"
        );
    }
}
