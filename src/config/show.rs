//! `io-harness config`: the merged configuration, one value or rule per line, each
//! with the `PATH:LINE` it came from. Values are read from the files' own text
//! (spans from `toml_edit`), so what is shown is what the operator wrote, where
//! they wrote it; the project's values replace the user's exactly as `scope`
//! merges them, the policy's layers are listed rule by rule, the built-in
//! fallback last, and a `from_policy` projection host by host with its rule.

use super::locate::line_of;
use serde::Serialize;
use toml_edit::{Document, Item, Table, Value};

use super::Config;
use super::scope::WHOLE;
use crate::core::policy::Policy;

/// One line of the listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Setting {
    /// The dotted key (`web.search`, `policy.user.deny`, `agent[0].name`).
    pub key: String,
    /// The value as written in TOML.
    pub value: String,
    /// `PATH:LINE`, or `built-in` for the fallback rules.
    pub origin: String,
    /// How it got there, when that is not plain (`from_policy: allow "net:docs.rs"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}", self.key, self.value)?;
        if let Some(note) = &self.note {
            write!(f, "  ({note})")?;
        }
        write!(f, "  {}", self.origin)
    }
}

impl Setting {
    /// What the `OTEL_*` variables (or a default) put in effect for telemetry,
    /// as listing lines.
    pub fn telemetry(r: &crate::telemetry::Resolved) -> Vec<Setting> {
        crate::telemetry::settings::in_effect(r)
            .into_iter()
            .map(|(key, value, source)| Setting {
                key,
                value,
                origin: source.describe(),
                note: Some("in effect; io.toml does not set it".into()),
            })
            .collect()
    }
}

impl Config {
    /// Every value and rule in effect, with where it came from.
    pub fn listing(&self) -> Vec<Setting> {
        let mut out: Vec<Setting> = Vec::new();
        for scope in &self.scopes {
            let origin = scope.path.display().to_string();
            let Ok(doc) = Document::parse(scope.text.as_str()) else {
                continue;
            };
            let mut mine = Vec::new();
            walk(doc.as_table(), "", &scope.text, &origin, &mut mine);
            for whole in WHOLE {
                if mine.iter().any(|s| top_key(&s.key) == whole) {
                    out.retain(|s| top_key(&s.key) != whole);
                }
            }
            for s in mine {
                out.retain(|o| o.key != s.key);
                out.push(s);
            }
        }
        // A store URL is listed without its password.
        for s in out
            .iter_mut()
            .filter(|s| s.key == "store.url" || s.key == "store.path")
        {
            let inner = s.value.trim_matches('"');
            if crate::core::location::is_url(inner) {
                s.value = format!("{:?}", crate::core::location::shown(inner));
            }
        }
        for s in out.iter_mut().filter(|s| s.key == "run.cache_ttl") {
            if self.cache_ttl_idle().is_some() {
                s.note = Some("no effect: prompt caching is off; set cache = true in [run]".into());
            }
        }
        for rule in &self.rules {
            out.push(Setting {
                key: format!("policy.{}.{}", rule.layer, rule.effect_word()),
                value: format!("{:?}", rule.entry()),
                origin: rule.source.clone().unwrap_or_else(|| "built-in".into()),
                note: None,
            });
        }
        for rule in Policy::workspace_default().rules() {
            out.push(Setting {
                key: format!("policy.fallback.{}", rule.effect_word()),
                value: format!("{:?}", rule.entry()),
                origin: "built-in".into(),
                note: Some("applies only where no rule above matches".into()),
            });
        }
        let agents = self.agent_declarations(&out);
        // Each agent's effective declaration under its agent's own lines.
        for (i, line) in agents.into_iter().rev() {
            let at = out
                .iter()
                .rposition(|s| s.key.starts_with(&format!("agent[{i}].")))
                .map_or(out.len(), |p| p + 1);
            out.insert(at, line);
        }
        if self.web_from_policy() {
            for (list, host, rule) in super::policy::projection(&self.policy()) {
                out.push(Setting {
                    key: format!("web.{list}"),
                    value: format!("{host:?}"),
                    origin: rule.source.clone().unwrap_or_else(|| "built-in".into()),
                    note: Some(format!(
                        "from_policy: {} {:?} in layer {:?}",
                        rule.effect_word(),
                        rule.entry(),
                        rule.layer
                    )),
                });
            }
        }
        out
    }
}

