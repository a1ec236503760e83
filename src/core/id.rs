//! The ids of the store's records as types: a run, a run group (a comparison),
//! an eval, a session. Each is the database's number and nothing else — never
//! made up by a process — and none can be passed where another is meant.
//! Serialised as the bare number (JSON and the command line print it as is).

/// Defines an id newtype over the database's integer.
macro_rules! id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl std::fmt::Display for $name {
            /// The number, honouring width and alignment (`{:>5}` pads it).
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&self.0, f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::num::ParseIntError;
            /// The number as written (`7`), as the command line takes it.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.parse().map($name)
            }
        }

        impl From<i64> for $name {
            fn from(n: i64) -> Self {
                $name(n)
            }
        }
    };
}

id!(
    /// A run's id in the store.
    RunId
);
id!(
    /// A run group's id: the runs of one comparison, replay or eval question.
    GroupId
);
id!(
    /// An eval's id.
    EvalId
);
id!(
    /// A session's id: the runs that are turns of one conversation.
    SessionId
);
