//! `io-harness claims RUN_ID [--json]`: the run's final answer sentence by
//! sentence, each with the sources cited for it and their verdicts, and the
//! run's cited share, verified share and unsupported count (`Store::run_claims`,
//! the read the console's claims view and `compare` share).

use std::fmt::Write as _;
use std::path::PathBuf;

use io_harness::store::RunClaims;
use io_harness::{Config, Error, Result, RunId, Store};

use super::out;
use io_harness::core::verdict::Verdict;

/// Print run `run_id`'s claims.
pub fn claims(
    config: Option<PathBuf>,
    store: Option<PathBuf>,
    run_id: RunId,
    json: bool,
) -> Result<()> {
    let loaded = Config::discover(config.as_deref())?;
    let path = store.unwrap_or_else(|| loaded.config.store_path(loaded.path.as_deref()));
    let store = Store::open(&path).map_err(|e| Error::store_unusable(&path, &e))?;
    if store.run(run_id)?.is_none() {
        return Err(Error::refused(format!(
            "there is no run {run_id} in this store; `io-harness runs` lists them"
        )));
    }
    let c = store.run_claims(run_id)?;
    if json {
        return out::json(&serde_json::to_string_pretty(&c).unwrap_or_default());
    }
    out::print(&render(&c))
}

/// The claims as text for people.
fn render(c: &RunClaims) -> String {
    let [cited, verified, unsupported] = c.figures.words();
    let step = c
        .claims
        .first()
        .map_or(String::new(), |s| format!(" (step {})", s.step));
    let mut text = format!(
        "run {} · final answer{step}: {} sentence{}\ncited share {cited} · verified share {verified} · unsupported {unsupported}\n",
        c.run_id,
        c.claims.len(),
        if c.claims.len() == 1 { "" } else { "s" }
    );
    if c.figures.verified_share.is_none() {
        let _ = writeln!(
            text,
            "not checked: `io-harness check-sources {}` fetches each source and looks for its quote",
            c.run_id
        );
    }
    for (i, s) in c.claims.iter().enumerate() {
        let one = io_harness::core::text::one_line(&s.text);
        let _ = writeln!(text, "\n{:>3}. {one}", i + 1);
        if s.citations.is_empty() {
            let _ = writeln!(text, "     no source");
        }
        for src in &s.citations {
            let verdict = src.verdict.map_or("not checked", Verdict::as_str);
            let overlap = src
                .overlap
                .map(|o| format!(" · lexical overlap {o:.2} (a hint, not proof)"))
                .unwrap_or_default();
            let _ = writeln!(text, "     [{verdict}{overlap}] {}", src.url);
        }
    }
    text
}
