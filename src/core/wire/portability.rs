//! The portability view: every wire's verdict on one declaration, as the console's
//! every-wire list shows it — the capability table's refusal, else a limit the
//! wire has with the model it would be sent (`limits`), and what the cap becomes.

use super::limits;
use crate::core::capability::{Cap, carries};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

/// One wire's verdict on a declaration, for the portability view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The wire.
    pub wire: Wire,
    /// `None` when carried; the refusal text when not.
    pub refusal: Option<String>,
    /// The refusal in a few words (`fetch: its web plugin runs searches only`).
    pub reason: Option<String>,
    /// What the cap becomes there (when one is declared).
    pub cap: Cap,
}

/// Every wire's verdict on a declaration, in `Wire::ALL` order, each as sent to
/// `model(vendor)` (a few limits depend on the model: `limits`).
pub fn portability(web: Option<&WebAccess>, model: impl Fn(Vendor) -> String) -> Vec<Verdict> {
    Wire::ALL
        .into_iter()
        .map(|wire| {
            let model = model(wire.vendor());
            let enabled = web.filter(|w| w.enabled());
            let refusal = carries(wire, web).err().map(|e| e.to_string()).or_else(|| {
                enabled
                    .and_then(|w| limits::model_refusal(wire, &model, w))
                    .map(|r| r.to_string())
            });
            let short = enabled.and_then(|w| {
                let row = wire.capabilities();
                match row.first_refused(w) {
                    Some(f) => Some(format!(
                        "{}: {}",
                        f.noun(),
                        row.reason(f).unwrap_or_default()
                    )),
                    None => limits::model_limit(wire, &model, w)
                        .map(|l| format!("{} with {model}: {}", l.feature.noun(), l.why)),
                }
            });
            Verdict {
                wire,
                reason: refusal.as_ref().map(|r| short.unwrap_or_else(|| r.clone())),
                refusal,
                cap: wire.capabilities().cap,
            }
        })
        .collect()
}
