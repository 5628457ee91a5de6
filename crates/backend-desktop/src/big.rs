//! Containers too large to read whole. A spreadsheet's table has a child for every cell of the
//! sheet (LibreOffice Calc reports 2^31 - 1); asking for them all makes the application build
//! billions of objects. Of such a table only the cells in view are read — the block between the
//! cells at its top-left and bottom-right corners, at most [`MAX_CELLS`] — and of those the
//! ones that hold text, plus the focused and selected ones: the cells a person sees and works
//! with. The part in view is named by its corner cells (`A1:P46`).

use futures::future::join_all;
use zbus::Connection;
use zbus::zvariant::OwnedObjectPath;

use crate::a11y::{self, A11yResult, ObjKey};

/// Most cells of the block in view that are looked at.
pub const MAX_CELLS: i32 = 800;

const TABLE: &str = "org.a11y.atspi.Table";

/// The cells in view of the large table `key` (screen `rect`) that hold text or are focused or
/// selected, and the name of the part in view; nothing when it is no table or is not on screen.
pub async fn cells_in_view(
    conn: &Connection,
    key: &ObjKey,
    rect: Option<[i32; 4]>,
    has_table: bool,
) -> (Vec<ObjKey>, Option<String>) {
    let (Some(r), true) = (rect, has_table) else {
        return (Vec::new(), None);
    };
    let Ok(Some(((r0, c0), (r1, c1)))) = corners(conn, key, r).await else {
        return (Vec::new(), None);
    };
    let cols = (c1 - c0 + 1).max(1);
    let r1 = r1.min(r0 + MAX_CELLS / cols - 1).max(r0);
    let positions: Vec<(i32, i32)> = (r0..=r1)
        .flat_map(|row| (c0..=c1).map(move |col| (row, col)))
        .collect();
    let cells = join_all(
        positions
            .iter()
            .map(|&(row, col)| cell_at(conn, key, row, col)),
    )
    .await;
    let cells: Vec<ObjKey> = cells.into_iter().filter_map(Result::ok).collect();
    let part = match (cells.first(), cells.last()) {
        (Some(a), Some(b)) => {
            let (a, b) = futures::join!(a11y::name(conn, a), a11y::name(conn, b));
            match (a, b) {
                (Ok(a), Ok(b)) if !a.is_empty() && !b.is_empty() => Some(format!("{a}:{b}")),
                _ => None,
            }
        }
        _ => None,
    };
    let kept = join_all(cells.into_iter().map(|cell| async move {
        let (count, states) = futures::join!(char_count(conn, &cell), a11y::states(conn, &cell));
        let marked = states
            .is_ok_and(|s| s.contains(atspi::State::Focused) || s.contains(atspi::State::Selected));
        (count.unwrap_or(0) > 0 || marked).then_some(cell)
    }))
    .await;
    (kept.into_iter().flatten().collect(), part)
}

/// (row, column) of the cells at the table's top-left and bottom-right corners.
async fn corners(
    conn: &Connection,
    key: &ObjKey,
    r: [i32; 4],
) -> A11yResult<Option<((i32, i32), (i32, i32))>> {
    let inset = |a: i32, b: i32| if b - a > 6 { (a + 2, b - 3) } else { (a, b) };
    let (x0, x1) = inset(r[0], r[2]);
    let (y0, y1) = inset(r[1], r[3]);
    let (a, b) = futures::join!(
        position_at(conn, key, x0, y0),
        position_at(conn, key, x1, y1)
    );
    Ok(match (a?, b?) {
        (Some(a), Some(b)) if a.0 <= b.0 && a.1 <= b.1 => Some((a, b)),
        _ => None,
    })
}

/// The (row, column) of the cell at screen point (x, y), if a cell is there.
async fn position_at(
    conn: &Connection,
    key: &ObjKey,
    x: i32,
    y: i32,
) -> A11yResult<Option<(i32, i32)>> {
    let (bus, path): (String, OwnedObjectPath) = conn
        .call_method(
            Some(key.bus.as_str()),
            key.path.as_str(),
            Some("org.a11y.atspi.Component"),
            "GetAccessibleAtPoint",
            &(x, y, 0u32),
        )
        .await?
        .body()
        .deserialize()?;
    let cell = ObjKey::new(bus, path.as_str());
    if cell.is_null() {
        return Ok(None);
    }
    let index: i32 = conn
        .call_method(
            Some(cell.bus.as_str()),
            cell.path.as_str(),
            Some("org.a11y.atspi.Accessible"),
            "GetIndexInParent",
            &(),
        )
        .await?
        .body()
        .deserialize()?;
    let (row, col) = futures::join!(
        table_int(conn, key, "GetRowAtIndex", index),
        table_int(conn, key, "GetColumnAtIndex", index)
    );
    let (row, col) = (row?, col?);
    Ok((row >= 0 && col >= 0).then_some((row, col)))
}

async fn table_int(conn: &Connection, key: &ObjKey, method: &str, index: i32) -> A11yResult<i32> {
    conn.call_method(
        Some(key.bus.as_str()),
        key.path.as_str(),
        Some(TABLE),
        method,
        &(index,),
    )
    .await?
    .body()
    .deserialize()
}

async fn cell_at(conn: &Connection, key: &ObjKey, row: i32, col: i32) -> A11yResult<ObjKey> {
    let (bus, path): (String, OwnedObjectPath) = conn
        .call_method(
            Some(key.bus.as_str()),
            key.path.as_str(),
            Some(TABLE),
            "GetAccessibleAt",
            &(row, col),
        )
        .await?
        .body()
        .deserialize()?;
    Ok(ObjKey::new(bus, path.as_str()))
}

async fn char_count(conn: &Connection, key: &ObjKey) -> A11yResult<i32> {
    let v = a11y::get_property(conn, key, "org.a11y.atspi.Text", "CharacterCount").await?;
    Ok(i32::try_from(v).unwrap_or(0))
}
