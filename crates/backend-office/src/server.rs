//! The MCP server: UFO's Word, Excel and PowerPoint COM tools on LibreOffice Writer, Calc and
//! Impress, acting on the document of the selected window through one [`OfficeSession`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock as Content, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

use crate::args::{self, *};
use crate::documents::{self, Kind, Store};
use crate::fonts;
use crate::place::Place;
use crate::render;
use crate::saving;
use crate::session::{OfficeSession, SessionConfig};
use crate::texts::{self, describe};

/// Largest Writer table `insert_table` makes, in cells, rows and columns.
const MAX_TABLE_CELLS: i64 = 10_000;
const MAX_TABLE_ROWS: i64 = 10_000;
const MAX_TABLE_COLUMNS: i64 = 100;

/// Largest table `insert_excel_table` writes, in cells.
const MAX_SHEET_CELLS: i64 = 100_000;

/// Largest range `get_range_values` reads, in cells.
const MAX_READ_CELLS: i64 = 10_000;

/// deft's office tool server. Clones share one [`OfficeSession`] (one bound document).
#[derive(Clone)]
pub struct OfficeServer {
    session: Arc<OfficeSession>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for OfficeServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfficeServer")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

fn fail(text: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![Content::text(text.to_string())])
}

/// An action's answer: `{effect: changed, message, …extra}`, or its failure.
fn changed(result: Result<(String, Value), String>) -> CallToolResult {
    match result {
        Ok((message, extra)) => {
            let mut obj = json!({ "effect": "changed", "message": message });
            if let (Some(o), Value::Object(e)) = (obj.as_object_mut(), extra) {
                o.extend(e);
            }
            CallToolResult::structured(obj)
        }
        Err(e) => fail(e),
    }
}

