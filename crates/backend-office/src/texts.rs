//! Every text this backend writes for the model or a person (tool descriptions, results,
//! errors). Stable: prompts and tests rely on them.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The server's name in MCP `initialize`.
pub const SERVER_NAME: &str = "deft-office";

/// Server instructions.
pub const INSTRUCTIONS: &str = "LibreOffice Writer, Calc and Impress through their own API (UNO), on the document of the selected window: the same document the GUI tools show, so API and GUI actions can be mixed. Open documents with launch_app and select their window first.";

/// What to install for documents.
pub const INSTALL: &str = "apt-get install libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-gtk3 python3-uno";

/// LibreOffice is not installed.
pub fn office_missing(program: &str) -> String {
    format!(
        "LibreOffice is not installed ({program} does not exist). Install it with `{INSTALL}`; until then documents cannot be opened or edited."
    )
}

/// The Python with `uno` is missing.
pub fn python_missing(python: &Path) -> String {
    format!(
        "{} does not exist: deft talks to LibreOffice through Debian's Python with the uno module. Install it with `{INSTALL}`.",
        python.display()
    )
}

/// Python runs but has no `uno`.
pub fn uno_missing(python: &Path, detail: &str) -> String {
    format!(
        "{} has no uno module ({detail}). Install it with `{INSTALL}`.",
        python.display()
    )
}

/// The helper process failed.
pub fn helper_failed(why: &str) -> String {
    format!("deft's UNO helper failed ({why}); the next call starts it again.")
}

/// LibreOffice could not be started.
pub fn office_cannot_start(what: &str, why: &str) -> String {
    format!("LibreOffice could not be started ({what}: {why}).")
}

/// The profile folder could not be made.
pub fn profile_failed(dir: &Path, why: &str) -> String {
    format!(
        "LibreOffice's private profile in {} could not be prepared: {why}.",
        dir.display()
    )
}

/// The instance is stopping (its device session ends).
pub const OFFICE_STOPPED: &str =
    "LibreOffice is being stopped with its device session; it cannot open documents now.";

/// LibreOffice did not come up in time.
pub fn office_not_ready(secs: u64) -> String {
    format!(
        "LibreOffice did not get ready within {secs} s. Try again; if it keeps failing, look at LibreOffice's log in its profile folder."
    )
}

/// The supervisor gave up after repeated crashes.
pub fn office_crashing(how: &str, max: usize) -> String {
    format!(
        "LibreOffice crashed more than {max} times within a minute (last: {how}); deft stopped restarting it. The next document opened starts it again."
    )
}

/// A bad `document_dirs` option.
pub fn bad_document_dirs(found: &str) -> String {
    format!("document_dirs must be a non-empty list of absolute folder paths, found {found}")
}

/// A bad path-like option.
pub fn bad_option(key: &str, found: &str) -> String {
    format!("{key} must be a path, found {found}")
}

/// The allowed folder could not be created.
pub fn cannot_create_dir(dir: &Path, why: &str) -> String {
    format!(
        "The documents folder {} could not be created: {why}.",
        dir.display()
    )
}

/// A path outside the allowed folders.
pub fn outside_dirs(path: &Path, dirs: &[PathBuf]) -> String {
    let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    format!(
        "{} is outside the folders deft may use for documents ({}). Use a path inside them.",
        path.display(),
        dirs.join(", ")
    )
}

/// A folder that does not exist.
pub fn no_such_folder(dir: &Path) -> String {
    format!("The folder {} does not exist.", dir.display())
}

/// A path that is not an office document.
pub fn not_a_document(path: &Path) -> String {
    format!(
        "{} is not a document LibreOffice opens here: use a .docx, .odt, .doc, .rtf, .xlsx, .ods, .xls, .pptx, .odp or .ppt file.",
        path.display()
    )
}

/// A folder on a document's way, or the document itself, became a link after it was checked.
pub fn place_changed(path: &Path) -> String {
    format!(
        "{} changed while deft was checking it: it is a symbolic link now, which was not there a moment ago, so nothing was read or written through it. Check the folder (run_shell ls -l) and try again.",
        path.display()
    )
}

/// A folder where a document was to be written.
pub fn place_is_folder(path: &Path) -> String {
    format!(
        "{} is a folder, so no document can be saved under that name. Choose another file_name.",
        path.display()
    )
}

