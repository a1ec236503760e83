//! The two scopes io.toml is read from — the user's (the platform config
//! directory, or `IO_HARNESS_USER_CONFIG`) and the project's (`--config F`, else
//! `./io.toml`) — and how they combine: every value the project states overrides
//! the user's (`[web]`, `[[agent]]` and `[[mcp]]` as a whole, other tables key by
//! key), while `[policy]` is never overridden but stacked: the user's rules are
//! the `user` layer, the project's the `project` layer, and across them the most
//! restrictive rule wins, so a user's `deny` survives a project's `allow`.

use std::path::{Path, PathBuf};

use super::file::Scope;
use super::{Config, Loaded};
use crate::core::error::{Error, Result};

/// The variable naming the user-level io.toml instead of the platform config
/// directory's `io-harness/io.toml` (empty: read no user file).
pub const USER_CONFIG_ENV: &str = "IO_HARNESS_USER_CONFIG";

/// Tables the project replaces as a whole rather than key by key.
pub(super) const WHOLE: [&str; 3] = ["web", "agent", "mcp"];

/// The user-level io.toml: `IO_HARNESS_USER_CONFIG` when set (empty: none), else
/// the platform config directory's `io-harness/io.toml`.
pub fn user_config_path() -> Option<PathBuf> {
    match std::env::var_os(USER_CONFIG_ENV) {
        Some(v) if v.is_empty() => None,
        Some(v) => Some(PathBuf::from(v)),
        None => dirs::config_dir().map(|d| d.join("io-harness").join("io.toml")),
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| Error::config(format!("cannot read config {}: {e}", path.display())))
}

impl Config {
    /// Read the project file (`explicit`, which must exist, else `./io.toml` when
    /// present) and the user file (`user`, when present), project over user.
    pub fn discover_with(explicit: Option<&Path>, user: Option<&Path>) -> Result<Loaded> {
        Config::discover_scopes(explicit, user, true)
    }

    pub(super) fn discover_scopes(
        explicit: Option<&Path>,
        user: Option<&Path>,
        strict: bool,
    ) -> Result<Loaded> {
        let project = match explicit {
            Some(path) => Some(path.to_path_buf()),
            None => Some(PathBuf::from("io.toml")).filter(|p| p.is_file()),
        };
        let user = user.filter(|p| p.is_file()).map(Path::to_path_buf);
        // The project file first: a missing `--config F` is the error to report,
        // whatever the user file holds.
        let mut scopes = Vec::new();
        for (layer, path) in [("project", &project), ("user", &user)] {
            if let Some(path) = path {
                scopes.insert(
                    0,
                    Scope {
                        layer: layer.to_string(),
                        text: read(path)?,
                        path: path.clone(),
                    },
                );
            }
        }
        let mut config = Config::from_scopes_lenient(scopes)?;
        if strict {
            config = config.strict()?;
        }
        Ok(Loaded {
            config,
            path: project.or(user),
        })
    }

    /// The configuration several scopes make together, later over earlier.
    pub fn from_scopes(scopes: Vec<Scope>) -> Result<Config> {
        Config::from_scopes_lenient(scopes)?.strict()
    }

    /// As `from_scopes`, a failed `from_policy` projection left in `web_error`.
    pub fn from_scopes_lenient(scopes: Vec<Scope>) -> Result<Config> {
        let mut parsed = Vec::new();
        for s in &scopes {
            let origin = s.path.display().to_string();
            parsed.push(Config::parse_lenient(&s.text, &origin, &s.layer)?);
        }
        let mut config = match parsed.len() {
            0 => Config::default(),
            1 => parsed.remove(0),
            _ => {
                let mut merged = toml::Table::new();
                for s in &scopes {
                    let mut table: toml::Table = toml::from_str(&s.text)
                        .map_err(|e| Error::config(format!("{}: {e}", s.path.display())))?;
                    table.remove("policy");
                    anchor_store_path(&mut table, &s.path);
                    overlay(&mut merged, table, true);
                }
                let file: super::File = toml::Value::Table(merged).try_into().map_err(|e| {
                    Error::config(format!("the user and project io.toml together: {e}"))
                })?;
                let mut config = Config::from(file);
                config.rules = parsed.iter().flat_map(|c| c.rules.clone()).collect();
                config.resolve_web()?;
                config
            }
        };
        // The agents against the root the scopes make together, located in the
        // file whose `[[agent]]` tables are the ones in force.
        let agents_from = scopes.iter().rev().find(|s| has_agents(&s.text));
        if let Some(s) = agents_from {
            let origin = s.path.display().to_string();
            if let Some(e) =
                super::error::first_problem(super::agents::widening(&config), &s.text, &origin)
            {
                return Err(e);
            }
        }
        config.scopes = scopes;
        Ok(config)
    }

