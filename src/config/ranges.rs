//! Range checks on a parsed `io.toml`: every number within what the program can
//! honour, no empty names, prices finite and not negative. Each problem names its
//! key path; `error::first_problem` turns the first one in file order into a line
//! naming file, line, table and key. A key added to `Config` gets its check here,
//! with `whole` (and a line in `RANGES`), `price`, `text` and `host`.

use super::locate::{Problem, Seg};
use super::{BudgetConfig, Config};

/// Longest `[budget] seconds`: thirty days.
pub const MAX_SECONDS: u64 = 30 * 24 * 3600;

/// The allowed range of one whole-number key (`*` matches any table name).
pub(crate) struct Range {
    path: &'static [&'static str],
    lo: u64,
    hi: u64,
    unit: &'static str,
}

impl Range {
    /// "a whole number from 1 to 10000".
    pub(crate) fn expected(&self) -> String {
        format!(
            "a whole number from {} to {}{}",
            self.lo, self.hi, self.unit
        )
    }
}

/// Every whole-number key and its range: the checks below and the parse errors
/// (`error::describe`, for `-1` or `"3"` where a number belongs) both say these.
const RANGES: &[Range] = &[
    Range {
        path: &["providers", "*", "max_tokens"],
        lo: 1,
        hi: 1_000_000,
        unit: "",
    },
    Range {
        path: &["providers", "*", "max_response_bytes"],
        lo: 1024,
        hi: 1 << 30,
        unit: " (bytes)",
    },
    Range {
        path: &["providers", "*", "request_timeout_secs"],
        lo: 1,
        hi: 3600,
        unit: " (seconds)",
    },
    Range {
        path: &["budget", "steps"],
        lo: 1,
        hi: 10_000,
        unit: "",
    },
    Range {
        path: &["budget", "seconds"],
        lo: 1,
        hi: MAX_SECONDS,
        unit: " (30 days)",
    },
    Range {
        path: &["budget", "tokens"],
        lo: 1,
        hi: 1_000_000_000_000,
        unit: "",
    },
    Range {
        path: &["web", "max_uses"],
        lo: 1,
        hi: 10_000,
        unit: "",
    },
];

/// The range of a whole-number key, if it has one.
pub(crate) fn range_for(path: &[Seg]) -> Option<&'static Range> {
    RANGES.iter().find(|r| {
        r.path.len() == path.len()
            && r.path.iter().zip(path).all(|(want, seg)| match seg {
                Seg::Key(k) => *want == "*" || want == k,
                Seg::Index(_) => false,
            })
    })
}

/// Collects problems under key paths.
#[derive(Default)]
pub(crate) struct Checks {
    problems: Vec<Problem>,
}

impl Checks {
    fn say(&mut self, path: &[Seg], message: String) {
        self.problems.push(Problem {
            path: path.to_vec(),
            message,
        });
    }

    /// A whole number within its key's range (see `RANGES`).
    pub(crate) fn whole(&mut self, path: &[Seg], value: Option<u64>) {
        let Some(range) = range_for(path) else {
            return;
        };
        if let Some(v) = value.filter(|v| !(range.lo..=range.hi).contains(v)) {
            self.say(
                path,
                format!("{v} is out of range; expected {}", range.expected()),
            );
        }
    }

    /// A price: finite and not negative.
    pub(crate) fn price(&mut self, path: &[Seg], value: Option<f64>) {
        if let Some(v) = value.filter(|v| !v.is_finite() || *v < 0.0) {
            self.say(
                path,
                format!("{v} is not a price; expected US dollars as a finite number, 0 or more"),
            );
        }
    }

    /// A name that must not be blank.
    pub(crate) fn text(&mut self, path: &[Seg], value: Option<&str>, what: &str) {
        if value.is_some_and(|v| v.trim().is_empty()) {
            self.say(path, format!("is empty; expected {what}"));
        }
    }

    /// A bare host for a domain filter.
    pub(crate) fn host(&mut self, path: &[Seg], value: &str) {
        let bad = value.trim().is_empty()
            || value.contains(char::is_whitespace)
            || value.contains("://")
            || value.contains('/');
        if bad {
            self.say(
                path,
                format!("{value:?} is not a host; expected a bare host name such as \"docs.rs\""),
            );
        }
    }
}

fn p(parts: &[Seg]) -> Vec<Seg> {
    parts.to_vec()
}

fn k(s: &str) -> Seg {
    Seg::from(s)
}

