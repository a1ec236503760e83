//! What `check-sources` found of one citation: `Verdict`, the word every view
//! reads (stored in `citation_checks.verdict`, printed, sent as JSON), and what
//! each verdict says about the source.
//!
//! A verdict that reached the page (`found`, `not_found`, `no_quote`) is about
//! the source; one that did not (`not_allowed` by the policy, `unreachable`)
//! says nothing about it — the citation stays unchecked for every figure
//! (`core::claims`), and a view says why nothing was read. Pure vocabulary.

crate::core::word::word! {
    /// One citation's verdict.
    pub enum Verdict ("verdict") {
        /// The quoted text is on the page.
        Found = "found",
        /// The page was read; the quoted text is not on it.
        NotFound = "not_found",
        /// The page was read; the vendor gave no quote to look for.
        NoQuote = "no_quote",
        /// The page could not be fetched or read (status, error, not text).
        Unreachable = "unreachable",
        /// The policy does not allow fetching it: nothing was fetched.
        NotAllowed = "not_allowed",
    }
}

impl Verdict {
    /// The page was fetched and read: the verdict is about the source.
    pub fn reached_page(self) -> bool {
        matches!(self, Verdict::Found | Verdict::NotFound | Verdict::NoQuote)
    }

    /// The page supports the citation (its quote is on it).
    pub fn supports(self) -> bool {
        self == Verdict::Found
    }
}
