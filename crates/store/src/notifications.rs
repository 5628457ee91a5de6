//! Notifications: what the console's bell lists, newest first, each reader's read state (a
//! reader sees nothing from before they existed as unread), and the bound on how many are kept.

use sqlx::any::AnyRow;
use sqlx::{AssertSqlSafe, Row};

use crate::convert::{column, flag_from, now_ms, page_bounds};
use crate::error::{Result, StoreError, db};
use crate::{NewNotification, Notification, NotificationKind, NotificationLevel, Page, Store};

/// The store keeps at most this many notifications; inserting one drops the oldest beyond it.
pub const MAX_NOTIFICATIONS: u32 = 1_000;

const READ: &str = "reading notifications";

/// The columns of a listed notification; `read` is computed for the reader (`$1`, with the
/// moment it exists from as `$2`).
const LISTED: &str = "n.id, n.kind, n.level, n.title, n.body, n.link, n.task_id, n.run_id, \
     n.conversation_id, n.device, n.created_at_ms, \
     CASE WHEN n.created_at_ms < $2 OR EXISTS (SELECT 1 FROM notification_reads r \
     WHERE r.reader = $1 AND r.notification_id = n.id) THEN 1 ELSE 0 END AS is_read";

/// Unread for reader `$1` who exists from `$2`.
const UNREAD: &str = "n.created_at_ms >= $2 AND NOT EXISTS (SELECT 1 FROM notification_reads r \
     WHERE r.reader = $1 AND r.notification_id = n.id)";

/// Who reads: a key of their own (a username) and the moment they exist from (what came before
/// is never unread for them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reader {
    /// The reader's key.
    pub key: String,
    /// Notifications created before this moment (ms since the epoch) count as read.
    pub since_ms: i64,
}

/// A page of a reader's notifications.
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationPage {
    /// The notifications, newest first.
    pub items: Vec<Notification>,
    /// How many the list (filtered) holds.
    pub total: u64,
    /// How many are unread for the reader (whatever the filter).
    pub unread_count: u64,
}

impl Store {
    /// Stores a notification with a fresh id and now as its time, then drops the oldest beyond
    /// [`MAX_NOTIFICATIONS`]. Answers it (unread).
    pub async fn add_notification(&self, new: &NewNotification) -> Result<Notification> {
        let n = Notification {
            id: uuid::Uuid::new_v4().to_string(),
            kind: new.kind,
            level: new.level,
            title: new.title.clone(),
            body: new.body.clone(),
            link: new.link.clone(),
            task_id: new.task_id.clone(),
            run_id: new.run_id.clone(),
            conversation_id: new.conversation_id.clone(),
            device: new.device.clone(),
            created_at_ms: now_ms(),
            read: false,
        };
        sqlx::query(
            "INSERT INTO notifications (id, kind, level, title, body, link, task_id, run_id, \
             conversation_id, device, created_at_ms, seq) \
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE(MAX(seq), 0) + 1 \
             FROM notifications",
        )
        .bind(&n.id)
        .bind(n.kind.as_str())
        .bind(n.level.as_str())
        .bind(&n.title)
        .bind(&n.body)
        .bind(&n.link)
        .bind(&n.task_id)
        .bind(&n.run_id)
        .bind(&n.conversation_id)
        .bind(&n.device)
        .bind(n.created_at_ms)
        .execute(&self.pool)
        .await
        .map_err(db("adding a notification"))?;
        self.prune_notifications(MAX_NOTIFICATIONS).await?;
        Ok(n)
    }

