//! Exit codes: 0 success (for `run`: the verification passed), 1 a run that
//! ended without passing or a failure while working, 2 a configuration error
//! or a refusal before any request. The error is printed once, on stderr.

use std::process::ExitCode;

use io_harness::Error;

/// The exit code of a run (or a group of runs): 0 passed, 1 ended without
/// passing, else the error's.
pub fn verdict(result: io_harness::Result<bool>) -> ExitCode {
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => fail(&e),
    }
}

/// Print an error and pick its exit code.
pub fn fail(e: &Error) -> ExitCode {
    super::out::note(&e.to_string());
    if e.before_anything() {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}