/// A read tool's answer as text, or its failure.
fn text_answer(result: Result<String, String>) -> CallToolResult {
    match result {
        Ok(t) => CallToolResult::success(vec![Content::text(t)]),
        Err(e) => fail(e),
    }
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or_default()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The first `n` characters of `s`, with `…` when cut.
fn preview(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().count() > n {
        out.push('…');
    }
    out.replace(['\n', '\r'], " ")
}

#[tool_router]
impl OfficeServer {
    /// A server for the document `config` points at.
    pub fn new(config: SessionConfig) -> Self {
        OfficeServer {
            session: Arc::new(OfficeSession::new(config)),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(name = "insert_table", description = describe::INSERT_TABLE)]
    async fn insert_table(&self, Parameters(p): Parameters<InsertTableArgs>) -> CallToolResult {
        changed(self.insert_table_impl(&p).await)
    }

    #[tool(name = "select_text", description = describe::SELECT_TEXT)]
    async fn select_text(&self, Parameters(p): Parameters<SelectTextArgs>) -> CallToolResult {
        let r = async {
            if p.text.is_empty() {
                return Err(texts::text_not_found(""));
            }
            let (_, v) = self
                .session
                .call(
                    "select_text",
                    "w_select_text",
                    Some(Kind::Writer),
                    json!({"text": p.text}),
                )
                .await?;
            let selected = v["selected"].as_str().unwrap_or_default().to_owned();
            let msg = texts::selected_text(&selected, int(&v["occurrences"]));
            Ok((msg, json!({ "selected": selected })))
        };
        changed(r.await)
    }

    #[tool(name = "select_table", description = describe::SELECT_TABLE)]
    async fn select_table(&self, Parameters(p): Parameters<SelectTableArgs>) -> CallToolResult {
        let r = async {
            let number = args::whole("number", &p.number)?;
            let (_, v) = self
                .session
                .call(
                    "select_table",
                    "w_select_table",
                    Some(Kind::Writer),
                    json!({"number": number}),
                )
                .await?;
            let name = v["name"].as_str().unwrap_or_default();
            let msg = texts::selected_table(number, name, int(&v["rows"]), int(&v["columns"]));
            Ok((msg, json!({ "table": name })))
        };
        changed(r.await)
    }

    #[tool(name = "select_paragraph", description = describe::SELECT_PARAGRAPH)]
    async fn select_paragraph(
        &self,
        Parameters(p): Parameters<SelectParagraphArgs>,
    ) -> CallToolResult {
        let r = async {
            let start = args::whole("start_index", &p.start_index)?;
            let end = args::whole("end_index", &p.end_index)?;
            let a = json!({"start_index": start, "end_index": end, "non_empty": p.non_empty.unwrap_or(true)});
            let (_, v) = self
                .session
                .call(
                    "select_paragraph",
                    "w_select_paragraph",
                    Some(Kind::Writer),
                    a,
                )
                .await?;
            let selected = v["selected"].as_str().unwrap_or_default();
            let msg = texts::selected_paragraphs(
                int(&v["first"]),
                int(&v["last"]),
                int(&v["count"]),
                &preview(selected, 60),
            );
            Ok((msg, json!({ "selected": selected })))
        };
        changed(r.await)
    }

    #[tool(name = "set_font", description = describe::SET_FONT)]
    async fn set_font(&self, Parameters(p): Parameters<SetFontArgs>) -> CallToolResult {
        changed(self.set_font_impl(&p).await)
    }

    #[tool(name = "save_as", description = describe::SAVE_AS)]
    async fn save_as(&self, Parameters(p): Parameters<SaveAsArgs>) -> CallToolResult {
        changed(self.save_as_impl(&p).await)
    }

    #[tool(name = "save", description = describe::SAVE)]
    async fn save(&self) -> CallToolResult {
        changed(self.save_impl().await)
    }

    #[tool(name = "close_document", description = describe::CLOSE_DOCUMENT)]
    async fn close_document(&self) -> CallToolResult {
        let r = async {
            let (b, v) = self
                .session
                .call("close_document", "close", None, json!({}))
                .await?;
            let discarded = v["discarded"].as_bool().unwrap_or(false);
            let title = v["title"].as_str().unwrap_or(&b.title);
            Ok((
                texts::closed_document(title, discarded),
                json!({ "discarded": discarded }),
            ))
        };
        changed(r.await)
    }

    #[tool(
        name = "get_document_text",
        description = describe::GET_DOCUMENT_TEXT,
        annotations(read_only_hint = true)
    )]
    async fn get_document_text(&self, Parameters(p): Parameters<TextArgs>) -> CallToolResult {
        let r = async {
            let start = match &p.start {
                Some(v) if !v.is_null() => args::within("start", v, 0, i64::MAX)? as usize,
                _ => 0,
            };
            let max = match &p.max_chars {
                Some(v) if !v.is_null() => {
                    args::within("max_chars", v, 1, render::TEXT_MAX as i64)? as usize
                }
                _ => render::TEXT_DEFAULT,
            };
            let (_, v) = self
                .session
                .call("get_document_text", "w_text", Some(Kind::Writer), json!({}))
                .await?;
            Ok(render::slice(v["text"].as_str().unwrap_or_default(), start, max).0)
        };
        text_answer(r.await)
    }

    #[tool(
        name = "table2markdown",
        description = describe::TABLE2MARKDOWN,
        annotations(read_only_hint = true)
    )]
    async fn table2markdown(&self, Parameters(p): Parameters<SheetArgs>) -> CallToolResult {
        let r = async {
            let sheet = args::sheet(&p.sheet_name)?;
            let a = json!({"sheet": sheet, "max_rows": render::MARKDOWN_ROWS});
            let (_, v) = self
                .session
                .call("table2markdown", "c_table", Some(Kind::Calc), a)
                .await?;
            let rows: Vec<Vec<Value>> = v["rows"]
                .as_array()
                .map(|r| {
                    r.iter()
                        .map(|row| row.as_array().cloned().unwrap_or_default())
                        .collect()
                })
                .unwrap_or_default();
            if rows.is_empty() {
                return Ok(texts::empty_sheet_markdown(
                    v["sheet"].as_str().unwrap_or_default(),
                ));
            }
            Ok(render::markdown(&rows, int(&v["total_rows"]) as usize))
        };
        text_answer(r.await)
    }

    #[tool(name = "insert_excel_table", description = describe::INSERT_EXCEL_TABLE)]
    async fn insert_excel_table(
        &self,
        Parameters(p): Parameters<InsertExcelTableArgs>,
    ) -> CallToolResult {
        let r = async {
            let (table, rows, columns) = args::table(&p.table)?;
            if rows.saturating_mul(columns) > MAX_SHEET_CELLS {
                return Err(texts::table_too_large(rows, columns, MAX_SHEET_CELLS));
            }
            let a = json!({
                "sheet": args::sheet(&p.sheet_name)?,
                "table": table,
                "start_row": args::row("start_row", &p.start_row, false)?,
                "start_col": args::column("start_col", &p.start_col, false)?,
            });
            let (_, v) = self
                .session
                .call("insert_excel_table", "c_insert", Some(Kind::Calc), a)
                .await?;
            let (sheet, range) = (
                v["sheet"].as_str().unwrap_or_default(),
                v["range"].as_str().unwrap_or_default(),
            );
            let msg = texts::wrote_cells(rows, columns, sheet, range, int(&v["formulas"]));
            Ok((msg, json!({ "sheet": sheet, "range": range })))
        };
        changed(r.await)
    }

    #[tool(name = "select_table_range", description = describe::SELECT_TABLE_RANGE)]
    async fn select_table_range(&self, Parameters(p): Parameters<RangeArgs>) -> CallToolResult {
        let r = async {
            let a = range_args(&p, None)?;
            let (_, v) = self
                .session
                .call("select_table_range", "c_select", Some(Kind::Calc), a)
                .await?;
            let (sheet, range) = (
                v["sheet"].as_str().unwrap_or_default(),
                v["range"].as_str().unwrap_or_default(),
            );
            Ok((
                texts::selected_range(sheet, range, int(&v["cells"])),
                json!({ "sheet": sheet, "range": range }),
            ))
        };
        changed(r.await)
    }

    #[tool(
        name = "get_range_values",
        description = describe::GET_RANGE_VALUES,
        annotations(read_only_hint = true)
    )]
    async fn get_range_values(&self, Parameters(p): Parameters<RangeArgs>) -> CallToolResult {
        let r = async {
            let a = range_args(&p, Some(MAX_READ_CELLS))?;
            let (_, v) = self
                .session
                .call("get_range_values", "c_values", Some(Kind::Calc), a)
                .await?;
            Ok::<_, String>(v)
        };
        match r.await {
            Ok(v) => CallToolResult::structured(v),
            Err(e) => fail(e),
        }
    }

    #[tool(name = "reorder_columns", description = describe::REORDER_COLUMNS)]
    async fn reorder_columns(&self, Parameters(p): Parameters<ReorderArgs>) -> CallToolResult {
        let r = async {
            let a = json!({"sheet": args::sheet(&p.sheet_name)?, "order": p.desired_order});
            let (_, v) = self
                .session
                .call("reorder_columns", "c_reorder", Some(Kind::Calc), a)
                .await?;
            let sheet = v["sheet"].as_str().unwrap_or_default();
            let (before, after) = (strings(&v["before"]), strings(&v["after"]));
            let msg = if before == after {
                texts::already_ordered(sheet)
            } else {
                texts::reordered(sheet, &before, &after)
            };
            Ok((msg, json!({ "columns": after })))
        };
        changed(r.await)
    }

    #[tool(name = "set_background_color", description = describe::SET_BACKGROUND_COLOR)]
    async fn set_background_color(
        &self,
        Parameters(p): Parameters<BackgroundArgs>,
    ) -> CallToolResult {
        let r = async {
            let (color, hex) = args::color(&p.color)?;
            let slides = args::slides(p.slide_index.as_ref())?;
            let a = json!({"color": color, "slides": slides});
            let (_, v) = self
                .session
                .call(
                    "set_background_color",
                    "i_background",
                    Some(Kind::Impress),
                    a,
                )
                .await?;
            let done: Vec<i64> = v["slides"]
                .as_array()
                .map(|a| a.iter().map(int).collect())
                .unwrap_or_default();
            Ok((
                texts::background_set(&hex, &done, int(&v["count"])),
                json!({ "slides": done }),
            ))
        };
        changed(r.await)
    }

    #[tool(
        name = "get_slides_text",
        description = describe::GET_SLIDES_TEXT,
        annotations(read_only_hint = true)
    )]
    async fn get_slides_text(&self) -> CallToolResult {
        let r = async {
            let (_, v) = self
                .session
                .call("get_slides_text", "i_text", Some(Kind::Impress), json!({}))
                .await?;
            Ok(render::slides(
                v["slides"]
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default(),
            ))
        };
        text_answer(r.await)
    }
}

