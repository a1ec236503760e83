//! The fault matrix: each fault the loopback stub can stage (a body cut short, a
//! reset after the headers, a slow drip, a hang, `retry-after` in its three forms,
//! an error inside a 200, bodies over and under the size cap, errors that must not
//! be retried) against a real run over HTTP into a real store, each case asserting
//! the outcome, the number of HTTP attempts the stub saw and the rows written.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::*;
use io_harness::stub::ScriptedResponse;
use io_harness::{RetryPolicy, RunOutcome, Vendor};

/// What a case must end with.
#[derive(Debug, PartialEq)]
struct Seen {
    outcome: &'static str,
    attempts: usize,
    provider_calls: usize,
}

struct Case {
    name: &'static str,
    vendor: Vendor,
    responses: Vec<ScriptedResponse>,
    /// `(max_response_bytes, request_timeout, max_retries)` overrides.
    cap: Option<u64>,
    deadline: Option<Duration>,
    retries: Option<u32>,
    want: Seen,
    /// A word the outcome's message must hold, for the errors.
    says: &'static str,
}

fn case(name: &'static str, responses: Vec<ScriptedResponse>, want: Seen) -> Case {
    Case {
        name,
        vendor: Vendor::Anthropic,
        responses,
        cap: None,
        deadline: None,
        retries: None,
        want,
        says: "",
    }
}

fn seen(outcome: &'static str, attempts: usize, provider_calls: usize) -> Seen {
    Seen {
        outcome,
        attempts,
        provider_calls,
    }
}

fn with(r: ScriptedResponse, f: impl FnOnce(&mut ScriptedResponse)) -> ScriptedResponse {
    let mut r = r;
    f(&mut r);
    r
}

const OPENROUTER_OK: &str = r#"{"choices":[{"message":{"content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#;
const OPENROUTER_429_IN_200: &str = r#"{"error":{"code":429,"message":"Rate limit exceeded","metadata":{"error_type":"rate_limit_exceeded"}}}"#;
const OVERLOADED: &str =
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
const RATE: &str = r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#;
const BAD: &str = r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}"#;
const QUOTA: &str = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;

fn cases() -> Vec<Case> {
    let date = "Wed, 21 Oct 2015 07:28:00 GMT";
    let date_plus_0 = "Wed, 21 Oct 2015 07:28:00 GMT";
    vec![
        case("clean answer", vec![ok(ANSWER)], seen("passed", 1, 1)),
        case(
            "body cut short, then an answer",
            vec![truncated(ANSWER, 20), ok(ANSWER)],
            seen("passed", 2, 1),
        ),
        case(
            "reset after the headers, then an answer",
            vec![truncated(ANSWER, 0), ok(ANSWER)],
            seen("passed", 2, 1),
        ),
        case(
            "overloaded three times",
            vec![
                status(529, OVERLOADED, &[]),
                status(529, OVERLOADED, &[]),
                status(529, OVERLOADED, &[]),
            ],
            seen("error", 3, 0),
        ),
        case(
            "retry-after in seconds",
            vec![status(429, RATE, &[("retry-after", "0")]), ok(ANSWER)],
            seen("passed", 2, 1),
        ),
        case(
            "retry-after-ms",
            vec![status(429, RATE, &[("retry-after-ms", "15")]), ok(ANSWER)],
            seen("passed", 2, 1),
        ),
        case(
            "retry-after as an HTTP date",
            vec![
                status(429, RATE, &[("retry-after", date_plus_0), ("date", date)]),
                ok(ANSWER),
            ],
            seen("passed", 2, 1),
        ),
        Case {
            says: "slow down",
            ..case(
                "retry-after an hour is not waited for",
                vec![status(429, RATE, &[("retry-after", "3600")]), ok(ANSWER)],
                seen("error", 1, 0),
            )
        },
        Case {
            vendor: Vendor::OpenRouter,
            ..case(
                "an error inside a 200, then an answer",
                vec![ok(OPENROUTER_429_IN_200), ok(OPENROUTER_OK)],
                seen("passed", 2, 1),
            )
        },
        Case {
            cap: Some(1024 * 1024),
            says: "max_response_bytes",
            ..case(
                "a body over the size cap",
                vec![with(ok(ANSWER), |r| r.pad_bytes = Some(3 * 1024 * 1024))],
                seen("error", 1, 0),
            )
        },
        case(
            "a 2 MiB body under the default cap",
            vec![with(ok(ANSWER), |r| r.pad_bytes = Some(2 * 1024 * 1024))],
            seen("passed", 1, 1),
        ),
        Case {
            deadline: Some(Duration::from_secs(1)),
            retries: Some(0),
            says: "request_timeout_secs",
            ..case(
                "a slow drip past the request deadline",
                vec![with(ok(ANSWER), |r| r.drip_ms = Some(100))],
                seen("error", 1, 0),
            )
        },
        Case {
            deadline: Some(Duration::from_secs(1)),
            retries: Some(1),
            says: "request_timeout_secs",
            ..case(
                "a hang, retried once, then given up",
                vec![delayed(ANSWER, 30_000), delayed(ANSWER, 30_000)],
                seen("error", 2, 0),
            )
        },
        Case {
            says: "not JSON",
            ..case(
                "a 200 that is not JSON",
                vec![ok("<html>gateway</html>")],
                seen("error", 1, 0),
            )
        },
        Case {
            says: "too large",
            ..case(
                "a 400 is not retried",
                vec![status(400, BAD, &[])],
                seen("error", 1, 0),
            )
        },
        Case {
            vendor: Vendor::OpenAi,
            says: "quota",
            ..case(
                "a quota 429 is not retried",
                vec![status(429, QUOTA, &[]), ok(ANSWER)],
                seen("error", 1, 0),
            )
        },
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fault_ends_as_it_should_with_its_attempts_and_rows() {
    let all = cases();
    let total = all.len();
    let mut attempts = 0;
    for c in all {
        let mut h = Harness::vendor(c.vendor, c.responses).await;
        let mut p = h.provider.clone();
        if let Some(cap) = c.cap {
            p = p.with_max_response_bytes(cap);
        }
        if let Some(d) = c.deadline {
            p = p.with_request_timeout(d);
        }
        if let Some(n) = c.retries {
            p = p.with_retry(RetryPolicy {
                max_retries: n,
                base_delay: Duration::from_millis(10),
                ..RetryPolicy::default()
            });
        }
        h.provider = p;
        let r = tokio::time::timeout(Duration::from_secs(60), h.run(contract("g")))
            .await
            .unwrap_or_else(|_| panic!("{}: the run did not end", c.name));
        let got = Seen {
            outcome: match &r.outcome {
                RunOutcome::Passed => "passed",
                RunOutcome::Error { .. } => "error",
                _ => "other",
            },
            attempts: h.stub.requests().len(),
            provider_calls: h.store.provider_calls(r.run_id).unwrap().len(),
        };
        assert_eq!(got, c.want, "{}: {:?}", c.name, r.outcome);
        if let RunOutcome::Error { message } = &r.outcome {
            assert!(message.contains(c.says), "{}: {message}", c.name);
        }
        attempts += got.attempts;
    }
    println!("fault matrix: {total} cases, {attempts} HTTP attempts");
}
