//! Issue 34, item 11: the workspace copies a run group makes. A copy leaves out
//! what the workspace's ignore files exclude (a Rust checkout's `target/`),
//! `.git`, the store's folder and earlier copies; each copy is removed when its
//! run ends unless `--keep-copies` says to keep it; a group whose copies would
//! not fit is refused before anything is copied or sent, naming the sizes. The
//! real binary on the demo stub, in a temp folder.

#![cfg(all(feature = "stub", unix))]
#![allow(clippy::unwrap_used)]

use crate::common::cli::{at, run};

use std::path::Path;

/// A checkout-like workspace: sources, a `.gitignore`d `target/` holding a
/// large file, a `.git` folder, and a folder an earlier copy left.
fn checkout(dir: &Path) {
    for d in [
        "src",
        "target/debug",
        ".git/objects",
        "old/groups/1/anthropic",
    ] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(dir.join("target/debug/app"), vec![7u8; 3 << 20]).unwrap();
    std::fs::write(dir.join(".git/objects/pack"), vec![1u8; 1 << 20]).unwrap();
    std::fs::write(dir.join("old/groups/1/.io-harness-copies"), "").unwrap();
    std::fs::write(dir.join("old/groups/1/anthropic/notes.md"), "old\n").unwrap();
}

/// Every path under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
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

/// A run group on the demo stub in `dir` (its store `data/runs.db`, inside the
/// workspace `.`), with `more` flags: exit code, stdout, stderr.
fn group(dir: &Path, more: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "run",
        "--demo",
        "--providers",
        "anthropic,openai",
        "--workspace",
        ".",
    ];
    args.extend_from_slice(more);
    run(at(dir).args(&args))
}

#[test]
fn copies_are_removed_when_their_runs_end() {
    let dir = crate::common::cli::place();
    checkout(dir.path());
    let (code, _, err) = group(dir.path(), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("anthropic: workspace copied to"),
        "each copy is announced: {err}"
    );
    assert!(
        err.contains("its workspace copy removed (--keep-copies keeps it)"),
        "{err}"
    );
    let groups = dir.path().join("data/groups");
    assert!(
        !groups.join("1").exists(),
        "left behind: {:?}",
        tree(&groups)
    );
    // The operator's own workspace is as it was.
    assert!(dir.path().join("target/debug/app").exists());
    assert!(dir.path().join("old/groups/1/anthropic/notes.md").exists());
}

#[test]
fn a_kept_copy_leaves_out_ignored_files_git_the_store_and_earlier_copies() {
    let dir = crate::common::cli::place();
    checkout(dir.path());
    let (code, _, err) = group(dir.path(), &["--keep-copies"]);
    assert_eq!(code, 0, "{err}");
    for vendor in ["anthropic", "openai"] {
        let copy = dir.path().join("data/groups/1").join(vendor);
        assert!(
            err.contains(&format!(
                "{vendor}: workspace copied to {} (3 files,",
                copy.display()
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!("workspace {}", copy.display())),
            "{err}"
        );
        let got = tree(&copy);
        // What the demo run wrote into its copy aside, the copy is the
        // workspace less what it leaves out.
        for kept in [".gitignore", "io.toml", "src/main.rs"] {
            assert!(got.contains(&kept.to_string()), "{vendor}: {got:?}");
        }
        for out in ["target", ".git", "data", "old/groups/1"] {
            assert!(
                !got.iter()
                    .any(|p| p == out || p.starts_with(&format!("{out}/"))),
                "{vendor} copied {out}: {got:?}"
            );
        }
    }
}

/// A workspace whose files add up to more than the disk holding the store has
/// free (a sparse file: it takes no space itself) is refused before anything
/// is copied, recorded or sent. The binary runs under a 10 MB file-size limit,
/// so a copy that started anyway would fail there, not fill the disk.
#[test]
fn a_group_whose_copies_would_not_fit_is_refused_naming_the_sizes() {
    let dir = crate::common::cli::place();
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    let free = {
        let s = rustix::fs::statvfs(dir.path()).unwrap();
        s.f_bavail * s.f_frsize
    };
    let big = std::fs::File::create(dir.path().join("big.bin")).unwrap();
    big.set_len(free + (1 << 30)).unwrap();
    let bin = env!("CARGO_BIN_EXE_io-harness");
    let mut sh = std::process::Command::new("sh");
    sh.current_dir(dir.path())
        .env(io_harness::USER_CONFIG_ENV, "")
        .args([
            "-c",
            &format!(
                "ulimit -f 10240; exec {bin:?} --config io.toml --store data/runs.db run --demo \
                 --providers anthropic,openai --workspace ."
            ),
        ]);
    let (code, out, err) = run(&mut sh);
    assert_eq!(code, 2, "{out}{err}");
    let said = err.trim_end();
    assert!(
        said.contains(&format!("the workspace {} holds ", dir.path().display())),
        "{said}"
    );
    assert!(
        said.contains(
            " in 2 files (what its ignore files exclude not counted); 2 copies of it need about "
        ),
        "{said}"
    );
    assert!(
        said.contains(" free — nothing was copied or sent."),
        "{said}"
    );
    assert!(!dir.path().join("data/groups").exists());
    let (code, runs, _) = run(at(dir.path()).args(["runs", "--json"]));
    assert_eq!((code, runs.trim()), (0, "[]"));
}
