//! How a check may fetch: the largest page read, one URL's time limit (fetch,
//! redirects and reading together) and how many pages at once.

use std::time::Duration;

/// How a check may fetch.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The largest page read, in bytes.
    pub max_bytes: usize,
    /// Connect to last byte, one page.
    pub timeout: Duration,
    /// Pages fetched at once.
    pub parallel: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 5 << 20,
            timeout: Duration::from_secs(20),
            parallel: 4,
        }
    }
}
