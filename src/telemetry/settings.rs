//! `[telemetry]` in io.toml and the standard `OTEL_*` variables: what is written
//! (`Stated`), what is wrong with it (`problems`, turned into
//! `PATH:LINE` errors by the config checks), and what is in effect (`resolve`).
//!
//! Precedence: a key io.toml states wins over its variable (the file is this
//! program's own configuration, as the OpenTelemetry configuration-file spec has
//! it); a variable fills what io.toml leaves unset. `OTEL_EXPORTER_OTLP_ENDPOINT`
//! and io.toml's `otlp_endpoint` are base URLs (`/v1/traces` is appended);
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as is. The protocol is
//! `"http/protobuf"` (the default) or `"grpc"`; over gRPC every endpoint is used
//! as given (gRPC has no path to append), as the OTLP exporter spec has it. Any
//! other protocol is refused. Reading the environment is left to the caller
//! (`env` is a lookup), so this is testable without touching the process
//! environment.

use std::collections::BTreeMap;

/// What io.toml states under `[telemetry]`, handed over by the config layer:
/// nothing resolved yet (the `OTEL_*` variables are read by `resolve`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stated {
    /// The collector's OTLP/HTTP base URL (`http://localhost:4318`), or with
    /// `protocol = "grpc"` its gRPC URL (`http://localhost:4317`); unset: nothing
    /// is exported unless `OTEL_EXPORTER_OTLP_ENDPOINT` says where.
    pub otlp_endpoint: Option<String>,
    /// `"http/protobuf"` (the default) or `"grpc"`.
    pub protocol: Option<String>,
    /// Headers sent with every export (an API key for a hosted backend).
    pub headers: BTreeMap<String, String>,
    /// Put message text, search queries and cited text on spans (default false).
    pub capture_content: Option<bool>,
    /// `service.name` (default `io-harness`).
    pub service_name: Option<String>,
}

/// The telemetry settings io.toml's `[telemetry]` (`stated`) and this process's
/// `OTEL_*` variables put in effect; a malformed variable is a config error
/// naming it.
pub fn resolved(stated: Option<&Stated>) -> crate::core::error::Result<Resolved> {
    resolve(stated, &|k| std::env::var(k).ok())
        .map_err(|e| crate::core::error::Error::config(format!("{e}. Nothing was sent.")))
}

/// OTLP over HTTP with protobuf bodies: the default.
pub const HTTP_PROTOBUF: &str = "http/protobuf";

/// OTLP over gRPC.
pub const GRPC: &str = "grpc";

/// How spans travel to the collector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// `"http/protobuf"`: `POST …/v1/traces` (the collector's port 4318).
    #[default]
    HttpProtobuf,
    /// `"grpc"`: the OTLP trace service over HTTP/2 (the collector's port 4317).
    Grpc,
}

impl Protocol {
    /// The name io.toml and `OTEL_EXPORTER_OTLP_PROTOCOL` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::HttpProtobuf => HTTP_PROTOBUF,
            Protocol::Grpc => GRPC,
        }
    }
}

/// `service.name` when nothing says otherwise.
pub const DEFAULT_SERVICE_NAME: &str = "io-harness";

/// Where a value in effect came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// io.toml's `[telemetry]` (the listing carries its `PATH:LINE`).
    File,
    /// This environment variable.
    Env(&'static str),
    /// The built-in default.
    Default,
}

impl Source {
    /// `io.toml`, `env NAME` or `default`.
    pub fn describe(&self) -> String {
        match self {
            Source::File => "io.toml [telemetry]".into(),
            Source::Env(var) => format!("env {var}"),
            Source::Default => "default".into(),
        }
    }
}

/// The telemetry settings in effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The full traces URL (`…/v1/traces`; over gRPC, the URL as given) and where
    /// it came from; `None`: off.
    pub endpoint: Option<(String, Source)>,
    /// The protocol and where it came from.
    pub protocol: (Protocol, Source),
    /// Header name, value and source, in name order.
    pub headers: Vec<(String, String, Source)>,
    /// Whether content is captured.
    pub capture_content: bool,
    /// `service.name` and where it came from.
    pub service_name: (String, Source),
}

impl Resolved {
    /// True when spans are exported.
    pub fn enabled(&self) -> bool {
        self.endpoint.is_some()
    }
}

/// A key path under `[telemetry]` and what is wrong with its value.
pub type Problem = (Vec<String>, String);

