//! Text from outside (a vendor's titles and quotes, a question file's ids, a
//! refusal's words) made inert for the documents the exports write: Markdown
//! that renders as written and does nothing, and CSV cells a spreadsheet will
//! not run (OWASP's CSV-injection guidance). The sources' export and the eval's
//! Markdown and CSV both write through these. Pure.

use crate::core::text::one_line;

/// A CSV cell a spreadsheet will not run: one beginning with `=`, `+`, `-`, `@`,
/// a tab or a carriage return gets a leading `'` (OWASP, CSV injection).
pub fn csv_cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

/// Text that renders as written and does nothing: on one line, control characters
/// dropped, `&`, `<` and `>` as HTML entities (no raw HTML, no autolink), and
/// every other character Markdown acts on inline backslash-escaped (no link,
/// image, emphasis, code span, strikethrough or table cell), and a leading `#`,
/// `-`, `+`, `=` or `1.` escaped so it begins no block.
pub fn markdown(text: &str) -> String {
    let mut out = String::new();
    let line = one_line(text);
    let mut chars = line.chars().filter(|c| !c.is_control()).peekable();
    let mut at_start = true;
    while let Some(ch) = chars.next() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '!' | '|' | '~' | '$' => {
                out.push('\\');
                out.push(ch);
            }
            // A heading, a list item or a rule only begins a line.
            '#' | '-' | '+' | '=' if at_start => {
                out.push('\\');
                out.push(ch);
            }
            // `1.` or `1)` at the start would begin an ordered list.
            '0'..='9' if at_start => {
                out.push(ch);
                while let Some(d) = chars.next_if(char::is_ascii_digit) {
                    out.push(d);
                }
                if let Some(mark) = chars.next_if(|c| matches!(c, '.' | ')')) {
                    out.push('\\');
                    out.push(mark);
                }
            }
            ch => out.push(ch),
        }
        at_start = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_cell_a_spreadsheet_would_run_gets_a_quote() {
        for bad in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(csv_cell(bad), format!("'{bad}"));
        }
        for fine in ["1", "a=b", "https://x.test/-", "'quoted", ""] {
            assert_eq!(csv_cell(fine), fine);
        }
    }

    #[test]
    fn markdown_text_is_inert() {
        assert_eq!(markdown("# head"), "\\# head");
        assert_eq!(markdown("- item"), "\\- item");
        assert_eq!(markdown("12. item"), "12\\. item");
        assert_eq!(markdown("a - b 1. c #d"), "a - b 1. c #d");
        assert_eq!(
            markdown("<img src=x onerror=y> &amp; ![i](u) `c` *e*"),
            "&lt;img src=x onerror=y&gt; &amp;amp; \\!\\[i\\]\\(u\\) \\`c\\` \\*e\\*"
        );
        assert_eq!(
            markdown("a\u{0}b\u{1b}[31mc\u{7f}\u{9b}d\ne"),
            "ab\\[31mcd e"
        );
    }
}
