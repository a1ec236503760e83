//! The offline demo's stub: the built-in stub vendor with the demo script on a
//! free loopback port. The console's `--demo` and `run --demo` start it through
//! the launch seam (`Launch::start_stub`), which also applies the demo's goal
//! and declaration where io.toml gives none.

use std::net::{Ipv4Addr, SocketAddr};

use super::{Script, StubHandle, StubVendor};
use crate::core::error::Result;

/// The built-in stub vendor with its demo script, on a free loopback port.
pub async fn demo_stub() -> Result<StubHandle> {
    StubVendor::start(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), Script::demo()).await
}

/// The built-in stub vendor with the bundled eval's script (`eval --demo`), on a
/// free loopback port.
pub async fn eval_stub() -> Result<StubHandle> {
    StubVendor::start(
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        Script::eval_demo(),
    )
    .await
}