/// What is wrong with a `[telemetry]` table, each problem under its key path.
pub fn problems(t: &Stated) -> Vec<Problem> {
    let mut out = Vec::new();
    let at = |keys: &[&str]| -> Vec<String> {
        std::iter::once("telemetry")
            .chain(keys.iter().copied())
            .map(String::from)
            .collect()
    };
    if let Some(e) = &t.otlp_endpoint {
        if let Err(why) = check_endpoint(e) {
            out.push((at(&["otlp_endpoint"]), why));
        }
    }
    if let Some(p) = &t.protocol {
        if let Err(why) = check_protocol(p) {
            out.push((at(&["protocol"]), why));
        }
    }
    for (name, value) in &t.headers {
        if let Err(why) = check_header(name, value) {
            out.push((at(&["headers", name]), why));
        }
    }
    if t.service_name.as_ref().is_some_and(|s| s.trim().is_empty()) {
        out.push((
            at(&["service_name"]),
            "is empty; expected the name your backend should list these traces under".into(),
        ));
    }
    out
}

/// An OTLP/HTTP endpoint: an `http://` or `https://` URL with a host.
pub fn check_endpoint(value: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "{value:?} is not an OTLP endpoint ({why}); expected an http:// or https:// URL such as \"http://localhost:4318\""
        ))
    };
    match url::Url::parse(value) {
        Err(e) => bad(&e.to_string()),
        Ok(u) if !matches!(u.scheme(), "http" | "https") => bad("the scheme is not http or https"),
        Ok(u) if u.host_str().is_none_or(str::is_empty) => bad("it names no host"),
        Ok(_) => Ok(()),
    }
}

/// `"http/protobuf"` or `"grpc"`; anything else is refused.
pub fn check_protocol(value: &str) -> Result<Protocol, String> {
    match value {
        HTTP_PROTOBUF => Ok(Protocol::HttpProtobuf),
        GRPC => Ok(Protocol::Grpc),
        other => Err(format!(
            "{other:?} is not a protocol io-harness speaks; expected \"http/protobuf\" (the default) or \"grpc\""
        )),
    }
}

/// A header name and value an HTTP request can carry.
pub fn check_header(name: &str, value: &str) -> Result<(), String> {
    if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(format!(
            "{name:?} is not an HTTP header name; expected letters, digits and '-' (such as \"x-api-key\")"
        ));
    }
    if reqwest::header::HeaderValue::from_str(value).is_err() {
        // The value may be a secret: it is not repeated.
        return Err(
            "has a value an HTTP header cannot carry (a line break or a control character); expected visible text"
                .into(),
        );
    }
    Ok(())
}

/// The settings in effect: io.toml's table over the `OTEL_*` variables `env`
/// looks up. `Err` names the variable whose value is malformed.
pub fn resolve(
    table: Option<&Stated>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Resolved, String> {
    let t = table.cloned().unwrap_or_default();
    let var = |name: &'static str| env(name).filter(|v| !v.trim().is_empty());
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Ok(Resolved {
            endpoint: None,
            protocol: (Protocol::default(), Source::Default),
            headers: Vec::new(),
            capture_content: false,
            service_name: (DEFAULT_SERVICE_NAME.into(), Source::Default),
        });
    }
    let mut protocol = (Protocol::default(), Source::Default);
    match &t.protocol {
        // A config that loaded has had anything else refused, with its line.
        Some(p) => {
            let p = check_protocol(p).map_err(|why| format!("[telemetry] protocol: {why}"))?;
            protocol = (p, Source::File);
        }
        None => {
            // The signal's own variable wins over the general one.
            for name in [
                "OTEL_EXPORTER_OTLP_PROTOCOL",
                "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            ] {
                if let Some(p) = var(name) {
                    let p = check_protocol(p.trim()).map_err(|why| format!("{name}: {why}"))?;
                    protocol = (p, Source::Env(name));
                }
            }
        }
    }
    // Over gRPC a base URL is the URL: the service is named by the protocol.
    let base = |e: &str| match protocol.0 {
        Protocol::HttpProtobuf => traces_url(e),
        Protocol::Grpc => e.trim().to_string(),
    };
    let endpoint = match (&t.otlp_endpoint, var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) {
        (Some(e), _) => Some((base(e), Source::File)),
        (None, Some(e)) => {
            let name = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
            check_endpoint(e.trim()).map_err(|why| format!("{name}: {why}"))?;
            Some((e.trim().to_string(), Source::Env(name)))
        }
        (None, None) => match var("OTEL_EXPORTER_OTLP_ENDPOINT") {
            Some(e) => {
                let name = "OTEL_EXPORTER_OTLP_ENDPOINT";
                check_endpoint(e.trim()).map_err(|why| format!("{name}: {why}"))?;
                Some((base(e.trim()), Source::Env(name)))
            }
            None => None,
        },
    };
    let mut headers: BTreeMap<String, (String, Source)> = BTreeMap::new();
    for name in [
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    ] {
        if let Some(list) = var(name) {
            for (k, v) in parse_header_list(&list).map_err(|why| format!("{name}: {why}"))? {
                headers.insert(k.to_ascii_lowercase(), (v, Source::Env(name)));
            }
        }
    }
    for (k, v) in &t.headers {
        headers.insert(k.to_ascii_lowercase(), (v.clone(), Source::File));
    }
    let service_name = match (&t.service_name, var("OTEL_SERVICE_NAME")) {
        (Some(s), _) => (s.clone(), Source::File),
        (None, Some(s)) => (s.trim().to_string(), Source::Env("OTEL_SERVICE_NAME")),
        (None, None) => (DEFAULT_SERVICE_NAME.into(), Source::Default),
    };
    Ok(Resolved {
        endpoint,
        protocol,
        headers: headers.into_iter().map(|(k, (v, s))| (k, v, s)).collect(),
        capture_content: t.capture_content.unwrap_or(false),
        service_name,
    })
}

