//! `WebAccess`: the one vendor-neutral declaration of provider-executed web search
//! and fetch. Plain data and validation only; each vendor module translates it.
//!
//! Invariants: `default()` is every switch off; `vendor_filter()` never returns both
//! lists non-empty; `from_policy` never turns "allow everything" into a one-entry
//! list or an empty allow-list that a vendor would read as "allow nothing".

use serde::{Deserialize, Serialize};

use crate::core::error::{Error, Result};
use crate::core::host::normalise_host;
use crate::core::policy::{Act, Effect, Policy};

/// What the provider may do on the web for the model, and where.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebAccess {
    /// Let the provider run web searches.
    #[serde(default)]
    pub search: bool,
    /// Let the provider fetch a URL for the model.
    #[serde(default)]
    pub fetch: bool,
    /// The vendor-enforced cap on provider-executed requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
    /// Hosts the vendor may reach. Empty means no allow-list (anywhere).
    #[serde(default)]
    pub allowed_domains: Vec<String>,
    /// Hosts the vendor may not reach.
    #[serde(default)]
    pub blocked_domains: Vec<String>,
    /// Where the user is, roughly, for searches the vendor localises
    /// (`[web] location`); `None` says nothing, and sends nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// Let the provider search X's posts (xAI's `x_search` tool, `[web]
    /// x_search`); every other vendor refuses it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub x_search: bool,
    /// The X handles searched (`allow`) or left out (`exclude`).
    #[serde(default, skip_serializing_if = "XHandles::is_empty")]
    pub x_handles: XHandles,
    /// The days X posts are searched between, both included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_dates: Option<DateRange>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `[web] x_handles = { allow = [...] }` or `{ exclude = [...] }`: X accounts,
/// written with or without the `@`. A vendor takes one list or the other; both
/// resolve as the domain lists do (`WebAccess::x_filter`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XHandles {
    /// The only accounts searched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Accounts left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

impl XHandles {
    /// Neither list names an account.
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.exclude.is_empty()
    }
}

/// `[web] x_dates = { from = "2025-10-01", to = "2025-10-10" }`: ISO 8601 days,
/// both included, either optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DateRange {
    /// The first day (`YYYY-MM-DD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The last day (`YYYY-MM-DD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

impl DateRange {
    /// What is wrong with it, in words naming the key, or `None`: each day a
    /// real `YYYY-MM-DD`, `from` not after `to`, at least one given.
    pub fn problem(&self) -> Option<String> {
        let day = |k: &str, v: &Option<String>| {
            v.as_deref().filter(|d| !is_day(d)).map(|d| {
                format!("{k} = {d:?} is not a day written YYYY-MM-DD (such as \"2025-10-01\")")
            })
        };
        if self.from.is_none() && self.to.is_none() {
            return Some("names no day; give from, to or both".to_string());
        }
        day("from", &self.from)
            .or_else(|| day("to", &self.to))
            .or_else(|| match (&self.from, &self.to) {
                (Some(f), Some(t)) if f > t => Some(format!("from = {f:?} is after to = {t:?}")),
                _ => None,
            })
    }
}

/// A real calendar day written `YYYY-MM-DD` (months of their length, leap years).
fn is_day(d: &str) -> bool {
    let b = d.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| d.get(r).and_then(|s| s.parse::<u32>().ok());
    let (Some(y), Some(m), Some(day)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    d.chars()
        .enumerate()
        .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && (1..=days).contains(&day)
}

/// An approximate location for search: any of country (ISO 3166-1 alpha-2),
/// region, city and IANA timezone; each vendor that takes one sends it as its
/// `user_location` of type `approximate`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Location {
    /// Two-letter country code (`GB`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// Region or state (`England`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// City (`London`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// IANA timezone (`Europe/London`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
}

impl Location {
    /// The fields given, by their vendors' names, in this order: city, region,
    /// country, timezone.
    pub fn fields(&self) -> Vec<(&'static str, &str)> {
        [
            ("city", &self.city),
            ("region", &self.region),
            ("country", &self.country),
            ("timezone", &self.timezone),
        ]
        .into_iter()
        .filter_map(|(k, v)| {
            v.as_deref()
                .filter(|v| !v.trim().is_empty())
                .map(|v| (k, v))
        })
        .collect()
    }

    /// The `user_location` object most vendors take: `{"type": "approximate",
    /// …the fields given}`.
    pub fn approximate(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        m.insert("type".into(), serde_json::json!("approximate"));
        m.extend(self.object());
        serde_json::Value::Object(m)
    }

