//! anthropic wire (being written).
use crate::core::completion::Completion;
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::vendor::Endpoint;
use crate::core::web::WebAccess;
use crate::error::{Error, Result};
/// Encode.
pub fn encode(_e: &Endpoint, _t: &Turn) -> Result<WireRequest> {
    Err(Error::config("anthropic wire not written yet"))
}
/// Decode.
pub fn decode(_r: &WireResponse) -> Result<Completion> {
    Err(Error::config("anthropic wire not written yet"))
}
/// Check.
pub fn check(_w: &WebAccess) -> Result<()> {
    Ok(())
}
/// Cautions.
pub fn cautions(_w: &WebAccess) -> Vec<String> {
    Vec::new()
}
