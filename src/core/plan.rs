//! A run's plan: what the launch resolved for one run — the vendor's endpoint
//! (wire, base URL, key variable, streaming), the model, the output cap, the
//! transport limits, whether it ran against the built-in stub, and the tools it
//! offered. Recorded with the run when it starts (`runs.plan_json`), and the
//! one thing a later action on that run starts from: resume, the preview of its
//! next request, the console. io.toml changed since is irrelevant to what the
//! plan says (vendor, wire, model, output cap, limits, tools); where the vendor
//! is reached — its base URL and key variable — is io.toml's now, and a change
//! is said beside the resume (`RunPlan::moved`), never taken in silence.
//!
//! Never a secret: the key is named by its variable, and a base URL's
//! credentials are left out before the plan is kept. Pure data.

use serde::{Deserialize, Serialize};

use crate::core::endpoint::Endpoint;
use crate::core::vendor::{Vendor, Wire};

/// The transport limits a run was given, in bytes and milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PlanLimits {
    /// The largest response body read, in bytes.
    pub max_response_bytes: u64,
    /// Connect to last byte, one request.
    pub request_timeout_ms: u64,
    /// How long a stream may stay silent.
    pub idle_timeout_ms: u64,
}

/// What a run was started with (see the module).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunPlan {
    /// Where its requests go, on which wire, with which key variable.
    pub endpoint: Endpoint,
    /// The model asked.
    pub model: String,
    /// The output token cap per request.
    pub max_tokens: u32,
    /// The transport limits.
    pub limits: PlanLimits,
    /// It ran against the built-in stub vendor (its address changes from one
    /// start to the next; a resume goes to the stub running then).
    #[serde(default)]
    pub demo: bool,
    /// The tools it offered the model, by name.
    #[serde(default)]
    pub tools: Vec<String>,
}

impl RunPlan {
    /// The vendor it talks to.
    pub fn vendor(&self) -> Vendor {
        self.endpoint.vendor
    }

    /// The wire it speaks.
    pub fn wire(&self) -> Wire {
        self.endpoint.wire
    }

    /// The plan as it is kept: a base URL's user and password left out.
    pub fn kept(mut self) -> RunPlan {
        self.endpoint.base_url = without_credentials(&self.endpoint.base_url);
        self
    }

    /// What moved in io.toml since run `run` started, where its vendor is now
    /// reached at `now`: a note for each of the base URL and the key variable
    /// that differ (the run goes on at the address and with the key io.toml
    /// gives its vendor now, and says so). Empty for a demo run, whose stub
    /// moves with every start.
    pub fn moved(&self, run: impl std::fmt::Display, now: &Endpoint) -> Vec<String> {
        if self.demo {
            return Vec::new();
        }
        let vendor = self.vendor();
        let then_url = without_credentials(&self.endpoint.base_url);
        let now_url = without_credentials(&now.base_url);
        let mut notes = Vec::new();
        if then_url.trim_end_matches('/') != now_url.trim_end_matches('/') {
            notes.push(format!(
                "note: run {run} started with {vendor} at {then_url}; io.toml now reaches \
                 {vendor} at {now_url}, and the run goes on there"
            ));
        }
        if self.endpoint.api_key_env != now.api_key_env {
            notes.push(format!(
                "note: run {run} started with the key in {}; io.toml now names {} for {vendor}, \
                 and the run goes on with it",
                self.endpoint.api_key_env, now.api_key_env
            ));
        }
        notes
    }
}

/// A URL with its user and password left out (as written when it does not
/// parse).
pub fn without_credentials(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            let s = u.to_string();
            match raw.ends_with('/') {
                true => s,
                false => s.trim_end_matches('/').to_string(),
            }
        }
        _ => raw.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(base: &str) -> RunPlan {
        RunPlan {
            endpoint: Endpoint {
                base_url: base.into(),
                ..Endpoint::public(Vendor::OpenAi)
            },
            model: "gpt-5".into(),
            max_tokens: 4096,
            limits: PlanLimits::default(),
            demo: false,
            tools: vec![],
        }
    }

    #[test]
    fn a_kept_plan_holds_no_credentials() {
        let p = plan("https://user:s3cret@proxy.test/v1").kept();
        assert_eq!(p.endpoint.base_url, "https://proxy.test/v1");
        assert!(
            !serde_json::to_string(&p)
                .unwrap_or_default()
                .contains("s3cret")
        );
    }

    #[test]
    fn what_moved_since_a_run_started_is_said() {
        let p = plan("https://api.openai.com");
        let same = Endpoint::public(Vendor::OpenAi);
        assert_eq!(p.moved(2, &same), Vec::<String>::new());
        let moved = Endpoint {
            base_url: "https://proxy.test".into(),
            api_key_env: "OTHER_KEY".into(),
            ..same
        };
        let notes = p.moved(2, &moved);
        assert_eq!(notes.len(), 2);
        assert!(notes[0].contains("started with openai at https://api.openai.com; io.toml now reaches openai at https://proxy.test"), "{notes:?}");
        assert!(
            notes[1].contains("the key in OPENAI_API_KEY; io.toml now names OTHER_KEY"),
            "{notes:?}"
        );
        let demo = RunPlan { demo: true, ..p };
        assert!(demo.moved(2, &moved).is_empty());
    }
}
