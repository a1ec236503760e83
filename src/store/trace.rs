//! What `export otlp` reads beyond the public readers: each accounting row with
//! the time it was recorded (its answer's arrival), which with its latency gives
//! a request span its original start and end.

use super::read::{CALL_COLUMN_COUNT, CALL_COLUMNS, call_row};
use super::{Store, db_err};
use crate::core::id::RunId;
use crate::error::Result;
use crate::store::types::ProviderCallRow;

impl Store {
    /// A run's accounting rows in the order made, each with its `created_at`.
    pub fn timed_calls(&self, run_id: RunId) -> Result<Vec<(ProviderCallRow, String)>> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {CALL_COLUMNS}, created_at FROM provider_calls WHERE run_id = ?1 ORDER BY id"
            ))
            .map_err(db_err("reading a run's requests"))?;
        let rows = stmt
            .query_map([run_id.0], |r| {
                Ok((call_row(r)?, r.get::<_, String>(CALL_COLUMN_COUNT)?))
            })
            .map_err(db_err("reading a run's requests"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(db_err("reading a run's requests"))
    }
}
