//! A refusal as a value: what a vendor cannot carry, said before anything is
//! sent. `Refusal` holds the vendor, the wire, what was asked, why it cannot be
//! done and what to do instead, and the text an operator reads — the spec's
//! text, byte for byte, where the spec gives one (`core::capability` builds
//! those). A refusal ends a command before any request with exit 2, as a
//! configuration error does; unlike one, it says which vendor and which wire,
//! so a comparison or an eval can record it for that vendor alone.
//!
//! Below every declaration and wire file: it names only the vocabulary.

use std::fmt;

use crate::core::vendor::{Vendor, Wire};

/// A declared feature a wire may not carry, in the order refusals are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// Provider-executed fetch.
    Fetch,
    /// An allow-list that survived `vendor_filter`.
    AllowList,
    /// A block-list that survived `vendor_filter`.
    BlockList,
    /// A cap on web tool use (`max_uses`).
    Cap,
    /// Where the user is (`location`), for a search.
    Location,
    /// A search of X's posts (`x_search`, xAI's tool).
    XSearch,
}

impl Feature {
    /// The feature in a word or two: `fetch`, `allow-list`, `block-list`.
    pub fn noun(self) -> &'static str {
        match self {
            Feature::Fetch => "fetch",
            Feature::AllowList => "allow-list",
            Feature::BlockList => "block-list",
            Feature::Cap => "max_uses",
            Feature::Location => "location",
            Feature::XSearch => "x_search",
        }
    }

    /// What a refusal says cannot be done: `… cannot {this} — …`.
    pub fn refused_as(self) -> &'static str {
        match self {
            Feature::Fetch => "fetch pages",
            Feature::AllowList => "restrict search to individual domains",
            Feature::BlockList => "block individual domains",
            Feature::Cap => "cap web tool use",
            Feature::Location => "localise search to a location",
            Feature::XSearch => "search X posts (x_search)",
        }
    }
}

/// What was asked that cannot be done as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// A feature of the web declaration, on every model of the wire.
    Feature(Feature),
    /// A feature of the web declaration, on one model of the wire.
    FeatureOnModel {
        /// The feature.
        feature: Feature,
        /// The model that cannot carry it.
        model: String,
    },
    /// A declaration whose block-list empties its allow-list: no host is allowed,
    /// and sending no filter would allow every host.
    NoHost,
    /// A model name the wire cannot carry (Gemini puts it in the URL).
    ModelName(String),
    /// An endpoint naming a wire that belongs to another vendor.
    AnotherVendorsWire,
    /// More entries in a list than the wire takes (xAI's five domains, its
    /// ten X handles; Perplexity's twenty domains).
    TooMany {
        /// The list (`allowed_domains`, `x_handles`).
        list: &'static str,
        /// How many the wire takes.
        limit: usize,
        /// How many were given.
        given: usize,
    },
    /// A task that can only pass through a local tool (a workspace
    /// verification), on a wire that offers the model none (Sonar).
    LocalTools,
}

/// A request the vendor will not be sent, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The vendor that would have been asked.
    pub vendor: Vendor,
    /// The wire it would have been asked on.
    pub wire: Wire,
    /// What was asked.
    pub asked: Asked,
    /// Why it cannot be carried (the capability table's reason, or the limit's).
    pub why: String,
    /// What to do instead.
    pub instead: String,
    /// The whole text, as printed (the spec's, where it gives one).
    text: String,
}

impl Refusal {
    /// A refusal with its text: the builders in `core::capability` (and the
    /// wires' own checks) render the text from the same parts they pass here.
    pub fn new(
        wire: Wire,
        asked: Asked,
        why: impl Into<String>,
        instead: impl Into<String>,
        text: impl Into<String>,
    ) -> Refusal {
        Refusal {
            vendor: wire.vendor(),
            wire,
            asked,
            why: why.into(),
            instead: instead.into(),
            text: text.into(),
        }
    }

    /// The text an operator reads: what cannot be done, why, what to do, and
    /// that nothing was sent.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for Refusal {}
