//! LibreOffice wired into the desktop: the office backend's [`Office`] as the desktop's
//! document opener (the two backends know nothing of each other; this adapter is the seam),
//! and the options both read — `document_dirs` defaults to `DEFT_DOCUMENT_DIRS`
//! (colon-separated) when that is set. Both servers of a device work on one desktop
//! ([`device_desktop`]): the office server is told its display, and the UNO helper and
//! fontconfig run with its environment, as LibreOffice and `launch_app`'s programs do.

use std::path::{Path, PathBuf};

use deft_backend_desktop::{
    DesktopServer, DesktopTarget, DocumentOpener, LaunchPolicy, OpenedWindow,
};
use deft_backend_office::{Office, OfficeConfig, SessionConfig};
use futures::future::BoxFuture;
use serde_json::{Value, json};

/// The environment variable naming the document folders (colon-separated) for every server
/// whose options do not.
pub const DOCUMENT_DIRS_ENV: &str = "DEFT_DOCUMENT_DIRS";

/// [`Office`] as the desktop's opener.
struct OfficeOpener(Office);

impl DocumentOpener for OfficeOpener {
    fn claims(&self, app: &str, args: &[String]) -> bool {
        self.0.claims(app, args)
    }

    fn open<'a>(
        &'a self,
        app: &'a str,
        args: &'a [String],
        env: &'a [(String, String)],
    ) -> BoxFuture<'a, Result<OpenedWindow, String>> {
        Box::pin(async move {
            let opened = self.0.open(app, args, env).await?;
            Ok(OpenedWindow {
                pid: opened.pid,
                title: opened.title,
            })
        })
    }
}

/// Folders `launch_app` and the office tools allow on top of the configured ones: a command that
/// works on documents of its own (`deft dataflow`'s `saved_document/`) adds its folder.
#[derive(Debug, Clone, Default)]
pub struct ExtraDocumentDirs(Vec<PathBuf>);

impl ExtraDocumentDirs {
    /// These folders (absolute).
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        ExtraDocumentDirs(dirs)
    }

    /// `options` with `document_dirs` from [`DOCUMENT_DIRS_ENV`] when it has none, and these
    /// folders added to whatever it then names (the default `~/Documents` when nothing does).
    pub fn apply(&self, options: &Value) -> Value {
        let mut options = with_document_dirs(options);
        if self.0.is_empty() {
            return options;
        }
        if let Some(map) = options.as_object_mut() {
            let mut dirs: Vec<Value> = match map.get("document_dirs") {
                Some(Value::Array(a)) => a.clone(),
                _ => vec![json!(deft_backend_office::documents::default_dir())],
            };
            dirs.extend(self.0.iter().map(|d| json!(d)));
            map.insert("document_dirs".to_owned(), Value::Array(dirs));
        }
        options
    }
}

/// `options` as an object, with `document_dirs` from [`DOCUMENT_DIRS_ENV`] when it has none.
pub fn with_document_dirs(options: &Value) -> Value {
    let mut options = match options {
        Value::Object(_) => options.clone(),
        _ => json!({}),
    };
    if let Some(map) = options.as_object_mut()
        && !map.contains_key("document_dirs")
        && let Some(dirs) = std::env::var_os(DOCUMENT_DIRS_ENV)
    {
        let dirs: Vec<String> = std::env::split_paths(&dirs)
            .filter(|d| !d.as_os_str().is_empty())
            .map(|d| d.to_string_lossy().into_owned())
            .collect();
        if !dirs.is_empty() {
            map.insert("document_dirs".to_owned(), json!(dirs));
        }
    }
    options
}

/// Which desktop a device's servers work on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DesktopChoice {
    /// The caller's desktop when `DISPLAY` is set, else the data folder's managed desktop.
    #[default]
    Environment,
    /// The data folder's managed desktop, whatever the caller's `DISPLAY` says: a device made
    /// for that desktop (each of `deft dataflow`'s) starts its programs there and nowhere else.
    Managed,
}

/// The desktop of a device whose managed desktop's state is `state_file`, as `choice` says.
pub fn device_desktop(state_file: &Path, choice: DesktopChoice) -> Result<DesktopTarget, String> {
    match choice {
        DesktopChoice::Environment => DesktopTarget::resolve(state_file),
        DesktopChoice::Managed => DesktopTarget::managed(state_file),
    }
}

/// What a device's desktop and office servers are made with.
#[derive(Debug, Clone)]
pub struct DeviceSetup {
    /// deft's data folder (LibreOffice's profiles go under its `office/`).
    pub data_dir: PathBuf,
    /// The managed desktop's state file (the desktop server's `state_file` option overrides it).
    pub state_file: PathBuf,
    /// Document folders allowed besides the configured ones.
    pub documents: ExtraDocumentDirs,
    /// Which desktop the device works on.
    pub desktop: DesktopChoice,
}

/// The desktop server of `options`, opening documents in LibreOffice (its private profiles
/// under `setup.data_dir/office` unless the options say `office_profiles`).
pub fn desktop_server(options: &Value, setup: &DeviceSetup) -> Result<DesktopServer, String> {
    let mut options = setup.documents.apply(options);
    if let Some(map) = options.as_object_mut() {
        map.entry("office_profiles")
            .or_insert_with(|| json!(setup.data_dir.join("office")));
    }
    let state_file = options
        .get("state_file")
        .and_then(Value::as_str)
        .map_or_else(|| setup.state_file.clone(), PathBuf::from);
    let target = device_desktop(&state_file, setup.desktop)?;
    let office = OfficeConfig::from_options(&options)?;
    let server = DesktopServer::new(target, LaunchPolicy::from_options(&options)?);
    Ok(server.with_documents(std::sync::Arc::new(OfficeOpener(Office::new(office)))))
}

/// The office server of `options`, on the device's desktop: told its display (unless the
/// options name one) and its programs' environment. A managed device's fails when its desktop
/// does not run.
pub fn office_server(
    options: &Value,
    setup: &DeviceSetup,
) -> Result<deft_backend_office::OfficeServer, String> {
    let options = setup.documents.apply(options);
    let mut config = SessionConfig::from_options(&options)?;
    match device_desktop(&setup.state_file, setup.desktop) {
        Ok(target) => {
            config
                .display
                .get_or_insert_with(|| target.display().to_owned());
            config.env = target.env().to_vec();
        }
        // A managed device's office server never looks at other displays' LibreOffice.
        Err(e) if setup.desktop == DesktopChoice::Managed => return Err(e),
        // Standalone, without a desktop: any LibreOffice deft started.
        Err(_) => {}
    }
    Ok(deft_backend_office::OfficeServer::new(config))
}
