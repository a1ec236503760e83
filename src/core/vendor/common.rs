//! Shared vendor helpers.
