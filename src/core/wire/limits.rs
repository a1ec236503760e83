//! Limits a wire has with some models only, as data: a wire, a model-id prefix,
//! the declared feature the vendor documents as ignored or unsupported there, and
//! what to do instead. `encode` refuses from this table and the console's
//! every-wire list reads it, so the two cannot disagree.
//!
//! Today's rows are OpenRouter's search tool (`WebSearchServerToolConfig`, its SDK
//! API reference on openrouter.ai/docs): with the default engine the model's native
//! search runs, so the model's vendor prefix decides. `excluded_domains` is "Not
//! supported with OpenAI (silently ignored)"; neither list is supported with
//! Perplexity. A boundary dropped in silence is refused before sending.

use crate::core::refusal::{Asked, Feature, Refusal};
use crate::core::vendor::Wire;
use crate::core::web::WebAccess;

/// One limit: on `wire`, for models whose id starts with `prefix`, `feature`
/// (declared for search) cannot be carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelLimit {
    /// The wire.
    pub wire: Wire,
    /// The model-id prefix it applies to (`openai/`).
    pub prefix: &'static str,
    /// The declared list the vendor ignores or refuses for those models.
    pub feature: Feature,
    /// Why, in the vendor's terms.
    pub why: &'static str,
    /// What to do instead; `{allowed}` and `{blocked}` stand for the lists.
    pub instead: &'static str,
}

/// Every model-specific limit, checked in order.
pub const MODEL_LIMITS: [ModelLimit; 3] = [
    ModelLimit {
        wire: Wire::OpenRouterServerTools,
        prefix: "openai/",
        feature: Feature::BlockList,
        why: "OpenRouter documents excluded_domains as silently ignored with OpenAI's native search",
        instead: "state the hosts to allow instead of the ones to block ({blocked}), or use \
                  provider \"anthropic\"",
    },
    ModelLimit {
        wire: Wire::OpenRouterServerTools,
        prefix: "perplexity/",
        feature: Feature::AllowList,
        why: "OpenRouter documents allowed_domains as not supported with Perplexity",
        instead: "remove the allowed domains ({allowed}) or choose another model",
    },
    ModelLimit {
        wire: Wire::OpenRouterServerTools,
        prefix: "perplexity/",
        feature: Feature::BlockList,
        why: "OpenRouter documents excluded_domains as not supported with Perplexity",
        instead: "remove the blocked domains ({blocked}) or choose another model",
    },
];

/// The first limit a search declaration runs into on `wire` with `model`.
pub fn model_limit(wire: Wire, model: &str, web: &WebAccess) -> Option<&'static ModelLimit> {
    if !web.search {
        return None;
    }
    let (allowed, blocked) = web.vendor_filter();
    MODEL_LIMITS.iter().find(|l| {
        l.wire == wire
            && model.starts_with(l.prefix)
            && match l.feature {
                Feature::AllowList => !allowed.is_empty(),
                Feature::BlockList => !blocked.is_empty(),
                Feature::Fetch => web.fetch,
                Feature::Cap => web.max_uses.is_some(),
                Feature::Location => web.location.is_some(),
                Feature::XSearch => web.x_search,
            }
    })
}

/// The refusal for a declaration `wire` cannot carry with `model`, or `None`.
pub fn model_refusal(wire: Wire, model: &str, web: &WebAccess) -> Option<Refusal> {
    let limit = model_limit(wire, model, web)?;
    let (allowed, blocked) = web.vendor_filter();
    let vendor = wire.vendor();
    let setting = wire.choice();
    let what = limit.feature.refused_as();
    let instead = limit
        .instead
        .replace("{allowed}", &allowed.join(", "))
        .replace("{blocked}", &blocked.join(", "));
    let text = format!(
        "provider \"{vendor}\" with {setting} cannot {what} for model \"{model}\" — {}; \
         {instead}. No request was sent.",
        limit.why
    );
    let asked = Asked::FeatureOnModel {
        feature: limit.feature,
        model: model.to_string(),
    };
    Some(Refusal::new(wire, asked, limit.why, instead, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_applies_to_its_wire_its_models_and_search_only() {
        let block = WebAccess::search().block("evil.test");
        let wire = Wire::OpenRouterServerTools;
        assert!(model_limit(wire, "openai/gpt-5.2", &block).is_some());
        assert!(model_limit(wire, "anthropic/claude-sonnet-4.5", &block).is_none());
        assert!(model_limit(Wire::OpenRouterPlugin, "openai/gpt-5.2", &block).is_none());
        let fetch_only = WebAccess {
            search: false,
            ..WebAccess::search().with_fetch().block("evil.test")
        };
        assert!(model_limit(wire, "openai/gpt-5.2", &fetch_only).is_none());
        let allow = WebAccess::search().allow("docs.rs");
        assert_eq!(
            model_refusal(wire, "perplexity/sonar", &allow)
                .as_ref()
                .map(|r| r.text()),
            Some(
                "provider \"openrouter\" with api = \"server-tools\" cannot restrict search to \
                 individual domains for model \"perplexity/sonar\" — OpenRouter documents \
                 allowed_domains as not supported with Perplexity; remove the allowed domains \
                 (docs.rs) or choose another model. No request was sent."
            )
        );
    }
}