    /// The fields given as a JSON object, in [`Location::fields`] order.
    pub fn object(&self) -> serde_json::Map<String, serde_json::Value> {
        self.fields()
            .into_iter()
            .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
            .collect()
    }
}

impl WebAccess {
    /// Search on, fetch off, no cap, no filter.
    pub fn search() -> Self {
        WebAccess {
            search: true,
            ..WebAccess::default()
        }
    }

    /// Also let the provider fetch pages.
    pub fn with_fetch(mut self) -> Self {
        self.fetch = true;
        self
    }

    /// Cap the provider-executed requests (the vendor enforces it).
    pub fn max_uses(mut self, n: u32) -> Self {
        self.max_uses = Some(n);
        self
    }

    /// Add a host the vendor may reach.
    pub fn allow(mut self, host: impl Into<String>) -> Self {
        push_unique(&mut self.allowed_domains, host.into());
        self
    }

    /// Searches localised to `location`.
    pub fn near(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    /// Add a host the vendor may not reach.
    pub fn block(mut self, host: impl Into<String>) -> Self {
        push_unique(&mut self.blocked_domains, host.into());
        self
    }

    /// Also let the provider search X's posts (`x_search`).
    pub fn with_x_search(mut self) -> Self {
        self.x_search = true;
        self
    }

    /// True when search, fetch or X search is on. A declaration carrying only a
    /// domain filter declares nothing.
    pub fn enabled(&self) -> bool {
        self.search || self.fetch || self.x_search
    }

    /// The X handles a vendor takes, `(allowed, excluded)`, at most one non-empty,
    /// as `vendor_filter` resolves the domains: the allow-list wins, without the
    /// excluded handles. Written without the `@`, lowercased (X's handles are not
    /// case-sensitive), each once.
    pub fn x_filter(&self) -> (Vec<String>, Vec<String>) {
        let handles = |list: &[String]| {
            let mut out: Vec<String> = Vec::new();
            for h in list {
                let h = h.trim().trim_start_matches('@').to_ascii_lowercase();
                if !h.is_empty() && !out.contains(&h) {
                    out.push(h);
                }
            }
            out
        };
        let excluded = handles(&self.x_handles.exclude);
        if self.x_handles.allow.is_empty() {
            return (Vec::new(), excluded);
        }
        let allowed = handles(&self.x_handles.allow)
            .into_iter()
            .filter(|h| !excluded.contains(h))
            .collect();
        (allowed, Vec::new())
    }

    /// The single list a vendor filter takes: `(allowed, blocked)`, at most one of
    /// them non-empty. The allow-list wins, with blocked hosts removed from it.
    /// Hosts are compared, and sent, as hosts (`normalise_host`): `Docs.RS.` is
    /// `docs.rs`.
    pub fn vendor_filter(&self) -> (Vec<String>, Vec<String>) {
        let hosts = |list: &[String]| {
            let mut out = Vec::new();
            for h in list {
                push_unique(&mut out, normalise_host(h));
            }
            out
        };
        let blocked = hosts(&self.blocked_domains);
        if self.allowed_domains.is_empty() {
            return (Vec::new(), blocked);
        }
        let allowed = hosts(&self.allowed_domains)
            .into_iter()
            .filter(|h| !blocked.contains(h))
            .collect();
        (allowed, Vec::new())
    }

    /// What is wrong with a declaration whose allow-list its own block-list
    /// empties — it permits no host, and sending no filter would permit every
    /// host — as (why, what to do, the whole text); `None` when it permits one.
    pub fn emptied(&self) -> Option<(String, String, String)> {
        if self.x_search && !self.x_handles.allow.is_empty() && self.x_filter().0.is_empty() {
            let why = format!(
                "every allowed X handle ({}) is also excluded, and sending no filter would let \
                 the provider search every account",
                self.x_handles.allow.join(", ")
            );
            let instead = "allow at least one handle that is not excluded, or remove the \
                           allow-list"
                .to_string();
            let text = format!(
                "the web declaration allows no X handle: {why}; {instead}. No request was sent."
            );
            return Some((why, instead, text));
        }
        if !self.enabled() || self.allowed_domains.is_empty() {
            return None;
        }
        let (allowed, _) = self.vendor_filter();
        if !allowed.is_empty() {
            return None;
        }
        let why = format!(
            "every allowed domain ({}) is also blocked, and sending no filter would let the \
             provider reach any host",
            self.allowed_domains.join(", ")
        );
        let instead =
            "allow at least one host that is not blocked, or remove the allow-list".to_string();
        let text =
            format!("the web declaration allows no host: {why}; {instead}. No request was sent.");
        Some((why, instead, text))
    }

    /// Fill the domain lists from the policy's `Act::Net` rules — the operator's
    /// layers only, never a fallback's (a built-in default is not a boundary
    /// anybody stated). Ports are dropped;
    /// `allow_net("*")` projects to no allow-list; an `Ask` rule, a `deny_net("*")`
    /// and a pattern with a scheme or path are `Error::Config` naming the rule.
    pub fn from_policy(mut self, policy: &Policy) -> Result<Self> {
        let mut allowed = Vec::new();
        let mut blocked = Vec::new();
        let mut allow_all = false;
        for rule in policy.operator_rules().filter(|r| r.act == Act::Net) {
            let at = rule
                .source
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            let host = net_rule_host(&rule.pattern).map_err(|e| {
                Error::config(format!("{e} (rule in layer \"{}\"{at})", rule.layer))
            })?;
            match rule.effect {
                Effect::Ask => {
                    return Err(Error::config(format!(
                        "policy rule ask_net(\"{}\") in layer \"{}\"{at} cannot be honoured by a \
                         provider-executed search: the provider dials the URL, so there is no \
                         connection here to pause and no approver to consult; allow the host, \
                         deny it, or leave web access off",
                        rule.pattern, rule.layer
                    )));
                }
                Effect::Allow if host == "*" => allow_all = true,
                Effect::Allow => push_unique(&mut allowed, host),
                Effect::Deny if host == "*" => {
                    return Err(Error::config(format!(
                        "policy rule deny_net(\"*\") in layer \"{}\"{at} denies every host; no vendor \
                         filter can say that, so leave web access off instead of declaring it",
                        rule.layer
                    )));
                }
                Effect::Deny => push_unique(&mut blocked, host),
            }
        }
        if !allow_all {
            for h in allowed {
                push_unique(&mut self.allowed_domains, h);
            }
        }
        for h in blocked {
            push_unique(&mut self.blocked_domains, h);
        }
        Ok(self)
    }
}

/// The host a net rule names, port dropped; an error for a scheme or a path.
fn net_rule_host(pattern: &str) -> Result<String> {
    let bad = |why: &str| {
        Error::config(format!(
            "policy net rule \"{pattern}\" {why}; a vendor filter names a bare host, so write \
             `docs.rs` or `docs.rs:443` instead"
        ))
    };
    if pattern.contains("://") {
        return Err(bad("carries a scheme"));
    }
    if pattern.contains('/') {
        return Err(bad("carries a path"));
    }
    if pattern.trim().is_empty() || pattern.contains(char::is_whitespace) {
        return Err(bad("is not a host"));
    }
    let host = match pattern.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) && !port.is_empty() => h,
        Some(_) => return Err(bad("has a port that is not a number")),
        None => pattern,
    };
    Ok(normalise_host(host))
}