/// The system refused a read or write in the documents folders.
pub fn place_failed(path: &Path, err: &std::io::Error) -> String {
    format!(
        "{} could not be read or written: {err}. Check that the folder exists and is writable, then try again.",
        path.display()
    )
}

/// deft's private folder for LibreOffice's files could not be made.
pub fn private_failed(why: &str) -> String {
    format!(
        "deft's private folder for the files LibreOffice reads and writes could not be prepared: {why}. Check that the temporary folder ($TMPDIR, else /tmp) is writable."
    )
}

/// A folder where a file was expected.
pub fn not_a_file(path: &Path) -> String {
    format!("{} is not a file.", path.display())
}

/// A document that does not exist.
pub fn no_such_document(path: &Path) -> String {
    format!(
        "{} does not exist. Check the name (get its folder's files with run_shell ls), or create a new document with launch_app libreoffice-writer, libreoffice-calc or libreoffice-impress.",
        path.display()
    )
}

/// An unknown flag for LibreOffice in `launch_app`'s args.
pub fn unknown_office_arg(flag: &str) -> String {
    format!(
        "launch_app passes LibreOffice only a document path or one of --writer, --calc, --impress (a new document); {flag:?} is not accepted."
    )
}

/// More than one document in one `launch_app`.
pub const ONE_DOCUMENT_PER_LAUNCH: &str =
    "launch_app opens one document per call: call it once for each document.";

/// A request that is not LibreOffice's (a caller's mistake).
pub fn not_office(app: &str) -> String {
    format!("{app:?} is not a LibreOffice document or application.")
}

/// LibreOffice refused to open a file.
pub fn cannot_open(path: &Path, label: Option<&str>, asked: &Value) -> String {
    let said: Vec<&str> = asked
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let what = label.map_or_else(String::new, |l| format!(" as a {l}"));
    let mut out = format!(
        "LibreOffice could not open {}{what}: the file is damaged or is not what its extension says.",
        path.display()
    );
    if !said.is_empty() {
        out.push_str(&format!(" LibreOffice said: {}", said.join(" / ")));
    }
    out
}

/// LibreOffice refused the UNO connection (it is restarting or gone).
pub fn office_not_accepting(pid: u32) -> String {
    format!(
        "LibreOffice (pid {pid}) does not accept connections: it is restarting or gone. Open the document again with launch_app."
    )
}

/// LibreOffice refused a UNO call for a reason of its own (`detail`: what it said).
pub fn office_failed(doing: &str, detail: Option<&str>) -> String {
    format!(
        "LibreOffice failed to {doing}: {}",
        detail.unwrap_or("no details")
    )
}

/// A UNO call that passed its time limit.
pub fn office_timed_out(doing: &str, limit: std::time::Duration) -> String {
    format!(
        "LibreOffice did not answer within {} s while trying to {doing}; it may be showing a dialog or working on something large. Look at the window (capture_window_screenshot) before retrying.",
        limit.as_secs()
    )
}

/// LibreOffice died during a call.
pub fn office_crashed(doing: &str, pid: u32) -> String {
    format!(
        "LibreOffice stopped while trying to {doing} (process {pid} is gone); deft restarts it, but the document must be reopened: call launch_app with its path, then select its window. Changes not saved are lost."
    )
}

/// No LibreOffice of deft's runs on this desktop.
pub const NO_OFFICE_RUNNING: &str = "No LibreOffice started by deft runs on this desktop. Open a document with launch_app (a .docx/.xlsx/.pptx path, or libreoffice-writer, libreoffice-calc, libreoffice-impress for a new one), then select its window.";

/// No frame for the selected window.
pub fn no_document_window(process: &str) -> String {
    if process.is_empty() {
        "No LibreOffice document window is active. Select a document window with select_application_window first.".to_owned()
    } else {
        format!(
            "No open LibreOffice document window is titled {process:?}: it was closed, or LibreOffice was restarted after a crash. Open the document again with launch_app and select its window."
        )
    }
}

/// The LibreOffice that showed the selected window died (a restarted one has no such window).
pub fn office_gone(process: &str, pid: u32) -> String {
    let window = if process.is_empty() {
        "the selected document".to_owned()
    } else {
        format!("{process:?}")
    };
    format!(
        "LibreOffice (process {pid}) that showed {window} has stopped; deft restarts it after a crash, but documents are not reopened. Open the document again with launch_app and select its window."
    )
}

