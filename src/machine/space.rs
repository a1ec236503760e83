//! The space free where files are to be written: what a group's workspace
//! copies are measured against before one is made (`run::group`). Unix asks the
//! file system (`statvfs`: the blocks an unprivileged user may still use);
//! elsewhere nothing is known and nothing is refused.

use std::path::Path;

/// The bytes free to this user on the file system holding `dir`, and its block
/// size; `None` when that cannot be read.
#[cfg(unix)]
pub fn free(dir: &Path) -> Option<(u64, u64)> {
    let s = rustix::fs::statvfs(dir).ok()?;
    let block = s.f_frsize.max(1);
    Some((s.f_bavail.saturating_mul(block), block))
}

/// Nothing is known here.
#[cfg(not(unix))]
pub fn free(_dir: &Path) -> Option<(u64, u64)> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_folder_has_free_space_and_a_block_size() {
        let dir = tempfile::tempdir().unwrap();
        let (free, block) = free(dir.path()).unwrap();
        assert!(free > 0 && block >= 512, "{free} {block}");
        assert!(super::free(&dir.path().join("absent")).is_none());
    }
}
