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
use crate::core::web::WebAccess;

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
}

impl Widening {
    /// The key of `[[agent]] web` it is about.
    pub fn key(&self) -> &'static str {
        match self {
            Widening::Search => "search",
            Widening::Fetch => "fetch",
            Widening::MaxUses { .. } => "max_uses",
            Widening::Host { .. } => "allowed_domains",
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
    }))
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
}