    /// Rewrites notification `id`'s level, title and body in place (a question that was
    /// answered says so); its time, place in the list and read states stay.
    /// [`StoreError::NotFound`] when there is no such notification (pruned meanwhile).
    pub async fn update_notification(
        &self,
        id: &str,
        level: NotificationLevel,
        title: &str,
        body: &str,
    ) -> Result<()> {
        let done =
            sqlx::query("UPDATE notifications SET level = $1, title = $2, body = $3 WHERE id = $4")
                .bind(level.as_str())
                .bind(title)
                .bind(body)
                .bind(id)
                .execute(&self.pool)
                .await
                .map_err(db("updating a notification"))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!(
                "no notification has id {id:?}"
            )));
        }
        Ok(())
    }

    /// Whether a notification of `kind` about `device` is kept that nobody has read yet (what
    /// keeps a device that comes and goes from repeating the same news).
    pub async fn unread_notification_about(
        &self,
        kind: NotificationKind,
        device: &str,
    ) -> Result<bool> {
        let found: Option<String> = sqlx::query_scalar(
            "SELECT n.id FROM notifications n WHERE n.kind = $1 AND n.device = $2 \
             AND NOT EXISTS (SELECT 1 FROM notification_reads r WHERE r.notification_id = n.id) \
             LIMIT 1",
        )
        .bind(kind.as_str())
        .bind(device)
        .fetch_optional(&self.pool)
        .await
        .map_err(db(READ))?;
        Ok(found.is_some())
    }

    /// Drops every notification but the newest `keep` (at least one) (with their read states); how many it
    /// dropped.
    pub async fn prune_notifications(&self, keep: u32) -> Result<u64> {
        let action = "pruning notifications";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        let oldest_kept: Option<i64> = sqlx::query_scalar(
            "SELECT seq FROM notifications ORDER BY seq DESC, id DESC LIMIT 1 OFFSET $1",
        )
        .bind(i64::from(keep.max(1)) - 1)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db(action))?;
        let Some(seq) = oldest_kept else {
            return Ok(0);
        };
        sqlx::query(
            "DELETE FROM notification_reads WHERE notification_id IN \
             (SELECT id FROM notifications WHERE seq < $1)",
        )
        .bind(seq)
        .execute(&mut *tx)
        .await
        .map_err(db(action))?;
        let done = sqlx::query("DELETE FROM notifications WHERE seq < $1")
            .bind(seq)
            .execute(&mut *tx)
            .await
            .map_err(db(action))?;
        tx.commit().await.map_err(db(action))?;
        Ok(done.rows_affected())
    }

    /// A page of the notifications, newest first, each with `reader`'s read state; only the
    /// unread ones with `unread_only`.
    pub async fn notifications(
        &self,
        reader: &Reader,
        unread_only: bool,
        page: Page,
    ) -> Result<NotificationPage> {
        let (limit, offset) = page_bounds(page)?;
        let filter = if unread_only { UNREAD } else { "1 = 1" };
        let sql = format!(
            "SELECT {LISTED} FROM notifications n WHERE {filter} \
             ORDER BY n.seq DESC, n.id DESC LIMIT $3 OFFSET $4"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(&reader.key)
            .bind(reader.since_ms)
            .bind(limit)
            .bind(offset)
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ))?;
        let items = rows
            .iter()
            .map(notification_from_row)
            .collect::<Result<_>>()?;
        let unread_count = self.unread_notifications(reader).await?;
        let total = if unread_only {
            unread_count
        } else {
            let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notifications")
                .fetch_one(&self.pool)
                .await
                .map_err(db(READ))?;
            u64::try_from(n).unwrap_or(0)
        };
        Ok(NotificationPage {
            items,
            total,
            unread_count,
        })
    }

    /// How many notifications `reader` has not read.
    pub async fn unread_notifications(&self, reader: &Reader) -> Result<u64> {
        let sql = format!("SELECT COUNT(*) AS n FROM notifications n WHERE {UNREAD}");
        let row = sqlx::query(AssertSqlSafe(sql))
            .bind(&reader.key)
            .bind(reader.since_ms)
            .fetch_one(&self.pool)
            .await
            .map_err(db(READ))?;
        let n: i64 = row.try_get("n").map_err(db(READ))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Marks notification `id` read for `reader` (again: no change).
    /// [`StoreError::NotFound`] when there is no such notification.
    pub async fn mark_notification_read(&self, reader: &Reader, id: &str) -> Result<()> {
        let action = "marking a notification read";
        let done = sqlx::query(
            "INSERT INTO notification_reads (reader, notification_id, read_at_ms) \
             SELECT $1, id, $3 FROM notifications WHERE id = $2 \
             ON CONFLICT (reader, notification_id) DO NOTHING",
        )
        .bind(&reader.key)
        .bind(id)
        .bind(now_ms())
        .execute(&self.pool)
        .await
        .map_err(db(action))?;
        if done.rows_affected() == 0 {
            let exists: Option<String> =
                sqlx::query_scalar("SELECT id FROM notifications WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(db(action))?;
            if exists.is_none() {
                return Err(StoreError::NotFound(format!(
                    "no notification has id {id:?}"
                )));
            }
        }
        Ok(())
    }

    /// Marks every notification read for `reader`; how many were unread.
    pub async fn mark_all_notifications_read(&self, reader: &Reader) -> Result<u64> {
        let sql = format!(
            "INSERT INTO notification_reads (reader, notification_id, read_at_ms) \
             SELECT $1, n.id, $3 FROM notifications n WHERE {UNREAD} \
             ON CONFLICT (reader, notification_id) DO NOTHING"
        );
        let done = sqlx::query(AssertSqlSafe(sql))
            .bind(&reader.key)
            .bind(reader.since_ms)
            .bind(now_ms())
            .execute(&self.pool)
            .await
            .map_err(db("marking every notification read"))?;
        Ok(done.rows_affected())
    }
}

fn notification_from_row(row: &AnyRow) -> Result<Notification> {
    let kind: String = column(row, "kind", READ)?;
    let level: String = column(row, "level", READ)?;
    let corrupt = |what: &str, name: &str| StoreError::Corrupt {
        what: format!("notifications.{what}"),
        cause: format!("{name:?} is not a known {what}"),
    };
    Ok(Notification {
        id: column(row, "id", READ)?,
        kind: NotificationKind::from_name(&kind).ok_or_else(|| corrupt("kind", &kind))?,
        level: NotificationLevel::from_name(&level).ok_or_else(|| corrupt("level", &level))?,
        title: column(row, "title", READ)?,
        body: column(row, "body", READ)?,
        link: column(row, "link", READ)?,
        task_id: column(row, "task_id", READ)?,
        run_id: column(row, "run_id", READ)?,
        conversation_id: column(row, "conversation_id", READ)?,
        device: column(row, "device", READ)?,
        created_at_ms: column(row, "created_at_ms", READ)?,
        read: flag_from(row, "is_read", READ)?,
    })
}
