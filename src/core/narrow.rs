//! Per-agent web narrowing: a spawned agent's declaration is the intersection
//! of its parent's and its own (`[[agent]] web`, the same keys as `[web]`). A
//! switch is on only where both have it on; `max_uses` is the smaller; the
//! allowed hosts are the intersection (an agent's allow-list inside a parent
//! without one is that list); blocked hosts are the union; a location is the
//! agent's where it states one, else its parent's (a location is not access).
//!
//! Widening is refused, never dropped: an agent that asks for something its
//! parent does not have — a switch the parent has off, a cap above the
//! parent's, a host outside the parent's allow-list — is a `Widening`, which
//! io.toml's loader reports naming the agent, the key and its line, and a spawn
//! refuses naming the agent. Nothing the model writes is read here: only the
//! operator's tables. Pure.

use crate::core::host::normalise_host;
use crate::core::web::{DateRange, WebAccess, XHandles};

/// What an agent asked for that its parent does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Widening {
    /// `search = true` under a parent that does not search.
    Search,
    /// `fetch = true` under a parent that does not fetch.
    Fetch,
    /// `max_uses` above the parent's cap.
    MaxUses {
        /// What the agent asked.
        asked: u32,
        /// The parent's cap.
        parent: u32,
    },
    /// A host outside the parent's allow-list.
    Host {
        /// The host asked for.
        host: String,
        /// The parent's allow-list.
        parent: Vec<String>,
    },
    /// `x_search = true` under a parent that does not search X.
    XSearch,
    /// An X handle outside the parent's `x_handles.allow`.
    XHandle {
        /// The handle asked for.
        handle: String,
        /// The parent's allowed handles.
        parent: Vec<String>,
    },
    /// Days outside the parent's `x_dates`.
    XDates {
        /// The parent's range, as written (`2025-10-01 to 2025-10-10`).
        parent: String,
    },
}

impl Widening {
    /// The key of `[[agent]] web` it is about.
    pub fn key(&self) -> &'static str {
        match self {
            Widening::Search => "search",
            Widening::Fetch => "fetch",
            Widening::MaxUses { .. } => "max_uses",
            Widening::Host { .. } => "allowed_domains",
            Widening::XSearch => "x_search",
            Widening::XHandle { .. } => "x_handles",
            Widening::XDates { .. } => "x_dates",
        }
    }

    /// What the parent allows, in words, after "widens its parent's
    /// declaration, which ".
    pub fn parent_allows(&self) -> String {
        match self {
            Widening::Search => "does not search (search = false)".to_string(),
            Widening::Fetch => "does not fetch (fetch = false)".to_string(),
            Widening::MaxUses { parent, .. } => format!("caps web tool use at max_uses = {parent}"),
            Widening::Host { host, parent } => {
                format!("allows only {} (not {host})", parent.join(", "))
            }
            Widening::XSearch => "does not search X (x_search = false)".to_string(),
            Widening::XHandle { handle, parent } => {
                format!(
                    "searches only the X handles {} (not {handle})",
                    parent.join(", ")
                )
            }
            Widening::XDates { parent } => format!("searches X posts of {parent} only"),
        }
    }
}

