//! Where a mistake in io.toml is: a key path (`Seg`), a problem found with a key
//! after the file parsed (`Problem`), and the line of a byte offset — what the
//! range checks, the error messages, `[policy]` and `io-harness config` all need.

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// A key.
    Key(String),
    /// An element of an array (of tables).
    Index(usize),
}

impl From<&str> for Seg {
    fn from(k: &str) -> Self {
        Seg::Key(k.to_string())
    }
}

/// A problem found after the file parsed (a range check), located by its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The key it is about.
    pub path: Vec<Seg>,
    /// What is wrong and what is expected, after the subject.
    pub message: String,
}

/// The 1-based line of a byte offset (on a character boundary at or before it).
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].matches('\n').count() + 1
}