/// Add `item` unless the list already holds the same host, however written.
fn push_unique(list: &mut Vec<String>, item: String) {
    let host = normalise_host(&item);
    if !list.iter().any(|h| normalise_host(h) == host) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn default_is_every_switch_off() {
        let web = WebAccess::default();
        assert!(!web.enabled());
        assert_eq!(
            web,
            WebAccess {
                search: false,
                fetch: false,
                max_uses: None,
                allowed_domains: vec![],
                blocked_domains: vec![],
                location: None,
                x_search: false,
                x_handles: XHandles::default(),
                x_dates: None,
            }
        );
        // A declaration without X search serialises as it did before it existed.
        assert_eq!(
            serde_json::to_string(&WebAccess::search()).unwrap(),
            r#"{"search":true,"fetch":false,"allowed_domains":[],"blocked_domains":[]}"#
        );
    }

    #[test]
    fn x_handles_resolve_as_domains_do_and_dates_are_days() {
        let mut web = WebAccess::default().with_x_search();
        web.x_handles.allow = vec!["@xAI".into(), "elonmusk".into(), "xai".into()];
        web.x_handles.exclude = vec!["ElonMusk".into()];
        assert_eq!(web.x_filter(), (vec!["xai".to_string()], vec![]));
        assert!(web.enabled());
        web.x_handles.allow = vec!["elonmusk".into()];
        assert!(web.emptied().unwrap().2.contains("allows no X handle"));
        let range = |f: &str, t: &str| DateRange {
            from: Some(f.into()),
            to: Some(t.into()),
        };
        assert_eq!(range("2025-10-01", "2025-10-10").problem(), None);
        assert_eq!(range("2024-02-29", "2024-02-29").problem(), None);
        assert!(
            range("2025-02-29", "2025-03-01")
                .problem()
                .unwrap()
                .contains("from")
        );
        assert!(
            range("2025-10-10", "2025-10-01")
                .problem()
                .unwrap()
                .contains("after")
        );
        assert!(range("2025-1-01", "2025-10-01").problem().is_some());
        assert!(DateRange::default().problem().is_some());
    }

    #[test]
    fn a_filter_alone_declares_nothing() {
        assert!(!WebAccess::default().allow("docs.rs").enabled());
        assert!(WebAccess::search().enabled());
        assert!(WebAccess::default().with_fetch().enabled());
    }

    #[test]
    fn spec_vendor_filter_allow_wins_minus_blocked() {
        let web = WebAccess::search()
            .allow("docs.rs")
            .allow("evil.test")
            .block("evil.test");
        assert_eq!(web.vendor_filter(), (vec!["docs.rs".to_string()], vec![]));
    }

    #[test]
    fn block_only_survives_the_filter() {
        let web = WebAccess::search().block("evil.test");
        assert_eq!(web.vendor_filter(), (vec![], vec!["evil.test".to_string()]));
    }

    #[test]
    fn emptied_allow_list_is_refused_naming_the_hosts() {
        let web = WebAccess::search().allow("evil.test").block("evil.test");
        let (_, _, text) = web.emptied().unwrap();
        assert!(text.contains("(evil.test)"), "{text}");
        assert!(text.ends_with("No request was sent."));
        let err = crate::core::capability::carries(crate::core::vendor::Wire::Gemini, Some(&web))
            .unwrap_err();
        assert!(err.is_config());
        let refusal = err.refusal().unwrap();
        assert_eq!(refusal.asked, crate::core::refusal::Asked::NoHost);
        assert_eq!(refusal.text(), text);
    }

    #[test]
    fn spec_from_policy() {
        let policy = Policy::default()
            .layer("app")
            .allow_net("docs.rs:443")
            .allow_net("crates.io:443")
            .deny_net("*.example.com");
        let web = WebAccess::search().from_policy(&policy).unwrap();
        assert_eq!(web.allowed_domains, ["docs.rs", "crates.io"]);
        assert_eq!(web.blocked_domains, ["*.example.com"]);
    }

    #[test]
    fn allow_everything_projects_to_no_allow_list() {
        let policy = Policy::default()
            .layer("app")
            .allow_net("*")
            .allow_net("docs.rs");
        let web = WebAccess::search().from_policy(&policy).unwrap();
        assert!(web.allowed_domains.is_empty());
        assert_eq!(web.vendor_filter(), (vec![], vec![]));
    }

    #[test]
    fn ask_rule_is_a_config_error_naming_it() {
        let policy = Policy::default().layer("app").ask_net("docs.rs");
        let err = WebAccess::search().from_policy(&policy).unwrap_err();
        assert!(err.is_config());
        assert!(err.to_string().contains("ask_net(\"docs.rs\")"), "{err}");
    }

    #[test]
    fn scheme_or_path_is_a_config_error_suggesting_the_host() {
        for bad in ["https://docs.rs/std", "docs.rs/std"] {
            let policy = Policy::default().layer("app").allow_net(bad);
            let err = WebAccess::search()
                .from_policy(&policy)
                .unwrap_err()
                .to_string();
            assert!(err.contains(bad), "{err}");
            assert!(
                err.contains("write `docs.rs` or `docs.rs:443` instead"),
                "{err}"
            );
        }
    }

    #[test]
    fn deny_everything_is_refused() {
        let policy = Policy::default().layer("app").deny_net("*");
        assert!(
            WebAccess::search()
                .from_policy(&policy)
                .unwrap_err()
                .is_config()
        );
    }

    #[test]
    fn non_net_rules_are_ignored() {
        let policy = Policy::default()
            .layer("app")
            .allow(Act::Read, "**")
            .deny(Act::Write, "secrets/**");
        assert_eq!(
            WebAccess::search().from_policy(&policy).unwrap(),
            WebAccess::search()
        );
    }
}
