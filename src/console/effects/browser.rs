//! Opening a URL in a browser (`o` on Sources): the program `BROWSER` names
//! when it is set, else the desktop's opener (`xdg-open`, `gio open`, … as the
//! `open` crate finds them). When none works, the notice says so in words and
//! how to name one, not the launcher's exit status.

use crate::console::state::Msg;

/// Open `url`; what to say of it.
pub fn open_url(url: &str) -> Msg {
    let opened = match std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
    {
        Some(browser) => std::process::Command::new(browser.trim())
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map(|_| ())
            .map_err(|e| format!("BROWSER={browser}: {e}")),
        None => open::that_detached(url).map_err(|e| e.to_string()),
    };
    match opened {
        Ok(()) => Msg::info(format!("opened {url}")),
        Err(why) => Msg::error(cannot_open(url, &why)),
    }
}

/// What a failed open says: that no program here opens URLs, how to name one,
/// and the launcher's own words last.
pub fn cannot_open(url: &str, why: &str) -> String {
    format!(
        "cannot open {url}: no program on this machine opens URLs. Set BROWSER to one \
         before starting the console (e.g. `BROWSER=firefox io-harness`), or press c to \
         copy the URL instead. ({why})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_open_says_what_to_do() {
        let said = cannot_open(
            "https://docs.rs/a",
            "Launcher \"gio\" \"open\" \"https://docs.rs/a\" failed with ExitStatus(unix_wait_status(512))",
        );
        assert!(
            said.starts_with(
                "cannot open https://docs.rs/a: no program on this machine opens URLs. Set BROWSER"
            ),
            "{said}"
        );
        assert!(said.contains("press c to copy"), "{said}");
    }
}