/// A range's arguments for the helper (`max_cells` for reading).
fn range_args(p: &RangeArgs, max_cells: Option<i64>) -> Result<Value, String> {
    let end = |v: &Option<Value>| v.clone().filter(|v| !v.is_null()).unwrap_or(json!(-1));
    let mut a = json!({
        "sheet": args::sheet(&p.sheet_name)?,
        "start_row": args::row("start_row", &p.start_row, false)?,
        "start_col": args::column("start_col", &p.start_col, false)?,
        "end_row": args::row("end_row", &end(&p.end_row), true)?,
        "end_col": args::column("end_col", &end(&p.end_col), true)?,
    });
    if let Some(m) = max_cells {
        a["max_cells"] = json!(m);
    }
    Ok(a)
}

impl OfficeServer {
    async fn insert_table_impl(&self, p: &InsertTableArgs) -> Result<(String, Value), String> {
        let rows = args::within("rows", &p.rows, 1, MAX_TABLE_ROWS)?;
        let columns = args::within("columns", &p.columns, 1, MAX_TABLE_COLUMNS)?;
        if rows.saturating_mul(columns) > MAX_TABLE_CELLS {
            return Err(texts::table_too_large(rows, columns, MAX_TABLE_CELLS));
        }
        let (_, v) = self
            .session
            .call(
                "insert_table",
                "w_insert_table",
                Some(Kind::Writer),
                json!({"rows": rows, "columns": columns}),
            )
            .await?;
        let name = v["name"].as_str().unwrap_or_default();
        let msg = texts::inserted_table(rows, columns, name, int(&v["index"]), int(&v["tables"]));
        Ok((msg, json!({ "table": name, "index": v["index"] })))
    }

