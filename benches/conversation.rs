//! The conversation modes on a ten-step Anthropic search run (`tests/common/cost.rs`):
//! each mode's run timed on the stub, flattened without cache the baseline, and
//! — what the mode is chosen on — each mode's input-side cost at the built-in
//! prices under the stub's emulation of the published cache accounting, printed
//! once as docs/run.md's table.

use criterion::{Criterion, criterion_group, criterion_main};
use io_harness::core::transcript::{CacheTtl, Conversation};

#[path = "../tests/all/common/cost.rs"]
mod cost;

const MODES: [(&str, Conversation, Option<CacheTtl>); 4] = [
    ("flattened", Conversation::Flattened, None),
    (
        "flattened + cache",
        Conversation::Flattened,
        Some(CacheTtl::FiveMinutes),
    ),
    ("transcript", Conversation::Transcript, None),
    (
        "transcript + cache",
        Conversation::Transcript,
        Some(CacheTtl::FiveMinutes),
    ),
];

fn conversation(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let base = rt.block_on(cost::input_cost(Conversation::Transcript, None));
    eprintln!("\nmode | input | cache write | cache read | input-side cost | vs transcript");
    for (name, conversation, cache) in MODES {
        let c = rt.block_on(cost::input_cost(conversation, cache));
        eprintln!(
            "{name} | {} | {} | {} | ${:.6} | {:.3}x",
            c.input,
            c.cache_write,
            c.cache_read,
            c.micro_usd as f64 / 1e6,
            c.micro_usd as f64 / base.micro_usd as f64
        );
    }
    let mut g = c.benchmark_group("conversation");
    g.sample_size(10);
    for (name, conversation, cache) in MODES {
        let label = if conversation == Conversation::Flattened && cache.is_none() {
            "baseline: flattened, ten steps on the stub".to_string()
        } else {
            format!("{name}, ten steps on the stub")
        };
        g.bench_function(label, |b| {
            b.iter(|| rt.block_on(cost::input_cost(conversation, cache)))
        });
    }
    g.finish();
}

criterion_group!(benches, conversation);
criterion_main!(benches);
