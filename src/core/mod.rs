//! The pure core: declarations, the vendor wire and decoding, events. No async, no
//! network, no disk, no clock, no terminal — a test scans this directory to keep it
//! so. Everything here is data and functions of data.

pub mod capability;
pub mod claims;
pub mod compare;
pub mod completion;
pub mod contract;
pub mod counts;
pub mod endpoint;
pub mod error;
pub mod eval;
pub mod event;
pub mod figures;
pub mod host;
pub mod id;
pub mod inert;
pub mod link;
pub mod location;
pub mod money;
pub mod narrow;
pub mod outcome;
pub mod plan;
pub mod policy;
pub mod price;
pub mod query;
pub mod record;
pub mod refusal;
pub mod suggestions;
pub mod text;
pub mod tools;
pub mod transcript;
pub mod turn;
pub mod vendor;
pub mod verdict;
pub mod web;
pub mod wire;
pub mod word;
