//! Where run events go: the `Observer` trait, and the `Emitter` the loop uses to
//! stamp each `EventKind` with its run, step and elapsed time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use tokio::sync::mpsc;

use crate::core::event::{Event, EventKind};
use crate::core::id::RunId;
use crate::provider::AttemptSink;

/// Receives every event of a run as it happens. Must not block.
pub trait Observer: Send + Sync {
    /// One event.
    fn event(&self, event: &Event);
}

/// Ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    fn event(&self, _: &Event) {}
}

impl Observer for mpsc::UnboundedSender<Event> {
    fn event(&self, event: &Event) {
        // A receiver that went away (the console closed) must not stop the run.
        let _ = self.send(event.clone());
    }
}

/// Stamps and forwards events for one run.
pub struct Emitter {
    run_id: RunId,
    started: Instant,
    step: AtomicU32,
    observer: Arc<dyn Observer>,
}

impl Emitter {
    /// An emitter for `run_id`, counting time from now.
    pub fn new(run_id: RunId, observer: Arc<dyn Observer>) -> Self {
        Emitter {
            run_id,
            started: Instant::now(),
            step: AtomicU32::new(0),
            observer,
        }
    }

    /// Set the step later events belong to.
    pub fn set_step(&self, step: u32) {
        self.step.store(step, Ordering::Relaxed);
    }

    /// Milliseconds since the run started.
    pub fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// When the run started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Send one event.
    pub fn emit(&self, kind: EventKind) {
        self.observer.event(&Event {
            run_id: self.run_id,
            step: self.step.load(Ordering::Relaxed),
            elapsed_ms: self.elapsed_ms(),
            kind,
        });
    }
}

impl AttemptSink for Emitter {
    fn emit(&self, kind: EventKind) {
        Emitter::emit(self, kind);
    }
}
