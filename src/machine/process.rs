//! Which process runs a run, and whether it still does. A run records the pid, the
//! host name and (on Linux) a token naming this boot and this process's start
//! time; a reader calls a run with no outcome `interrupted` when that process is
//! known to be gone: same host, and either the boot changed, the pid no longer
//! exists (or is a zombie), or the pid now belongs to a process started later.
//!
//! Why a liveness check rather than a heartbeat: it needs no writer thread and no
//! clock threshold, it is right the moment a process dies (kill -9 included), and
//! it never calls a long request or a suspended laptop dead. What it cannot see —
//! a run on another host (a shared file system), a platform without process
//! queries — stays "running", as before: unknown is never reported as dead.

/// The process running a run, as recorded in `runs.runner_*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Runner {
    pub pid: i64,
    pub host: Option<String>,
    pub token: Option<String>,
}

/// This process.
pub(crate) fn current() -> Runner {
    let pid = i64::from(std::process::id());
    Runner {
        pid,
        host: host(),
        token: token(pid),
    }
}

/// True only when the recorded runner is known to be gone.
pub(crate) fn is_gone(recorded: &Runner) -> bool {
    let here = host();
    if recorded.host.is_none() || recorded.host != here {
        return false;
    }
    if !exists(recorded.pid) {
        return true;
    }
    match (&recorded.token, token(recorded.pid)) {
        // Same pid, another boot or a later process: the recorded one is gone.
        (Some(then), Some(now)) => *then != now,
        _ => false,
    }
}

/// True only when the recorded runner is another process on this host that is
/// known to be alive (the same pid, started at the same time).
pub(crate) fn is_other_live(recorded: &Runner) -> bool {
    let me = current();
    recorded.pid != me.pid
        && recorded.host.is_some()
        && recorded.host == me.host
        && exists(recorded.pid)
        && recorded.token == token(recorded.pid)
}

#[cfg(unix)]
fn host() -> Option<String> {
    let name = rustix::system::uname();
    let name = name.nodename().to_string_lossy().into_owned();
    (!name.is_empty()).then_some(name)
}

#[cfg(not(unix))]
fn host() -> Option<String> {
    None
}

#[cfg(unix)]
fn exists(pid: i64) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => !is_zombie(pid.as_raw_nonzero().get()),
        Err(e) => e != rustix::io::Errno::SRCH,
    }
}

#[cfg(not(unix))]
fn exists(_pid: i64) -> bool {
    true
}

/// The fields of `/proc/PID/stat` after the command name (which may hold spaces).
fn stat_fields(pid: i64) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_string).collect())
}

#[cfg(unix)]
fn is_zombie(pid: i32) -> bool {
    stat_fields(i64::from(pid)).is_some_and(|f| f.first().is_some_and(|s| s == "Z" || s == "X"))
}

/// Who runs this process, as a team's store records it beside each run:
/// `IO_HARNESS_USER` when set (a shared account's operators tell themselves
/// apart with it), else the login name (`USER`, `LOGNAME`, `USERNAME`).
pub(crate) fn user() -> Option<String> {
    ["IO_HARNESS_USER", "USER", "LOGNAME", "USERNAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
}

/// `BOOT_ID:START_TICKS` on Linux: a pid reused after a reboot or by a later
/// process gets another token.
pub(crate) fn token(pid: i64) -> Option<String> {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    // Field 22 of the stat line: the third after the name is field 3.
    let start = stat_fields(pid)?.get(22 - 3)?.clone();
    Some(format!("{}:{start}", boot.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_dead_child_is_gone() {
        let me = current();
        assert!(!is_gone(&me));
        #[allow(clippy::unwrap_used)]
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = i64::from(child.id());
        #[allow(clippy::unwrap_used)]
        child.wait().unwrap();
        let dead = Runner {
            pid,
            host: me.host.clone(),
            token: token(pid).or(me.token.clone()),
        };
        assert!(is_gone(&dead));
        let elsewhere = Runner {
            host: Some("another-host.invalid".into()),
            ..dead
        };
        assert!(!is_gone(&elsewhere), "unknown is not dead");
    }
}
