//! A team's store, on both engines: who ran a run (user and host) recorded and
//! shown, `runs --mine`; the resume lease across processes and machines — of
//! several processes claiming one run at once exactly one proceeds, and a run
//! held on another machine is refused naming who holds it until that
//! machine's heartbeat lapses; an eval the same (`claim_eval`).

use io_harness::RunId;
use io_harness::core::vendor::Vendor;
use io_harness::store::NewRun;

use crate::engines::on_both_engines;

fn new_run(store: &io_harness::Store) -> RunId {
    store
        .begin_run(&NewRun {
            goal: "g".into(),
            provider: Vendor::Anthropic,
            model: "m".into(),
            ..NewRun::default()
        })
        .unwrap()
}

/// `run_id` as held by `bob`'s process 4242 on another machine, its last
/// heartbeat `ago` ("0 minutes", "10 minutes") before now by the store's clock.
fn held_elsewhere(place: &crate::engines::Place, run_id: RunId, ago: &str) {
    let at = if place.is_postgres() {
        format!("CURRENT_TIMESTAMP - interval '{ago}'")
    } else {
        format!("strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-{ago}')")
    };
    place.exec(&format!(
        "UPDATE runs SET runner_pid = 4242, runner_host = 'another-host.invalid', runner_token = NULL,
           runner_user = 'bob', runner_heartbeat = {at} WHERE run_id = {run_id}"
    ));
}

on_both_engines! {
    fn a_run_held_on_another_machine_is_refused_until_its_heartbeat_lapses(place) {
        let store = place.open();
        let id = new_run(&store);
        held_elsewhere(place, id, "0 minutes");
        let e = store.claim_run(id).unwrap_err();
        assert!(e.before_anything(), "{e}");
        let e = e.to_string();
        assert!(
            e.starts_with(&format!(
                "run {id} is being run by bob (process 4242 on another-host.invalid); nothing was sent — its last heartbeat was at "
            )),
            "{e}"
        );
        assert!(e.contains("a claim lapses 120 s after its last heartbeat"), "{e}");
        // Still running as far as anyone can tell.
        assert_eq!(store.run(id).unwrap().unwrap().outcome, None);
        // Its heartbeat lapsed: the run reads interrupted, and is taken over.
        held_elsewhere(place, id, "10 minutes");
        assert_eq!(
            store.run(id).unwrap().unwrap().outcome.map(|o| o.as_str()),
            Some("interrupted")
        );
        store.claim_run(id).unwrap();
        // Held by this process now, with a heartbeat of its own.
        let e = {
            held_elsewhere(place, id, "0 minutes");
            store.claim_run(id).unwrap_err().to_string()
        };
        assert!(e.contains("bob"), "{e}");
    }
}

on_both_engines! {
    fn an_eval_held_on_another_machine_is_refused_until_its_heartbeat_lapses(place) {
        let store = place.open();
        let id = store
            .create_eval(&io_harness::store::NewEval {
                file: "q.jsonl".into(),
                vendors: vec![Vendor::Anthropic],
                jobs: 1,
                ..Default::default()
            })
            .unwrap();
        // Created by this process, which holds it: shown running, claimed again.
        assert!(store.eval(id).unwrap().unwrap().running.is_some());
        store.claim_eval(id).unwrap();
        let hold = |ago: &str| {
            let at = if place.is_postgres() {
                format!("CURRENT_TIMESTAMP - interval '{ago}'")
            } else {
                format!("strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-{ago}')")
            };
            place.exec(&format!(
                "UPDATE evals SET runner_pid = 4242, runner_host = 'another-host.invalid', runner_token = NULL,
                   runner_user = 'bob', runner_heartbeat = {at} WHERE eval_id = {id}"
            ));
        };
        hold("0 minutes");
        assert_eq!(
            store.eval(id).unwrap().unwrap().running.as_deref(),
            Some("bob (process 4242 on another-host.invalid)")
        );
        let e = store.claim_eval(id).unwrap_err();
        assert!(e.before_anything(), "{e}");
        assert!(
            e.to_string().starts_with(&format!(
                "eval {id} is being run by bob (process 4242 on another-host.invalid); nothing was sent — its last heartbeat was at "
            )),
            "{e}"
        );
        // Lapsed: not running, and taken over.
        hold("10 minutes");
        assert_eq!(store.eval(id).unwrap().unwrap().running, None);
        store.claim_eval(id).unwrap();
        store.release_eval(id).unwrap();
        assert_eq!(store.eval(id).unwrap().unwrap().running, None);
    }
}

