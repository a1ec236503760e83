//! The PostgreSQL engine: a store URL read as libpq reads it (the URL first,
//! then `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE`,
//! `PGSSLMODE`, `PGCONNECT_TIMEOUT`, `PGAPPNAME`, and a password from
//! `PGPASSFILE` or `~/.pgpass`), one session on a thread of its own (the
//! synchronous client runs a small runtime of its own, which may not be
//! entered from an async thread: a call from anywhere hands it the work and
//! waits), statements prepared once each with their `?N` written `$N`, and
//! values converted to the column types the server names (identity integers,
//! `boolean`, `jsonb`, `timestamptz` read back as the RFC 3339 text SQLite
//! keeps). A session that was lost is opened again before the next statement
//! outside a transaction; one lost inside a transaction fails it (the server
//! rolled it back). Every error names the store as `shown` spells it: the URL
//! without its password.

use std::collections::HashMap;
use std::error::Error as StdError;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use bytes::BytesMut;
use postgres::config::{Host, SslMode};
use postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use postgres::{Client, Config, NoTls, Statement};

use super::value::{DbError, PgError, Row, Value};

type BoxError = Box<dyn StdError + Sync + Send>;

/// The server's error in words: its message (and detail), or the client's
/// with its cause.
fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        let mut s = db.message().to_string();
        if let Some(d) = db.detail() {
            s.push_str(&format!(" ({d})"));
        }
        return s;
    }
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        s.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    s
}

fn pg_err(store: &str, e: &postgres::Error) -> DbError {
    DbError::Postgres(PgError {
        store: store.to_string(),
        message: describe(e),
    })
}

fn says(store: &str, message: impl Into<String>) -> DbError {
    DbError::Postgres(PgError {
        store: store.to_string(),
        message: message.into(),
    })
}

/// The connection settings for `url`, with libpq's variables filling in what
/// it leaves out, and the store as shown (no password).
pub(crate) fn config(url: &str) -> Result<(Config, String), String> {
    let shown_given = crate::core::location::shown(url);
    let mut c: Config = url.parse().map_err(|e: postgres::Error| {
        format!("the store URL {shown_given} does not parse ({e}); write it as postgres://USER@HOST:PORT/DATABASE")
    })?;
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if c.get_hosts().is_empty() {
        match env("PGHOST") {
            Some(h) => {
                for h in h.split(',') {
                    c.host(h);
                }
            }
            None if cfg!(unix) && PathBuf::from("/var/run/postgresql").is_dir() => {
                c.host("/var/run/postgresql");
            }
            None => {
                c.host("localhost");
            }
        }
    }
    if c.get_ports().is_empty() {
        let port = match env("PGPORT") {
            Some(p) => p
                .parse()
                .map_err(|_| format!("PGPORT is {p:?}, not a port number"))?,
            None => 5432,
        };
        c.port(port);
    }
    if c.get_user().is_none() {
        let user = env("PGUSER")
            .or_else(|| env("USER"))
            .or_else(|| env("LOGNAME"))
            .unwrap_or_else(|| "postgres".into());
        c.user(&user);
    }
    if c.get_dbname().is_none() {
        let db = env("PGDATABASE").unwrap_or_else(|| c.get_user().unwrap_or_default().to_string());
        c.dbname(&db);
    }
    if !url.contains("sslmode=") {
        if let Some(mode) = env("PGSSLMODE") {
            c.ssl_mode(ssl_mode(&mode)?);
        }
    }
    if c.get_connect_timeout().is_none() {
        let secs = env("PGCONNECT_TIMEOUT")
            .and_then(|s| s.parse().ok())
            .unwrap_or(10);
        c.connect_timeout(Duration::from_secs(secs));
    }
    if c.get_application_name().is_none() {
        c.application_name(&env("PGAPPNAME").unwrap_or_else(|| "io-harness".into()));
    }
    let shown = shown(&c);
    if c.get_password().is_none() {
        if let Some(p) = env("PGPASSWORD").or_else(|| pgpass(&c)) {
            c.password(p);
        }
    }
    if matches!(c.get_ssl_mode(), SslMode::Require) {
        return Err(format!(
            "the store {shown} asks for TLS (sslmode=require), which this build does not speak; \
             reach the server over a TLS tunnel or a local socket, or set sslmode=prefer"
        ));
    }
    Ok((c, shown))
}

fn ssl_mode(mode: &str) -> Result<SslMode, String> {
    match mode {
        "disable" | "allow" => Ok(SslMode::Disable),
        "prefer" => Ok(SslMode::Prefer),
        "require" | "verify-ca" | "verify-full" => Ok(SslMode::Require),
        other => Err(format!(
            "PGSSLMODE is {other:?}; use disable, allow, prefer, require, verify-ca or verify-full"
        )),
    }
}

