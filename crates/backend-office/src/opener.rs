//! Opening documents for the desktop's `launch_app`: which requests are LibreOffice's (document
//! paths, LibreOffice's app names), the device session's [`Instance`] (started on first use,
//! supervised, stopped with the session) and opening a document in it over UNO — with a forced
//! import filter and an interaction handler that answers every question with "no", so a damaged
//! file is an error, never a dialog nobody sees.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::carry;
use crate::documents::{self, DocumentDirs, Kind};
use crate::instance::{self, Instance, Launch};
use crate::private;
use crate::texts;
use crate::uno::{SYSTEM_PYTHON, UnoError, UnoHelper};

/// One template builder at a time in this process.
static TEMPLATE_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How long opening a document may take over UNO.
pub const OPEN_LIMIT: Duration = Duration::from_secs(60);

/// How long a starting LibreOffice may take until its UNO pipe answers.
pub const START_WAIT: Duration = Duration::from_secs(45);

/// Where LibreOffice and the UNO helper are, and which folders documents may come from.
#[derive(Debug, Clone)]
pub struct OfficeConfig {
    /// `soffice.bin` (or its folder), when not Debian's.
    pub program: Option<PathBuf>,
    /// The Python with `uno`.
    pub python: PathBuf,
    /// The allowed folders.
    pub dirs: DocumentDirs,
    /// Where the instances' private profiles go (a temporary folder when `None`).
    pub profiles: Option<PathBuf>,
}

impl Default for OfficeConfig {
    fn default() -> Self {
        OfficeConfig {
            program: None,
            python: PathBuf::from(SYSTEM_PYTHON),
            dirs: DocumentDirs::default(),
            profiles: None,
        }
    }
}

impl OfficeConfig {
    /// From routing-table options: `document_dirs`, `office_program`, `python`,
    /// `office_profiles`.
    pub fn from_options(options: &Value) -> Result<Self, String> {
        let path = |key: &str| -> Result<Option<PathBuf>, String> {
            match options.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if !s.is_empty() => Ok(Some(PathBuf::from(s))),
                Some(other) => Err(texts::bad_option(key, &other.to_string())),
            }
        };
        Ok(OfficeConfig {
            program: path("office_program")?,
            python: path("python")?.unwrap_or_else(|| PathBuf::from(SYSTEM_PYTHON)),
            dirs: DocumentDirs::from_options(options)?,
            profiles: path("office_profiles")?,
        })
    }
}

/// What `launch_app` asked LibreOffice for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Open this file.
    Open(PathBuf),
    /// A new, empty document.
    New(Kind),
    /// LibreOffice's Start Center (the app without a document).
    StartCenter,
}

/// `launch_app`'s app names that are LibreOffice's, and the kind each starts.
const APPS: &[(&str, Option<Kind>)] = &[
    ("libreoffice", None),
    ("soffice", None),
    ("soffice.bin", None),
    ("libreoffice-startcenter", None),
    ("libreoffice-writer", Some(Kind::Writer)),
    ("writer", Some(Kind::Writer)),
    ("lowriter", Some(Kind::Writer)),
    ("libreoffice writer", Some(Kind::Writer)),
    ("libreoffice-calc", Some(Kind::Calc)),
    ("calc", Some(Kind::Calc)),
    ("localc", Some(Kind::Calc)),
    ("libreoffice calc", Some(Kind::Calc)),
    ("libreoffice-impress", Some(Kind::Impress)),
    ("impress", Some(Kind::Impress)),
    ("loimpress", Some(Kind::Impress)),
    ("libreoffice impress", Some(Kind::Impress)),
];

/// Reads a `launch_app` request: `None` when it is not LibreOffice's; else the one thing to
/// open, or why the request cannot be served.
pub fn request(app: &str, args: &[String]) -> Option<Result<Request, String>> {
    let name = app.trim();
    let lower = name.to_lowercase();
    let app_kind = APPS.iter().find(|(n, _)| *n == lower).map(|(_, k)| *k);
    let is_document = documents::open_format(Path::new(name)).is_some();
    if app_kind.is_none() && !is_document {
        return None;
    }
    let mut wanted: Vec<Request> = Vec::new();
    if is_document {
        wanted.push(Request::Open(PathBuf::from(name)));
    }
    for arg in args {
        let a = arg.trim();
        match a {
            "--writer" => wanted.push(Request::New(Kind::Writer)),
            "--calc" => wanted.push(Request::New(Kind::Calc)),
            "--impress" => wanted.push(Request::New(Kind::Impress)),
            "" => {}
            flag if flag.starts_with('-') => return Some(Err(texts::unknown_office_arg(flag))),
            path => wanted.push(Request::Open(PathBuf::from(path))),
        }
    }
    if wanted.len() > 1 {
        return Some(Err(texts::ONE_DOCUMENT_PER_LAUNCH.to_owned()));
    }
    Some(Ok(wanted.pop().unwrap_or(match app_kind.flatten() {
        Some(kind) => Request::New(kind),
        None => Request::StartCenter,
    })))
}