/// The bound window has no document (the Start Center).
pub fn no_document(title: &str) -> String {
    format!(
        "The window {title:?} has no document (it is LibreOffice's Start Center). Open or create a document with launch_app and select its window."
    )
}

/// A tool of one kind on another kind's window: what it works on (`want_app`, `want_noun`:
/// `Calc`, `spreadsheet`) and what the window shows (`have_noun`; none: no document).
pub fn wrong_kind(
    tool: &str,
    want_app: &str,
    want_noun: &str,
    have_noun: Option<&str>,
    title: &str,
) -> String {
    let have = have_noun.unwrap_or("no document");
    format!(
        "{tool} works on {want_app} {want_noun}s; the selected window {title:?} shows a {have}."
    )
}

/// A number argument outside its range.
pub fn out_of_range(field: &str, value: i64, min: i64, max: i64) -> String {
    format!("{field} must be a whole number from {min} to {max}, got {value}.")
}

/// A number argument that is no number.
pub fn not_a_number(field: &str, found: &str) -> String {
    format!("{field} must be a whole number, got {found}.")
}

/// A table too large to insert.
pub fn table_too_large(rows: i64, columns: i64, max_cells: i64) -> String {
    format!(
        "A table of {rows} × {columns} = {} cells is too large: at most {max_cells} cells per call. Insert a smaller table, or add rows in several calls.",
        rows.saturating_mul(columns)
    )
}

/// Text that is not in the document.
pub fn text_not_found(text: &str) -> String {
    format!("No text {text:?} in the document. Read it with get_document_text to see what it says.")
}

/// A table number out of range.
pub fn table_out_of_range(number: i64, count: i64) -> String {
    if count == 0 {
        format!(
            "The document has no tables (table {number} was asked for). Insert one with insert_table."
        )
    } else {
        format!(
            "The document has {count} table{}; number must be from 1 to {count}, got {number}.",
            plural(count)
        )
    }
}

/// A paragraph index out of range.
pub fn paragraph_out_of_range(
    field: &str,
    value: i64,
    count: i64,
    non_empty: bool,
    start: Option<i64>,
) -> String {
    let which = if non_empty {
        "non-empty paragraphs"
    } else {
        "paragraphs"
    };
    match (field, start) {
        ("end_index", Some(start)) => format!(
            "end_index must be -1 (to the end) or from start_index {start} to {count} (the document has {count} {which}), got {value}."
        ),
        _ => format!(
            "The document has {count} {which}; {field} must be from 1 to {count}, got {value}."
        ),
    }
}

/// No paragraphs at all.
pub fn no_paragraphs(non_empty: bool) -> String {
    if non_empty {
        "The document has no non-empty paragraphs (pass non_empty: false to count empty ones)."
            .to_owned()
    } else {
        "The document has no paragraphs.".to_owned()
    }
}

/// `set_font` without anything to set.
pub const SET_FONT_NEEDS_ONE: &str = "Give font_name, font_size or both.";

/// A font that is not installed.
pub fn no_such_font(font: &str, similar: &[String]) -> String {
    let mut out = format!("The font {font:?} is not installed");
    if similar.is_empty() {
        out.push('.');
    } else {
        out.push_str(&format!(
            "; installed fonts like it: {}.",
            similar.join(", ")
        ));
    }
    out
}

/// A font size outside what LibreOffice takes.
pub fn bad_font_size(size: f64) -> String {
    format!("font_size must be from 1 to 999 points, got {size}.")
}

/// A sheet that does not exist.
pub fn no_sheet(sheet: &str, sheets: &[String]) -> String {
    format!(
        "Sheet {sheet} does not exist; sheets: {} (a name, or its number from 1).",
        sheets.join(", ")
    )
}

/// A sheet name argument that is neither a name nor a number.
pub fn bad_sheet(found: &str) -> String {
    format!("sheet_name must be a sheet's name or its number from 1, got {found}.")
}

/// A column argument that is neither a number nor letters.
pub fn bad_column(field: &str, found: &str) -> String {
    format!("{field} must be a column number from 1 or its letters (A, B, … AA), got {found}.")
}

/// A table argument that is not a list of rows.
pub const BAD_TABLE: &str = "table must be a list of rows, each a list of cell values (strings, numbers, true/false or null), with at least one cell.";

