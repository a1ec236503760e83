//! The store reads the Run and Sources screens show: a run's sources (its
//! children's included) with their server-tool calls and verdicts, a past run's
//! panes, and the request a stored run's next step would send. Plain functions
//! over the store, run on a blocking thread by the executor.

use crate::console::state::Msg;
use crate::console::state::past::PastRun;
use crate::core::id::RunId;
use crate::core::price::PriceTable;
use crate::launch::Plan;
use crate::store::Store;

/// A run's sources for the Sources screen: its citations and its children's (a
/// spawned child's sources belong to its parent's run too), its server-tool calls
/// and what checking them found.
pub fn run_sources(store: &Store, id: RunId) -> crate::Result<Msg> {
    Ok(Msg::RunSources {
        citations: store.citations_with_children(id)?,
        calls: store.server_tool_calls(id)?,
        checks: store.verdicts(id)?,
        suggestions: store.search_suggestions(id)?,
    })
}

/// Everything the Run panes show about a past run.
pub fn past_run(store: &Store, id: RunId, prices: &PriceTable) -> crate::Result<Msg> {
    Ok(Msg::Past(Box::new(PastRun {
        run: store.run(id)?,
        steps: store.steps(id)?,
        ledger: store.ledger(id, prices)?,
        server: store.server_tool_calls(id)?,
        citations: store.citations(id)?.len(),
        suggestions: store.step_suggestions(id)?,
    })))
}

/// The request a stored run's next step would send (on the run's own vendor,
/// wire and model: `Plan::resumed`), as lines: the step, conversation, method
/// and URL, then the body pretty-printed (secrets are never in a body). Built by
/// the plan, as `preview --resume` builds it.
pub fn next_request(store: &Store, plan: &Plan, run_id: RunId) -> crate::Result<Vec<String>> {
    let next = crate::run::next_step(store, run_id)?;
    let step = next.step;
    let (setup, _) = plan.resumed(run_id, crate::launch::started_with(store, run_id)?, None)?;
    let preview = plan.preview_next(next, run_id, &setup);
    let request = preview.request?;
    let pretty = match serde_json::from_slice::<serde_json::Value>(&request.body) {
        Ok(body) => serde_json::to_string_pretty(&body)
            .unwrap_or_else(|_| String::from_utf8_lossy(&request.body).into_owned()),
        // Every wire sends JSON; were one not to, its bytes are shown as they are.
        Err(_) => String::from_utf8_lossy(&request.body).into_owned(),
    };
    let mut lines = vec![
        format!(
            "step {} · {} conversation · {} {}",
            step + 1,
            preview.turn.conversation.as_str(),
            request.method,
            crate::provider::scrub::display_url(&request.url)
        ),
        String::new(),
    ];
    lines.extend(pretty.lines().map(str::to_string));
    Ok(lines)
}