/// The store as shown in messages and `config`: user, host, port, database.
fn shown(c: &Config) -> String {
    let host = match c.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(Host::Unix(p)) => p.display().to_string(),
        None => String::new(),
    };
    let port = c.get_ports().first().copied().unwrap_or(5432);
    let user = c.get_user().unwrap_or_default();
    let db = c.get_dbname().unwrap_or_default();
    if host.starts_with('/') {
        format!("postgres://{user}@/{db}?host={host}&port={port}")
    } else {
        format!("postgres://{user}@{host}:{port}/{db}")
    }
}

/// The password `~/.pgpass` (or `PGPASSFILE`) gives for this host, port,
/// database and user: the first line whose fields match (`*` matches any).
fn pgpass(c: &Config) -> Option<String> {
    let file = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".pgpass")))?;
    let text = std::fs::read_to_string(file).ok()?;
    let host = match c.get_hosts().first()? {
        Host::Tcp(h) => h.clone(),
        #[cfg(unix)]
        Host::Unix(_) => "localhost".to_string(),
    };
    let port = c.get_ports().first().copied().unwrap_or(5432).to_string();
    let want = [
        host.as_str(),
        port.as_str(),
        c.get_dbname().unwrap_or_default(),
        c.get_user().unwrap_or_default(),
    ];
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .find_map(|line| {
            let fields = pgpass_fields(line);
            if fields.len() < 5 {
                return None;
            }
            let matches = fields[..4]
                .iter()
                .zip(want)
                .all(|(f, w)| f == "*" || f == w);
            matches.then(|| fields[4].clone())
        })
}

/// A `.pgpass` line's fields: split at `:`, `\` escaping `:` and itself.
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let (Some(n), Some(last)) = (chars.next(), out.last_mut()) {
                    last.push(n);
                }
            }
            ':' if out.len() < 5 => out.push(String::new()),
            c => {
                if let Some(last) = out.last_mut() {
                    last.push(c);
                }
            }
        }
    }
    out
}

/// One session's state, on its thread.
struct Session {
    config: Config,
    store: String,
    client: Option<Client>,
    statements: HashMap<String, Statement>,
    in_transaction: bool,
}

impl Session {
    /// The client, opened again when the session was lost outside a transaction.
    fn client(&mut self) -> Result<&mut Client, DbError> {
        let lost = self.client.as_ref().is_none_or(Client::is_closed);
        if lost {
            self.statements.clear();
            self.client = None;
            if self.in_transaction {
                return Err(says(
                    &self.store,
                    "the connection to the server was lost in the middle of a transaction; nothing of it was kept",
                ));
            }
            let client = self
                .config
                .connect(NoTls)
                .map_err(|e| pg_err(&self.store, &e))?;
            self.client = Some(client);
        }
        self.client
            .as_mut()
            .ok_or_else(|| says(&self.store, "no connection"))
    }

    fn prepared(&mut self, sql: &str) -> Result<Statement, DbError> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let rewritten = dollar_placeholders(sql);
        let store = self.store.clone();
        let stmt = self
            .client()?
            .prepare(&rewritten)
            .map_err(|e| pg_err(&store, &e))?;
        self.statements.insert(sql.to_string(), stmt.clone());
        Ok(stmt)
    }

    fn fail(&mut self, e: &postgres::Error) -> DbError {
        if e.is_closed() || self.client.as_ref().is_some_and(Client::is_closed) {
            self.client = None;
            self.statements.clear();
        }
        pg_err(&self.store, e)
    }

    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<usize, DbError> {
        let stmt = self.prepared(sql)?;
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
        let result = self.client()?.execute(&stmt, &refs);
        match result {
            Ok(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            Err(e) => Err(self.fail(&e)),
        }
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
        let stmt = self.prepared(sql)?;
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
        let result = self.client()?.query(&stmt, &refs);
        let rows = match result {
            Ok(rows) => rows,
            Err(e) => return Err(self.fail(&e)),
        };
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let mut values = Vec::with_capacity(r.len());
            for i in 0..r.len() {
                values.push(r.try_get::<_, Value>(i).map_err(|e| self.fail(&e))?);
            }
            out.push(Row(values));
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        let word = sql.trim().to_ascii_uppercase();
        let ends = word == "COMMIT" || word == "ROLLBACK";
        if word == "ROLLBACK" && self.client.as_ref().is_none_or(Client::is_closed) {
            // The server dropped the transaction with the session.
            self.in_transaction = false;
            return Ok(());
        }
        let result = self.client()?.batch_execute(sql);
        if word.starts_with("BEGIN") {
            self.in_transaction = result.is_ok();
        } else if ends {
            self.in_transaction = false;
        }
        result.map_err(|e| self.fail(&e))
    }
}