/// What `io-harness config` adds for what the `OTEL_*` variables put in effect
/// (io.toml's own keys are listed with their `PATH:LINE` already), and, when
/// spans are exported, the protocol even when it is the default: each the key
/// under `telemetry.`, its value as TOML would write it, and its source; header
/// values are never shown.
pub fn in_effect(r: &Resolved) -> Vec<(String, String, Source)> {
    let line = |key: &str, value: String, source: &Source| {
        (format!("telemetry.{key}"), value, source.clone())
    };
    let mut out = Vec::new();
    if let Some((url, source @ Source::Env(_))) = &r.endpoint {
        let shown = crate::provider::scrub::userinfo_redacted(url).unwrap_or_else(|| url.clone());
        out.push(line("otlp_endpoint", format!("{shown:?}"), source));
    }
    // Which protocol spans go out over, whenever they go out at all.
    if let (p, source @ (Source::Env(_) | Source::Default)) = &r.protocol {
        if r.enabled() {
            out.push(line("protocol", format!("{:?}", p.as_str()), source));
        }
    }
    for (name, _, source) in &r.headers {
        if matches!(source, Source::Env(_)) {
            let value = format!("{:?}", crate::provider::scrub::REDACTED);
            out.push(line(&format!("headers.{name}"), value, source));
        }
    }
    if let (name, source @ Source::Env(_)) = &r.service_name {
        out.push(line("service_name", format!("{name:?}"), source));
    }
    out
}

/// A base URL's traces endpoint: `/v1/traces` appended, unless already there.
pub fn traces_url(base: &str) -> String {
    let base = base.trim();
    if base.trim_end_matches('/').ends_with("/v1/traces") {
        return base.to_string();
    }
    format!("{}/v1/traces", base.trim_end_matches('/'))
}

