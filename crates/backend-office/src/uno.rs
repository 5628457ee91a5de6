//! The UNO helper: `helper.py` (compiled into the binary, written out at run time) on Debian's
//! `/usr/bin/python3`, one process per deft process, spoken to in JSON lines over its stdin and
//! stdout. Calls are serialized (LibreOffice serializes UNO calls anyway); a call that outlives
//! its limit kills the helper, and the next call starts a new one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::texts;

/// The helper's source.
const HELPER_PY: &str = include_str!("helper.py");

/// Debian's Python, the one with `uno` (python3-uno).
pub const SYSTEM_PYTHON: &str = "/usr/bin/python3";

/// How long the helper may take to start and import `uno`.
const START_LIMIT: Duration = Duration::from_secs(20);

/// Why a call did not answer with a result.
#[derive(Debug, Clone, PartialEq)]
pub enum UnoError {
    /// The helper answered `ok: false`: `kind` and its fields, for the texts.
    Refused {
        /// What kind of refusal (`no_sheet`, `text_not_found`, `disconnected`, …).
        kind: String,
        /// The whole answer (its fields).
        fields: Value,
    },
    /// The helper could not be started or died (the text says why and what to install).
    Helper(String),
    /// No answer within the limit; the helper was killed.
    Timeout(Duration),
}

impl UnoError {
    /// The refusal's kind, if it is one.
    pub fn kind(&self) -> Option<&str> {
        match self {
            UnoError::Refused { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// The model's text for a call that failed outright (crash, timeout, helper trouble) while
    /// trying to do `doing` in the LibreOffice of process `pid`.
    pub fn text(&self, doing: &str, pid: u32) -> String {
        match self {
            UnoError::Refused { kind, .. } if kind == "disconnected" => {
                texts::office_crashed(doing, pid)
            }
            UnoError::Refused { kind, .. } if kind == "no_office" => {
                texts::office_not_accepting(pid)
            }
            UnoError::Refused { fields, .. } => {
                texts::office_failed(doing, fields["detail"].as_str())
            }
            UnoError::Helper(text) => text.clone(),
            UnoError::Timeout(limit) => texts::office_timed_out(doing, *limit),
        }
    }
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    /// A call is between writing its request and reading its answer. Still set at the next
    /// call: that call was dropped half-way (cancelled), so the pipe may hold half a line.
    busy: bool,
}

/// One helper process (started on first use), shared by every caller of [`UnoHelper::shared`]
/// with the same Python and device.
pub struct UnoHelper {
    python: PathBuf,
    /// The environment of the device it works for ([`deft_tools::device_env`]).
    env: Vec<(String, String)>,
    script: tempfile::TempPath,
    process: tokio::sync::Mutex<Option<Process>>,
}

impl std::fmt::Debug for UnoHelper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnoHelper")
            .field("python", &self.python)
            .finish_non_exhaustive()
    }
}

/// A device's helper: its Python and the device's environment.
type HelperKey = (PathBuf, Vec<(String, String)>);

/// The helpers of this process, by Python and device.
static SHARED: OnceLock<parking_lot::Mutex<HashMap<HelperKey, Arc<UnoHelper>>>> = OnceLock::new();

impl UnoHelper {
    /// The helper on `python` for the device whose programs get `env`, shared by every caller
    /// in this process working for that device (each device its own: it runs with the device's
    /// environment, and one device's calls never wait for another's).
    pub fn shared(python: &Path, env: &[(String, String)]) -> Result<Arc<UnoHelper>, String> {
        let map = SHARED.get_or_init(Default::default);
        let mut map = map.lock();
        let key = (python.to_owned(), env.to_vec());
        if let Some(h) = map.get(&key) {
            return Ok(h.clone());
        }
        let h = Arc::new(UnoHelper::new(python, env)?);
        map.insert(key, h.clone());
        Ok(h)
    }

    /// A helper of its own on `python` for the device whose programs get `env` (the script is
    /// written to a private temporary file).
    pub fn new(python: &Path, env: &[(String, String)]) -> Result<UnoHelper, String> {
        let file = tempfile::Builder::new()
            .prefix("deft-uno-helper-")
            .suffix(".py")
            .tempfile()
            .map_err(|e| texts::helper_failed(&e.to_string()))?;
        std::fs::write(file.path(), HELPER_PY).map_err(|e| texts::helper_failed(&e.to_string()))?;
        Ok(UnoHelper {
            python: python.to_owned(),
            env: env.to_vec(),
            script: file.into_temp_path(),
            process: tokio::sync::Mutex::new(None),
        })
    }