type Job = Box<dyn FnOnce(&mut Session) + Send>;

/// A PostgreSQL session on its own thread.
pub(crate) struct PgConn {
    jobs: mpsc::Sender<Job>,
    store: String,
}

impl PgConn {
    /// Open a session to `url` (libpq's variables filling in).
    pub(crate) fn open(url: &str) -> Result<PgConn, DbError> {
        let (config, store) = config(url).map_err(|m| {
            DbError::Postgres(PgError {
                store: crate::core::location::shown(url),
                message: m,
            })
        })?;
        let (jobs, inbox) = mpsc::channel::<Job>();
        let mut session = Session {
            config,
            store: store.clone(),
            client: None,
            statements: HashMap::new(),
            in_transaction: false,
        };
        std::thread::Builder::new()
            .name("io-harness-postgres".into())
            .spawn(move || {
                while let Ok(job) = inbox.recv() {
                    job(&mut session);
                }
            })
            .map_err(|e| says(&store, format!("cannot start the store's thread: {e}")))?;
        let conn = PgConn { jobs, store };
        conn.call(|s| s.client().map(|_| ()))??;
        Ok(conn)
    }

    /// The store as shown (no password).
    pub(crate) fn shown(&self) -> &str {
        &self.store
    }

    fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Session) -> R + Send + 'static,
    ) -> Result<R, DbError> {
        let (tx, rx) = mpsc::sync_channel(1);
        let job: Job = Box::new(move |s| {
            let _ = tx.send(f(s));
        });
        let gone = || says(&self.store, "the store's connection thread has stopped");
        self.jobs.send(job).map_err(|_| gone())?;
        rx.recv().map_err(|_| gone())
    }

    pub(crate) fn execute(&self, sql: &str, params: &[Value]) -> Result<usize, DbError> {
        let (sql, params) = (sql.to_string(), params.to_vec());
        self.call(move |s| s.execute(&sql, &params))?
    }

    pub(crate) fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
        let (sql, params) = (sql.to_string(), params.to_vec());
        self.call(move |s| s.query(&sql, &params))?
    }

    pub(crate) fn batch(&self, sql: &str) -> Result<(), DbError> {
        let sql = sql.to_string();
        self.call(move |s| s.batch(&sql))?
    }
}

/// `sql` with its `?N` placeholders written `$N` (outside quotes), for
/// PostgreSQL. A `?` not followed by a digit is left as it is.
pub(crate) fn dollar_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '?') if chars.peek().is_some_and(char::is_ascii_digit) => {
                out.push('$');
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 UTC).
const PG_EPOCH_MICROS: i64 = 946_684_800_000_000;