    /// After one file is parsed: check `[web]`, read `[policy]` as layer `layer`,
    /// resolve the declaration.
    pub(super) fn settle(&mut self, text: &str, origin: &str, layer: &str) -> Result<()> {
        if let Some(web) = &self.web_table {
            let at = match key_line(text, "from_policy") {
                Some(n) => format!("{origin}:{n}"),
                None => origin.to_string(),
            };
            web.check(&at)?;
        }
        self.rules = match &self.policy {
            Some(table) => table.rules(text, origin, layer)?,
            None => Vec::new(),
        };
        self.resolve_web()
    }

    /// `web` from `web_table`: as stated, or projected from the operator's rules;
    /// a projection that fails leaves `web_error` (and no domain lists).
    pub(super) fn resolve_web(&mut self) -> Result<()> {
        self.web_error = None;
        self.web = match &self.web_table {
            None => None,
            Some(t) if t.from_policy => match t.stated().from_policy(&self.policy()) {
                Ok(web) => Some(web),
                Err(e) => {
                    self.web_error = Some(format!("[web] from_policy = true: {e}"));
                    Some(t.stated())
                }
            },
            Some(t) => Some(t.stated()),
        };
        Ok(())
    }

    /// The configuration, or the `from_policy` error it carries.
    pub fn strict(self) -> Result<Config> {
        match &self.web_error {
            Some(e) => Err(Error::config(e.clone())),
            None => Ok(self),
        }
    }

    /// True when `[web] from_policy = true` fills the domain lists.
    pub fn web_from_policy(&self) -> bool {
        self.web_table.as_ref().is_some_and(|t| t.from_policy)
    }

    /// `[run] cache_ttl` stated while prompt caching is off: the lifetime it
    /// names, which nothing uses.
    pub fn cache_ttl_idle(&self) -> Option<crate::core::transcript::CacheTtl> {
        self.run.and_then(|r| r.cache_ttl.filter(|_| !r.cache))
    }

    /// What io.toml states that has no effect, a line each, said where it is
    /// loaded for `run`, `preview` and the console (`Plan::notes`).
    pub fn idle_notes(&self) -> Vec<String> {
        self.cache_ttl_idle()
            .map(|ttl| {
                format!(
                    "[run] cache_ttl = \"{0}\" has no effect: prompt caching is off; set cache = true in [run] to cache for {0}",
                    ttl.as_str()
                )
            })
            .into_iter()
            .collect()
    }

    /// Where the declaration's domain lists came from, one line each, for
    /// `preview`, `run` and the console: empty unless `from_policy` is on.
    pub fn web_provenance(&self) -> Vec<String> {
        if !self.web_from_policy() {
            return Vec::new();
        }
        let projected = super::policy::projection(&self.policy());
        if projected.is_empty() {
            return vec![
                "[web] from_policy: no [policy] net rule allows or denies a host, so the vendor \
                 gets no domain filter"
                    .to_string(),
            ];
        }
        let mut lines = Vec::new();
        if self.policy().operator_rules().any(|r| {
            r.act == crate::core::policy::Act::Net
                && r.pattern == "*"
                && r.effect == crate::core::policy::Effect::Allow
        }) {
            lines.push(
                "[web] from_policy: allow \"net:*\" permits every host, so there is no allow-list"
                    .to_string(),
            );
        }
        for (list, host, rule) in projected {
            lines.push(format!(
                "[web] from_policy: {list} {host} ← {} \"{}\" in layer \"{}\"{}",
                rule.effect_word(),
                rule.entry(),
                rule.layer,
                rule.source
                    .as_deref()
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default()
            ));
        }
        lines
    }
}

/// The 1-based line of the first `key =` in `text`.
pub(super) fn key_line(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map(|n| n + 1)
}

/// A relative `[store] path` (or a `url` that is a path) is relative to the
/// file that states it.
fn anchor_store_path(table: &mut toml::Table, file: &Path) {
    let Some(toml::Value::Table(store)) = table.get_mut("store") else {
        return;
    };
    for key in ["path", "url"] {
        let Some(toml::Value::String(path)) = store.get_mut(key) else {
            continue;
        };
        if crate::core::location::is_url(path) {
            continue;
        }
        let p = PathBuf::from(&*path);
        if p.is_relative() {
            if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
                *path = dir.join(p).display().to_string();
            }
        }
    }
}

/// Put `top` over `base`: tables key by key, `WHOLE` tables and other values
/// replaced.
fn overlay(base: &mut toml::Table, top: toml::Table, top_level: bool) {
    for (key, value) in top {
        let whole = top_level && WHOLE.contains(&key.as_str());
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(t)) if !whole => overlay(b, t, false),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// Whether a file states `[[agent]]` tables (a whole table: the last file that
/// states it is the one in force).
fn has_agents(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("agent"))
}