/// The declaration an agent runs with under `parent` (its parent's, the root's
/// `[web]` for a child of the root), given its own: the intersection, or what
/// it asked for that the parent does not have. `None` stays `None` when the
/// agent turns nothing on.
pub fn narrowed(
    parent: Option<&WebAccess>,
    own: &WebAccess,
) -> Result<Option<WebAccess>, Widening> {
    let none = WebAccess::default();
    let p = parent.unwrap_or(&none);
    if own.search && !p.search {
        return Err(Widening::Search);
    }
    if own.fetch && !p.fetch {
        return Err(Widening::Fetch);
    }
    if let (Some(asked), Some(cap)) = (own.max_uses, p.max_uses) {
        if asked > cap {
            return Err(Widening::MaxUses { asked, parent: cap });
        }
    }
    let parent_hosts: Vec<String> = p
        .allowed_domains
        .iter()
        .map(|h| normalise_host(h))
        .collect();
    for host in &own.allowed_domains {
        let h = normalise_host(host);
        let inside = parent_hosts
            .iter()
            .any(|ph| h == *ph || h.ends_with(&format!(".{ph}")));
        if !parent_hosts.is_empty() && !inside {
            return Err(Widening::Host {
                host: h,
                parent: parent_hosts,
            });
        }
    }
    if own.x_search && !p.x_search {
        return Err(Widening::XSearch);
    }
    let (x_handles, x_dates) = narrowed_x(p, own)?;
    if parent.is_none() {
        // Nothing asked (checked above): the child declares nothing, as its root.
        return Ok(None);
    }
    let mut blocked = p.blocked_domains.clone();
    for h in &own.blocked_domains {
        if !blocked
            .iter()
            .any(|b| normalise_host(b) == normalise_host(h))
        {
            blocked.push(h.clone());
        }
    }
    Ok(Some(WebAccess {
        search: own.search && p.search,
        fetch: own.fetch && p.fetch,
        max_uses: match (own.max_uses, p.max_uses) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        },
        allowed_domains: if own.allowed_domains.is_empty() {
            p.allowed_domains.clone()
        } else {
            own.allowed_domains.clone()
        },
        blocked_domains: blocked,
        location: own.location.clone().or_else(|| p.location.clone()),
        x_search: own.x_search && p.x_search,
        x_handles,
        x_dates,
    }))
}

