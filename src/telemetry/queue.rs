//! The way out: a span processor with a bounded queue (`try_send`: a full queue
//! drops the span and counts it, never waits) drained by one thread of its own
//! that scrubs every secret from the spans, batches them and hands them to the
//! OTLP exporter (over HTTP, polled in place; over gRPC, on a current-thread
//! tokio runtime that thread owns). Nothing here can block or fail a run: the
//! run's thread only ever enqueues, an export that fails is counted (its first
//! error kept to name the collector once, at the end), and `finish` waits a
//! bounded time. A collector found unreachable (by a connection tried before the
//! first span, or by a failed export) pauses tracing for `PAUSE`: the observer
//! makes no spans and nothing is queued, so a collector that is down costs a run
//! nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry::{Array, KeyValue, StringValue, Value};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Span, SpanData, SpanExporter, SpanProcessor};

use crate::provider::scrub::Secrets;

/// How long one export may take before it counts as failed.
pub const EXPORT_TIMEOUT: Duration = Duration::from_secs(3);

/// Spans held before new ones are dropped.
pub const QUEUE_SPANS: usize = 2048;
/// Spans sent in one export.
const BATCH: usize = 256;
/// How long a span may wait for its batch to fill.
const DELAY: Duration = Duration::from_millis(200);

enum Msg {
    Span(Box<SpanData>),
    /// Send what is held, then answer and stop.
    Finish(SyncSender<()>),
}

/// How long tracing pauses once the collector could not be reached; then spans
/// are made again and the next batch tries it again.
pub const PAUSE: Duration = Duration::from_secs(5);

/// What happened to the spans, for the one line printed at the end; and whether
/// the collector is known to be unreachable (tracing paused).
#[derive(Debug)]
pub struct Counters {
    /// Delivered.
    pub sent: AtomicU64,
    /// Dropped because the queue was full.
    pub dropped: AtomicU64,
    /// Lost because their export failed.
    pub failed: AtomicU64,
    /// Run events not traced while tracing was paused.
    pub skipped: AtomicU64,
    /// Spans taken into the queue.
    pub queued: AtomicU64,
    /// The first export error.
    pub first_error: Mutex<Option<String>>,
    /// When the collector was last found unreachable, in milliseconds after
    /// `origin` (plus one, so that 0 means "not down").
    down_at: AtomicU64,
    origin: Instant,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            sent: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            skipped: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            first_error: Mutex::new(None),
            down_at: AtomicU64::new(0),
            origin: Instant::now(),
        }
    }
}

impl Counters {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The collector could not be reached (`why`): pause tracing for `PAUSE`.
    fn down(&self, why: &str, scrub: &Scrub) {
        self.down_at
            .store(self.now_ms().saturating_add(1), Ordering::Relaxed);
        if let Ok(mut first) = self.first_error.lock() {
            first.get_or_insert_with(|| scrub.text(why));
        }
    }

    /// The collector took a batch: trace as usual.
    fn up(&self) {
        self.down_at.store(0, Ordering::Relaxed);
    }

    /// Tracing is paused: the collector was unreachable less than `PAUSE` ago.
    /// A run's events are then not made into spans at all, so a collector that
    /// is down costs a run nothing.
    pub fn paused(&self) -> bool {
        match self.down_at.load(Ordering::Relaxed) {
            0 => false,
            at => self.now_ms().saturating_sub(at - 1) < PAUSE.as_millis() as u64,
        }
    }
}

/// The secrets no exported attribute may carry: the providers' keys and
/// `base_url` credentials, and the collector's own header values.
#[derive(Debug, Clone, Default)]
pub struct Scrub(pub Vec<Secrets>);

impl Scrub {
    fn text(&self, s: &str) -> String {
        self.0
            .iter()
            .fold(s.to_string(), |t, secrets| secrets.text(&t))
    }

    fn value(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(StringValue::from(self.text(s.as_str()))),
            Value::Array(Array::String(items)) => Value::Array(Array::String(
                items
                    .iter()
                    .map(|s| StringValue::from(self.text(s.as_str())))
                    .collect(),
            )),
            other => other.clone(),
        }
    }

    /// A span with every string it carries scrubbed.
    pub fn span(&self, mut s: SpanData) -> SpanData {
        if self.0.is_empty() {
            return s;
        }
        s.name = self.text(&s.name).into();
        s.attributes = s
            .attributes
            .iter()
            .map(|kv| KeyValue::new(kv.key.clone(), self.value(&kv.value)))
            .collect();
        if let opentelemetry::trace::Status::Error { description } = &s.status {
            s.status = opentelemetry::trace::Status::error(self.text(description));
        }
        s
    }
}

