//! A workspace copied for one run of a comparison, so that no two runs write the
//! same file and the operator's own is untouched: files and folders copied,
//! symbolic links recreated as links (never followed out of the workspace), and
//! what `skip` names (where the copies themselves go, the store's own files) left
//! out.

use std::io;
use std::path::{Path, PathBuf};

/// What a copy held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Copied {
    /// Files copied.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// A byte count for people: `512 B`, `16.0 kB`, `2.3 MB`, `1.1 GB`.
pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} kB", b / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.1} GB", b / 1e9),
    }
}

/// Copy the tree at `from` to `to` (created; it must not exist yet), leaving out
/// any folder or file in `skip`. A workspace that does not exist yet is copied as an
/// empty folder.
pub fn copy_workspace(from: &Path, to: &Path, skip: &[PathBuf]) -> io::Result<Copied> {
    if to.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} already exists", to.display()),
        ));
    }
    std::fs::create_dir_all(to)?;
    let mut copied = Copied::default();
    if !from.exists() {
        return Ok(copied);
    }
    let skip: Vec<PathBuf> = skip
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .chain(to.canonicalize().ok())
        .collect();
    copy_dir(from, to, &skip, &mut copied)?;
    Ok(copied)
}

fn copy_dir(from: &Path, to: &Path, skip: &[PathBuf], copied: &mut Copied) -> io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        // Only a name that could match is resolved: most entries are never skipped.
        let named = skip
            .iter()
            .any(|p| p.file_name() == Some(entry.file_name().as_os_str()));
        if named && source.canonicalize().is_ok_and(|c| skip.contains(&c)) {
            continue;
        }
        if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
            copy_dir(&source, &target, skip, copied)?;
        } else if kind.is_symlink() {
            link(&std::fs::read_link(&source)?, &target)?;
        } else if kind.is_file() {
            copied.bytes = copied
                .bytes
                .saturating_add(std::fs::copy(&source, &target)?);
            copied.files += 1;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn link(points_to: &Path, at: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(points_to, at)
}

#[cfg(not(unix))]
fn link(_points_to: &Path, _at: &Path) -> io::Result<()> {
    // Where links need privileges to make, a link is left out of the copy.
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_holds_the_tree_but_not_the_folder_it_is_made_in() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("src/deep")).unwrap();
        std::fs::write(ws.join("a.txt"), "a").unwrap();
        std::fs::write(ws.join("runs.db"), "the store").unwrap();
        std::fs::write(ws.join("src/deep/b.txt"), "bb").unwrap();
        // The copies go inside the workspace itself (store beside a `.` workspace).
        let groups = ws.join("groups");
        std::fs::create_dir_all(&groups).unwrap();
        let to = groups.join("1/anthropic");
        let skip = [groups.clone(), ws.join("runs.db")];
        let got = copy_workspace(&ws, &to, &skip).unwrap();
        assert_eq!(got, Copied { files: 2, bytes: 3 });
        assert_eq!(
            std::fs::read_to_string(to.join("src/deep/b.txt")).unwrap(),
            "bb"
        );
        assert!(!to.join("groups").exists());
        assert!(!to.join("runs.db").exists());
        // A second copy beside it does not copy the first.
        let other = groups.join("1/openai");
        assert_eq!(copy_workspace(&ws, &other, &skip).unwrap().files, 2);
        assert!(
            copy_workspace(&ws, &other, &[]).is_err(),
            "never over an existing copy"
        );
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(16_000), "16.0 kB");
        assert_eq!(size(2_345_678), "2.3 MB");
        assert_eq!(size(1_100_000_000), "1.1 GB");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_copied_as_a_link_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(dir.path().join("outside.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.txt"), ws.join("l")).unwrap();
        let to = dir.path().join("copy");
        assert_eq!(copy_workspace(&ws, &to, &[]).unwrap().files, 0);
        assert!(
            std::fs::symlink_metadata(to.join("l"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}
