//! Writing an export file to a path the operator names (or one beside io.toml)
//! without following a link there: `write_new` refuses a path that is a symbolic
//! link (dangling or not), writes the bytes to a new temporary file in the same
//! folder (created with `create_new`, so never an existing file or link) and
//! renames it into place. A rename replaces the directory entry itself, so a link
//! put there after the check is replaced, not followed; a reader sees the old file
//! or the new one, never half of one.
//!
//! A file replaced keeps what the operator set on it: the new one is made
//! private (0600) before a byte is written, then given the old one's permission
//! bits and, where this process may (root, or a group it is in), its owner and
//! group, so a 0600 io.toml holding a token never becomes 0644. A file that is
//! read-only (no write bit) or that this user cannot write is refused and left
//! as it is: replacing it would undo what its mode says.

use std::fs::OpenOptions;
use std::io::{Error, ErrorKind, Result, Write};
use std::path::{Path, PathBuf};

/// How many temporary names are tried before giving up.
const TRIES: u32 = 16;

/// Write `bytes` to `path`, replacing a regular file there; a symbolic link at
/// `path` is refused and left as it is. On any error nothing is left behind. The
/// error is the OS's (or says why the path was refused), as `std::fs::write`'s is;
/// the caller names the path.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let old = match path.symlink_metadata() {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                "it is a symbolic link, which is never written through",
            ));
        }
        Ok(meta) if meta.is_dir() => {
            return Err(Error::new(ErrorKind::AlreadyExists, "it is a directory"));
        }
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(meta) = &old {
        writable(path, meta)?;
    }
    let (temp, mut file) = temporary(path, old.is_some())?;
    let written = old
        .as_ref()
        .map_or(Ok(()), |meta| keep_attributes(&file, meta))
        .and_then(|()| file.write_all(bytes))
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Refuse a file that says it is not to be written: no write bit at all, or
/// one this user cannot open for writing (checked without changing it).
fn writable(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    let read_only = |how: String| {
        Err(Error::new(
            ErrorKind::PermissionDenied,
            format!(
                "it is {how}, so it was left as it is; make it writable (chmod u+w) to save into it"
            ),
        ))
    };
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        format!("mode {:04o}", meta.permissions().mode() & 0o7777)
    };
    #[cfg(not(unix))]
    let mode = "marked read-only".to_string();
    if meta.permissions().readonly() {
        return read_only(format!("read-only ({mode})"));
    }
    match OpenOptions::new().write(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == ErrorKind::PermissionDenied => {
            read_only(format!("not writable by this user ({mode})"))
        }
        Err(e) => Err(e),
    }
}

/// Give the new file the old one's permission bits and, where this process may,
/// its owner and group (root may give it to anyone; another user keeps its own
/// owner and may still keep the group if it is in it).
fn keep_attributes(file: &std::fs::File, old: &std::fs::Metadata) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())).is_err() {
            let _ = std::os::unix::fs::fchown(file, None, Some(old.gid()));
        }
    }
    file.set_permissions(old.permissions())
}

/// A new, empty temporary file beside `path`: `.NAME.tmp-PID-N`; made private
/// (0600) from the start when it is to replace a file, so nothing written to it
/// is readable by more users than the old file allowed.
fn temporary(path: &Path, private: bool) -> Result<(PathBuf, std::fs::File)> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "it names no file"))?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for n in 0..TRIES {
        let temp = dir.join(format!(".{name}.tmp-{}-{stamp}-{n}", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        #[cfg(not(unix))]
        let _ = private;
        match options.open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(Error::new(
        ErrorKind::AlreadyExists,
        "no temporary name beside it was free",
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_and_a_regular_one_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.md");
        write_new(&path, b"one").unwrap();
        write_new(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "keep").unwrap();
        let path = dir.path().join("out.md");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let e = write_new(&path, b"x").unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        std::fs::remove_file(&path).unwrap();
        let absent = dir.path().join("absent");
        std::os::unix::fs::symlink(&absent, &path).unwrap();
        assert!(write_new(&path, b"x").is_err());
        assert!(!absent.exists());
        // Only the target and the link: no temporary file left.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_read_only_one_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("io.toml");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        for m in [0o600, 0o640, 0o604] {
            std::fs::write(&path, "old").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(m)).unwrap();
            write_new(&path, b"new").unwrap();
            assert_eq!(
                (mode(&path), std::fs::read(&path).unwrap()),
                (m, b"new".to_vec())
            );
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let e = write_new(&path, b"x").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::PermissionDenied);
        assert_eq!(
            e.to_string(),
            "it is read-only (mode 0444), so it was left as it is; make it writable (chmod u+w) to save into it"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_folder_that_is_not_one_is_the_oss_error() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "x").unwrap();
        let e = write_new(&blocker.join("out.md"), b"x").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotADirectory, "{e}");
    }
}