fn timestamp_text(raw: &[u8]) -> Result<String, BoxError> {
    let micros = i64::from_be_bytes(raw.try_into()?);
    let at = chrono::DateTime::from_timestamp_micros(micros.saturating_add(PG_EPOCH_MICROS))
        .ok_or("a timestamp out of range")?;
    Ok(at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

fn timestamp_micros(text: &str) -> Result<i64, BoxError> {
    let at = chrono::DateTime::parse_from_rfc3339(text)
        .map_err(|e| format!("{text:?} is not an RFC 3339 time: {e}"))?;
    Ok(at.timestamp_micros() - PG_EPOCH_MICROS)
}

impl ToSql for Value {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        let wrong =
            || -> BoxError { format!("cannot store {self:?} in a column of type {ty}").into() };
        match (self, ty) {
            (Value::Null, _) => return Ok(IsNull::Yes),
            (Value::Int(i), t) if *t == Type::INT8 => out.extend_from_slice(&i.to_be_bytes()),
            (Value::Int(i), t) if *t == Type::INT4 => {
                out.extend_from_slice(&i32::try_from(*i)?.to_be_bytes());
            }
            (Value::Int(i), t) if *t == Type::INT2 => {
                out.extend_from_slice(&i16::try_from(*i)?.to_be_bytes());
            }
            (Value::Int(i), t) if *t == Type::BOOL => out.extend_from_slice(&[u8::from(*i != 0)]),
            #[allow(clippy::cast_precision_loss)]
            (Value::Int(i), t) if *t == Type::FLOAT8 => {
                out.extend_from_slice(&(*i as f64).to_be_bytes());
            }
            (Value::Real(r), t) if *t == Type::FLOAT8 => out.extend_from_slice(&r.to_be_bytes()),
            #[allow(clippy::cast_possible_truncation)]
            (Value::Real(r), t) if *t == Type::FLOAT4 => {
                out.extend_from_slice(&(*r as f32).to_be_bytes());
            }
            (Value::Text(s), t) if *t == Type::TIMESTAMPTZ || *t == Type::TIMESTAMP => {
                out.extend_from_slice(&timestamp_micros(s)?.to_be_bytes());
            }
            (Value::Text(s), t) if *t == Type::JSONB => {
                out.extend_from_slice(&[1]);
                out.extend_from_slice(s.as_bytes());
            }
            (Value::Text(s), t)
                if *t == Type::TEXT
                    || *t == Type::VARCHAR
                    || *t == Type::BPCHAR
                    || *t == Type::NAME
                    || *t == Type::JSON
                    || *t == Type::UNKNOWN =>
            {
                out.extend_from_slice(s.as_bytes());
            }
            (Value::Blob(b), t) if *t == Type::BYTEA => out.extend_from_slice(b),
            _ => return Err(wrong()),
        }
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Value, BoxError> {
        let text = || -> Result<Value, BoxError> {
            Ok(Value::Text(std::str::from_utf8(raw)?.to_string()))
        };
        Ok(match ty {
            t if *t == Type::INT8 => Value::Int(i64::from_be_bytes(raw.try_into()?)),
            t if *t == Type::INT4 => Value::Int(i64::from(i32::from_be_bytes(raw.try_into()?))),
            t if *t == Type::INT2 => Value::Int(i64::from(i16::from_be_bytes(raw.try_into()?))),
            t if *t == Type::OID => Value::Int(i64::from(u32::from_be_bytes(raw.try_into()?))),
            t if *t == Type::BOOL => Value::Int(i64::from(raw.first().is_some_and(|b| *b != 0))),
            t if *t == Type::FLOAT8 => Value::Real(f64::from_be_bytes(raw.try_into()?)),
            t if *t == Type::FLOAT4 => Value::Real(f64::from(f32::from_be_bytes(raw.try_into()?))),
            t if *t == Type::TIMESTAMPTZ || *t == Type::TIMESTAMP => {
                Value::Text(timestamp_text(raw)?)
            }
            t if *t == Type::JSONB => {
                Value::Text(std::str::from_utf8(raw.get(1..).unwrap_or_default())?.to_string())
            }
            t if *t == Type::BYTEA => Value::Blob(raw.to_vec()),
            t if *t == Type::VOID => Value::Null,
            t if *t == Type::TEXT
                || *t == Type::VARCHAR
                || *t == Type::BPCHAR
                || *t == Type::NAME
                || *t == Type::JSON
                || *t == Type::UNKNOWN =>
            {
                text()?
            }
            other => {
                return Err(
                    format!("a column of type {other}, which the store does not read").into(),
                );
            }
        })
    }

    fn from_sql_null(_: &Type) -> Result<Value, BoxError> {
        Ok(Value::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_rewritten_outside_quotes_only() {
        assert_eq!(
            dollar_placeholders(
                "SELECT ?1, '?2', x FROM t WHERE a = ?12 AND b LIKE '%?%' OR c = ?"
            ),
            "SELECT $1, '?2', x FROM t WHERE a = $12 AND b LIKE '%?%' OR c = ?"
        );
    }

    #[test]
    fn a_pgpass_line_is_split_at_unescaped_colons() {
        assert_eq!(
            pgpass_fields(r"db.example:5432:*:ann:pa\:ss\\word"),
            vec!["db.example", "5432", "*", "ann", r"pa:ss\word"]
        );
    }

    #[test]
    fn a_timestamp_goes_there_and_back_as_the_store_writes_it() {
        let t = "2026-12-04T01:02:03.456Z";
        let micros = timestamp_micros(t).unwrap();
        assert_eq!(timestamp_text(&micros.to_be_bytes()).unwrap(), t);
    }

    #[test]
    fn a_url_is_shown_without_its_password() {
        let (c, shown) = config("postgres://ann:secret@db.example:6543/team").unwrap();
        assert_eq!(shown, "postgres://ann@db.example:6543/team");
        assert_eq!(c.get_password(), Some(&b"secret"[..]));
        let e = config("postgres://ann:secret@db.example:notaport/team").unwrap_err();
        assert!(!e.contains("secret"), "{e}");
        assert!(e.contains("postgres://ann@db.example:notaport/team"), "{e}");
    }
}