/// A cell value that is not a string, number, boolean or null.
pub fn bad_cell(row: usize, col: usize) -> String {
    format!("table[{row}][{col}] must be a string, a number, true/false or null.")
}

/// A range past the sheet's last row or column.
pub fn outside_sheet(range: &str) -> String {
    format!("The range {range} goes past the sheet's last row (1048576) or column (XFD).")
}

/// A range too large to read at once.
pub fn range_too_large(range: &str, cells: i64, max: i64) -> String {
    format!(
        "The range {range} has {cells} cells; at most {max} are read at once. Ask for a smaller range."
    )
}

/// `reorder_columns` with an unknown header.
pub fn no_column(column: &str, sheet: &str, headers: &[String]) -> String {
    format!(
        "No column headed {column:?} in sheet {sheet:?}; its first row reads: {}.",
        headers
            .iter()
            .map(|h| format!("{h:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `reorder_columns` naming a column twice.
pub fn column_twice(column: &str) -> String {
    format!("desired_order names the column {column:?} twice.")
}

/// An empty sheet where headers were needed.
pub fn empty_sheet(sheet: &str) -> String {
    format!("Sheet {sheet:?} is empty: there are no columns to reorder.")
}

/// A slide that does not exist.
pub fn slide_out_of_range(slide: i64, count: i64) -> String {
    format!(
        "The presentation has {count} slide{}; slide_index must be from 1 to {count}, got {slide}.",
        plural(count)
    )
}

/// A colour that is not hex RGB.
pub fn bad_color(found: &str) -> String {
    format!("color must be a hex RGB colour such as \"FF0000\" or \"#1E90FF\", got {found:?}.")
}

/// An unknown save format for a document called `noun` (`spreadsheet`, …).
pub fn unknown_format(ext: &str, noun: &str, known: &[&str]) -> String {
    format!(
        "A {noun} cannot be saved as .{ext}; file_ext may be {}.",
        known.join(", ")
    )
}

/// `current_slide_only` on a non-image format.
pub const CURRENT_SLIDE_ONLY_IMAGES: &str =
    "current_slide_only applies to image formats (png, jpg, gif, bmp, svg) only.";

/// A file name with a folder in it.
pub fn bad_file_name(name: &str) -> String {
    format!("file_name must be a name without folders, got {name:?}; put the folder in file_dir.")
}

/// `save` on a document that has no file yet.
pub fn no_location(title: &str) -> String {
    format!(
        "{title:?} has never been saved, so it has no file to save to: use save_as (file_dir, file_name, file_ext)."
    )
}

/// Writing a file failed.
pub fn store_failed(path: &str, detail: &str) -> String {
    format!(
        "LibreOffice could not write {path}: {detail}. Check that the folder is writable and the file is not open elsewhere."
    )
}

/// A refusal kind this version does not know (a helper/Rust mismatch).
pub fn refused(kind: &str, fields: &Value) -> String {
    format!(
        "LibreOffice refused ({kind}): {}",
        fields["detail"].as_str().unwrap_or("no details")
    )
}

// --- results (what changed) ---------------------------------------------------------------------

/// `insert_table`'s result.
pub fn inserted_table(rows: i64, columns: i64, name: &str, index: i64, tables: i64) -> String {
    format!(
        "Inserted a {rows} × {columns} table ({name}, table {index} of {tables}) at the end of the document."
    )
}

/// `select_text`'s result.
pub fn selected_text(text: &str, occurrences: i64) -> String {
    if occurrences > 1 {
        format!("Selected {text:?}, the first of {occurrences} occurrences.")
    } else {
        format!("Selected {text:?}.")
    }
}

/// `select_table`'s result.
pub fn selected_table(number: i64, name: &str, rows: i64, columns: i64) -> String {
    format!("Selected table {number} ({name}, {rows} × {columns}): all its cells.")
}

/// `select_paragraph`'s result.
pub fn selected_paragraphs(first: i64, last: i64, count: i64, preview: &str) -> String {
    let which = if first == last {
        format!("paragraph {first}")
    } else {
        format!("paragraphs {first} to {last}")
    };
    format!("Selected {which} of {count}: {preview:?}.")
}

/// `set_font`'s result.
pub fn font_set(what: &str, target: &str, substitute: Option<&str>) -> String {
    let mut out = format!("Set {what} of {target}.");
    if let Some(s) = substitute {
        out.push_str(&format!(
            " The font is not installed here; LibreOffice shows it as {s}, and the file keeps the name."
        ));
    }
    out
}

/// What `set_font` changes: `the font to Arial 12 pt`.
pub fn font_change(font: Option<&str>, size: Option<f64>) -> String {
    match (font, size) {
        (Some(f), Some(s)) => format!("the font to {f} {s} pt"),
        (Some(f), None) => format!("the font to {f}"),
        (None, Some(s)) => format!("the size to {s} pt"),
        (None, None) => "nothing".to_owned(),
    }
}

/// `set_font` with nothing selected.
pub const FONT_AT_CURSOR: &str = "the text typed next at the cursor";

/// `set_font` on table cells.
pub fn font_cells(ranges: i64) -> String {
    format!("{ranges} selected table cell range{}", plural(ranges))
}

/// `set_font` on selected text.
pub fn font_selection(preview: &str, chars: i64) -> String {
    format!(
        "the selection ({preview:?}, {chars} character{})",
        plural(chars)
    )
}

/// `save_as`'s result.
pub fn saved_as(path: &Path, label: &str, bytes: u64, moved: bool, note: Option<&str>) -> String {
    let mut out = format!(
        "Saved the document as {} ({label}, {}).",
        path.display(),
        size(bytes)
    );
    if moved {
        out.push_str(" The window now shows this file.");
    } else {
        out.push_str(" The window keeps its own file.");
    }
    if let Some(n) = note {
        out.push(' ');
        out.push_str(n);
    }
    out
}

/// `save_as` of slides as images.
pub fn saved_images(files: &[PathBuf], label: &str) -> String {
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    format!(
        "Exported {} slide{} as {label}: {}.",
        files.len(),
        plural(files.len() as i64),
        names.join(", ")
    )
}

/// CSV holds one sheet.
pub fn csv_sheet(sheet: &str) -> String {
    format!("CSV holds one sheet: the active sheet {sheet:?} was written.")
}

/// `save`'s result.
pub fn saved(path: &Path, bytes: u64) -> String {
    format!("Saved {} ({}).", path.display(), size(bytes))
}

/// `close_document`'s result.
pub fn closed_document(title: &str, discarded: bool) -> String {
    if discarded {
        format!("Closed {title:?}; its unsaved changes were dropped.")
    } else {
        format!("Closed {title:?}.")
    }
}

/// `insert_excel_table`'s result.
pub fn wrote_cells(rows: i64, columns: i64, sheet: &str, range: &str, formulas: i64) -> String {
    let mut out = format!("Wrote {rows} × {columns} cells to {sheet}!{range}.");
    if formulas > 0 {
        out.push_str(&format!(" {formulas} of them are formulas."));
    }
    out
}

/// `select_table_range`'s result.
pub fn selected_range(sheet: &str, range: &str, cells: i64) -> String {
    format!("Selected {sheet}!{range} ({cells} cell{}).", plural(cells))
}

/// `reorder_columns`'s result.
pub fn reordered(sheet: &str, before: &[String], after: &[String]) -> String {
    format!(
        "Reordered the columns of {sheet:?}: {} (was {}).",
        after.join(", "),
        before.join(", ")
    )
}

/// `reorder_columns` when the order already holds.
pub fn already_ordered(sheet: &str) -> String {
    format!("The columns of {sheet:?} are already in that order; nothing changed.")
}

/// `set_background_color`'s result.
pub fn background_set(color: &str, slides: &[i64], count: i64) -> String {
    let which = if slides.len() as i64 == count && count > 1 {
        format!("all {count} slides")
    } else if slides.len() == 1 {
        format!("slide {}", slides[0])
    } else {
        let s: Vec<String> = slides.iter().map(i64::to_string).collect();
        format!("slides {}", s.join(", "))
    };
    format!("Set the background of {which} to #{color}.")
}

/// A sheet with nothing in it, as markdown.
pub fn empty_sheet_markdown(sheet: &str) -> String {
    format!("Sheet {sheet:?} is empty.")
}

/// Footer of a cut markdown table.
pub fn more_rows(shown: usize, total: usize) -> String {
    format!(
        "… {} more row{} not shown (rows {}–{total}); read them with get_range_values.",
        total - shown,
        if total - shown == 1 { "" } else { "s" },
        shown + 1
    )
}

/// Footer of a cut text.
pub fn more_text(shown_to: usize, total: usize) -> String {
    format!(
        "… {} more characters not shown; call get_document_text with start={shown_to} to read on.",
        total - shown_to
    )
}

/// Footer of cut slide texts.
pub fn more_slides(shown: usize, total: usize) -> String {
    format!(
        "… slides {}–{total} not shown (the text budget was reached).",
        shown + 1
    )
}

fn plural(n: i64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else {
        format!("{} KB", bytes.div_ceil(1024))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_places_texts_say_what_happened_and_what_to_do() {
        let p = Path::new("/home/u/Documents/sub");
        assert_eq!(
            place_changed(p),
            "/home/u/Documents/sub changed while deft was checking it: it is a symbolic link now, which was not there a moment ago, so nothing was read or written through it. Check the folder (run_shell ls -l) and try again."
        );
        assert_eq!(
            place_is_folder(&p.join("q1.odt")),
            "/home/u/Documents/sub/q1.odt is a folder, so no document can be saved under that name. Choose another file_name."
        );
        let denied = std::io::Error::from_raw_os_error(13);
        assert_eq!(
            place_failed(&p.join("q1.odt"), &denied),
            "/home/u/Documents/sub/q1.odt could not be read or written: Permission denied (os error 13). Check that the folder exists and is writable, then try again."
        );
        assert_eq!(
            private_failed("No space left on device"),
            "deft's private folder for the files LibreOffice reads and writes could not be prepared: No space left on device. Check that the temporary folder ($TMPDIR, else /tmp) is writable."
        );
    }
}

/// Tool and argument descriptions.
pub mod describe {
    /// `insert_table`.
    pub const INSERT_TABLE: &str = "Writer: insert an empty table of rows × columns at the end of the document (its cells are addressable in the GUI listing afterwards). At most 10000 cells.";
    /// `select_text`.
    pub const SELECT_TEXT: &str = "Writer: select the first occurrence of text in the document (case-insensitive), as a person would by dragging over it; later set_font acts on it.";
    /// `select_table`.
    pub const SELECT_TABLE: &str =
        "Writer: select all cells of table `number` (1 = the first table in the document).";
    /// `select_paragraph`.
    pub const SELECT_PARAGRAPH: &str = "Writer: select paragraphs start_index to end_index of the body text (1 = the first; end_index -1 = to the end of the document); non_empty (default true) counts only paragraphs with text. Table cells are not counted.";
    /// `set_font`.
    pub const SET_FONT: &str = "Writer: set the font (font_name, e.g. \"Arial\") and/or size (font_size in points) of the current selection — made by select_text, select_paragraph, select_table or by the GUI. With nothing selected, it applies to what is typed next at the cursor.";
    /// `save_as`.
    pub const SAVE_AS: &str = "Save the document to a file: file_dir (default: the document's folder), file_name without extension (default: the document's name), file_ext (default .pdf for Writer, .csv for Calc, .pptx for Impress; also docx/odt/txt/html, xlsx/ods/pdf, odp/pdf/png/jpg). Editable formats move the window to the new file, like Save As; PDF, CSV, text and images are exported copies. Impress: current_slide_only with an image format exports only the current slide (otherwise every slide, numbered). Paths must be inside the allowed document folders.";
    /// `save`.
    pub const SAVE: &str = "Save the document to its own file, in its own format (a document that was never saved needs save_as).";
    /// `close_document`.
    pub const CLOSE_DOCUMENT: &str = "Close the document of the selected window, without saving: changes not saved are dropped (call save first to keep them). LibreOffice stays running for other documents; the window is gone, so select another one before acting again.";
    /// `get_document_text`.
    pub const GET_DOCUMENT_TEXT: &str = "Writer: the document's text (tables as rows of cells separated by \" | \"), from character `start` (default 0), at most max_chars (default 8000, at most 100000); a footer says how to read on.";
    /// `table2markdown`.
    pub const TABLE2MARKDOWN: &str = "Calc: the used area of a sheet (sheet_name: its name, or its number from 1) as a markdown table, the first row as the header; long sheets are cut with a footer saying how to read the rest.";
    /// `insert_excel_table`.
    pub const INSERT_EXCEL_TABLE: &str = "Calc: write table (a list of rows, each a list of strings, numbers, true/false or null; strings starting with = are formulas) into sheet_name with its top-left cell at start_row, start_col (1-based; the column may be letters, e.g. \"C\"). At most 100000 cells.";
    /// `select_table_range`.
    pub const SELECT_TABLE_RANGE: &str = "Calc: select cells start_row..end_row × start_col..end_col of sheet_name (1-based; columns may be letters; -1 = to the end of the used area) and show that sheet.";
    /// `get_range_values`.
    pub const GET_RANGE_VALUES: &str = "Calc: the values of cells start_row..end_row × start_col..end_col of sheet_name (1-based; columns may be letters; -1 = to the end of the used area) as {sheet, range, values: [[…]]}. At most 10000 cells.";
    /// `reorder_columns`.
    pub const REORDER_COLUMNS: &str = "Calc: reorder the columns of sheet_name by their headers (first row): the columns named in desired_order come first in that order, the others follow in their order. Whole columns move (formats and formulas too).";
    /// `set_background_color`.
    pub const SET_BACKGROUND_COLOR: &str = "Impress: set the background of slides to a solid colour (hex RGB, e.g. \"1E90FF\"); slide_index: a list of slide numbers from 1 (default: every slide).";
    /// `get_slides_text`.
    pub const GET_SLIDES_TEXT: &str = "Impress: the text of every slide (its text boxes and shapes, and its notes), slide by slide.";

    /// Argument: rows.
    pub const ROWS: &str = "Number of rows (1-10000).";
    /// Argument: columns.
    pub const COLUMNS: &str = "Number of columns (1-100).";
    /// Argument: text.
    pub const TEXT: &str = "The text to find and select.";
    /// Argument: number.
    pub const NUMBER: &str = "Which table, 1 = the first.";
    /// Argument: start_index.
    pub const START_INDEX: &str = "First paragraph to select, 1 = the first.";
    /// Argument: end_index.
    pub const END_INDEX: &str =
        "Last paragraph to select (inclusive); -1 = to the end of the document.";
    /// Argument: non_empty.
    pub const NON_EMPTY: &str = "Count only paragraphs that have text (default true).";
    /// Argument: font_name.
    pub const FONT_NAME: &str = "Font family, e.g. \"Arial\" or \"DejaVu Serif\".";
    /// Argument: font_size.
    pub const FONT_SIZE: &str = "Size in points, e.g. 12.";
    /// Argument: file_dir.
    pub const FILE_DIR: &str = "Folder to save in (default: the document's folder, or the first documents folder for a new document).";
    /// Argument: file_name.
    pub const FILE_NAME: &str = "File name without extension (default: the document's name).";
    /// Argument: file_ext.
    pub const FILE_EXT: &str =
        "Extension, with or without the dot (default: .pdf Writer, .csv Calc, .pptx Impress).";
    /// Argument: current_slide_only.
    pub const CURRENT_SLIDE_ONLY: &str =
        "Impress, image formats: export only the current slide (default false: every slide).";
    /// Argument: start.
    pub const START: &str = "Character to start from (default 0).";
    /// Argument: max_chars.
    pub const MAX_CHARS: &str = "At most this many characters (default 8000, at most 100000).";
    /// Argument: sheet_name.
    pub const SHEET_NAME: &str = "The sheet's name, or its number from 1.";
    /// Argument: table.
    pub const TABLE: &str =
        "Rows of cell values: strings, numbers, true/false or null; \"=…\" is a formula.";
    /// Argument: start_row.
    pub const START_ROW: &str = "First row, from 1.";
    /// Argument: start_col.
    pub const START_COL: &str = "First column, from 1, or its letters (\"A\").";
    /// Argument: end_row.
    pub const END_ROW: &str = "Last row (inclusive); -1 = the last used row (default).";
    /// Argument: end_col.
    pub const END_COL: &str =
        "Last column (inclusive), number or letters; -1 = the last used column (default).";
    /// Argument: desired_order.
    pub const DESIRED_ORDER: &str = "Column headers (first-row texts) in the order wanted.";
    /// Argument: color.
    pub const COLOR: &str = "Hex RGB colour, e.g. \"FF8800\" or \"#FF8800\".";
    /// Argument: slide_index.
    pub const SLIDE_INDEX: &str = "Slide numbers from 1 (default: every slide).";
}
