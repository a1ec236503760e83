//! Text helpers with no I/O: what the loop, the tools and the transport all use to
//! keep a long text to a bounded size.

/// Cut text to `max` characters, saying so.
pub fn shorten(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let mut s: String = text.chars().take(max).collect();
    s.push_str(" … (truncated)");
    s
}
