//! Text helpers with no I/O: what the loop, the tools and the transport all use to
//! keep a long text to a bounded size, and what every command-line printing path
//! uses to show untrusted text on a terminal without the terminal acting on it.

use std::borrow::Cow;

/// Cut text to `max` characters, saying so.
pub fn shorten(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let mut s: String = text.chars().take(max).collect();
    s.push_str(" … (truncated)");
    s
}

/// A share (0 to 1) as a whole percentage, `—` when there is none: how every
/// view shows cited and verified shares, recall and accuracy.
pub fn share(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), |v| format!("{:.0}%", v * 100.0))
}

/// Text on one line: every run of white space (line breaks included) one
/// space, none at either end.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text as a terminal should show it: every control character written out
/// (`\x1b` for ESC, `\x07` for BEL, `\x9b` for the C1 CSI, `\x7f` for DEL) but
/// a line feed, a tab and the carriage return of a `\r\n`, so a vendor's text,
/// a query, a URL or a title cannot clear the screen, set the clipboard (OSC
/// 52), hide a link (OSC 8) or overwrite a line. Borrowed when nothing needs it.
pub fn visible(text: &str) -> Cow<'_, str> {
    written_out(text, Form::Terminal)
}

/// JSON text (as serde_json writes it) with the control characters serde
/// leaves raw inside strings, DEL and the C1 range, escaped as JSON escapes
/// (`\u009b`): the same JSON value, and nothing a terminal would act on. Serde
/// escapes the C0 range itself; a line feed outside a string is layout.
pub fn json_visible(text: &str) -> Cow<'_, str> {
    written_out(text, Form::Json)
}

/// How a control character is written out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Terminal,
    Json,
}

fn written_out(text: &str, form: Form) -> Cow<'_, str> {
    let mut chars = text.chars().peekable();
    let mut out: Option<String> = None;
    let mut at = 0;
    while let Some(c) = chars.next() {
        let layout = match form {
            Form::Terminal => c == '\n' || c == '\t' || (c == '\r' && chars.peek() == Some(&'\n')),
            Form::Json => c == '\n',
        };
        if c.is_control() && !layout {
            let s = out.get_or_insert_with(|| {
                let mut s = String::with_capacity(text.len() + 8);
                s.push_str(&text[..at]);
                s
            });
            s.push_str(&match form {
                Form::Terminal => format!("\\x{:02x}", u32::from(c)),
                Form::Json => format!("\\u{:04x}", u32::from(c)),
            });
        } else if let Some(s) = out.as_mut() {
            s.push(c);
        }
        at += c.len_utf8();
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_written_out() {
        assert!(matches!(visible("plain\ttext\nline"), Cow::Borrowed(_)));
        assert_eq!(
            visible("a\x1b[2Jb\x1b]52;c;aGk=\x07c"),
            "a\\x1b[2Jb\\x1b]52;c;aGk=\\x07c"
        );
        assert_eq!(
            visible("\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\"),
            "\\x1b]8;;https://x\\x1b\\link\\x1b]8;;\\x1b\\"
        );
        // C1 (the one-character CSI), DEL, NUL, backspace.
        assert_eq!(visible("é\u{9b}2J\x7f\0\x08"), "é\\x9b2J\\x7f\\x00\\x08");
        // A lone carriage return overwrites the line; a CRLF ends one.
        assert_eq!(visible("ok\rfake\r\nnext"), "ok\\x0dfake\r\nnext");
        assert_eq!(visible("end\r"), "end\\x0d");
    }

    #[test]
    fn json_keeps_its_value_and_loses_its_raw_controls() {
        let value = serde_json::json!({"t": "a\u{1b}[2J\u{9b}b\u{7f}\n\u{85}"});
        let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
        let shown = json_visible(&pretty);
        assert!(
            !shown.chars().any(|c| c.is_control() && c != '\n'),
            "{shown}"
        );
        assert!(
            shown.contains("\\u001b[2J\\u009bb\\u007f\\n\\u0085"),
            "{shown}"
        );
        let back: serde_json::Value = serde_json::from_str(&shown).unwrap_or_default();
        assert_eq!(back, value);
    }
}
