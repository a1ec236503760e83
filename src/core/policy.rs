//! `Policy`: layered permission rules over acts (read, write, exec, net, spawn).
//!
//! A rule names an act, a pattern and an effect. Across the operator's layers the
//! most restrictive matching rule wins (deny over ask over allow), so adding a layer
//! can narrow what an earlier one granted but never silently widen a denial (a
//! `user` deny survives a `project` allow). A *fallback* layer (the built-in
//! defaults) decides only where no operator rule matches: it is what happens when
//! nobody said anything, not a rule that outranks what somebody said. When nothing
//! matches at all, the effect is `Ask`: nothing is allowed that nobody allowed.
//!
//! Patterns: for path acts a glob relative to the workspace (`src/**`, `*.md`, `**`);
//! for `Net` a host, `host:port`, `*` or `*.example.com`; for `Exec` and `Spawn` a
//! command or agent name, or `*`. Pure: matching is string work, no I/O.

use serde::{Deserialize, Serialize};

use crate::core::host::normalise_host;

/// What a tool is about to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Act {
    /// Read a file or list a directory in the workspace.
    Read,
    /// Create or change a file in the workspace.
    Write,
    /// Run a command.
    Exec,
    /// Open a connection from this process.
    Net,
    /// Start a sub-agent.
    Spawn,
}

impl Act {
    /// The lowercase name used in rules and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Act::Read => "read",
            Act::Write => "write",
            Act::Exec => "exec",
            Act::Net => "net",
            Act::Spawn => "spawn",
        }
    }
}

/// What a matching rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// Go ahead.
    Allow,
    /// Ask the approver first.
    Ask,
    /// Refuse.
    Deny,
}

/// One rule of one layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The layer that stated it.
    pub layer: String,
    /// The act it governs.
    pub act: Act,
    /// Host, glob or name, by act.
    pub pattern: String,
    /// What it decides.
    pub effect: Effect,
    /// Where it was stated (`io.toml:12`), when it came from a file.
    pub source: Option<String>,
    /// A built-in fallback rule: decides only where no operator rule matches.
    pub fallback: bool,
}

impl Rule {
    /// The builder word for the rule's effect: `allow`, `ask`, `deny`.
    pub fn effect_word(&self) -> &'static str {
        match self.effect {
            Effect::Allow => "allow",
            Effect::Ask => "ask",
            Effect::Deny => "deny",
        }
    }

    /// The rule as the operator writes it in `[policy]`: `write:src/**`.
    pub fn entry(&self) -> String {
        format!("{}:{}", self.act.as_str(), self.pattern)
    }

    /// The rule named for a message: `rule ask("Cargo.toml") in layer "project"
    /// (io.toml:3)`, or for a fallback `the built-in fallback ask("**")`.
    pub fn describe(&self) -> String {
        if self.fallback {
            return format!(
                "the built-in fallback {}({:?})",
                self.effect_word(),
                self.pattern
            );
        }
        let at = self
            .source
            .as_deref()
            .map(|s| format!(" ({s})"))
            .unwrap_or_default();
        format!(
            "rule {}({:?}) in layer \"{}\"{at}",
            self.effect_word(),
            self.pattern,
            self.layer
        )
    }
}

/// A named group of rules (`defaults`, `app`, `project`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Layer {
    name: String,
    fallback: bool,
    rules: Vec<Rule>,
}

/// The layered rule stack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    layers: Vec<Layer>,
}

/// The outcome of asking the policy about one act, with the rule that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// What to do.
    pub effect: Effect,
    /// The deciding rule, `None` when no rule matched (the effect is then `Ask`).
    pub rule: Option<Rule>,
}

impl Policy {
    /// The policy the command line and the console use: read anywhere in the
    /// workspace, ask before writing, running, dialling out or spawning.
    /// They form a fallback layer: an operator rule that matches decides instead.
    pub fn workspace_default() -> Self {
        Policy::default()
            .fallback_layer("defaults")
            .allow(Act::Read, "**")
            .ask(Act::Write, "**")
            .ask(Act::Exec, "*")
            .ask_net("*")
            .ask(Act::Spawn, "*")
    }

    /// Start a new layer; the rules that follow belong to it.
    pub fn layer(mut self, name: impl Into<String>) -> Self {
        self.layers.push(Layer {
            name: name.into(),
            fallback: false,
            rules: Vec::new(),
        });
        self
    }

    /// Start a fallback layer: its rules decide only where no rule of an ordinary
    /// layer matches.
    pub fn fallback_layer(mut self, name: impl Into<String>) -> Self {
        self.layers.push(Layer {
            name: name.into(),
            fallback: true,
            rules: Vec::new(),
        });
        self
    }