/// Every range check, in no particular order.
pub(crate) fn check(config: &Config) -> Vec<Problem> {
    let mut c = Checks::default();
    providers(&mut c, config);
    if let Some(BudgetConfig {
        steps,
        seconds,
        tokens,
        usd,
    }) = config.budget
    {
        let at = |key: &str| p(&[k("budget"), k(key)]);
        c.whole(&at("steps"), steps.map(u64::from));
        c.whole(&at("seconds"), seconds);
        c.whole(&at("tokens"), tokens);
        c.price(&at("usd"), usd);
    }
    if let Some(web) = config.web_table.as_ref().map(|t| t.stated()) {
        let at = |key: &str| p(&[k("web"), k(key)]);
        c.whole(&at("max_uses"), web.max_uses.map(u64::from));
        for (list, hosts) in [
            ("allowed_domains", &web.allowed_domains),
            ("blocked_domains", &web.blocked_domains),
        ] {
            for (i, h) in hosts.iter().enumerate() {
                c.host(&p(&[k("web"), k(list), Seg::Index(i)]), h);
            }
        }
    }
    prices(&mut c, config);
    if let Some(t) = &config.telemetry {
        for (path, message) in crate::telemetry::settings::problems(t) {
            let path: Vec<Seg> = path.iter().map(|k| Seg::from(k.as_str())).collect();
            c.say(&path, message);
        }
    }
    if let Some(task) = &config.task {
        c.text(
            &p(&[k("task"), k("goal")]),
            task.goal.as_deref(),
            "the task in words",
        );
        let ws = task.workspace.as_ref().map(|w| w.to_string_lossy());
        c.text(
            &p(&[k("task"), k("workspace")]),
            ws.as_deref(),
            "a directory",
        );
    }
    if let Some(store) = &config.store {
        let path = store.path.as_ref().map(|w| w.to_string_lossy());
        c.text(&p(&[k("store"), k("path")]), path.as_deref(), "a file path");
        c.text(
            &p(&[k("store"), k("url")]),
            store.url.as_deref(),
            "a file path or a postgres:// URL",
        );
        if store.url.is_some() && store.path.is_some() {
            c.say(
                &p(&[k("store"), k("url")]),
                "and `path` are both set; keep one (`url` takes a file path too)".to_string(),
            );
        }
    }
    for (i, agent) in config.agents.iter().enumerate() {
        let at = |key: &str| p(&[k("agent"), Seg::Index(i), k(key)]);
        c.text(&at("name"), Some(&agent.name), "the name spawn_agent takes");
        if config.agents[..i].iter().any(|a| a.name == agent.name) {
            c.say(
                &at("name"),
                format!(
                    "{:?} names two agents; expected each [[agent]] to have its own name",
                    agent.name
                ),
            );
        }
    }
    for (i, mcp) in config.mcp.iter().enumerate() {
        let at = |key: &str| p(&[k("mcp"), Seg::Index(i), k(key)]);
        c.text(&at("name"), Some(&mcp.name), "the server's name");
        c.text(&at("command"), Some(&mcp.command), "the program to start");
    }
    c.problems
}

/// Each `[providers.NAME]`: names and URLs that can be used, numbers in range.
fn providers(c: &mut Checks, config: &Config) {
    for (vendor, s) in &config.providers {
        let at = |key: &str| p(&[k("providers"), k(vendor.as_str()), k(key)]);
        c.text(&at("model"), s.model.as_deref(), "a model name");
        c.text(
            &at("api_key_env"),
            s.api_key_env.as_deref(),
            "the name of the environment variable that holds the key",
        );
        if let Some(env) = s.api_key_env.as_deref().filter(|e| !e.trim().is_empty()) {
            if env.contains(['=', '\0']) || env.contains(char::is_whitespace) {
                c.say(
                    &at("api_key_env"),
                    // The value is not repeated: what was put here may be the key itself.
                    "is not a variable name (it holds a space, `=` or NUL); expected the \
                     name of the variable that holds the key, such as \"ANTHROPIC_API_KEY\", \
                     never the key"
                        .to_string(),
                );
            }
        }
        if let Some(url) = s.base_url.as_deref() {
            let ok = url::Url::parse(url)
                .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.has_host());
            if !ok {
                c.say(
                    &at("base_url"),
                    format!("{url:?} is not an http(s) URL; expected one such as \"https://api.anthropic.com\""),
                );
            }
        }
        c.whole(&at("max_tokens"), s.max_tokens.map(u64::from));
        c.whole(&at("max_response_bytes"), s.max_response_bytes);
        c.whole(&at("request_timeout_secs"), s.request_timeout_secs);
        c.whole(&at("idle_timeout_secs"), s.idle_timeout_secs);
    }
}

/// Each `[prices."MODEL"]`: amounts that are dollars, and both token prices for a
/// model the built-in table has no row for.
fn prices(c: &mut Checks, config: &Config) {
    let builtin = crate::core::price::PriceTable::builtin();
    for (model, price) in &config.prices {
        let at = |key: &str| p(&[k("prices"), k(model), k(key)]);
        c.price(&at("input_per_mtok"), price.input_per_mtok);
        c.price(&at("output_per_mtok"), price.output_per_mtok);
        c.price(&at("cache_write_per_mtok"), price.cache_write_per_mtok);
        c.price(&at("cache_read_per_mtok"), price.cache_read_per_mtok);
        c.price(&at("per_search_request"), price.per_search_request);
        c.price(&at("per_fetch_request"), price.per_fetch_request);
        // A model the built-in table has no row for is priced by io.toml alone.
        if !builtin.rows().any(|r| &r.model == model) {
            for (key, v) in [
                ("input_per_mtok", price.input_per_mtok),
                ("output_per_mtok", price.output_per_mtok),
            ] {
                if v.is_none() {
                    c.say(
                        &at(key),
                        format!("is missing; expected it to be set, since the built-in price table has no row for {model} (`io-harness prices` lists the rows)"),
                    );
                }
            }
        }
    }
}