    async fn set_font_impl(&self, p: &SetFontArgs) -> Result<(String, Value), String> {
        let name = p
            .font_name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty());
        let size = match &p.font_size {
            Some(v) if !v.is_null() => {
                let s = v
                    .as_f64()
                    .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                    .ok_or_else(|| texts::bad_font_size(f64::NAN))?;
                if !(1.0..=999.0).contains(&s) {
                    return Err(texts::bad_font_size(s));
                }
                Some(s)
            }
            _ => None,
        };
        if name.is_none() && size.is_none() {
            return Err(texts::SET_FONT_NEEDS_ONE.to_owned());
        }
        let (font, substitute) = match name {
            Some(n) => {
                let installed = self.session.fonts().await?;
                let env = &self.session.config().env;
                let (font, sub) = fonts::resolve(n, &installed, env).await?;
                (Some(font), sub)
            }
            None => (None, None),
        };
        let a = json!({"font_name": font, "font_size": size});
        let (_, v) = self
            .session
            .call("set_font", "w_set_font", Some(Kind::Writer), a)
            .await?;
        let what = texts::font_change(font.as_deref(), size);
        let target = if v["collapsed"] == json!(true) {
            texts::FONT_AT_CURSOR.to_owned()
        } else if int(&v["cells"]) > 0 {
            texts::font_cells(int(&v["cells"]))
        } else {
            let sel = v["selected"].as_str().unwrap_or_default();
            texts::font_selection(&preview(sel, 40), int(&v["chars"]))
        };
        let msg = texts::font_set(&what, &target, substitute.as_deref());
        Ok((
            msg,
            json!({ "font_name": font, "font_size": size, "substitute": substitute }),
        ))
    }

    async fn save_as_impl(&self, p: &SaveAsArgs) -> Result<(String, Value), String> {
        let (b, info) = self
            .session
            .call("save_as", "info", None, json!({}))
            .await?;
        let kind = b.kind.ok_or_else(|| texts::no_document(&b.title))?;
        let ext = p
            .file_ext
            .as_deref()
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .unwrap_or(kind.default_save_ext());
        let format = documents::save_format(kind, ext)?;
        let current_only = p.current_slide_only.unwrap_or(false);
        if current_only && format.image.is_none() {
            return Err(texts::CURRENT_SLIDE_ONLY_IMAGES.to_owned());
        }
        let place = self.save_target(p, &info, format.ext)?;
        let (filter, options) = (format.filter, format.options);
        if let Some(media) = format.image {
            let files =
                saving::export_images(&self.session, &place, format.ext, media, current_only)
                    .await?;
            return Ok((
                texts::saved_images(&files, format.label),
                json!({ "files": files }),
            ));
        }
        let moved = format.store == Store::As;
        let stored = if moved {
            saving::store_as(&self.session, "save_as", &place, filter, options).await?
        } else {
            saving::export(&self.session, "save_as", &place, filter, options).await?
        };
        let note = (format.ext == "csv")
            .then(|| texts::csv_sheet(stored.answer["sheet"].as_str().unwrap_or_default()));
        let target = place.path();
        let msg = texts::saved_as(target, format.label, stored.bytes, moved, note.as_deref());
        Ok((
            msg,
            json!({ "path": target, "format": format.ext, "bytes": stored.bytes }),
        ))
    }

    /// `save`: the document to its own file in its own format — stored through deft's private
    /// folder like `save_as`, to the place checked now.
    async fn save_impl(&self) -> Result<(String, Value), String> {
        let (b, info) = self.session.call("save", "info", None, json!({})).await?;
        let path = documents::url_path(info["url"].as_str().unwrap_or_default());
        let (Some(path), true) = (path, info["location"] == json!(true)) else {
            return Err(texts::no_location(&b.title));
        };
        let place = self.session.config().dirs.place(&path)?;
        let filter = info["filter"].as_str().unwrap_or_default();
        let options = info["filter_options"].as_str().filter(|o| !o.is_empty());
        let stored = saving::store_as(&self.session, "save", &place, filter, options).await?;
        Ok((
            texts::saved(place.path(), stored.bytes),
            json!({ "path": place.path(), "bytes": stored.bytes }),
        ))
    }

    /// Where `save_as` writes: file_dir (default the document's folder, else the first allowed
    /// folder) / file_name (default the document's name) . ext — inside the allowed folders.
    fn save_target(&self, p: &SaveAsArgs, info: &Value, ext: &str) -> Result<Place, String> {
        let dirs = &self.session.config().dirs;
        let doc = documents::url_path(info["url"].as_str().unwrap_or_default());
        let dir = match p
            .file_dir
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            Some(d) => PathBuf::from(d),
            None => match doc.as_deref().and_then(Path::parent) {
                Some(parent) => parent.to_owned(),
                None => dirs.first()?,
            },
        };
        let name = match p
            .file_name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            Some(n) if n.contains('/') => return Err(texts::bad_file_name(n)),
            Some(n) => {
                let lower = n.to_lowercase();
                match lower.strip_suffix(&format!(".{ext}")) {
                    Some(_) => n[..n.len() - ext.len() - 1].to_owned(),
                    None => n.to_owned(),
                }
            }
            None => match doc.as_deref().and_then(Path::file_stem) {
                Some(stem) => stem.to_string_lossy().into_owned(),
                None => title_stem(info["title"].as_str().unwrap_or("Untitled")),
            },
        };
        dirs.place(&dir.join(format!("{name}.{ext}")))
    }
}

/// `Untitled 1 - LibreOffice Writer` → `Untitled 1`.
fn title_stem(title: &str) -> String {
    title
        .split(" - LibreOffice")
        .next()
        .unwrap_or(title)
        .trim()
        .to_owned()
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for OfficeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                texts::SERVER_NAME,
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(texts::INSTRUCTIONS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untitled_documents_are_named_by_their_title() {
        assert_eq!(title_stem("Untitled 1 - LibreOffice Writer"), "Untitled 1");
        assert_eq!(title_stem("report"), "report");
    }

    #[test]
    fn previews_are_cut_on_one_line() {
        assert_eq!(preview("ab\ncd", 10), "ab cd");
        assert_eq!(preview("日本語です", 2), "日本…");
    }
}
