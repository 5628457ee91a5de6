//! Writing a document into the documents folders without LibreOffice ever writing there:
//! LibreOffice stores into deft's private folder ([`crate::private`]) and deft moves the file
//! into the place it checked ([`Place::put`]), through the folder it opened then. A folder
//! swapped for a link meanwhile, or a file swapped for one, is never written through.
//!
//! - [`store_as`]: `save` and `save_as`'s editable formats. The document moves to its new file
//!   as with the GUI's Save As: LibreOffice stores it as a private file and keeps working on it,
//!   a copy moves to the place, the document's URL is the place, and LibreOffice's own later
//!   saves of the private file are carried to that place ([`crate::carry`]).
//! - [`export`]: a copy (PDF, CSV, text, HTML); the document keeps its file.
//! - [`export_images`]: Impress slides as images, each file moved in beside the others.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::carry;
use crate::documents::{file_url, url_path};
use crate::place::Place;
use crate::private;
use crate::session::OfficeSession;

/// What LibreOffice's `store` call answered, and the bytes now at the place.
pub struct Stored {
    /// The helper's answer (`title`, Calc's `sheet`).
    pub answer: Value,
    /// The size of the file at the place.
    pub bytes: u64,
}

/// Stores the document as `filter` to `place` and moves it there (`save`, and `save_as` of an
/// editable format). When the file cannot be moved in, the document is marked unsaved again.
pub async fn store_as(
    session: &OfficeSession,
    tool: &str,
    place: &Place,
    filter: &str,
    options: Option<&str>,
) -> Result<Stored, String> {
    let file = private::document_file(place.name())?;
    let args = json!({
        "url": file_url(&file), "filter": filter, "filter_options": options,
        "mode": "as", "location": file_url(place.path()),
    });
    let (_, answer) = session.call(tool, "store", None, args).await?;
    // LibreOffice now works on `file`: its own saves of it go to this place from now on.
    carry::follow(&file, place)?;
    match carry::put_copy(&file, place) {
        Ok(bytes) => Ok(Stored { answer, bytes }),
        Err(e) => {
            // Not saved: say so to LibreOffice too (its own save would then ask again).
            let _ = session.call(tool, "unsaved", None, json!({})).await;
            Err(e)
        }
    }
}

/// Exports a copy as `filter` (with `options`) to `place`; the document keeps its file.
pub async fn export(
    session: &OfficeSession,
    tool: &str,
    place: &Place,
    filter: &str,
    options: Option<&str>,
) -> Result<Stored, String> {
    let scratch = private::scratch()?;
    let file = scratch.path().join(place.name());
    let args = json!({
        "url": file_url(&file), "filter": filter, "filter_options": options,
        "mode": "to", "location": file_url(place.path()),
    });
    let (_, answer) = session.call(tool, "store", None, args).await?;
    let bytes = place.put(&file).map_err(|e| e.to_string())?;
    Ok(Stored { answer, bytes })
}

/// Exports slides as images of `media` type: `place` for one slide, else `<stem>_<n>.<ext>`
/// beside it, one per slide. Answers the files' paths.
pub async fn export_images(
    session: &OfficeSession,
    place: &Place,
    ext: &str,
    media: &str,
    current_only: bool,
) -> Result<Vec<PathBuf>, String> {
    let scratch = private::scratch()?;
    let file = scratch.path().join(place.name());
    let a = json!({
        "url": file_url(&file), "stem_url": file_url(&file.with_extension("")), "ext": ext,
        "media_type": media, "current_only": current_only,
    });
    let (_, v) = session.call("save_as", "i_export_images", None, a).await?;
    let mut files = Vec::new();
    for written in v["files"].as_array().into_iter().flatten() {
        let Some(from) = written.as_str().and_then(url_path) else {
            continue;
        };
        let Some(name) = from.file_name() else {
            continue;
        };
        let to = place.sibling(name);
        to.put(&from).map_err(|e| e.to_string())?;
        files.push(to.path().to_owned());
    }
    Ok(files)
}
