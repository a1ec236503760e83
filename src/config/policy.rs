//! `[policy]` and `[web] from_policy` in io.toml: the operator's permission rules
//! as three lists of `"act:pattern"` strings (`allow`, `ask`, `deny`), checked
//! entry by entry, and the web declaration projected from their `net` rules.
//!
//! Every entry is validated where it is read, so a rule that could never match —
//! an unknown act, an empty pattern, a URL where a host belongs, an absolute path
//! where a workspace glob belongs — is an error naming the file, the line and the
//! entry, never a boundary that quietly did not apply. Pure: text in, rules out.

use super::locate::line_of;
use serde::Deserialize;
use toml::Spanned;

use crate::core::error::{Error, Result};
use crate::core::host::normalise_host;
use crate::core::policy::{Act, Effect, Policy, Rule};
use crate::core::web::WebAccess;

/// `[policy]`: the three lists as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyTable {
    /// Acts that go ahead.
    #[serde(default)]
    pub allow: Vec<Spanned<String>>,
    /// Acts the approver is asked about.
    #[serde(default)]
    pub ask: Vec<Spanned<String>>,
    /// Acts refused.
    #[serde(default)]
    pub deny: Vec<Spanned<String>>,
}

/// `[web]` as written: the spec's table plus `from_policy`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebTable {
    /// Let the provider run web searches.
    #[serde(default)]
    pub search: bool,
    /// Let the provider fetch a URL for the model.
    #[serde(default)]
    pub fetch: bool,
    /// The vendor-enforced cap.
    pub max_uses: Option<u32>,
    /// Hosts the vendor may reach.
    pub allowed_domains: Option<Vec<String>>,
    /// Hosts it may not.
    pub blocked_domains: Option<Vec<String>>,
    /// Fill both lists from the operator's `[policy]` net rules.
    #[serde(default)]
    pub from_policy: bool,
    /// Where the user is, roughly: `{ country, region, city, timezone }`, each optional.
    pub location: Option<crate::core::web::Location>,
    /// Let the provider search X's posts (xAI's `x_search`).
    #[serde(default)]
    pub x_search: bool,
    /// `{ allow = [...] }` or `{ exclude = [...] }`: the X accounts searched or left out.
    pub x_handles: Option<crate::core::web::XHandles>,
    /// `{ from = "YYYY-MM-DD", to = "YYYY-MM-DD" }`: the days X posts are searched between.
    pub x_dates: Option<crate::core::web::DateRange>,
}

impl WebTable {
    /// The declaration with the lists as stated (none projected yet).
    pub fn stated(&self) -> WebAccess {
        WebAccess {
            search: self.search,
            fetch: self.fetch,
            max_uses: self.max_uses,
            allowed_domains: self.allowed_domains.clone().unwrap_or_default(),
            blocked_domains: self.blocked_domains.clone().unwrap_or_default(),
            location: self.location.clone(),
            x_search: self.x_search,
            x_handles: self.x_handles.clone().unwrap_or_default(),
            x_dates: self.x_dates.clone(),
        }
    }

    /// One source of truth: lists stated beside `from_policy = true` are an error.
    pub fn check(&self, at: &str) -> Result<()> {
        check_x(
            at,
            "[web]",
            self.x_search,
            self.x_handles.as_ref(),
            self.x_dates.as_ref(),
        )?;
        if let Some(l) = &self.location {
            if l.fields().is_empty() {
                return Err(Error::config(format!(
                    "{at}: [web] location names nothing; give at least one of country, region, \
                     city, timezone (country = \"GB\", timezone = \"Europe/London\"), or remove it"
                )));
            }
            if let Some(c) = l.country.as_deref() {
                if c.len() != 2 || !c.chars().all(|ch| ch.is_ascii_alphabetic()) {
                    return Err(Error::config(format!(
                        "{at}: [web] location country = {c:?} is not a two-letter ISO 3166-1 code; \
                         write it as the vendors take it, such as \"GB\" or \"US\""
                    )));
                }
            }
        }
        if !self.from_policy {
            return Ok(());
        }
        let stated: Vec<&str> = [
            ("allowed_domains", self.allowed_domains.is_some()),
            ("blocked_domains", self.blocked_domains.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, set)| set.then_some(k))
        .collect();
        if stated.is_empty() {
            return Ok(());
        }
        Err(Error::config(format!(
            "{at}: [web] states {} and from_policy = true; the lists come from one place: \
             remove {} and write the hosts as [policy] net rules (\"net:docs.rs\"), or remove \
             from_policy",
            stated.join(" and "),
            if stated.len() == 1 { "it" } else { "them" }
        )))
    }
}