/// What an opened document's window is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// The LibreOffice process whose window it is.
    pub pid: u32,
    /// The window's title.
    pub title: String,
    /// Its X window.
    pub xid: u64,
    /// The document's kind (none: the Start Center).
    pub kind: Option<Kind>,
    /// The file, for an opened one.
    pub path: Option<PathBuf>,
}

/// Why a document did not load.
enum LoadFailed {
    /// LibreOffice refused the file (damaged, or not what its extension says): what it asked.
    Refused(Value),
    /// Anything else, as the text to answer.
    Other(String),
}

/// Removes the private copy of a document that did not open (and its folder).
fn forget_copy(copy: &Path) {
    if let Some(dir) = copy.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The LibreOffice of one device session, for `launch_app`. Dropping it stops LibreOffice.
pub struct Office {
    config: OfficeConfig,
    instance: tokio::sync::Mutex<Option<Arc<Instance>>>,
    profiles: parking_lot::Mutex<Option<tempfile::TempDir>>,
}

impl std::fmt::Debug for Office {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Office")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Office {
    /// LibreOffice as `config` says; nothing starts until a document is opened.
    pub fn new(config: OfficeConfig) -> Self {
        Office {
            config,
            instance: tokio::sync::Mutex::new(None),
            profiles: parking_lot::Mutex::new(None),
        }
    }

    /// How the instance's LibreOffice last stopped unexpectedly (and was started again), if it
    /// did.
    pub async fn last_crash(&self) -> Option<String> {
        self.instance
            .lock()
            .await
            .as_ref()
            .and_then(|i| i.last_crash())
    }

    /// Whether `launch_app {app, args}` is for LibreOffice.
    pub fn claims(&self, app: &str, args: &[String]) -> bool {
        request(app, args).is_some()
    }

    /// The running instance, if one was started (tests kill it; the pid is also the process
    /// group).
    pub async fn running(&self) -> Option<instance::Running> {
        self.instance
            .lock()
            .await
            .as_ref()
            .and_then(|i| i.running())
    }

    /// Serves `launch_app {app, args}` on the desktop whose programs get `env`: checks the
    /// request, starts LibreOffice when needed and opens the document in it.
    ///
    /// A document is read by deft from the place it checked ([`crate::place`]) into a private
    /// copy, which LibreOffice loads and keeps working on; the document has its place as its
    /// URL, and LibreOffice's own saves of the copy are carried to the place ([`carry`]).
    /// LibreOffice never resolves the checked path itself, so a folder swapped for a link
    /// meanwhile cannot make it open, or save to, another file.
    pub async fn open(
        &self,
        app: &str,
        args: &[String],
        env: &[(String, String)],
    ) -> Result<Opened, String> {
        let req = request(app, args).ok_or_else(|| texts::not_office(app))??;
        let (url, filter, place) = match &req {
            Request::Open(p) => {
                let (place, format) = self.config.dirs.existing(p)?;
                let copy = private::document_file(place.name())?;
                place.copy_to(&copy).map_err(|e| {
                    forget_copy(&copy);
                    e.to_string()
                })?;
                (
                    documents::file_url(&copy),
                    Some(format),
                    Some((place, copy)),
                )
            }
            Request::New(kind) => (kind.factory_url().to_owned(), None, None),
            Request::StartCenter => ("private:factory/StartModule".to_owned(), None, None),
        };
        let location = place.as_ref().map(|(p, _)| documents::file_url(p.path()));
        let args = json!({ "url": url, "filter": filter.map(|f| f.filter), "location": location });
        let opened = self.load(&args, env).await;
        if let Some((place, copy)) = &place {
            match &opened {
                // LibreOffice's own saves of the copy are carried to the place from now on.
                Ok(_) => carry::follow(copy, place)?,
                Err(_) => forget_copy(copy),
            }
        }
        let path = place.as_ref().map(|(p, _)| p.path());
        match opened {
            Ok((pid, v)) => Ok(Opened {
                pid,
                title: v["title"].as_str().unwrap_or_default().to_owned(),
                xid: v["xid"].as_u64().unwrap_or_default(),
                kind: v["kind"].as_str().and_then(Kind::from_helper),
                path: path.map(Path::to_owned),
            }),
            Err(LoadFailed::Refused(asked)) => Err(texts::cannot_open(
                path.unwrap_or(Path::new(&url)),
                filter.map(|f| f.label),
                &asked,
            )),
            Err(LoadFailed::Other(text)) => Err(text),
        }
    }

    /// Loads `args` (`url`, `filter`, `location`) in the instance (started when needed):
    /// LibreOffice's pid and the helper's answer.
    async fn load(
        &self,
        args: &Value,
        env: &[(String, String)],
    ) -> Result<(u32, Value), LoadFailed> {
        let helper = UnoHelper::shared(&self.config.python, env).map_err(LoadFailed::Other)?;
        let mut retried = false;
        loop {
            let running = self.ready(env).await.map_err(LoadFailed::Other)?;
            let fields = json!({ "pipe": running.pipe, "args": args });
            return match helper.call("open", fields, OPEN_LIMIT, running.pid).await {
                Ok(v) => Ok((running.pid, v)),
                Err(UnoError::Refused { kind, fields }) if kind == "load_failed" => {
                    Err(LoadFailed::Refused(fields["asked"].clone()))
                }
                // LibreOffice went away between ready and open (it restarted): once more.
                Err(e) if !retried && matches!(e.kind(), Some("disconnected" | "no_office")) => {
                    retried = true;
                    continue;
                }
                Err(e) => Err(LoadFailed::Other(e.text("open the document", running.pid))),
            };
        }
    }

    /// The instance, started when there is none (or the last one gave up), ready for UNO.
    async fn ready(&self, env: &[(String, String)]) -> Result<instance::Running, String> {
        let mut slot = self.instance.lock().await;
        if slot.as_ref().is_some_and(|i| i.failed().is_some()) {
            *slot = None;
        }
        let inst = match slot.as_ref() {
            Some(i) => i.clone(),
            None => {
                let program = instance::find_program(self.config.program.as_deref())?;
                let profile = self.new_profile(&program, env).await?;
                let launch = Launch {
                    program,
                    env: env.to_vec(),
                    profile,
                };
                let i = Arc::new(
                    tokio::task::spawn_blocking(move || Instance::start(launch))
                        .await
                        .map_err(|e| texts::office_cannot_start("soffice.bin", &e.to_string()))??,
                );
                *slot = Some(i.clone());
                i
            }
        };
        drop(slot);
        tokio::task::spawn_blocking(move || inst.ready(START_WAIT))
            .await
            .map_err(|e| texts::office_cannot_start("soffice.bin", &e.to_string()))?
    }

    /// A fresh profile folder for a new instance, in this process's folder of profiles
    /// (`deft-office-<pid>-…`, removed on drop; those of processes that are gone — a deft that
    /// was killed — are removed when a new one is made beside them).
    /// The profile starts as a copy of the folder's template ([`instance::template`]).
    async fn new_profile(
        &self,
        program: &Path,
        env: &[(String, String)],
    ) -> Result<PathBuf, String> {
        let parent = match &self.config.profiles {
            Some(p) => p.clone(),
            None => std::env::temp_dir().join("deft-office"),
        };
        std::fs::create_dir_all(&parent)
            .map_err(|e| texts::profile_failed(&parent, &e.to_string()))?;
        let template = {
            let (program, parent, env) = (program.to_owned(), parent.clone(), env.to_vec());
            let _one_builder = TEMPLATE_LOCK.lock().await;
            tokio::task::spawn_blocking(move || instance::template(&program, &parent, &env))
                .await
                .map_err(|e| texts::profile_failed(Path::new("/tmp"), &e.to_string()))??
        };
        let mut root = self.profiles.lock();
        if root.is_none() {
            crate::private::sweep_dead(&parent, "deft-office-");
            let dir = tempfile::Builder::new()
                .prefix(&format!("deft-office-{}-", std::process::id()))
                .tempdir_in(&parent)
                .map_err(|e| texts::profile_failed(&parent, &e.to_string()))?;
            *root = Some(dir);
        }
        let Some(root) = root.as_ref() else {
            return Err(texts::profile_failed(&parent, "no folder"));
        };
        let n = std::fs::read_dir(root.path())
            .map(Iterator::count)
            .unwrap_or(0);
        let profile = root.path().join(format!("profile-{n}"));
        instance::copy_tree(&template, &profile)
            .map_err(|e| texts::profile_failed(&profile, &e.to_string()))?;
        Ok(profile)
    }
}

impl Drop for Office {
    fn drop(&mut self) {
        // Stop LibreOffice before its profile folder goes.
        if let Some(i) = self.instance.get_mut().take() {
            i.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(app: &str, args: &[&str]) -> Option<Result<Request, String>> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        request(app, &args)
    }

    #[test]
    fn launch_requests_for_libreoffice_are_recognised() {
        assert_eq!(req("mousepad", &[]), None);
        assert_eq!(req("notes.txt", &[]), None);
        assert_eq!(
            req("/docs/report.docx", &[]),
            Some(Ok(Request::Open("/docs/report.docx".into())))
        );
        assert_eq!(
            req("libreoffice-writer", &[]),
            Some(Ok(Request::New(Kind::Writer)))
        );
        assert_eq!(
            req("LibreOffice Calc", &[]),
            Some(Ok(Request::New(Kind::Calc)))
        );
        assert_eq!(
            req("libreoffice", &["--impress"]),
            Some(Ok(Request::New(Kind::Impress)))
        );
        assert_eq!(
            req("libreoffice", &["data.xlsx"]),
            Some(Ok(Request::Open("data.xlsx".into())))
        );
        assert_eq!(req("soffice", &[]), Some(Ok(Request::StartCenter)));
        assert!(matches!(req("libreoffice", &["--headless"]), Some(Err(_))));
        assert!(matches!(
            req("libreoffice", &["a.docx", "b.docx"]),
            Some(Err(_))
        ));
    }
}
