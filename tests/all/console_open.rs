//! `o` on the Sources screen hands a citation's URL to the desktop opener only
//! when it is an http(s) URL with a host: a vendor's `file:`, `javascript:`, a
//! bare word that an opener would read as a flag or a local path is not opened,
//! and the status line says why. Driven through the pure `update`, so no opener
//! runs here whatever the code does.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::console::*;

use crossterm::event::KeyCode;
use io_harness::console::testing::update;
use io_harness::console::testing::{Effect, Msg, State};

fn citation(url: &str) -> io_harness::store::CitationRow {
    io_harness::store::CitationRow {
        run_id: io_harness::RunId(1),
        step: 1,
        url: url.into(),
        title: Some("T".into()),
        cited_text: None,
    }
}

/// Sources, its citation pane showing one citation at `url`, selected.
fn sources_showing(url: &str) -> State {
    let mut s = state();
    assert_eq!(update(&mut s, key(KeyCode::F(4))), vec![Effect::LoadRuns]);
    update(
        &mut s,
        Msg::RunSources {
            citations: vec![citation(url)],
            calls: vec![],
            checks: vec![],
            suggestions: vec![],
        },
    );
    update(&mut s, key(KeyCode::Tab));
    s
}

/// What is opened is the URL as parsed and written back: scheme and host in
/// lower case, anything a terminal or a shell could read percent-encoded.
#[test]
fn o_opens_http_and_https_urls() {
    for (url, opened) in [
        ("https://docs.rs/a", "https://docs.rs/a"),
        ("http://example.com/x?y=1", "http://example.com/x?y=1"),
        ("HTTPS://Crates.io/b", "https://crates.io/b"),
        (
            "https://example.com/a b\u{1b}[2J",
            "https://example.com/a%20b%1B[2J",
        ),
    ] {
        let mut s = sources_showing(url);
        assert_eq!(
            update(&mut s, key(KeyCode::Char('o'))),
            vec![Effect::Open(opened.into())],
            "{url}"
        );
    }
}

#[test]
fn o_refuses_anything_else_and_says_why() {
    let cases = [
        ("file:///etc/passwd", "this is a file: URL"),
        ("javascript:alert(1)", "this is a javascript: URL"),
        ("--help", "this is not a URL"),
        ("./run.sh", "this is not a URL"),
        ("/usr/bin/xterm", "this is not a URL"),
        ("ftp://example.com/x", "this is a ftp: URL"),
        ("http://", "this is not a URL"),
        ("mailto:someone@example.com", "this is a mailto: URL"),
        ("", "this is not a URL"),
    ];
    for (url, why) in cases {
        let mut s = sources_showing(url);
        assert_eq!(update(&mut s, key(KeyCode::Char('o'))), vec![], "{url:?}");
        let (notice, error) = s.notice.clone().unwrap();
        assert!(error, "{url:?}: {notice}");
        assert!(
            notice.starts_with("not opened: only http(s) links are opened, "),
            "{url:?}: {notice}"
        );
        assert!(notice.contains(why), "{url:?}: {notice}");
        // Copying it is still allowed: the clipboard runs nothing.
        assert_eq!(
            update(&mut s, key(KeyCode::Char('c'))),
            vec![Effect::Copy(url.into())]
        );
    }
}