/// `x_handles` and `x_dates` only beside `x_search = true` (they narrow nothing
/// else), and the dates real days in order; `table` names where they are written.
pub fn check_x(
    at: &str,
    table: &str,
    x_search: bool,
    handles: Option<&crate::core::web::XHandles>,
    dates: Option<&crate::core::web::DateRange>,
) -> Result<()> {
    if !x_search {
        let stated = [
            ("x_handles", handles.is_some()),
            ("x_dates", dates.is_some()),
        ];
        if let Some((key, _)) = stated.iter().find(|(_, set)| *set) {
            return Err(Error::config(format!(
                "{at}: {table} states {key} but x_search is off; they narrow xAI's X search \
                 only: set x_search = true, or remove {key}"
            )));
        }
    }
    if let Some(why) = dates.and_then(crate::core::web::DateRange::problem) {
        return Err(Error::config(format!("{at}: {table} x_dates {why}")));
    }
    Ok(())
}

impl PolicyTable {
    /// The table's rules in `layer`, each with its `origin:line`, every entry
    /// checked. `text` is the file the spans point into.
    pub fn rules(&self, text: &str, origin: &str, layer: &str) -> Result<Vec<Rule>> {
        let mut rules = Vec::new();
        for (list, effect) in [
            (&self.allow, Effect::Allow),
            (&self.ask, Effect::Ask),
            (&self.deny, Effect::Deny),
        ] {
            for entry in list {
                let at = format!("{origin}:{}", line_of(text, entry.span().start));
                let (act, pattern) = parse_entry(entry.get_ref()).map_err(|why| {
                    Error::config(format!(
                        "{at}: [policy] {} entry {:?} {why}",
                        word(effect),
                        entry.get_ref()
                    ))
                })?;
                rules.push(Rule {
                    layer: layer.to_string(),
                    act,
                    pattern,
                    effect,
                    source: Some(at),
                    fallback: false,
                });
            }
        }
        Ok(rules)
    }
}

fn word(effect: Effect) -> &'static str {
    match effect {
        Effect::Allow => "allow",
        Effect::Ask => "ask",
        Effect::Deny => "deny",
    }
}

/// `"act:pattern"` → the act and the pattern, or why it cannot be a rule.
pub fn parse_entry(entry: &str) -> std::result::Result<(Act, String), String> {
    let Some((act, pattern)) = entry.split_once(':') else {
        return Err(
            "is not \"act:pattern\"; write e.g. \"write:src/**\" or \"net:docs.rs\"".into(),
        );
    };
    let act = match act.trim() {
        "read" => Act::Read,
        "write" => Act::Write,
        "exec" => Act::Exec,
        "net" => Act::Net,
        "spawn" => Act::Spawn,
        other => {
            return Err(format!(
                "names an unknown act {other:?}; expected one of read, write, exec, net, spawn"
            ));
        }
    };
    if pattern.trim().is_empty() {
        return Err(format!(
            "has an empty pattern; write what the rule covers after \"{}:\" (`*` for everything)",
            act.as_str()
        ));
    }
    if pattern != pattern.trim() {
        return Err("has spaces around its pattern; remove them".into());
    }
    match act {
        Act::Net => check_host(pattern)?,
        Act::Read | Act::Write => check_path(act, pattern)?,
        Act::Exec | Act::Spawn => {}
    }
    Ok((act, pattern.to_string()))
}

