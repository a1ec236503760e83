//! The offline demo's set-up: its goal and declaration where io.toml gives none,
//! the built-in stub vendor with the demo script on a free loopback port, and the
//! key a one-run demo sends it. The console's `--demo`, `run --demo` and
//! `preview --demo` all start from here.

use std::net::{Ipv4Addr, SocketAddr};

use super::{Script, StubHandle, StubVendor};
use crate::config::Config;
use crate::core::contract::TaskContract;
use crate::core::web::WebAccess;
use crate::core::wire::transcript::{CacheTtl, Conversation};
use crate::error::Result;

/// The goal the offline demo starts with when io.toml gives none.
pub const DEMO_GOAL: &str =
    "Find the current io-harness release on crates.io and say which version it is.";

/// The key a demo run sends to a stub started for it alone (`run --demo`): not
/// a secret, the stub checks none. The console's runs share one stub and each
/// takes its key from `Rewinder::rewind`.
pub const RUN_KEY: &str = "demo";

/// The demo's goal and declaration where io.toml gives none (the console's
/// `--demo`, `run --demo`, `preview --demo`); and, where io.toml has no `[run]`,
/// a transcript with prompt caching — what an operator pays for every step, shown
/// with the stub's emulation of the vendors' cache accounting.
pub fn demo_defaults(config: &Config, contract: &mut TaskContract) {
    if config.run.is_none() {
        contract.conversation = Conversation::Transcript;
        contract.cache = Some(CacheTtl::FiveMinutes);
    }
    if contract.goal.trim().is_empty() {
        contract.goal = DEMO_GOAL.to_string();
        if config.web.is_none() {
            // What every vendor carries: no domain filter (OpenRouter takes none),
            // no fetch (Anthropic only), so switching provider never refuses.
            contract.web = Some(WebAccess::search().max_uses(3));
        }
    }
}

/// The built-in stub vendor with its demo script, on a free loopback port.
pub async fn demo_stub() -> Result<StubHandle> {
    StubVendor::start(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), Script::demo()).await
}
