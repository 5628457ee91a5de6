//! Run traces: every run leaves a folder a person can open and read.
//!
//! ```text
//! <root>/<run id>/
//!   trace.jsonl     one line per event: {"ts_ms": …, "event": {…}}
//!   images/img-N.png|jpg
//!   report.html     steps with thumbnails that enlarge, reasoning folded, timings and tokens;
//!                   images load from images/ (never inlined)
//! ```
//!
//! [`TraceWriter`] is both the run's [`deft_protocol::EventSink`] and its [`deft_protocol::ImageSink`].
//! It only consumes: a failing disk never changes how a run goes (errors are logged and the
//! trace says it is incomplete).
//!
//! ```no_run
//! use std::sync::Arc;
//! let trace = Arc::new(deft_trace::TraceWriter::create("/tmp/traces".as_ref(), "run-1", deft_trace::TraceMeta {
//!     goal: "compute 12 × 7".into(), device: "local".into(), model: "qwen3".into(),
//! }).unwrap());
//! // io.events.push(trace.clone()); io.images = trace.clone(); … run … then:
//! let report = trace.finish();
//! ```

#![forbid(unsafe_code)]

mod report;

use parking_lot::Mutex;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use deft_protocol::AgentEvent;

pub use report::render_report;

/// What the report header shows.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TraceMeta {
    /// The goal.
    pub goal: String,
    /// Device id.
    pub device: String,
    /// Model name.
    pub model: String,
}

/// One recorded event with its wall-clock time.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Line {
    /// Milliseconds since the Unix epoch.
    pub ts_ms: u64,
    /// The event.
    pub event: AgentEvent,
}

struct State {
    jsonl: Option<BufWriter<File>>,
    lines: Vec<Line>,
    images: Vec<(String, String)>,
    broken: Option<String>,
}

/// Writes one run's trace folder.
pub struct TraceWriter {
    dir: PathBuf,
    meta: TraceMeta,
    next_image: AtomicU64,
    state: Mutex<State>,
}

impl TraceWriter {
    /// Creates `<root>/<run_id>/` with `trace.jsonl` and `images/`.
    pub fn create(root: &Path, run_id: &str, meta: TraceMeta) -> std::io::Result<Self> {
        let dir = root.join(sanitize(run_id));
        std::fs::create_dir_all(dir.join("images"))?;
        let jsonl = BufWriter::new(File::create(dir.join("trace.jsonl"))?);
        Ok(TraceWriter {
            dir,
            meta,
            next_image: AtomicU64::new(0),
            state: Mutex::new(State {
                jsonl: Some(jsonl),
                lines: Vec::new(),
                images: Vec::new(),
                broken: None,
            }),
        })
    }

    /// The trace folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Flushes `trace.jsonl`, so a reader sees every event so far.
    pub fn flush(&self) {
        Self::flush_jsonl(&mut self.lock());
    }

    fn flush_jsonl(st: &mut State) {
        if let Some(w) = st.jsonl.as_mut()
            && let Err(e) = w.flush()
        {
            st.broken.get_or_insert(format!("trace.jsonl: {e}"));
        }
    }

    /// Writes `report.html` and flushes; returns the report's path.
    pub fn finish(&self) -> PathBuf {
        let path = self.dir.join("report.html");
        let mut st = self.lock();
        Self::flush_jsonl(&mut st);
        let html = render_report(&self.meta, &st.lines, &st.images, st.broken.as_deref());
        if let Err(e) = std::fs::write(&path, html) {
            tracing::warn!("cannot write {}: {e}", path.display());
        }
        path
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, State> {
        self.state.lock()
    }
}

impl deft_protocol::EventSink for TraceWriter {
    fn send(&self, event: &AgentEvent) {
        let line = Line {
            ts_ms: now_ms(),
            event: event.clone(),
        };
        let mut st = self.lock();
        if let Some(w) = st.jsonl.as_mut() {
            let written = serde_json::to_writer(&mut *w, &line)
                .map_err(|e| e.to_string())
                .and_then(|_| w.write_all(b"\n").map_err(|e| e.to_string()));
            if let Err(e) = written {
                tracing::warn!("trace.jsonl write failed: {e}; the trace will be incomplete");
                st.broken.get_or_insert(format!("trace.jsonl: {e}"));
                st.jsonl = None;
            }
        }
        let done = matches!(line.event.kind, deft_protocol::EventKind::Done { .. });
        st.lines.push(line);
        drop(st);
        if done {
            self.finish();
        }
    }
}

impl deft_protocol::ImageSink for TraceWriter {
    fn store(&self, bytes: &[u8], mime: &str) -> String {
        let n = self.next_image.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("img-{n}");
        let ext = match mime {
            "image/jpeg" => "jpg",
            "image/webp" => "webp",
            _ => "png",
        };
        let file = format!("{id}.{ext}");
        if let Err(e) = std::fs::write(self.dir.join("images").join(&file), bytes) {
            tracing::warn!("cannot write trace image {file}: {e}");
            self.lock()
                .broken
                .get_or_insert(format!("images/{file}: {e}"));
        }
        self.lock().images.push((id.clone(), file));
        id
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A run id safe as a folder name: `[A-Za-z0-9._-]`, no leading dot.
pub fn sanitize(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_start_matches('.').to_owned();
    if s.is_empty() { "run".to_owned() } else { s }
}
