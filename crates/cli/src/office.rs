//! LibreOffice wired into the desktop: the office backend's [`Office`] as the desktop's
//! document opener (the two backends know nothing of each other; this adapter is the seam),
//! and the options both read — `document_dirs` defaults to `DEFT_DOCUMENT_DIRS`
//! (colon-separated) when that is set, and the office server is told the desktop's display.

use std::path::{Path, PathBuf};

use deft_backend_desktop::{DocumentOpener, OpenedWindow};
use deft_backend_office::{Office, OfficeConfig};
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

/// The desktop server of `options`, opening documents in LibreOffice (its private profiles
/// under `data_dir/office` unless the options say `office_profiles`).
pub fn desktop_server(
    options: &Value,
    data_dir: &Path,
    extra: &ExtraDocumentDirs,
) -> Result<deft_backend_desktop::DesktopServer, String> {
    let mut options = extra.apply(options);
    if let Some(map) = options.as_object_mut() {
        map.entry("office_profiles")
            .or_insert_with(|| json!(data_dir.join("office")));
    }
    let office = OfficeConfig::from_options(&options)?;
    let server = deft_backend_desktop::from_options(&options)?;
    Ok(server.with_documents(std::sync::Arc::new(OfficeOpener(Office::new(office)))))
}

/// The office server of `options`, told the managed desktop's display (from `state_file`)
/// unless the options name one.
pub fn office_server(
    options: &Value,
    state_file: &Path,
    extra: &ExtraDocumentDirs,
) -> Result<deft_backend_office::OfficeServer, String> {
    let mut options = extra.apply(options);
    if let Some(map) = options.as_object_mut()
        && !map.contains_key("display")
        && let Ok(target) = deft_backend_desktop::DesktopTarget::resolve(state_file)
    {
        map.insert("display".to_owned(), json!(target.display()));
    }
    deft_backend_office::from_options(&options)
}
