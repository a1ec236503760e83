//! `[[agent]] web` checked against the root's `[web]` when io.toml is loaded: an
//! agent that asks for what the root does not have (a switch it has off, a
//! `max_uses` above its cap, a host outside its allow-list) is a configuration
//! error naming the agent, the key and its line, and what the root allows —
//! before any request. Agents may spawn agents; as each narrows its parent's
//! declaration, none can hold more than the root's, so the root is what a table
//! is checked against (a spawn under a narrower parent is checked again, then).

use super::locate::{Problem, Seg};
use super::resolved::Config;
use crate::core::narrow::{Widening, narrowed};

/// Every agent table that widens the root's declaration.
pub(crate) fn widening(config: &Config) -> Vec<Problem> {
    config
        .agents
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let own = a.web.as_ref()?;
            let w = narrowed(config.web.as_ref(), own).err()?;
            Some(Problem {
                path: vec![
                    Seg::from("agent"),
                    Seg::Index(i),
                    Seg::from("web"),
                    Seg::from(w.key()),
                ],
                message: message(&a.name, &w),
            })
        })
        .collect()
}

fn message(agent: &str, w: &Widening) -> String {
    let asked = match w {
        Widening::Search => "search = true".to_string(),
        Widening::Fetch => "fetch = true".to_string(),
        Widening::MaxUses { asked, .. } => format!("max_uses = {asked}"),
        Widening::Host { host, .. } => format!("the host {host}"),
        Widening::XSearch => "x_search = true".to_string(),
        Widening::XHandle { handle, .. } => format!("the X handle {handle}"),
        Widening::XDates { .. } => "X posts from other days (x_dates)".to_string(),
    };
    format!(
        "agent \"{agent}\" asks for {asked}, but the root's [web] {}; an agent narrows its \
         parent's web access and never widens it — remove it from the agent's web table, or \
         allow it under [web]",
        w.parent_allows()
    )
}
