//! Reading lists of rows the common ways: the rows of a list of ids and one page of a filtered
//! list with the list's total — so each table's module says only its SQL and how a row maps
//! (one row by its key is [`crate::lookup`]'s) — and the pieces of SQL text the tables' modules
//! share: placeholders, `LIKE` patterns, column lists qualified by their table.

use sqlx::any::AnyRow;
use sqlx::{AnyPool, AssertSqlSafe};

use crate::convert::{column, from_db, page_bounds};
use crate::error::{Result, db};
use crate::{Page, Paged};

/// How a row becomes a value.
pub(crate) type FromRow<T> = fn(&AnyRow) -> Result<T>;

/// Most ids one `IN (…)` list takes (both backends accept far more; this keeps statements small).
const MAX_IDS: usize = 500;

/// The rows of `table` whose `id` is one of `ids` (`columns` selected), mapped, in no
/// particular order; ids with no row are passed over.
pub(crate) async fn by_ids<T>(
    pool: &AnyPool,
    columns: &str,
    table: &str,
    ids: &[String],
    action: &'static str,
    map: FromRow<T>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    for chunk in ids.chunks(MAX_IDS) {
        let sql = format!(
            "SELECT {columns} FROM {table} WHERE id IN ({})",
            placeholders(1, chunk.len())
        );
        let mut q = sqlx::query(AssertSqlSafe(sql));
        for id in chunk {
            q = q.bind(id);
        }
        for row in &q.fetch_all(pool).await.map_err(db(action))? {
            out.push(map(row)?);
        }
    }
    Ok(out)
}

/// What one page of a list selects: `SELECT {columns} FROM {table} WHERE {cond} ORDER BY
/// {order}`, where `cond` uses the text parameters `$1…$n` of `params` (NULL for `None`).
pub(crate) struct PageQuery<'a> {
    pub columns: &'a str,
    pub table: &'a str,
    pub cond: &'a str,
    pub order: &'a str,
    pub params: &'a [Option<&'a str>],
}

/// One page of the list `q` describes, and the list's total — read by one statement, so both
/// come from one snapshot: with two, a row written between them made the total count it while
/// the page (read before) missed it, and a client that waits for the total to grow found no row.
/// The count is one row and the page joins it, so a page past the end still answers the total
/// (its one row then has the page's columns NULL).
pub(crate) async fn page_of<T>(
    pool: &AnyPool,
    q: &PageQuery<'_>,
    page: Page,
    action: &'static str,
    map: FromRow<T>,
) -> Result<Paged<T>> {
    let (limit, offset) = page_bounds(page)?;
    let n = q.params.len();
    let sql = format!(
        "SELECT c.{TOTAL}, p.* \
         FROM (SELECT COUNT(*) AS {TOTAL} FROM {table} WHERE {cond}) c \
         LEFT JOIN (SELECT ROW_NUMBER() OVER (ORDER BY {order}) AS {ROW}, {columns} \
         FROM {table} WHERE {cond} ORDER BY {order} LIMIT ${} OFFSET ${}) p ON 1 = 1 \
         ORDER BY p.{ROW}",
        n + 1,
        n + 2,
        table = q.table,
        cond = q.cond,
        columns = q.columns,
        order = q.order,
    );
    let mut select = sqlx::query(AssertSqlSafe(sql));
    for p in q.params {
        select = select.bind(*p);
    }
    let rows = select
        .bind(limit)
        .bind(offset)
        .fetch_all(pool)
        .await
        .map_err(db(action))?;
    let total: i64 = match rows.first() {
        Some(row) => column(row, TOTAL, action)?,
        None => 0,
    };
    let mut items = Vec::with_capacity(rows.len());
    for row in &rows {
        if column::<Option<i64>>(row, ROW, action)?.is_some() {
            items.push(map(row)?);
        }
    }
    Ok(Paged {
        items,
        total: from_db(&format!("{} count", q.table), total)?,
    })
}

/// The column [`page_of`]'s statement answers the list's total in (named so no table's column
/// can clash with it).
const TOTAL: &str = "page_total__";
/// The column holding a page row's place in the list's order (the outer statement sorts by it, as
/// the order may name columns the page does not select); NULL in the row of a page past the end.
const ROW: &str = "page_row__";

/// `$first, $first+1, …` for `n` values.
pub(crate) fn placeholders(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A `LIKE … ESCAPE '\'` pattern matching `text` anywhere, lower-cased (`%`, `_` and `\` in
/// the text match themselves).
pub(crate) fn like_pattern(text: &str) -> String {
    format!("%{}%", like_escaped(&text.to_lowercase()))
}

/// `text` for a `LIKE … ESCAPE '\'` pattern: `%`, `_` and `\` escaped to match themselves.
pub(crate) fn like_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `cols` (comma-separated) qualified by `table` and renamed with `prefix`:
/// `t.id AS p_id, …` (no `AS` when the prefix is empty).
pub(crate) fn prefixed(table: &str, prefix: &str, cols: &str) -> String {
    cols.split(',')
        .map(str::trim)
        .map(|c| {
            if prefix.is_empty() {
                format!("{table}.{c}")
            } else {
                format!("{table}.{c} AS {prefix}{c}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(super::like_pattern("50%_A\\b"), "%50\\%\\_a\\\\b%");
        assert_eq!(super::placeholders(2, 3), "$2, $3, $4");
    }
}
