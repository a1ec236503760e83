//! A workspace copied for one run of a comparison, so that no two runs write the
//! same file and the operator's own is untouched: files and folders copied,
//! symbolic links recreated as links (never followed out of the workspace).
//!
//! What a copy leaves out: what the workspace's ignore files exclude, read as
//! ripgrep reads them (the `ignore` crate: `.gitignore` at every level and in
//! the folders above, `.ignore`, `.git/info/exclude`; hidden files are copied,
//! the user's global gitignore is not the workspace's and is not read, and a
//! `.gitignore` counts outside a git repository too), the `.git` folder itself
//! (history, not the workspace), what `skip` names (the store's folder and
//! files, where the copies go), and any folder of earlier copies: the folder a
//! copy is made in is marked with a `COPY_MARKER` file (beside the copies, not
//! in them, so a run never sees it), and a folder so marked is never copied —
//! copies made beside another store, or left by a run that was killed, never
//! end up inside the next. `measure` walks the same way without copying, so a
//! group can say before it starts whether its copies fit (`fits` in
//! `run::group`).

use std::io;
use std::path::{Path, PathBuf};

/// The file that marks a folder of workspace copies (a group's).
pub const COPY_MARKER: &str = ".io-harness-copies";

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
/// what the module says. A workspace that does not exist yet is copied as an
/// empty folder.
pub fn copy_workspace(from: &Path, to: &Path, skip: &[PathBuf]) -> io::Result<Copied> {
    if to.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} already exists", to.display()),
        ));
    }
    std::fs::create_dir_all(to)?;
    if let Some(folder) = to.parent() {
        let marker = folder.join(COPY_MARKER);
        if !marker.exists() {
            std::fs::write(
                marker,
                "The workspace copies io-harness made for one run group; no copy of a \
                 workspace includes a folder holding this file.\n",
            )?;
        }
    }
    let mut copied = Copied::default();
    if !from.exists() {
        return Ok(copied);
    }
    let skip = canonical(skip, Some(to));
    for entry in walk(from, skip) {
        let entry = entry.map_err(io::Error::other)?;
        let Ok(relative) = entry.path().strip_prefix(from) else {
            continue;
        };
        if relative.as_os_str().is_empty() {
            continue;
        }
        let target = to.join(relative);
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if kind.is_symlink() {
            link(&std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() {
            copied.bytes = copied
                .bytes
                .saturating_add(std::fs::copy(entry.path(), &target)?);
            copied.files += 1;
        }
    }
    Ok(copied)
}

/// What a copy of `from` would hold, walked as `copy_workspace` walks it.
pub fn measure(from: &Path, skip: &[PathBuf]) -> io::Result<Copied> {
    let mut m = Copied::default();
    if !from.exists() {
        return Ok(m);
    }
    for entry in walk(from, canonical(skip, None)) {
        let entry = entry.map_err(io::Error::other)?;
        if entry.file_type().is_some_and(|k| k.is_file()) {
            m.files += 1;
            m.bytes = m
                .bytes
                .saturating_add(entry.metadata().map_or(0, |d| d.len()));
        }
    }
    Ok(m)
}

/// Remove a copy `copy_workspace` made (only a folder in a marked folder).
pub fn remove_copy(copy: &Path) -> io::Result<()> {
    if !copy.parent().is_some_and(|p| p.join(COPY_MARKER).is_file()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is not a workspace copy; it was left as it is",
                copy.display()
            ),
        ));
    }
    std::fs::remove_dir_all(copy)
}

/// Remove a folder of copies once no copy is left in it (its marker only).
pub fn remove_emptied(folder: &Path) -> io::Result<()> {
    let left = std::fs::read_dir(folder)?
        .filter_map(|e| e.ok())
        .any(|e| e.file_name() != COPY_MARKER);
    if left {
        return Ok(());
    }
    std::fs::remove_file(folder.join(COPY_MARKER))?;
    std::fs::remove_dir(folder)
}

/// The paths in `skip` that exist, resolved (and the copy being made).
fn canonical(skip: &[PathBuf], to: Option<&Path>) -> Vec<PathBuf> {
    skip.iter()
        .map(PathBuf::as_path)
        .chain(to)
        .filter_map(|p| p.canonicalize().ok())
        .collect()
}

/// The walk of `from` a copy makes (see the module).
fn walk(from: &Path, skip: Vec<PathBuf>) -> ignore::Walk {
    let mut b = ignore::WalkBuilder::new(from);
    b.hidden(false)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| !left_out(e, &skip));
    b.build()
}

/// An entry a copy never holds: `.git`, a folder of copies, a path in `skip`.
fn left_out(e: &ignore::DirEntry, skip: &[PathBuf]) -> bool {
    let dir = e.file_type().is_some_and(|k| k.is_dir());
    if dir && e.depth() > 0 && (e.file_name() == ".git" || e.path().join(COPY_MARKER).exists()) {
        return true;
    }
    // Only a name that could match is resolved: most entries are never skipped.
    skip.iter().any(|p| p.file_name() == Some(e.file_name()))
        && e.path().canonicalize().is_ok_and(|c| skip.contains(&c))
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

    fn names(dir: &Path) -> Vec<String> {
        let mut out: Vec<String> = walkdir::WalkDir::new(dir)
            .min_depth(1)
            .into_iter()
            .map(|e| {
                let e = e.unwrap();
                e.path().strip_prefix(dir).unwrap().display().to_string()
            })
            .collect();
        out.sort();
        out
    }

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
        assert_eq!(measure(&ws, &skip).unwrap(), got);
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
        remove_copy(&other).unwrap();
        assert!(!other.exists());
        remove_emptied(&groups.join("1")).unwrap();
        assert!(to.exists(), "a folder still holding a copy stays");
        remove_copy(&to).unwrap();
        remove_emptied(&groups.join("1")).unwrap();
        assert!(!groups.join("1").exists());
        assert!(remove_copy(&ws.join("src/deep")).is_err());
        assert!(ws.join("src/deep/b.txt").exists());
    }

    #[test]
    fn ignored_files_git_and_earlier_copies_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        for d in [
            "src",
            "target/debug",
            ".git/objects",
            "sub/build",
            "old/copy",
            ".github",
        ] {
            std::fs::create_dir_all(ws.join(d)).unwrap();
        }
        for (f, text) in [
            (".gitignore", "/target\n*.log\n!keep.log\n"),
            ("sub/.gitignore", "build/\n"),
            (".ignore", "secret.txt\n"),
            ("src/main.rs", "fn main() {}"),
            ("target/debug/big", "xxxxxxxx"),
            (".git/objects/o", "history"),
            ("sub/build/out.o", "o"),
            ("sub/kept.rs", "k"),
            ("a.log", "log"),
            ("keep.log", "kept"),
            ("secret.txt", "s"),
            (".github/ci.yml", "ci"),
            ("old/.io-harness-copies", "m"),
            ("old/copy/file", "f"),
        ] {
            std::fs::write(ws.join(f), text).unwrap();
        }
        let to = dir.path().join("copy");
        copy_workspace(&ws, &to, &[]).unwrap();
        assert_eq!(
            names(&to),
            [
                ".github",
                ".github/ci.yml",
                ".gitignore",
                ".ignore",
                "keep.log",
                "src",
                "src/main.rs",
                "sub",
                "sub/.gitignore",
                "sub/kept.rs"
            ]
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