impl Config {
    /// Each agent with a web table: its effective declaration (the root's
    /// narrowed by its own, `core::narrow`), a line each, with where each part
    /// came from. Listed only where the table narrows: a widening one is refused
    /// when io.toml is read.
    fn agent_declarations(&self, listed: &[Setting]) -> Vec<(usize, Setting)> {
        let root = self.web.clone().unwrap_or_default();
        let origin = |key: &str| {
            listed
                .iter()
                .find(|s| s.key == key)
                .map_or_else(|| "built-in".to_string(), |s| s.origin.clone())
        };
        self.agents
            .iter()
            .enumerate()
            .filter_map(|(i, a)| {
                let own = a.web.as_ref()?;
                let web = crate::core::narrow::narrowed(self.web.as_ref(), own)
                    .ok()?
                    .unwrap_or_default();
                let from = |own_states: bool| if own_states { "the agent" } else { "[web]" };
                let parts = [
                    ("search", from(own.search != root.search)),
                    ("fetch", from(own.fetch != root.fetch)),
                    (
                        "max_uses",
                        from(own.max_uses.is_some_and(|n| Some(n) != root.max_uses)),
                    ),
                    ("allowed_domains", from(!own.allowed_domains.is_empty())),
                    ("blocked_domains", from(!own.blocked_domains.is_empty())),
                ];
                let note = parts
                    .iter()
                    .map(|(k, f)| format!("{k} from {f}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let value = format!(
                    "{{ search = {}, fetch = {}, max_uses = {}, allowed_domains = {:?}, \
                     blocked_domains = {:?} }}",
                    web.search,
                    web.fetch,
                    web.max_uses.map_or("none".to_string(), |n| n.to_string()),
                    web.allowed_domains,
                    web.blocked_domains
                );
                let line = Setting {
                    key: format!("agent[{i}].web (effective)"),
                    value,
                    origin: origin(&format!("agent[{i}].name")),
                    note: Some(format!("[web] narrowed by agent \"{}\": {note}", a.name)),
                };
                Some((i, line))
            })
            .collect()
    }
}

fn top_key(key: &str) -> &str {
    key.split(['.', '[']).next().unwrap_or(key)
}

fn join(prefix: &str, key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let key = if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    };
    if prefix.is_empty() {
        key
    } else {
        format!("{prefix}.{key}")
    }
}

fn walk(table: &Table, prefix: &str, text: &str, origin: &str, out: &mut Vec<Setting>) {
    for (key, item) in table.iter() {
        let path = join(prefix, key);
        if prefix.is_empty() && key == "policy" {
            continue; // listed rule by rule, by layer
        }
        match item {
            // A table stated and left empty is listed as `{}` where it stands.
            Item::Table(t) if t.is_empty() && !t.is_implicit() => {
                let line = t.span().map_or(0, |s| line_of(text, s.start));
                out.push(empty(&path, origin, line));
            }
            Item::Table(t) => walk(t, &path, text, origin, out),
            Item::ArrayOfTables(a) => {
                for (i, t) in a.iter().enumerate() {
                    walk(t, &format!("{path}[{i}]"), text, origin, out);
                }
            }
            Item::Value(v) => value(v, &path, text, origin, out),
            Item::None => {}
        }
    }
}

fn empty(path: &str, origin: &str, line: usize) -> Setting {
    Setting {
        key: path.to_string(),
        value: "{}".to_string(),
        origin: format!("{origin}:{line}"),
        note: None,
    }
}

fn value(v: &Value, path: &str, text: &str, origin: &str, out: &mut Vec<Setting>) {
    if let Value::InlineTable(t) = v {
        if t.is_empty() {
            let line = v.span().map_or(0, |s| line_of(text, s.start));
            out.push(empty(path, origin, line));
        }
        for (key, inner) in t.iter() {
            value(inner, &join(path, key), text, origin, out);
        }
        return;
    }
    let mut bare = v.clone();
    bare.decor_mut().clear();
    // A collector's header is usually its API key: never printed; nor is a
    // URL's password (a collector's or a provider's `user:secret@`).
    if path.starts_with("telemetry.headers.") {
        bare = Value::from(crate::provider::scrub::REDACTED);
    } else if let Some(shown) = bare
        .as_str()
        .and_then(crate::provider::scrub::userinfo_redacted)
    {
        bare = Value::from(shown);
    }
    let line = v.span().map_or(0, |s| line_of(text, s.start));
    out.push(Setting {
        key: path.to_string(),
        value: bare.to_string(),
        origin: format!("{origin}:{line}"),
        note: None,
    });
}
