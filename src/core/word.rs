//! The domain's closed words: each an enum whose spelling (in io.toml, the
//! store's columns, JSON and on screen) is written once, here, by `word!`. A
//! word is parsed from a string only at an edge, and a spelling this build does
//! not know is an `UnknownWord` naming what was given and what is known — never
//! a guess and never a silent default.
//!
//! Imports nothing of the crate.

use std::fmt;

/// A spelling that is no word of its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownWord {
    /// What kind of word was expected (`outcome`, `verdict`).
    pub kind: &'static str,
    /// What was given.
    pub given: String,
    /// Every spelling of the kind.
    pub known: Vec<&'static str>,
}

impl fmt::Display for UnknownWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} \"{}\"; use one of: {}",
            self.kind,
            self.given,
            self.known.join(", ")
        )
    }
}

impl std::error::Error for UnknownWord {}

/// A closed word: its kind, every value, and each value's one spelling.
pub trait Word: Copy + Sized + 'static {
    /// What kind of word it is, for errors (`outcome`).
    const KIND: &'static str;
    /// Every value, in display order.
    const ALL: &'static [Self];
    /// The spelling.
    fn as_str(self) -> &'static str;
    /// The value spelled `s`, or what was wrong.
    fn parse_word(s: &str) -> Result<Self, UnknownWord> {
        Self::ALL
            .iter()
            .copied()
            .find(|w| w.as_str() == s)
            .ok_or_else(|| UnknownWord {
                kind: Self::KIND,
                given: s.to_string(),
                known: Self::ALL.iter().map(|w| w.as_str()).collect(),
            })
    }
}

/// Defines a closed word: the enum, its spellings (serde uses the same), `Word`,
/// `Display` and `FromStr`.
macro_rules! word {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($kind:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $spelling:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $spelling)] $variant, )+
        }

        impl $crate::core::word::Word for $name {
            const KIND: &'static str = $kind;
            const ALL: &'static [$name] = &[$($name::$variant,)+];
            fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $spelling, )+
                }
            }
        }

        impl $name {
            /// The spelling (`Word::as_str`).
            pub fn as_str(self) -> &'static str {
                $crate::core::word::Word::as_str(self)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::core::word::UnknownWord;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$name as $crate::core::word::Word>::parse_word(s)
            }
        }
    };
}

pub(crate) use word;
