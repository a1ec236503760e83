//! Issue 34, item 3: Ctrl-S on the console writes io.toml as a new file renamed
//! into place; the new file keeps the old one's permissions (a 0600 io.toml that
//! holds a telemetry token stays 0600) and, where this process may set it, its
//! owner; a read-only io.toml is refused with a message saying so and left as
//! it is. The console driven for real (`LiveConsole`), real files.

#![cfg(all(feature = "console", feature = "stub", unix))]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use common::console::*;
use io_harness::stub::Script;

const PRIVATE: &str = "# mine\nprovider = \"anthropic\"\n\n[telemetry]\notlp_endpoint = \"http://127.0.0.1:4318\"\n\n[telemetry.headers]\nauthorization = \"Bearer tok-secret\"\n";

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Every name in the folder but the store's (no temporary file left beside it).
fn names(dir: &std::path::Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("runs.db"))
        .collect();
    n.sort();
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_s_keeps_a_private_io_toml_private() {
    let mut l = LiveConsole::scripted(Script::default()).await;
    let path = l.dir.path().join("io.toml");
    for m in [0o600, 0o640, 0o660] {
        std::fs::write(&path, PRIVATE).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(m)).unwrap();
        l.state.notice = None;
        l.send(ctrl('s'));
        l.until(|s| s.notice.is_some()).await;
        let notice = l.state.notice.clone().unwrap();
        assert!(!notice.1, "{notice:?}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with(PRIVATE) && text.contains("[web]"),
            "{text}"
        );
        assert_eq!(mode(&path), m, "{m:o} became {:o}", mode(&path));
    }
}

/// Where this process may give a file away (root), the new io.toml keeps the
/// old one's owner and group too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_s_keeps_the_owner_where_it_can() {
    if !rustix::process::geteuid().is_root() {
        return;
    }
    let mut l = LiveConsole::scripted(Script::default()).await;
    let path = l.dir.path().join("io.toml");
    std::fs::write(&path, PRIVATE).unwrap();
    std::os::unix::fs::chown(&path, Some(4321), Some(4322)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    l.send(ctrl('s'));
    l.until(|s| s.notice.is_some()).await;
    assert!(!l.state.notice.clone().unwrap().1);
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!((meta.uid(), meta.gid(), mode(&path)), (4321, 4322, 0o600));
    assert!(std::fs::read_to_string(&path).unwrap().contains("[web]"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_s_refuses_a_read_only_io_toml_and_says_so() {
    let mut l = LiveConsole::scripted(Script::default()).await;
    let path = l.dir.path().join("io.toml");
    std::fs::write(&path, PRIVATE).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = names(l.dir.path());
    l.send(ctrl('s'));
    l.until(|s| s.notice.is_some()).await;
    let (text, error) = l.state.notice.clone().unwrap();
    assert!(error, "{text}");
    assert_eq!(
        text,
        format!(
            "{}: it is read-only (mode 0444), so it was left as it is; make it writable \
             (chmod u+w) to save into it",
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), PRIVATE);
    assert_eq!(mode(&path), 0o444);
    assert_eq!(names(l.dir.path()), before);
}
