//! One office server's document: binding to the frame of the selected window
//! ([`crate::binding`]), calling the UNO helper on it, and turning the helper's refusals into
//! the texts of [`crate::texts`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::binding::{self, Choice, Frame};
use crate::documents::{DocumentDirs, Kind};
use crate::instance;
use crate::texts;
use crate::uno::{SYSTEM_PYTHON, UnoError, UnoHelper};

/// How long one API call may take.
pub const CALL_LIMIT: Duration = Duration::from_secs(90);

/// How long listing an instance's frames may take.
const FRAMES_LIMIT: Duration = Duration::from_secs(15);

/// What an office server is configured with.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The Python with `uno`.
    pub python: PathBuf,
    /// The allowed folders.
    pub dirs: DocumentDirs,
    /// The desktop's display: only LibreOffice instances on it are considered (any when
    /// `None`).
    pub display: Option<String>,
    /// The title of the selected window this server serves (its `process`; empty standalone).
    pub process: String,
    /// The window's root (`libreoffice-writer` …), when bound by the tool layer.
    pub root: String,
    /// The environment of the device's programs (its display, buses, home): the UNO helper and
    /// fontconfig run with it ([`deft_tools::device_env`]). Set by whoever knows the device
    /// (the CLI); empty standalone.
    pub env: Vec<(String, String)>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            python: PathBuf::from(SYSTEM_PYTHON),
            dirs: DocumentDirs::default(),
            display: None,
            process: String::new(),
            root: String::new(),
            env: Vec::new(),
        }
    }
}

impl SessionConfig {
    /// From routing-table options: `binding {process, root}` (the tool layer's), `display`,
    /// `python`, `document_dirs`.
    pub fn from_options(options: &Value) -> Result<Self, String> {
        let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        Ok(SessionConfig {
            python: match options.get("python").and_then(Value::as_str) {
                Some(p) if !p.is_empty() => PathBuf::from(p),
                _ => PathBuf::from(SYSTEM_PYTHON),
            },
            dirs: DocumentDirs::from_options(options)?,
            display: options
                .get("display")
                .and_then(Value::as_str)
                .filter(|d| !d.is_empty())
                .map(str::to_owned),
            process: s(&options["binding"]["process"]),
            root: s(&options["binding"]["root"]),
            env: Vec::new(),
        })
    }
}

/// The frame a server is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// `soffice.bin`'s pid.
    pub pid: u32,
    /// Its UNO pipe.
    pub pipe: String,
    /// The frame's X window.
    pub xid: u64,
    /// The document's kind.
    pub kind: Option<Kind>,
    /// The window's title when bound.
    pub title: String,
}

/// The document of one office server: its binding, the helper, the font list.
pub struct OfficeSession {
    config: SessionConfig,
    bound: tokio::sync::Mutex<Option<Bound>>,
    /// The LibreOffice process of the last binding dropped: while it is dead and no window
    /// binds again, calls say that LibreOffice stopped, however far its restart has got.
    lost: std::sync::Mutex<Option<u32>>,
    fonts: tokio::sync::Mutex<Option<(u32, Arc<Vec<String>>)>>,
}

