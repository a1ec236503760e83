//! Confinement of local tools to the workspace: a path the model names is resolved
//! against the workspace root and refused if it escapes it — by `..`, by an absolute
//! path elsewhere, or through a symlink that points outside. A link whose target
//! does not exist yet is refused too: following it to create the target could
//! create a file anywhere. The tools open what this returns with `O_NOFOLLOW`, so a
//! link planted after the check is not followed either.

use std::path::{Component, Path, PathBuf};

/// A path inside the workspace: where it is on disk, and how policy rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confined {
    /// The absolute path to touch.
    pub absolute: PathBuf,
    /// Relative to the workspace, `/`-separated (`.` for the root).
    pub relative: String,
}

/// Resolve `requested` inside `root`, or say why not.
pub fn confine(root: &Path, requested: &str) -> Result<Confined, String> {
    let root = root
        .canonicalize()
        .map_err(|e| format!("workspace {} is not usable: {e}", root.display()))?;
    let requested_path = Path::new(requested);
    let joined = if requested_path.is_absolute() {
        requested_path.to_path_buf()
    } else {
        root.join(requested_path)
    };
    // Normalise lexically first, so `..` cannot walk out before symlinks are looked at.
    let mut normal = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                if !normal.pop() {
                    return Err(format!("path {requested} leaves the workspace"));
                }
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    if !normal.starts_with(&root) {
        return Err(format!("path {requested} is outside the workspace"));
    }
    // Resolve symlinks on the longest prefix that exists *as an entry* (`lstat`, so
    // a dangling link counts as existing); the rest names nothing yet, so creating
    // it cannot follow a link anywhere.
    let mut existing = normal.clone();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        match existing.file_name() {
            Some(name) => rest.push(name.to_os_string()),
            None => break,
        }
        if !existing.pop() {
            break;
        }
    }
    let mut real = existing.canonicalize().map_err(|e| {
        if is_link(&existing) {
            format!(
                "path {requested} goes through a link whose target does not exist; it is \
                 refused, since writing there could create a file outside the workspace"
            )
        } else {
            format!("path {requested}: {e}")
        }
    })?;
    if !real.starts_with(&root) {
        return Err(format!(
            "path {requested} resolves through a link to outside the workspace"
        ));
    }
    for name in rest.iter().rev() {
        real.push(name);
    }
    let relative = real
        .strip_prefix(&root)
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_default();
    Ok(Confined {
        absolute: real,
        relative: if relative.is_empty() {
            ".".to_string()
        } else {
            relative
        },
    })
}

/// Open a confined file to read: a link is not followed, a FIFO or device does not
/// block the open, and anything but a regular file is refused.
pub(crate) async fn open_read(path: &Path, shown: &str) -> Result<tokio::fs::File, String> {
    let mut options = tokio::fs::OpenOptions::new();
    options.read(true);
    no_follow_no_block(&mut options);
    let file = options.open(path).await.map_err(|e| opened(shown, &e))?;
    regular(&file, shown).await?;
    Ok(file)
}

/// Open a confined file to write (created or truncated), under the same rules.
pub(crate) async fn open_write(path: &Path, shown: &str) -> Result<tokio::fs::File, String> {
    // An existing FIFO or device is refused before opening: opening one to write
    // would block until a reader came, or fail with an obscure error.
    if let Ok(meta) = tokio::fs::symlink_metadata(path).await {
        if !meta.is_file() {
            return Err(not_regular(shown, &meta.file_type()));
        }
    }
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    no_follow_no_block(&mut options);
    let file = options.open(path).await.map_err(|e| opened(shown, &e))?;
    regular(&file, shown).await?;
    Ok(file)
}

#[cfg(unix)]
fn no_follow_no_block(options: &mut tokio::fs::OpenOptions) {
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
}

#[cfg(not(unix))]
fn no_follow_no_block(_: &mut tokio::fs::OpenOptions) {}

fn opened(shown: &str, e: &std::io::Error) -> String {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return format!("{shown} is a link; it is not followed");
    }
    format!("{shown}: {e}")
}

async fn regular(file: &tokio::fs::File, shown: &str) -> Result<(), String> {
    let meta = file.metadata().await.map_err(|e| format!("{shown}: {e}"))?;
    if meta.is_file() {
        Ok(())
    } else {
        Err(not_regular(shown, &meta.file_type()))
    }
}

fn not_regular(shown: &str, kind: &std::fs::FileType) -> String {
    let what = if kind.is_dir() {
        "a directory (use list_dir)"
    } else if kind.is_symlink() {
        "a link"
    } else {
        "a FIFO, socket or device"
    };
    format!("{shown} is not a regular file: it is {what}; only regular files are read or written")
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_paths_resolve_and_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let c = confine(dir.path(), "src/../src/new.rs").unwrap();
        assert_eq!(c.relative, "src/new.rs");
        assert_eq!(confine(dir.path(), ".").unwrap().relative, ".");
        assert!(
            confine(dir.path(), "../x")
                .unwrap_err()
                .contains("leaves the workspace")
                || confine(dir.path(), "../x").unwrap_err().contains("outside")
        );
        assert!(
            confine(dir.path(), "/etc/passwd")
                .unwrap_err()
                .contains("outside the workspace")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let err = confine(dir.path(), "link/secret.txt").unwrap_err();
        assert!(err.contains("through a link"), "{err}");
    }
}
