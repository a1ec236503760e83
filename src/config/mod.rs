//! `io.toml`: the configuration file. Parsing is pure (`Config::parse`); finding and
//! reading the file is I/O at the edge (`Config::discover`, `Config::load`), and so
//! is writing the `[web]` table back (`write_web`).
//!
//! Every table rejects unknown keys, every number is range-checked (`check`), and
//! every error names the file, the line, the table and the key and says what is
//! expected (`error`), so a misspelled `blocked_domain` is not a boundary that
//! quietly did not apply. `[web]` is carried whenever present, `search = false` included.

mod agents;
mod error;
mod file;
mod locate;
mod parse;
mod policy;
mod ranges;
mod resolved;
mod scope;
mod show;
mod write;

pub use file::{
    AgentTable, BudgetConfig, ConsoleConfig, File, McpTable, ProviderConfig, RunConfig, Scope,
    StoreConfig, TaskConfig, TelemetryTable,
};
pub use policy::{PolicyTable, WebTable, parse_entry};
pub use resolved::{Config, Loaded, usd_micro};
pub use scope::{USER_CONFIG_ENV, user_config_path};
pub use show::Setting;
pub use write::write_web;
