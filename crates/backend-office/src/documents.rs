//! Documents and where they may live: the kinds (Writer, Calc, Impress), the formats each saves
//! to with LibreOffice's filter names, and the allowed folders every opened or saved path must be
//! inside (symbolic links resolved), each checked path's folder opened once ([`Place`]).

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::place::Place;
use crate::texts;

/// A document kind, as LibreOffice's modules are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A text document (Writer).
    Writer,
    /// A spreadsheet (Calc).
    Calc,
    /// A presentation (Impress).
    Impress,
}

impl Kind {
    /// The kind the UNO helper reports (`writer`, `calc`, `impress`).
    pub fn from_helper(name: &str) -> Option<Kind> {
        match name {
            "writer" => Some(Kind::Writer),
            "calc" => Some(Kind::Calc),
            "impress" => Some(Kind::Impress),
            _ => None,
        }
    }

    /// The kind of a window root (`libreoffice-writer` …).
    pub fn from_root(root: &str) -> Option<Kind> {
        match root {
            "libreoffice-writer" => Some(Kind::Writer),
            "libreoffice-calc" => Some(Kind::Calc),
            "libreoffice-impress" => Some(Kind::Impress),
            _ => None,
        }
    }

    /// The kind a file extension opens as (`docx` → Writer).
    pub fn from_extension(ext: &str) -> Option<Kind> {
        let ext = ext.to_ascii_lowercase();
        OPEN_FORMATS.iter().find(|f| f.ext == ext).map(|f| f.kind)
    }

    /// The module's name as people say it.
    pub fn app(self) -> &'static str {
        match self {
            Kind::Writer => "Writer",
            Kind::Calc => "Calc",
            Kind::Impress => "Impress",
        }
    }

    /// What a document of this kind is called.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Writer => "text document",
            Kind::Calc => "spreadsheet",
            Kind::Impress => "presentation",
        }
    }

    /// LibreOffice's URL for a new, empty document of this kind.
    pub fn factory_url(self) -> &'static str {
        match self {
            Kind::Writer => "private:factory/swriter",
            Kind::Calc => "private:factory/scalc",
            Kind::Impress => "private:factory/simpress",
        }
    }

    /// `save_as`'s default extension (UFO's: `.pdf`, `.csv`, `.pptx`).
    pub fn default_save_ext(self) -> &'static str {
        match self {
            Kind::Writer => "pdf",
            Kind::Calc => "csv",
            Kind::Impress => "pptx",
        }
    }
}

/// How a format is written: the document moves to the new file (`store as`, like the GUI's
/// Save As), or a copy is exported and the window keeps its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// `storeAsURL`: editable formats; the window then shows the new file.
    As,
    /// `storeToURL`: exports (PDF, CSV, text, images).
    To,
}

/// A format a document of `kind` saves to.
#[derive(Debug, Clone, Copy)]
pub struct Format {
    /// Which documents save to it.
    pub kind: Kind,
    /// File extension, lowercase, no dot.
    pub ext: &'static str,
    /// LibreOffice's export filter.
    pub filter: &'static str,
    /// The filter's options (CSV: separator, quote, UTF-8).
    pub options: Option<&'static str>,
    /// How it is written.
    pub store: Store,
    /// What it is called.
    pub label: &'static str,
    /// An image of slides (Impress), exported per slide.
    pub image: Option<&'static str>,
}

const fn fmt(
    kind: Kind,
    ext: &'static str,
    filter: &'static str,
    store: Store,
    label: &'static str,
) -> Format {
    Format {
        kind,
        ext,
        filter,
        options: None,
        store,
        label,
        image: None,
    }
}

const fn image(ext: &'static str, media: &'static str, label: &'static str) -> Format {
    Format {
        kind: Kind::Impress,
        ext,
        filter: "",
        options: None,
        store: Store::To,
        label,
        image: Some(media),
    }
}

/// CSV as UTF-8, comma-separated, double quotes only around text that needs them (a comma, a
/// quote, a line break), cells as shown (values, not formulas). Tokens 7–10 are explicit: with
/// fewer, LibreOffice quotes every text cell.
const CSV_OPTIONS: &str = "44,34,76,1,,0,false,true,true,false";

