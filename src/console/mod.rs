//! The operator console (being written).
use std::path::PathBuf;
/// Open the console.
pub async fn open(
    _config: Option<PathBuf>,
    _store: Option<PathBuf>,
    _demo: bool,
) -> crate::Result<()> {
    Err(crate::Error::config(
        "the console is not built yet in this commit; use the subcommands (io-harness --help)",
    ))
}
