//! Options of combo boxes and lists, and choosing one (`select_option`).

use zbus::Connection;

use crate::a11y::{self, A11yResult, ObjKey};

/// AtspiRole MENU.
const ROLE_MENU: u32 = 33;

/// The options of a combo box or list.
#[derive(Debug, Clone)]
pub struct Options {
    /// The object whose Selection picks an option.
    pub container: ObjKey,
    /// The option objects, in order.
    pub items: Vec<ObjKey>,
    /// Their texts.
    pub options: Vec<String>,
}

/// Reads the options under `key`: a combo box's (closed) menu items, or a list's items.
pub async fn read(conn: &Connection, key: &ObjKey) -> A11yResult<Options> {
    let kids = a11y::children(conn, key).await?;
    let mut items = kids.clone();
    // GTK3 combo boxes keep their options in a child menu.
    if kids.len() == 1 && a11y::role(conn, &kids[0]).await? == ROLE_MENU {
        items = a11y::children(conn, &kids[0]).await?;
    }
    let names = futures::future::join_all(items.iter().map(|k| a11y::name(conn, k))).await;
    let options = names.into_iter().map(|n| n.unwrap_or_default()).collect();
    Ok(Options {
        container: key.clone(),
        items,
        options,
    })
}

/// Selects option `index`: through the container's Selection, else the item's action.
pub async fn select(conn: &Connection, options: &Options, index: usize) -> Result<(), String> {
    let i = i32::try_from(index).map_err(|e| e.to_string())?;
    if a11y::select_child(conn, &options.container, i)
        .await
        .unwrap_or(false)
    {
        return Ok(());
    }
    let item = options
        .items
        .get(index)
        .ok_or_else(|| format!("option {index} vanished"))?;
    a11y::do_action(conn, item, 0)
        .await
        .map(|_| ())
        .map_err(|e| format!("Selecting the option failed: {e}"))
}