/// Every format `save_as` writes, by kind.
pub const SAVE_FORMATS: &[Format] = &[
    fmt(Kind::Writer, "pdf", "writer_pdf_Export", Store::To, "PDF"),
    fmt(Kind::Writer, "docx", "MS Word 2007 XML", Store::As, "Word"),
    fmt(
        Kind::Writer,
        "odt",
        "writer8",
        Store::As,
        "OpenDocument Text",
    ),
    fmt(Kind::Writer, "doc", "MS Word 97", Store::As, "Word 97"),
    fmt(Kind::Writer, "rtf", "Rich Text Format", Store::As, "RTF"),
    Format {
        options: Some("UTF8"),
        ..fmt(
            Kind::Writer,
            "txt",
            "Text (encoded)",
            Store::To,
            "plain text",
        )
    },
    fmt(Kind::Writer, "html", "HTML (StarWriter)", Store::To, "HTML"),
    fmt(
        Kind::Calc,
        "csv",
        "Text - txt - csv (StarCalc)",
        Store::To,
        "CSV",
    )
    .with_options(CSV_OPTIONS),
    fmt(
        Kind::Calc,
        "xlsx",
        "Calc MS Excel 2007 XML",
        Store::As,
        "Excel",
    ),
    fmt(
        Kind::Calc,
        "ods",
        "calc8",
        Store::As,
        "OpenDocument Spreadsheet",
    ),
    fmt(Kind::Calc, "xls", "MS Excel 97", Store::As, "Excel 97"),
    fmt(Kind::Calc, "pdf", "calc_pdf_Export", Store::To, "PDF"),
    fmt(Kind::Calc, "html", "HTML (StarCalc)", Store::To, "HTML"),
    fmt(
        Kind::Impress,
        "pptx",
        "Impress MS PowerPoint 2007 XML",
        Store::As,
        "PowerPoint",
    ),
    fmt(
        Kind::Impress,
        "odp",
        "impress8",
        Store::As,
        "OpenDocument Presentation",
    ),
    fmt(
        Kind::Impress,
        "ppt",
        "MS PowerPoint 97",
        Store::As,
        "PowerPoint 97",
    ),
    fmt(Kind::Impress, "pdf", "impress_pdf_Export", Store::To, "PDF"),
    image("png", "image/png", "PNG image"),
    image("jpg", "image/jpeg", "JPEG image"),
    image("gif", "image/gif", "GIF image"),
    image("bmp", "image/bmp", "BMP image"),
    image("svg", "image/svg+xml", "SVG image"),
];

impl Format {
    const fn with_options(mut self, options: &'static str) -> Format {
        self.options = Some(options);
        self
    }
}

/// The format `ext` (with or without its dot) of a `kind` document.
pub fn save_format(kind: Kind, ext: &str) -> Result<&'static Format, String> {
    let ext = ext.trim().trim_start_matches('.').to_ascii_lowercase();
    SAVE_FORMATS
        .iter()
        .find(|f| f.kind == kind && f.ext == ext)
        .ok_or_else(|| {
            let known: Vec<&str> = SAVE_FORMATS
                .iter()
                .filter(|f| f.kind == kind)
                .map(|f| f.ext)
                .collect();
            texts::unknown_format(&ext, kind.noun(), &known)
        })
}

/// A format LibreOffice opens a file with: its import filter, forced, so that a damaged file
/// fails instead of being read as plain text.
#[derive(Debug, Clone, Copy)]
pub struct OpenFormat {
    /// Extension.
    pub ext: &'static str,
    /// The kind it opens as.
    pub kind: Kind,
    /// Import filter.
    pub filter: &'static str,
    /// What people call such a file.
    pub label: &'static str,
}

const fn open(
    ext: &'static str,
    kind: Kind,
    filter: &'static str,
    label: &'static str,
) -> OpenFormat {
    OpenFormat {
        ext,
        kind,
        filter,
        label,
    }
}

/// Every extension `launch_app` opens.
pub const OPEN_FORMATS: &[OpenFormat] = &[
    open("docx", Kind::Writer, "MS Word 2007 XML", "Word document"),
    open("odt", Kind::Writer, "writer8", "OpenDocument text"),
    open("doc", Kind::Writer, "MS Word 97", "Word 97 document"),
    open("rtf", Kind::Writer, "Rich Text Format", "RTF document"),
    open(
        "xlsx",
        Kind::Calc,
        "Calc MS Excel 2007 XML",
        "Excel workbook",
    ),
    open("ods", Kind::Calc, "calc8", "OpenDocument spreadsheet"),
    open("xls", Kind::Calc, "MS Excel 97", "Excel 97 workbook"),
    open(
        "pptx",
        Kind::Impress,
        "Impress MS PowerPoint 2007 XML",
        "PowerPoint presentation",
    ),
    open(
        "odp",
        Kind::Impress,
        "impress8",
        "OpenDocument presentation",
    ),
    open(
        "ppt",
        Kind::Impress,
        "MS PowerPoint 97",
        "PowerPoint 97 presentation",
    ),
];

