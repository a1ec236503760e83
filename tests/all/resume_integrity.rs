//! A stored run whose steps were tampered with (a row deleted, a checkpoint whose
//! step says more than is stored) is refused on `run --resume` and by
//! `next_step` (what `preview --resume` shows), naming the run and the first
//! missing or inconsistent step, before anything is sent.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::*;
use io_harness::core::transcript::Conversation;
use io_harness::run::RunOptions;
use io_harness::{RunId, TaskContract};

fn transcript(goal: &str) -> TaskContract {
    let mut c = contract(goal);
    c.conversation = Conversation::Transcript;
    c
}

/// A transcript run with steps 1 and 2 recorded, dropped while step 3's request
/// is in flight, as a killed process would leave it.
async fn interrupted() -> (Harness, TaskContract) {
    let h = Harness::new(vec![
        ok(&tool_use("list_dir", r#"{"path":"."}"#)),
        ok(&tool_use("list_dir", r#"{"path":"."}"#)),
        delayed(ANSWER, 30_000),
        ok(ANSWER),
    ])
    .await;
    let c = transcript("look around twice");
    tokio::select! {
        _ = h.run(c.clone()) => panic!("the run should still be waiting on request 3"),
        _ = async {
            while h.stub.requests().len() < 3 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        } => {}
    }
    (h, c)
}

fn tamper(h: &Harness, sql: &str) {
    let conn = rusqlite::Connection::open(h.db.path().join("runs.db")).unwrap();
    conn.execute_batch(sql).unwrap();
}

async fn refused(h: &Harness, c: TaskContract) -> String {
    let options = RunOptions {
        resume: Some(RunId(1)),
        ..RunOptions::default()
    };
    let err = h.try_run_with(c, options).await.unwrap_err();
    assert!(err.before_anything(), "{err}");
    assert_eq!(h.stub.requests().len(), 3, "nothing more was sent");
    err.to_string()
}

#[tokio::test]
async fn a_deleted_exchange_is_refused_naming_the_run_and_the_step() {
    let (h, c) = interrupted().await;
    tamper(&h, "DELETE FROM exchanges WHERE run_id = 1 AND step = 1");
    let err = refused(&h, c).await;
    assert!(err.starts_with("run 1 cannot be resumed"), "{err}");
    assert!(
        err.contains("step 1 is missing from its transcript"),
        "{err}"
    );
    assert!(err.contains("nothing was sent"), "{err}");
    let preview = io_harness::run::next_step(&h.store, RunId(1)).unwrap_err();
    assert_eq!(preview.to_string(), err);
}

#[tokio::test]
async fn a_deleted_step_is_refused_naming_it() {
    let (h, c) = interrupted().await;
    tamper(&h, "DELETE FROM steps WHERE run_id = 1 AND step = 2");
    let err = refused(&h, c).await;
    assert!(err.contains("step 2 is missing from its steps"), "{err}");
}

#[tokio::test]
async fn a_checkpoint_ahead_of_the_stored_steps_is_refused() {
    let (h, c) = interrupted().await;
    tamper(
        &h,
        "UPDATE checkpoints SET step = 1000, body_json = json_set(body_json, '$.step', 1000) WHERE run_id = 1",
    );
    let err = refused(&h, c).await;
    assert!(
        err.contains("its checkpoint says 1000 steps were completed"),
        "{err}"
    );
    assert!(err.contains("step 3 is missing"), "{err}");
    assert!(io_harness::run::next_step(&h.store, RunId(1)).is_err());
}

#[tokio::test]
async fn an_untouched_run_still_resumes() {
    let (h, c) = interrupted().await;
    assert_eq!(
        io_harness::run::next_step(&h.store, RunId(1)).unwrap().step,
        2
    );
    let r = h.resume(RunId(1)).await;
    assert!(r.outcome.passed(), "{:?}", r.outcome);
    drop(c);
}