/// A net pattern is a host, `host:port`, `*` or `*.domain` — never a URL.
fn check_host(pattern: &str) -> std::result::Result<(), String> {
    let suggest = |why: &str| {
        let host = url::Url::parse(pattern)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_else(|| {
                pattern
                    .split("://")
                    .last()
                    .unwrap_or(pattern)
                    .split('/')
                    .next()
                    .unwrap_or(pattern)
                    .to_string()
            });
        format!(
            "{why}; a net rule names a bare host, so write \"net:{host}\" (or \"net:{host}:443\") instead"
        )
    };
    if pattern.contains("://") {
        return Err(suggest("carries a scheme"));
    }
    if pattern.contains('/') || pattern.contains('?') {
        return Err(suggest("carries a path"));
    }
    if pattern.contains(char::is_whitespace) {
        return Err("is not a host (it contains a space)".into());
    }
    if let Some((_, port)) = pattern.rsplit_once(':') {
        if !pattern.starts_with('[') && port.parse::<u16>().is_err() {
            return Err(format!(
                "has a port {port:?} that is not a number from 0 to 65535"
            ));
        }
    }
    Ok(())
}

/// A read or write pattern is a glob relative to the workspace.
fn check_path(act: Act, pattern: &str) -> std::result::Result<(), String> {
    let drive = pattern.len() >= 2 && pattern.as_bytes()[1] == b':';
    if pattern.starts_with('/') || pattern.starts_with('\\') || pattern.starts_with('~') || drive {
        return Err(format!(
            "is an absolute path; {} rules are globs relative to the workspace, e.g. \"{}:src/**\"",
            act.as_str(),
            act.as_str()
        ));
    }
    if pattern.split(['/', '\\']).any(|part| part == "..") {
        return Err("leaves the workspace (\"..\"); a rule can only name paths inside it".into());
    }
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|_| ())
        .map_err(|e| format!("is not a valid glob: {}", e.kind()))
}

/// The policy runs use: the built-in fallback, then each layer's rules in order
/// (`user` before `project`; across them the most restrictive wins).
pub fn policy_of(rules: &[Rule]) -> Policy {
    let mut policy = Policy::workspace_default();
    let mut layer: Option<&str> = None;
    for rule in rules {
        if layer != Some(rule.layer.as_str()) {
            policy = policy.layer(rule.layer.clone());
            layer = Some(rule.layer.as_str());
        }
        policy = match &rule.source {
            Some(at) => policy.rule_at(rule.act, rule.pattern.clone(), rule.effect, at.clone()),
            None => policy.rule(rule.act, rule.pattern.clone(), rule.effect),
        };
    }
    policy
}

/// Where each projected host came from: `(list, host, rule)`.
pub fn projection(policy: &Policy) -> Vec<(&'static str, String, Rule)> {
    let mut out = Vec::new();
    for rule in policy.operator_rules().filter(|r| r.act == Act::Net) {
        let host = rule
            .pattern
            .rsplit_once(':')
            .filter(|(_, p)| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
            .map_or(rule.pattern.as_str(), |(h, _)| h);
        let host = normalise_host(host);
        let list = match rule.effect {
            Effect::Allow if host == "*" => continue,
            Effect::Allow => "allowed_domains",
            Effect::Deny => "blocked_domains",
            Effect::Ask => continue,
        };
        if !out.iter().any(|(l, h, _)| *l == list && *h == host) {
            out.push((list, host, rule.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_or_say_why_not() {
        assert_eq!(
            parse_entry("write:src/**"),
            Ok((Act::Write, "src/**".into()))
        );
        assert_eq!(
            parse_entry("net:docs.rs:443"),
            Ok((Act::Net, "docs.rs:443".into()))
        );
        assert_eq!(
            parse_entry("spawn:researcher"),
            Ok((Act::Spawn, "researcher".into()))
        );
        for (bad, why) in [
            ("wrte:src/**", "unknown act \"wrte\""),
            ("write:", "empty pattern"),
            ("write", "is not \"act:pattern\""),
            ("write:/etc/passwd", "absolute path"),
            ("read:../x", "leaves the workspace"),
            (
                "net:https://docs.rs/std",
                "carries a scheme; a net rule names a bare host, so write \"net:docs.rs\"",
            ),
            ("net:docs.rs/std", "carries a path"),
            ("net:docs.rs:http", "not a number"),
            ("write:src/[", "not a valid glob"),
        ] {
            let e = parse_entry(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