impl std::fmt::Debug for OfficeSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfficeSession")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl OfficeSession {
    /// A session bound lazily, on its first call.
    pub fn new(config: SessionConfig) -> Self {
        OfficeSession {
            config,
            bound: tokio::sync::Mutex::new(None),
            lost: std::sync::Mutex::new(None),
            fonts: tokio::sync::Mutex::new(None),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    fn helper(&self) -> Result<Arc<UnoHelper>, String> {
        UnoHelper::shared(&self.config.python, &self.config.env)
    }

    /// The frame this server acts on: the one bound before while its LibreOffice runs, else
    /// found anew.
    pub async fn bound(&self) -> Result<Bound, String> {
        let mut slot = self.bound.lock().await;
        match slot.take() {
            Some(b) if instance::alive(b.pid) => {
                *slot = Some(b.clone());
                return Ok(b);
            }
            Some(b) => self.lose(&b),
            None => {}
        }
        let b = self.find().await?;
        *self.lost.lock().unwrap_or_else(|p| p.into_inner()) = None;
        *slot = Some(b.clone());
        Ok(b)
    }

    /// Forgets the binding (its window is gone).
    async fn unbind(&self) {
        if let Some(b) = self.bound.lock().await.take() {
            self.lose(&b);
        }
    }

    /// Remembers the process of a dropped binding.
    fn lose(&self, b: &Bound) {
        *self.lost.lock().unwrap_or_else(|p| p.into_inner()) = Some(b.pid);
    }

    /// The LibreOffice process this server was bound to, when it is no longer among the
    /// running instances `found` (a process still tearing down counts as gone: its UNO pipe
    /// and its program are).
    fn died(&self, found: &[binding::Found]) -> Option<u32> {
        let lost = *self.lost.lock().unwrap_or_else(|p| p.into_inner());
        lost.filter(|pid| found.iter().all(|f| f.pid != *pid))
    }

    async fn find(&self) -> Result<Bound, String> {
        let found = binding::instances(self.config.display.as_deref());
        if found.is_empty() {
            if let Some(pid) = self.died(&found) {
                return Err(texts::office_gone(&self.config.process, pid));
            }
            return Err(texts::NO_OFFICE_RUNNING.to_owned());
        }
        let helper = self.helper()?;
        for inst in &found {
            let Ok(v) = helper
                .call(
                    "frames",
                    json!({ "pipe": inst.pipe }),
                    FRAMES_LIMIT,
                    inst.pid,
                )
                .await
            else {
                continue;
            };
            let frames: Vec<Frame> = v["frames"]
                .as_array()
                .map(|a| a.iter().filter_map(Frame::from_json).collect())
                .unwrap_or_default();
            if let Choice::One(i) = binding::choose(&frames, &self.config.process) {
                let f = &frames[i];
                return Ok(Bound {
                    pid: inst.pid,
                    pipe: inst.pipe.clone(),
                    xid: f.xid,
                    kind: f.kind,
                    title: f.title.clone(),
                });
            }
        }
        Err(self.window_missing(&found))
    }

    /// Why no window binds: its LibreOffice died, or the window is not open.
    fn window_missing(&self, found: &[binding::Found]) -> String {
        match self.died(found) {
            Some(pid) => texts::office_gone(&self.config.process, pid),
            None => texts::no_document_window(&self.config.process),
        }
    }

    /// Calls `op` on the bound document, which must be a `want` document (any when `None`).
    /// A window that is gone is looked for once more (reopened under the same title); a
    /// LibreOffice that died ends the binding.
    pub async fn call(
        &self,
        tool: &str,
        op: &str,
        want: Option<Kind>,
        args: Value,
    ) -> Result<(Bound, Value), String> {
        let mut retried = false;
        loop {
            let b = self.bound().await?;
            if b.kind.is_none() {
                return Err(texts::no_document(&b.title));
            }
            if let Some(want) = want
                && b.kind != Some(want)
            {
                return Err(texts::wrong_kind(
                    tool,
                    want.app(),
                    want.noun(),
                    b.kind.map(Kind::noun),
                    &b.title,
                ));
            }
            let fields = json!({ "pipe": b.pipe, "xid": b.xid, "args": args });
            match self.helper()?.call(op, fields, CALL_LIMIT, b.pid).await {
                Ok(v) => return Ok((b, v)),
                Err(UnoError::Refused { kind, .. }) if kind == "window_gone" && !retried => {
                    self.unbind().await;
                    retried = true;
                }
                Err(e) => {
                    if matches!(e.kind(), Some("disconnected" | "no_office" | "window_gone")) {
                        self.unbind().await;
                    }
                    if e.kind() == Some("window_gone") {
                        let found = binding::instances(self.config.display.as_deref());
                        return Err(self.window_missing(&found));
                    }
                    return Err(refusal_text(tool, &e, b.pid));
                }
            }
        }
    }

    /// The fonts LibreOffice knows (read once per LibreOffice process).
    pub async fn fonts(&self) -> Result<Arc<Vec<String>>, String> {
        let b = self.bound().await?;
        let mut cache = self.fonts.lock().await;
        if let Some((pid, fonts)) = cache.as_ref()
            && *pid == b.pid
        {
            return Ok(fonts.clone());
        }
        let v = self
            .helper()?
            .call("fonts", json!({ "pipe": b.pipe }), CALL_LIMIT, b.pid)
            .await
            .map_err(|e| refusal_text("set_font", &e, b.pid))?;
        let fonts: Vec<String> = v["fonts"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let fonts = Arc::new(fonts);
        *cache = Some((b.pid, fonts.clone()));
        Ok(fonts)
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().map_or_else(|| s.to_string(), str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or_default()
}

/// The model's text for a call that did not succeed.
pub fn refusal_text(tool: &str, e: &UnoError, pid: u32) -> String {
    let UnoError::Refused { kind, fields: f } = e else {
        return e.text(&format!("run {tool}"), pid);
    };
    let text = |k: &str| {
        f[k].as_str()
            .map_or_else(|| f[k].to_string(), str::to_owned)
    };
    match kind.as_str() {
        "text_not_found" => texts::text_not_found(&text("text")),
        "table_out_of_range" => texts::table_out_of_range(int(&f["number"]), int(&f["count"])),
        "paragraph_out_of_range" => texts::paragraph_out_of_range(
            &text("field"),
            int(&f["value"]),
            int(&f["count"]),
            f["non_empty"].as_bool().unwrap_or(true),
            f["start"].as_i64(),
        ),
        "no_paragraphs" => texts::no_paragraphs(f["non_empty"].as_bool().unwrap_or(true)),
        "no_sheet" => texts::no_sheet(&f["sheet"].to_string(), &strings(&f["sheets"])),
        "outside_sheet" => texts::outside_sheet(&text("range")),
        "range_too_large" => {
            texts::range_too_large(&text("range"), int(&f["cells"]), int(&f["max"]))
        }
        "no_column" => texts::no_column(&text("column"), &text("sheet"), &strings(&f["headers"])),
        "column_twice" => texts::column_twice(&text("column")),
        "empty_sheet" => texts::empty_sheet(&text("sheet")),
        "slide_out_of_range" => texts::slide_out_of_range(int(&f["slide"]), int(&f["count"])),
        "no_document" => texts::no_document(&text("title")),
        "store_failed" => texts::store_failed(&text("url"), &text("detail")),
        "wrong_kind" => {
            let want = Kind::from_helper(&text("want")).unwrap_or(Kind::Writer);
            let have = Kind::from_helper(&text("have")).map(Kind::noun);
            texts::wrong_kind(tool, want.app(), want.noun(), have, &text("title"))
        }
        "window_gone" => texts::no_document_window(""),
        "disconnected" | "no_office" => e.text(&format!("run {tool}"), pid),
        other => texts::refused(other, f),
    }
}
