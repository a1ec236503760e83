//! What a run needs on this machine before anything is sent: the workspace its
//! local tools are confined to. A workspace that does not exist (or is not a
//! folder) is refused by every way a run starts — `run`, `run --providers`,
//! `run --replay`, the console — naming the path, before any request and before
//! anything is recorded; otherwise every tool call would fail and the run could
//! still end `passed`.

use std::path::Path;

use crate::core::error::{Error, Result};

/// Refuse a workspace that is not a folder on this machine.
pub fn workspace_ready(workspace: &Path) -> Result<()> {
    let why = match std::fs::metadata(workspace) {
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(_) => "is not a folder".to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "does not exist".to_string(),
        Err(e) => format!("cannot be read ({e})"),
    };
    Err(Error::refused(format!(
        "workspace {} {why}: local tools are confined to it, so every tool call would fail. \
         Create it, or name another (--workspace DIR, `[task] workspace` in io.toml, the \
         console's workspace field). Nothing was sent and no run was recorded.",
        workspace.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_ready_and_anything_else_is_named() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert!(workspace_ready(dir.path()).is_ok());
        let missing = dir.path().join("gone");
        let said = workspace_ready(&missing).map_err(|e| e.to_string());
        let said = said.err().unwrap_or_default();
        assert!(said.contains(&missing.display().to_string()), "{said}");
        assert!(said.contains("does not exist"), "{said}");
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap_or_else(|e| panic!("{e}"));
        let said = workspace_ready(&file).err().map(|e| e.to_string());
        assert!(said.unwrap_or_default().contains("is not a folder"));
    }
}