    /// Add a rule stated at `source` (`io.toml:12`) to the current layer.
    pub fn rule_at(
        mut self,
        act: Act,
        pattern: impl Into<String>,
        effect: Effect,
        source: impl Into<String>,
    ) -> Self {
        self = self.rule(act, pattern, effect);
        if let Some(rule) = self.layers.last_mut().and_then(|l| l.rules.last_mut()) {
            rule.source = Some(source.into());
        }
        self
    }

    /// Add a rule to the current layer (a `default` layer if none was started).
    pub fn rule(mut self, act: Act, pattern: impl Into<String>, effect: Effect) -> Self {
        if self.layers.is_empty() {
            self = self.layer("default");
        }
        if let Some(layer) = self.layers.last_mut() {
            layer.rules.push(Rule {
                layer: layer.name.clone(),
                act,
                pattern: pattern.into(),
                effect,
                source: None,
                fallback: layer.fallback,
            });
        }
        self
    }

    /// Allow `act` on `pattern`.
    pub fn allow(self, act: Act, pattern: impl Into<String>) -> Self {
        self.rule(act, pattern, Effect::Allow)
    }
    /// Deny `act` on `pattern`.
    pub fn deny(self, act: Act, pattern: impl Into<String>) -> Self {
        self.rule(act, pattern, Effect::Deny)
    }
    /// Ask before `act` on `pattern`.
    pub fn ask(self, act: Act, pattern: impl Into<String>) -> Self {
        self.rule(act, pattern, Effect::Ask)
    }
    /// Allow connections to a host (`docs.rs`, `docs.rs:443`, `*.example.com`, `*`).
    pub fn allow_net(self, host: impl Into<String>) -> Self {
        self.allow(Act::Net, host)
    }
    /// Deny connections to a host.
    pub fn deny_net(self, host: impl Into<String>) -> Self {
        self.deny(Act::Net, host)
    }
    /// Ask before connecting to a host.
    pub fn ask_net(self, host: impl Into<String>) -> Self {
        self.ask(Act::Net, host)
    }

    /// Every rule, layer by layer, in the order stated.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.layers.iter().flat_map(|l| l.rules.iter())
    }

    /// The rules of the operator's layers, never the fallback's.
    pub fn operator_rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules().filter(|r| !r.fallback)
    }

    /// Decide one act on one target (a workspace-relative path with `/` separators,
    /// a `host` or `host:port`, or a name). Most restrictive operator match wins;
    /// the fallback decides only when no operator rule matches.
    pub fn decide(&self, act: Act, target: &str) -> Decision {
        let best = |fallback: bool| {
            let mut best: Option<&Rule> = None;
            for rule in self
                .rules()
                .filter(|r| r.act == act && r.fallback == fallback)
            {
                if matches(act, &rule.pattern, target)
                    && best.is_none_or(|b| rule.effect > b.effect)
                {
                    best = Some(rule);
                }
            }
            best
        };
        match best(false).or_else(|| best(true)) {
            Some(rule) => Decision {
                effect: rule.effect,
                rule: Some(rule.clone()),
            },
            None => Decision {
                effect: Effect::Ask,
                rule: None,
            },
        }
    }
}

impl Policy {
    /// True when an operator rule that allows or asks names this target itself —
    /// a pattern other than `*`. `http_get` opens loopback and private addresses
    /// only to a host a rule names: "allow everything" is not a decision about
    /// the machine's own network.
    pub fn names(&self, act: Act, target: &str) -> bool {
        self.operator_rules().any(|r| {
            r.act == act
                && r.effect != Effect::Deny
                && r.pattern != "*"
                && matches(act, &r.pattern, target)
        })
    }
}

fn matches(act: Act, pattern: &str, target: &str) -> bool {
    match act {
        Act::Net => net_matches(pattern, target),
        Act::Read | Act::Write => path_matches(pattern, target),
        Act::Exec | Act::Spawn => pattern == "*" || pattern == target,
    }
}

/// Host patterns: `*` any host; `*.example.com` any subdomain of example.com;
/// `host:port` that port only; a bare host any port. Both hosts are compared as
/// hosts (`normalise_host`): `Example.COM.` is `example.com`.
fn net_matches(pattern: &str, target: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    let (p_host, p_port) = split_port(pattern);
    let (t_host, t_port) = split_port(target);
    if let (Some(pp), Some(tp)) = (p_port, t_port) {
        if pp != tp {
            return false;
        }
    } else if p_port.is_some() && t_port.is_none() {
        return false;
    }
    let p_host = normalise_host(p_host);
    let t_host = normalise_host(t_host);
    match p_host.strip_prefix("*.") {
        Some(suffix) => t_host.ends_with(&format!(".{suffix}")),
        None => p_host == t_host,
    }
}

fn split_port(s: &str) -> (&str, Option<&str>) {
    match s.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) => (h, Some(p)),
        _ => (s, None),
    }
}