/// An agent's X handles and dates under its parent's: the handles it allows
/// inside the parent's allowed ones (its own list, else the parent's), the
/// excluded ones of both; its days inside the parent's (its own bounds, else
/// the parent's).
fn narrowed_x(p: &WebAccess, own: &WebAccess) -> Result<(XHandles, Option<DateRange>), Widening> {
    let (parent_allowed, _) = p.x_filter();
    let (own_allowed, _) = own.x_filter();
    if !parent_allowed.is_empty() {
        if let Some(h) = own_allowed.iter().find(|h| !parent_allowed.contains(h)) {
            return Err(Widening::XHandle {
                handle: h.clone(),
                parent: parent_allowed,
            });
        }
    }
    let mut exclude = p.x_handles.exclude.clone();
    exclude.extend(own.x_handles.exclude.iter().cloned());
    let handles = XHandles {
        allow: if own.x_handles.allow.is_empty() {
            p.x_handles.allow.clone()
        } else {
            own.x_handles.allow.clone()
        },
        exclude,
    };
    let pd = p.x_dates.clone().unwrap_or_default();
    let od = own.x_dates.clone().unwrap_or_default();
    let earlier = matches!((&od.from, &pd.from), (Some(o), Some(q)) if o < q);
    let later = matches!((&od.to, &pd.to), (Some(o), Some(q)) if o > q);
    if earlier || later {
        let day = |d: &Option<String>| d.clone().unwrap_or_else(|| "any day".to_string());
        return Err(Widening::XDates {
            parent: format!("{} to {}", day(&pd.from), day(&pd.to)),
        });
    }
    let dates = DateRange {
        from: od.from.or(pd.from),
        to: od.to.or(pd.to),
    };
    let dates = (dates != DateRange::default()).then_some(dates);
    Ok((handles, dates))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> WebAccess {
        WebAccess::search()
            .with_fetch()
            .max_uses(5)
            .allow("docs.rs")
            .allow("crates.io")
            .block("evil.docs.rs")
    }

    #[test]
    fn a_child_is_the_intersection_of_its_parent_and_its_own() {
        let own = WebAccess {
            max_uses: Some(2),
            allowed_domains: vec!["api.docs.rs".into()],
            blocked_domains: vec!["old.crates.io".into()],
            ..WebAccess::search()
        };
        let child = narrowed(Some(&root()), &own).unwrap().unwrap();
        assert_eq!(
            child,
            WebAccess {
                search: true,
                fetch: false,
                max_uses: Some(2),
                allowed_domains: vec!["api.docs.rs".into()],
                blocked_domains: vec!["evil.docs.rs".into(), "old.crates.io".into()],
                location: None,
                ..WebAccess::default()
            }
        );
        // An agent that turns everything off gets nothing, whatever its parent has.
        let writer = narrowed(Some(&root()), &WebAccess::default())
            .unwrap()
            .unwrap();
        assert!(!writer.enabled());
        // Nesting composes: a grandchild narrows the narrowed declaration.
        let grandchild = narrowed(Some(&child), &WebAccess::search().max_uses(9));
        assert_eq!(
            grandchild,
            Err(Widening::MaxUses {
                asked: 9,
                parent: 2
            })
        );
        let g = narrowed(Some(&child), &WebAccess::search())
            .unwrap()
            .unwrap();
        assert_eq!(
            (g.max_uses, g.allowed_domains.clone()),
            (Some(2), vec!["api.docs.rs".to_string()])
        );
    }

    #[test]
    fn widening_is_refused_naming_what_was_asked() {
        let searcher = WebAccess::search();
        assert_eq!(narrowed(None, &searcher), Err(Widening::Search));
        assert_eq!(
            narrowed(Some(&searcher), &searcher.clone().with_fetch()),
            Err(Widening::Fetch)
        );
        let outside = WebAccess::search().allow("evil.test");
        let e = narrowed(Some(&root()), &outside).unwrap_err();
        assert_eq!(e.key(), "allowed_domains");
        assert_eq!(
            e.parent_allows(),
            "allows only docs.rs, crates.io (not evil.test)"
        );
        // Inside the parent's list, by subdomain and by spelling.
        assert!(narrowed(Some(&root()), &WebAccess::search().allow("Docs.RS.")).is_ok());
        // No declaration at the root and none asked: none.
        assert_eq!(narrowed(None, &WebAccess::default()), Ok(None));
    }

    #[test]
    fn x_search_narrows_and_never_widens() {
        let mut root = WebAccess::search().with_x_search();
        root.x_handles.allow = vec!["xai".into(), "grok".into()];
        root.x_dates = Some(DateRange {
            from: Some("2025-10-01".into()),
            to: Some("2025-10-31".into()),
        });
        // Off under a parent that has it off: refused, naming the key.
        let e = narrowed(
            Some(&WebAccess::search()),
            &WebAccess::search().with_x_search(),
        );
        assert_eq!(e, Err(Widening::XSearch));
        assert_eq!(Widening::XSearch.key(), "x_search");
        // A handle outside the parent's list, days outside its range.
        let mut own = WebAccess::default().with_x_search();
        own.x_handles.allow = vec!["@elonmusk".into()];
        let e = narrowed(Some(&root), &own).unwrap_err();
        assert_eq!(e.key(), "x_handles");
        assert!(
            e.parent_allows().contains("xai, grok"),
            "{}",
            e.parent_allows()
        );
        let mut own = WebAccess::default().with_x_search();
        own.x_dates = Some(DateRange {
            from: Some("2025-09-01".into()),
            to: None,
        });
        assert_eq!(narrowed(Some(&root), &own).unwrap_err().key(), "x_dates");
        // Inside: the agent's handle and days, the parent's where it gives none.
        let mut own = WebAccess::default().with_x_search();
        own.x_handles.allow = vec!["@XAI".into()];
        own.x_handles.exclude = vec!["spam".into()];
        own.x_dates = Some(DateRange {
            from: Some("2025-10-05".into()),
            to: None,
        });
        let child = narrowed(Some(&root), &own).unwrap().unwrap();
        assert!(child.x_search && !child.search);
        assert_eq!(child.x_filter(), (vec!["xai".to_string()], vec![]));
        assert_eq!(child.x_handles.exclude, ["spam"]);
        assert_eq!(
            child.x_dates,
            Some(DateRange {
                from: Some("2025-10-05".into()),
                to: Some("2025-10-31".into())
            })
        );
        // An agent that does not ask for X search does not get it.
        let writer = narrowed(Some(&root), &WebAccess::search())
            .unwrap()
            .unwrap();
        assert!(!writer.x_search);
    }
}