on_both_engines! {
    fn who_started_a_run_is_recorded_and_runs_mine_narrows_to_them(place) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("io.toml"), "").unwrap();
        let cmd = |user: &str, args: &[&str]| {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_io-harness"))
                .current_dir(dir.path())
                .env("IO_HARNESS_USER", user)
                .env("XDG_DATA_HOME", dir.path().join("data-home"))
                .env(io_harness::USER_CONFIG_ENV, "")
                .args(args)
                .args(["--config", "io.toml", "--store"])
                .arg(place.location())
                .output()
                .unwrap();
            assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8(out.stdout).unwrap()
        };
        cmd("ann", &["run", "--demo"]);
        cmd("bob", &["run", "--demo"]);
        let all: serde_json::Value = serde_json::from_str(&cmd("ann", &["runs", "--json"])).unwrap();
        let users: Vec<&str> = all.as_array().unwrap().iter().map(|r| r["user"].as_str().unwrap()).collect();
        assert_eq!(users, ["bob", "ann"]);
        assert!(all[0]["host"].as_str().is_some_and(|h| !h.is_empty()), "{all}");
        let mine: serde_json::Value =
            serde_json::from_str(&cmd("ann", &["runs", "--json", "--mine"])).unwrap();
        assert_eq!(mine.as_array().unwrap().len(), 1, "{mine}");
        assert_eq!(mine[0]["user"], "ann");
        let table = cmd("bob", &["runs", "--mine"]);
        assert!(table.contains("bob@") && !table.contains("ann@"), "{table}");
    }
}

/// A child process of this test binary, claiming run `IO_HARNESS_CLAIM_RUN`
/// of store `IO_HARNESS_CLAIM_AT`: prints `granted` or the refusal, and stays
/// alive a while when granted (a live holder).
#[test]
fn claim_child() {
    let (Ok(at), Ok(run)) = (
        std::env::var("IO_HARNESS_CLAIM_AT"),
        std::env::var("IO_HARNESS_CLAIM_RUN"),
    ) else {
        return;
    };
    let store = io_harness::Store::open(&at).unwrap();
    // All at the same moment (given by the parent), to meet in the claim.
    if let Some(start) = std::env::var("IO_HARNESS_CLAIM_START")
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
    {
        let wait = start - chrono::Utc::now().timestamp_millis();
        if wait > 0 {
            std::thread::sleep(std::time::Duration::from_millis(wait.unsigned_abs()));
        }
    }
    match store.claim_run(RunId(run.parse().unwrap())) {
        Ok(()) => {
            println!("CLAIM: granted");
            std::thread::sleep(std::time::Duration::from_secs(4));
        }
        Err(e) => println!("CLAIM: refused: {e}"),
    }
}

on_both_engines! {
    fn of_four_processes_claiming_one_run_at_once_exactly_one_proceeds(place) {
        let store = place.open();
        let id = new_run(&store);
        // Nobody holds it (an older release's interrupted run).
        place.exec(&format!("UPDATE runs SET runner_pid = NULL WHERE run_id = {id}"));
        let start = (chrono::Utc::now().timestamp_millis() + 1500).to_string();
        let children: Vec<_> = (0..4)
            .map(|_| {
                std::process::Command::new(std::env::current_exe().unwrap())
                    .args(["--exact", "store_team::claim_child", "--nocapture", "--test-threads", "1"])
                    .env("IO_HARNESS_CLAIM_AT", place.location())
                    .env("IO_HARNESS_CLAIM_RUN", id.to_string())
                    .env("IO_HARNESS_CLAIM_START", &start)
                    .stdout(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let said: Vec<String> = children
            .into_iter()
            .map(|c| {
                let out = c.wait_with_output().unwrap();
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .find_map(|l| l.find("CLAIM: ").map(|at| l[at..].to_string()))
                    .unwrap_or_else(|| "CLAIM: (nothing)".to_string())
            })
            .collect();
        assert_eq!(said.iter().filter(|s| *s == "CLAIM: granted").count(), 1, "{said:#?}");
        assert!(
            said.iter()
                .filter(|s| *s != "CLAIM: granted")
                .all(|s| s.contains(&format!("run {id} is being run by")) && s.contains("once that process has ended")),
            "{said:#?}"
        );
    }
}