fn path_matches(pattern: &str, target: &str) -> bool {
    match globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
    {
        Ok(glob) => glob.compile_matcher().is_match(target),
        Err(_) => pattern == target,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_restrictive_match_wins_across_layers() {
        let p = Policy::default()
            .layer("defaults")
            .allow(Act::Write, "**")
            .layer("project")
            .deny(Act::Write, "secrets/**");
        assert_eq!(p.decide(Act::Write, "src/main.rs").effect, Effect::Allow);
        let d = p.decide(Act::Write, "secrets/key.txt");
        assert_eq!(d.effect, Effect::Deny);
        assert_eq!(d.rule.map(|r| r.layer), Some("project".to_string()));
    }

    #[test]
    fn the_fallback_decides_only_where_no_operator_rule_matches() {
        let p = Policy::workspace_default()
            .layer("project")
            .allow(Act::Write, "src/**")
            .deny(Act::Read, ".env");
        // An operator allow is not outranked by the fallback's ask.
        let d = p.decide(Act::Write, "src/x.rs");
        assert_eq!(d.effect, Effect::Allow);
        assert_eq!(d.rule.map(|r| r.layer), Some("project".to_string()));
        // Where the operator said nothing, the fallback still asks.
        let d = p.decide(Act::Write, "Cargo.toml");
        assert_eq!(d.effect, Effect::Ask);
        assert!(d.rule.as_ref().is_some_and(|r| r.fallback));
        assert_eq!(p.decide(Act::Read, ".env").effect, Effect::Deny);
        assert_eq!(p.decide(Act::Read, "src/x.rs").effect, Effect::Allow);
        assert_eq!(p.operator_rules().count(), 2);
    }

    #[test]
    fn a_user_deny_survives_a_project_allow() {
        let p = Policy::workspace_default()
            .layer("user")
            .deny(Act::Write, "secrets/**")
            .layer("project")
            .allow(Act::Write, "**");
        let d = p.decide(Act::Write, "secrets/k");
        assert_eq!(d.effect, Effect::Deny);
        assert_eq!(d.rule.map(|r| r.layer), Some("user".to_string()));
    }

    #[test]
    fn a_rule_names_a_host_only_by_a_pattern_other_than_star() {
        let p = Policy::default()
            .layer("p")
            .allow_net("*")
            .allow_net("localhost:8080")
            .deny_net("10.0.0.1");
        assert!(p.names(Act::Net, "localhost:8080"));
        assert!(!p.names(Act::Net, "localhost:9090"));
        assert!(!p.names(Act::Net, "10.0.0.1:80"));
        assert!(!Policy::workspace_default().names(Act::Net, "localhost:8080"));
    }

    #[test]
    fn no_match_asks() {
        assert_eq!(
            Policy::default().decide(Act::Exec, "rm").effect,
            Effect::Ask
        );
    }

    #[test]
    fn net_patterns() {
        assert!(net_matches("*", "anything.test:443"));
        assert!(net_matches("docs.rs", "docs.rs:443"));
        assert!(net_matches("docs.rs:443", "docs.rs:443"));
        assert!(!net_matches("docs.rs:443", "docs.rs:80"));
        assert!(net_matches("*.example.com", "api.example.com"));
        assert!(!net_matches("*.example.com", "example.com"));
        assert!(!net_matches("*.example.com", "badexample.com"));
        assert!(net_matches("Docs.RS", "docs.rs"));
        assert!(net_matches("docs.rs", "docs.rs.:443"));
        assert!(net_matches("*.example.com", "a.example.com.:443"));
        assert!(net_matches("[::1]:80", "[::1]:80"));
        assert!(!net_matches("[::1]:80", "[::1]:81"));
        // An IPv6 spelling of an IPv4 address is that address, either side.
        for t in [
            "[::ffff:93.184.216.34]:8080",
            "[::ffff:5db8:d822]:8080",
            "[::93.184.216.34]:8080",
            "[64:ff9b::5db8:d822]:8080",
        ] {
            assert!(net_matches("93.184.216.34", t), "{t}");
            assert!(net_matches("93.184.216.34:8080", t), "{t}");
        }
        assert!(net_matches("[::ffff:5db8:d822]", "93.184.216.34:443"));
        let p = Policy::default()
            .layer("p")
            .allow_net("*")
            .deny_net("93.184.216.34");
        assert_eq!(
            p.decide(Act::Net, "[::ffff:5db8:d822]:8080").effect,
            Effect::Deny
        );
    }

    #[test]
    fn path_globs_do_not_cross_directories_with_a_single_star() {
        assert!(path_matches("**", "a/b/c.txt"));
        assert!(path_matches("*.md", "README.md"));
        assert!(!path_matches("*.md", "docs/guide.md"));
        assert!(path_matches("docs/**", "docs/guide.md"));
    }
}