    /// Calls `op` with `fields` (pipe, xid, args) on the LibreOffice whose process is `pid`,
    /// waiting at most `limit` for the answer. When that process dies meanwhile (a crash, a
    /// kill) the call ends at once as `disconnected`.
    pub async fn call(
        &self,
        op: &str,
        fields: Value,
        limit: Duration,
        pid: u32,
    ) -> Result<Value, UnoError> {
        let mut guard = self.process.lock().await;
        if guard.as_ref().is_some_and(|p| p.busy) {
            *guard = None;
        }
        if guard.is_none() {
            *guard = Some(self.spawn().await?);
        }
        let Some(p) = guard.as_mut() else {
            return Err(UnoError::Helper(texts::helper_failed("it did not start")));
        };
        p.next_id += 1;
        let id = p.next_id;
        let mut req = json!({ "id": id, "op": op });
        if let (Some(r), Value::Object(f)) = (req.as_object_mut(), fields) {
            r.extend(f);
        }
        p.busy = true;
        let exchange = async {
            let mut line = serde_json::to_string(&req).map_err(|e| e.to_string())?;
            line.push('\n');
            p.stdin
                .write_all(line.as_bytes())
                .await
                .map_err(|e| e.to_string())?;
            p.stdin.flush().await.map_err(|e| e.to_string())?;
            loop {
                let mut answer = String::new();
                if p.stdout
                    .read_line(&mut answer)
                    .await
                    .map_err(|e| e.to_string())?
                    == 0
                {
                    return Err("it exited".to_owned());
                }
                let v: Value = serde_json::from_str(&answer).map_err(|e| e.to_string())?;
                if v["id"] == json!(id) {
                    return Ok(v);
                }
            }
        };
        let died = async {
            while crate::instance::alive(pid) {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        };
        let answered = tokio::select! {
            a = tokio::time::timeout(limit, exchange) => a,
            () = died => {
                // The helper waits for an answer that will never come: a fresh one next time.
                *guard = None;
                return Err(UnoError::Refused {
                    kind: "disconnected".to_owned(),
                    fields: json!({ "kind": "disconnected", "detail": "LibreOffice's process is gone" }),
                });
            }
        };
        let v = match answered {
            Ok(Ok(v)) => {
                p.busy = false;
                v
            }
            Ok(Err(why)) => {
                *guard = None;
                return Err(UnoError::Helper(texts::helper_failed(&why)));
            }
            Err(_) => {
                // Killed on drop (kill_on_drop): the next call starts a fresh helper.
                *guard = None;
                return Err(UnoError::Timeout(limit));
            }
        };
        if v["ok"] == json!(true) {
            Ok(v["result"].clone())
        } else {
            Err(UnoError::Refused {
                kind: v["kind"].as_str().unwrap_or("uno_error").to_owned(),
                fields: v,
            })
        }
    }

    async fn spawn(&self) -> Result<Process, UnoError> {
        if !self.python.is_file() {
            return Err(UnoError::Helper(texts::python_missing(&self.python)));
        }
        let mut cmd = Command::new(&self.python);
        deft_tools::device_env::apply(cmd.as_std_mut(), &self.env);
        let mut child = cmd
            .arg("-I")
            .arg(&self.script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .process_group(0)
            .spawn()
            .map_err(|e| UnoError::Helper(texts::helper_failed(&e.to_string())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(UnoError::Helper(texts::helper_failed("no pipes")));
        };
        let mut stdout = BufReader::new(stdout);
        let mut first = String::new();
        let read = tokio::time::timeout(START_LIMIT, stdout.read_line(&mut first)).await;
        let hello: Value = match read {
            Ok(Ok(n)) if n > 0 => serde_json::from_str(&first).unwrap_or(Value::Null),
            Ok(_) => return Err(UnoError::Helper(texts::helper_failed("it exited at start"))),
            Err(_) => return Err(UnoError::Timeout(START_LIMIT)),
        };
        if hello["ready"] != json!(true) {
            return Err(UnoError::Helper(texts::uno_missing(
                &self.python,
                hello["detail"].as_str().unwrap_or_default(),
            )));
        }
        Ok(Process {
            child,
            stdin,
            stdout,
            next_id: 0,
            busy: false,
        })
    }

    /// The helper's pid, while it runs (tests kill it).
    pub async fn pid(&self) -> Option<u32> {
        self.process
            .lock()
            .await
            .as_ref()
            .and_then(|p| p.child.id())
    }
}