/// What runs the exporter's futures on the queue's thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// Polled in place: the blocking HTTP client brings its own thread, and
    /// refuses to run inside a tokio runtime.
    Plain,
    /// A current-thread tokio runtime of the queue thread's own, which the
    /// exporter is also built in: tonic's channel needs one.
    Tokio,
}

/// The span processor the tracer provider is built with.
#[derive(Debug)]
pub struct BoundedQueue {
    tx: Mutex<Option<SyncSender<Msg>>>,
    counters: Arc<Counters>,
}

impl BoundedQueue {
    /// A queue of `capacity` spans and the thread that drains it into the
    /// exporter `build` makes there (off the caller's path: building an HTTP
    /// client takes milliseconds), run by `driver`, which sends them as
    /// `resource`'s. An exporter that cannot be built (or a runtime that cannot
    /// start) is reported like a collector that cannot be reached.
    #[allow(clippy::too_many_arguments)]
    pub fn start<E, B>(
        build: B,
        driver: Driver,
        resource: opentelemetry_sdk::Resource,
        scrub: Scrub,
        capacity: usize,
        probe: Option<String>,
    ) -> std::io::Result<(BoundedQueue, Arc<Counters>)>
    where
        E: SpanExporter + 'static,
        B: FnOnce() -> Result<E, String> + Send + 'static,
    {
        let (tx, rx) = sync_channel(capacity);
        let counters = Arc::new(Counters::default());
        let shared = counters.clone();
        std::thread::Builder::new()
            .name("io-harness-otlp".into())
            .spawn(move || {
                // Before anything: a collector nobody listens at pauses tracing
                // at once, so the run makes no spans for it.
                let mut first = None;
                if let Some(addr) = probe {
                    if let Err(why) = reach(&addr) {
                        shared.down(&why, &scrub);
                        // Nothing is built (a client, a runtime: work on a
                        // second core while the run goes) until a message comes;
                        // a queue closed with nothing in it ends the thread.
                        match rx.recv() {
                            Ok(msg) => first = Some(msg),
                            Err(_) => return,
                        }
                    }
                }
                let runtime = match driver {
                    Driver::Plain => None,
                    Driver::Tokio => match tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                    {
                        Ok(rt) => Some(rt),
                        Err(e) => {
                            let why = format!("the OTLP export runtime did not start: {e}");
                            return unbuilt(first, &rx, &shared, why);
                        }
                    },
                };
                let built = match &runtime {
                    Some(rt) => {
                        let _inside = rt.enter();
                        build()
                    }
                    None => build(),
                };
                match built {
                    Ok(mut exporter) => {
                        exporter.set_resource(&resource);
                        let worker = Worker {
                            exporter,
                            runtime,
                            scrub,
                            counters: shared,
                        };
                        worker.run(first, rx);
                    }
                    Err(why) => unbuilt(first, &rx, &shared, why),
                }
            })?;
        let queue = BoundedQueue {
            tx: Mutex::new(Some(tx)),
            counters: counters.clone(),
        };
        Ok((queue, counters))
    }

