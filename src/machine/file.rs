//! Writing an export file to a path the operator names (or one beside io.toml)
//! without following a link there: `write_new` refuses a path that is a symbolic
//! link (dangling or not), writes the bytes to a new temporary file in the same
//! folder (created with `create_new`, so never an existing file or link) and
//! renames it into place. A rename replaces the directory entry itself, so a link
//! put there after the check is replaced, not followed; a reader sees the old file
//! or the new one, never half of one.

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
    match path.symlink_metadata() {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                "it is a symbolic link, which is never written through",
            ));
        }
        Ok(meta) if meta.is_dir() => {
            return Err(Error::new(ErrorKind::AlreadyExists, "it is a directory"));
        }
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let (temp, mut file) = temporary(path)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// A new, empty temporary file beside `path`: `.NAME.tmp-PID-N`.
fn temporary(path: &Path) -> Result<(PathBuf, std::fs::File)> {
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
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
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

    #[test]
    fn a_folder_that_is_not_one_is_the_oss_error() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "x").unwrap();
        let e = write_new(&blocker.join("out.md"), b"x").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotADirectory, "{e}");
    }
}
