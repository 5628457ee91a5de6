//! Options of combo boxes, lists and tables, and choosing one (`select_option`).
//!
//! - A combo box: its (closed) menu's items (GTK3 keeps them in a child menu).
//! - A list (GtkListBox, a list of rows): its children, each named by its accessible name or,
//!   when that is empty, by the first named label inside it (GTK3 list box rows).
//! - A table or tree view (the Table interface): its rows, each named by its first cell; a row
//!   is picked with `Table.AddRowSelection`.
//!
//! Choosing goes through the accessibility interfaces (Selection, Table), so an option scrolled
//! out of view is chosen as well as a visible one.

use futures::future::join_all;
use zbus::Connection;

use crate::a11y::{self, A11yResult, ObjKey};
use crate::error::{ToolError, ToolResult};
use crate::texts;

/// AtspiRole MENU.
const ROLE_MENU: u32 = 33;
/// AtspiRole COMBO_BOX.
const ROLE_COMBO_BOX: u32 = 11;
/// How deep below a list item its label is looked for.
const LABEL_DEPTH: usize = 3;

/// How an option is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// `Selection.SelectChild(index)` on the container, else the item's first action.
    Child(usize),
    /// `Table.AddRowSelection(row)` on the table.
    Row(i32),
}

/// The options of a combo box, list or table.
#[derive(Debug, Clone)]
pub struct Options {
    /// The object whose Selection (or Table) picks an option.
    pub container: ObjKey,
    /// Per option: the object standing for it (item, or a row's first cell) and how to pick it.
    pub items: Vec<(ObjKey, Pick)>,
    /// Their texts.
    pub options: Vec<String>,
}

/// Reads the options under `key`, a control of AT-SPI role `role`.
pub async fn read(conn: &Connection, key: &ObjKey, role: u32) -> A11yResult<Options> {
    let kids = a11y::children(conn, key).await?;
    if role != ROLE_COMBO_BOX
        && a11y::interfaces(conn, key)
            .await?
            .iter()
            .any(|i| i == "org.a11y.atspi.Table")
    {
        return read_rows(conn, key, kids).await;
    }
    let mut items = kids.clone();
    // GTK3 combo boxes keep their options in a child menu.
    if kids.len() == 1 && a11y::role(conn, &kids[0]).await? == ROLE_MENU {
        items = a11y::children(conn, &kids[0]).await?;
    }
    let names = join_all(items.iter().map(|k| item_name(conn, k))).await;
    Ok(Options {
        container: key.clone(),
        items: items
            .into_iter()
            .enumerate()
            .map(|(i, k)| (k, Pick::Child(i)))
            .collect(),
        options: names,
    })
}

/// A table's rows, named by their first cell (children in order; column headers have row -1).
async fn read_rows(conn: &Connection, key: &ObjKey, kids: Vec<ObjKey>) -> A11yResult<Options> {
    let rows = join_all((0..kids.len()).map(|i| async move {
        let i = i32::try_from(i).unwrap_or(i32::MAX);
        a11y::row_at_index(conn, key, i).await.unwrap_or(-1)
    }))
    .await;
    let mut items = Vec::new();
    let mut last_row = -1;
    for (kid, row) in kids.into_iter().zip(rows) {
        if row >= 0 && row != last_row {
            items.push((kid, Pick::Row(row)));
            last_row = row;
        }
    }
    let names = join_all(items.iter().map(|(k, _)| item_name(conn, k))).await;
    Ok(Options {
        container: key.clone(),
        items,
        options: names,
    })
}

/// An item's text: its name, else the first named node inside it (breadth first, a few levels).
async fn item_name(conn: &Connection, key: &ObjKey) -> String {
    let name = a11y::name(conn, key).await.unwrap_or_default();
    if !name.trim().is_empty() {
        return name;
    }
    let mut level = vec![key.clone()];
    for _ in 0..LABEL_DEPTH {
        let kids: Vec<ObjKey> = join_all(level.iter().map(|k| a11y::children(conn, k)))
            .await
            .into_iter()
            .flat_map(Result::unwrap_or_default)
            .collect();
        let names = join_all(kids.iter().map(|k| a11y::name(conn, k))).await;
        if let Some(n) = names.into_iter().flatten().find(|n| !n.trim().is_empty()) {
            return n;
        }
        level = kids;
    }
    String::new()
}

/// Selects option `index`: a table row through Table, else through the container's Selection,
/// else the item's first action.
pub async fn select(conn: &Connection, options: &Options, index: usize) -> ToolResult<()> {
    let (item, pick) = options
        .items
        .get(index)
        .ok_or_else(|| ToolError::model(texts::option_vanished(index)))?;
    match *pick {
        Pick::Row(row) => {
            if a11y::add_row_selection(conn, &options.container, row)
                .await
                .unwrap_or(false)
            {
                return Ok(());
            }
        }
        Pick::Child(child) => {
            let i = i32::try_from(child).map_err(|e| ToolError::model(e.to_string()))?;
            if a11y::select_child(conn, &options.container, i)
                .await
                .unwrap_or(false)
            {
                return Ok(());
            }
        }
    }
    a11y::do_action(conn, item, 0)
        .await
        .map(|_| ())
        .map_err(|e| ToolError::model(texts::option_select_failed(&e.to_string())))
}