    /// Send what is held and stop, waiting at most `grace`; false when the
    /// exporter did not finish in time (it is left to the process's end).
    pub fn finish(&self, grace: Duration) -> bool {
        let tx = self.tx.lock().map(|mut t| t.take()).unwrap_or(None);
        let Some(tx) = tx else {
            return true;
        };
        // Nothing was ever queued (tracing paused from the start, or no run):
        // nothing to wait for; the thread ends on its own once it sees the
        // queue closed.
        if self.counters.queued.load(Ordering::Relaxed) == 0 {
            return true;
        }
        let (done_tx, done_rx) = sync_channel(1);
        // A full queue still takes the message within the grace period.
        let deadline = Instant::now() + grace;
        let mut msg = Msg::Finish(done_tx);
        loop {
            match tx.try_send(msg) {
                Ok(()) => break,
                Err(TrySendError::Disconnected(_)) => return true,
                Err(TrySendError::Full(m)) if Instant::now() < deadline => {
                    msg = m;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(TrySendError::Full(_)) => return false,
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        done_rx.recv_timeout(left).is_ok()
    }
}

impl SpanProcessor for BoundedQueue {
    fn on_start(&self, _span: &mut Span, _cx: &opentelemetry::Context) {}

    fn on_end(&self, span: SpanData) {
        // Paused: a span that ends now (a run closing) is not queued either.
        if self.counters.paused() {
            self.counters.skipped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let sent = match self.tx.lock() {
            Ok(tx) => match tx.as_ref() {
                Some(tx) => {
                    let ok = tx.try_send(Msg::Span(Box::new(span))).is_ok();
                    if ok {
                        self.counters.queued.fetch_add(1, Ordering::Relaxed);
                    }
                    ok
                }
                None => false,
            },
            Err(_) => false,
        };
        if !sent {
            self.counters.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.finish(timeout);
        Ok(())
    }
}

/// Whether a TCP connection to `host:port` opens, within the export timeout.
fn reach(addr: &str) -> Result<(), String> {
    use std::net::ToSocketAddrs;
    let addrs = addr
        .to_socket_addrs()
        .map_err(|e| format!("{addr} does not resolve: {e}"))?;
    let mut last = format!("{addr} has no address");
    for a in addrs {
        match std::net::TcpStream::connect_timeout(&a, EXPORT_TIMEOUT) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("cannot connect to {addr}: {e}"),
        }
    }
    Err(last)
}

/// No exporter: every span (`first`, then the queue's) counts as not delivered,
/// for the reason given.
fn unbuilt(first: Option<Msg>, rx: &Receiver<Msg>, counters: &Counters, why: String) {
    if let Ok(mut first) = counters.first_error.lock() {
        first.get_or_insert(why);
    }
    for msg in first.into_iter().chain(rx.iter()) {
        match msg {
            Msg::Span(_) => {
                counters.failed.fetch_add(1, Ordering::Relaxed);
            }
            Msg::Finish(done) => {
                let _ = done.send(());
                return;
            }
        }
    }
}

struct Worker<E> {
    // Dropped before the runtime it may hold tasks on.
    exporter: E,
    runtime: Option<tokio::runtime::Runtime>,
    scrub: Scrub,
    counters: Arc<Counters>,
}

impl<E: SpanExporter> Worker<E> {
    /// Take `first` (a message already received), then the queue's, until
    /// `Finish` or the queue is closed.
    fn run(mut self, mut first: Option<Msg>, rx: Receiver<Msg>) {
        let mut batch: Vec<SpanData> = Vec::new();
        let mut since = Instant::now();
        loop {
            let wait = DELAY.saturating_sub(since.elapsed());
            let next = match first.take() {
                Some(msg) => Ok(msg),
                None => rx.recv_timeout(wait),
            };
            match next {
                Ok(Msg::Span(s)) => {
                    if batch.is_empty() {
                        since = Instant::now();
                    }
                    batch.push(self.scrub.span(*s));
                    if batch.len() >= BATCH {
                        self.export(&mut batch);
                    }
                }
                Ok(Msg::Finish(done)) => {
                    self.export(&mut batch);
                    let _ = self.exporter.shutdown();
                    let _ = done.send(());
                    return;
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.export(&mut batch);
                    since = Instant::now();
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.export(&mut batch);
                    return;
                }
            }
        }
    }

    fn export(&mut self, batch: &mut Vec<SpanData>) {
        if batch.is_empty() {
            return;
        }
        let spans = std::mem::take(batch);
        let n = spans.len() as u64;
        let sending = self.exporter.export(spans);
        let result = match &self.runtime {
            Some(rt) => rt.block_on(sending),
            None => futures_executor::block_on(sending),
        };
        match result {
            Ok(()) => {
                self.counters.sent.fetch_add(n, Ordering::Relaxed);
                self.counters.up();
            }
            Err(e) => {
                self.counters.failed.fetch_add(n, Ordering::Relaxed);
                self.counters.down(&e.to_string(), &self.scrub);
            }
        }
    }
}
