//! SSE framing for a rendered stream: one frame per event, and text cut into the
//! small pieces a vendor streams it in. `render` and each wire's own rendering use
//! it.

use serde_json::Value;

/// How many characters each rendered text or JSON piece carries at most.
const PIECE: usize = 24;

/// One frame: `event:` where the wire names events, then the data line.
pub(crate) fn frame(name: Option<&str>, data: &Value) -> String {
    let data = data.to_string();
    match name {
        Some(n) => format!("event: {n}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// Text cut into pieces of at most `PIECE` characters, on character boundaries.
pub(crate) fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(PIECE)
        .map(|c| c.iter().collect::<String>())
        .collect()
}