/// `key1=value1,key2=value2` as the OTLP exporter spec defines it (values
/// percent-decoded); an entry without `=` or with a bad name is an error that
/// names the entry's position, never its value.
pub fn parse_header_list(list: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (i, entry) in list.split(',').enumerate() {
        if entry.trim().is_empty() {
            continue;
        }
        let Some((k, v)) = entry.split_once('=') else {
            return Err(format!(
                "entry {} has no '='; expected key=value pairs separated by commas",
                i + 1
            ));
        };
        let (k, v) = (k.trim(), percent_decode(v.trim()));
        check_header(k, &v).map_err(|why| format!("entry {}: {why}", i + 1))?;
        out.push((k.to_string(), v));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("v={}", s.replace('+', "%2B")).as_bytes())
        .next()
        .map_or_else(|| s.to_string(), |(_, v)| v.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn nothing_set_exports_nothing() {
        let r = resolve(None, &env_of(&[])).expect("resolves");
        assert!(!r.enabled());
        assert_eq!(r.service_name, ("io-harness".into(), Source::Default));
    }

    #[test]
    fn the_file_wins_over_the_variables_and_the_variables_fill_the_rest() {
        let t = Stated {
            otlp_endpoint: Some("http://file:4318".into()),
            headers: [("x-a".to_string(), "file".to_string())].into(),
            ..Stated::default()
        };
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4318"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "x-a=env,x-b=a%20b"),
            ("OTEL_SERVICE_NAME", "team-agents"),
        ]);
        let r = resolve(Some(&t), &env).expect("resolves");
        assert_eq!(
            r.endpoint,
            Some(("http://file:4318/v1/traces".into(), Source::File))
        );
        assert_eq!(
            r.headers,
            vec![
                ("x-a".into(), "file".into(), Source::File),
                (
                    "x-b".into(),
                    "a b".into(),
                    Source::Env("OTEL_EXPORTER_OTLP_HEADERS")
                ),
            ]
        );
        assert_eq!(
            r.service_name,
            ("team-agents".into(), Source::Env("OTEL_SERVICE_NAME"))
        );
    }

    #[test]
    fn the_signal_endpoint_is_used_as_is() {
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:9/custom"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://other:4318"),
        ]);
        let r = resolve(None, &env).expect("resolves");
        assert_eq!(
            r.endpoint.map(|e| e.0),
            Some("http://c:9/custom".to_string())
        );
    }

    #[test]
    fn malformed_variables_are_named() {
        let e = resolve(
            None,
            &env_of(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost")]),
        )
        .expect_err("refused");
        assert!(e.starts_with("OTEL_EXPORTER_OTLP_ENDPOINT: "), "{e}");
        let e = resolve(None, &env_of(&[("OTEL_EXPORTER_OTLP_HEADERS", "novalue")]))
            .expect_err("refused");
        assert!(e.contains("entry 1 has no '='"), "{e}");
        let e = resolve(
            None,
            &env_of(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")]),
        )
        .expect_err("refused");
        assert!(e.starts_with("OTEL_EXPORTER_OTLP_PROTOCOL: "), "{e}");
        assert!(
            e.contains("expected \"http/protobuf\" (the default) or \"grpc\""),
            "{e}"
        );
    }

    #[test]
    fn grpc_is_taken_from_the_file_or_the_variables_and_its_endpoint_used_as_given() {
        let t = Stated {
            otlp_endpoint: Some("http://file:4317".into()),
            protocol: Some("grpc".into()),
            ..Stated::default()
        };
        let env = env_of(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")]);
        let r = resolve(Some(&t), &env).expect("resolves");
        assert_eq!(r.protocol, (Protocol::Grpc, Source::File));
        assert_eq!(r.endpoint, Some(("http://file:4317".into(), Source::File)));
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4317"),
        ]);
        let r = resolve(None, &env).expect("resolves");
        let var = Source::Env("OTEL_EXPORTER_OTLP_PROTOCOL");
        assert_eq!(r.protocol, (Protocol::Grpc, var.clone()));
        assert_eq!(
            r.endpoint,
            Some((
                "http://env:4317".into(),
                Source::Env("OTEL_EXPORTER_OTLP_ENDPOINT")
            ))
        );
        let shown = in_effect(&r);
        assert!(
            shown.contains(&("telemetry.protocol".into(), "\"grpc\"".into(), var.clone())),
            "{shown:#?}"
        );
        // The signal's own variable wins over the general one.
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4317"),
        ]);
        let r = resolve(None, &env).expect("resolves");
        assert_eq!(
            r.protocol,
            (
                Protocol::Grpc,
                Source::Env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            )
        );
    }

    #[test]
    fn the_default_protocol_is_shown_only_when_spans_go_out() {
        let off = resolve(None, &env_of(&[])).expect("resolves");
        assert!(in_effect(&off).is_empty());
        let on = resolve(
            None,
            &env_of(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4318")]),
        )
        .expect("resolves");
        assert_eq!(on.protocol, (Protocol::HttpProtobuf, Source::Default));
        let shown = in_effect(&on);
        assert!(
            shown.contains(&(
                "telemetry.protocol".into(),
                "\"http/protobuf\"".into(),
                Source::Default
            )),
            "{shown:#?}"
        );
    }

    #[test]
    fn sdk_disabled_turns_it_off() {
        let env = env_of(&[
            ("OTEL_SDK_DISABLED", "true"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4318"),
        ]);
        assert!(!resolve(None, &env).expect("resolves").enabled());
    }

    #[test]
    fn traces_url_appends_once() {
        assert_eq!(traces_url("http://h:4318/"), "http://h:4318/v1/traces");
        assert_eq!(
            traces_url("http://h:4318/v1/traces"),
            "http://h:4318/v1/traces"
        );
    }
}
