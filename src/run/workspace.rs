//! Confinement of local tools to the workspace: a path the model names is resolved
//! against the workspace root and refused if it escapes it — by `..`, by an absolute
//! path elsewhere, or through a symlink that points outside.

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
    // Resolve symlinks on the longest existing prefix; the rest does not exist yet.
    let mut existing = normal.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match existing.file_name() {
            Some(name) => rest.push(name.to_os_string()),
            None => break,
        }
        if !existing.pop() {
            break;
        }
    }
    let mut real = existing
        .canonicalize()
        .map_err(|e| format!("path {requested}: {e}"))?;
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