/// The open format of `path`'s extension.
pub fn open_format(path: &Path) -> Option<&'static OpenFormat> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    OPEN_FORMATS.iter().find(|f| f.ext == ext)
}

/// The folders documents may be opened from and saved to (`document_dirs`; default
/// `~/Documents`). A path is inside when, with symbolic links resolved, it is below one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentDirs {
    dirs: Vec<PathBuf>,
}

/// The default allowed folder: `Documents` in the home folder of the user running deft.
pub fn default_dir() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
        .join("Documents")
}

impl Default for DocumentDirs {
    fn default() -> Self {
        DocumentDirs {
            dirs: vec![default_dir()],
        }
    }
}

impl DocumentDirs {
    /// Folders from the routing table's `document_dirs` option (a list of absolute paths; `~/`
    /// is the home folder); the default when absent.
    pub fn from_options(options: &Value) -> Result<Self, String> {
        let Some(v) = options.get("document_dirs").filter(|v| !v.is_null()) else {
            return Ok(Self::default());
        };
        let items = v
            .as_array()
            .ok_or_else(|| texts::bad_document_dirs(&v.to_string()))?;
        let mut dirs = Vec::new();
        for item in items {
            let s = item
                .as_str()
                .ok_or_else(|| texts::bad_document_dirs(&item.to_string()))?;
            let p = match s.strip_prefix("~/") {
                Some(rest) => default_dir()
                    .parent()
                    .map(|h| h.join(rest))
                    .unwrap_or_else(|| PathBuf::from(s)),
                None => PathBuf::from(s),
            };
            if !p.is_absolute() {
                return Err(texts::bad_document_dirs(s));
            }
            dirs.push(p);
        }
        if dirs.is_empty() {
            return Err(texts::bad_document_dirs("[]"));
        }
        Ok(DocumentDirs { dirs })
    }

    /// Exactly these folders.
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        DocumentDirs { dirs }
    }

    /// The folders as configured.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The first folder (relative paths and untitled documents go there), created when missing.
    pub fn first(&self) -> Result<PathBuf, String> {
        let dir = self.dirs[0].clone();
        std::fs::create_dir_all(&dir)
            .map_err(|e| texts::cannot_create_dir(&dir, &e.to_string()))?;
        Ok(dir)
    }

    /// The folders that exist, resolved.
    fn resolved(&self) -> Vec<PathBuf> {
        self.dirs
            .iter()
            .filter_map(|d| std::fs::canonicalize(d).ok())
            .collect()
    }

    /// `path` made absolute (relative to the first folder) and checked: it must be inside the
    /// folders with links resolved. Does not require the file to exist.
    pub fn inside(&self, path: &Path) -> Result<PathBuf, String> {
        let abs = if path.is_absolute() {
            path.to_owned()
        } else {
            self.first()?.join(path)
        };
        let abs = normalize(&abs);
        // Resolve what exists: the file itself, else its folder.
        let resolved = match std::fs::canonicalize(&abs) {
            Ok(p) => p,
            Err(_) => {
                let parent = abs.parent().unwrap_or(Path::new("/"));
                let name = abs.file_name().map(PathBuf::from).unwrap_or_default();
                std::fs::canonicalize(parent)
                    .map(|p| p.join(name))
                    .map_err(|_| texts::no_such_folder(parent))?
            }
        };
        if self.resolved().iter().any(|d| resolved.starts_with(d)) {
            Ok(resolved)
        } else {
            Err(texts::outside_dirs(&abs, &self.dirs))
        }
    }

    /// `path` checked as [`DocumentDirs::inside`] does and its folder opened at once
    /// ([`Place::pin`]): what is read or written there later goes to the folder that was checked,
    /// whatever happens to the path meanwhile.
    pub fn place(&self, path: &Path) -> Result<Place, String> {
        let resolved = self.inside(path)?;
        Place::pin(&resolved).map_err(|e| e.to_string())
    }

    /// An existing document to open: inside the folders, of a known format, its place pinned
    /// and a regular file there (not a link).
    pub fn existing(&self, path: &Path) -> Result<(Place, &'static OpenFormat), String> {
        let format = open_format(path).ok_or_else(|| texts::not_a_document(path))?;
        let place = self.place(path)?;
        place.open().map_err(|e| e.to_string())?;
        Ok((place, format))
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The `file://` URL of an absolute path (percent-encoded as LibreOffice expects).
pub fn file_url(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map(String::from)
        .unwrap_or_else(|()| format!("file://{}", path.display()))
}

/// The path of a `file://` URL; `None` for other URLs (an untitled document has none).
pub fn url_path(url: &str) -> Option<PathBuf> {
    url::Url::parse(url).ok()?.to_file_path().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_extensions_roots_and_the_helper() {
        assert_eq!(Kind::from_extension("DOCX"), Some(Kind::Writer));
        assert_eq!(Kind::from_extension("ods"), Some(Kind::Calc));
        assert_eq!(Kind::from_extension("pptx"), Some(Kind::Impress));
        assert_eq!(Kind::from_extension("txt"), None);
        assert_eq!(Kind::from_root("libreoffice-calc"), Some(Kind::Calc));
        assert_eq!(Kind::from_helper("impress"), Some(Kind::Impress));
    }

    #[test]
    fn save_formats_have_ufo_defaults_and_name_the_others_when_unknown() {
        for kind in [Kind::Writer, Kind::Calc, Kind::Impress] {
            assert!(save_format(kind, kind.default_save_ext()).is_ok());
        }
        assert_eq!(
            save_format(Kind::Writer, ".PDF").unwrap().filter,
            "writer_pdf_Export"
        );
        assert_eq!(
            save_format(Kind::Calc, "csv").unwrap().options,
            Some("44,34,76,1,,0,false,true,true,false")
        );
        let e = save_format(Kind::Calc, "pptx").unwrap_err();
        assert!(e.contains("csv, xlsx, ods, xls, pdf, html"), "{e}");
    }

    #[test]
    fn paths_must_stay_inside_the_folders_with_links_resolved() {
        let tmp = tempfile::tempdir().unwrap();
        let docs = tmp.path().join("docs");
        let other = tmp.path().join("other");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(docs.join("a.docx"), "x").unwrap();
        std::fs::write(other.join("b.docx"), "x").unwrap();
        std::os::unix::fs::symlink(other.join("b.docx"), docs.join("link.docx")).unwrap();
        let dirs = DocumentDirs::new(vec![docs.clone()]);
        assert!(dirs.existing(&docs.join("a.docx")).is_ok());
        assert!(
            dirs.existing(Path::new("a.docx")).is_ok(),
            "relative to the first folder"
        );
        for bad in [
            other.join("b.docx"),
            docs.join("link.docx"),
            docs.join("../other/b.docx"),
        ] {
            let e = dirs.existing(&bad).unwrap_err();
            assert!(e.contains("outside the folders deft may use"), "{e}");
        }
        let e = dirs.existing(&docs.join("missing.docx")).unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
        let e = dirs.existing(&docs.join("notes.txt")).unwrap_err();
        assert!(e.contains(".docx"), "{e}");
    }

    #[test]
    fn the_folders_option_takes_absolute_paths() {
        let d = DocumentDirs::from_options(&serde_json::json!({"document_dirs": ["/srv/docs"]}))
            .unwrap();
        assert_eq!(d.dirs(), [PathBuf::from("/srv/docs")]);
        assert_eq!(
            DocumentDirs::from_options(&Value::Null).unwrap(),
            DocumentDirs::default()
        );
        for bad in [
            serde_json::json!("x"),
            serde_json::json!(["rel/dir"]),
            serde_json::json!([]),
        ] {
            assert!(
                DocumentDirs::from_options(&serde_json::json!({"document_dirs": bad})).is_err()
            );
        }
    }

    #[test]
    fn file_urls_are_percent_encoded_and_read_back() {
        let p = Path::new("/tmp/Grüße 1/ä#b.docx");
        let u = file_url(p);
        assert_eq!(u, "file:///tmp/Gr%C3%BC%C3%9Fe%201/%C3%A4%23b.docx");
        assert_eq!(url_path(&u).as_deref(), Some(p));
        assert_eq!(url_path("private:factory/swriter"), None);
    }
}
