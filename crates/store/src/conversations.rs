//! Conversations and their messages: newest-first listing, the 60-message cap, the running
//! usage total and the reasoning cap.

use deft_protocol::{DoneStatus, Usage};
use sqlx::any::AnyRow;
use sqlx::{Any, Executor, Row};

use crate::convert::{
    cap_reasoning, column, from_db, from_json, now_ms, to_db, to_json, usage_from_row, usage_to_db,
};
use crate::error::{Result, StoreError, db};
use crate::{Conversation, ConversationSummary, MAX_MESSAGES, Message, Store};

/// Columns of a summary; `message_count` comes from a subquery.
const SUMMARY_SELECT: &str = "SELECT c.id, c.title, c.created_at_ms, c.updated_at_ms, \
     c.prompt_tokens, c.completion_tokens, c.total_tokens, c.calls, \
     (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count \
     FROM conversations c";

/// Roles a message may have.
const ROLES: [&str; 2] = ["user", "assistant"];

impl Store {
    /// Every conversation, most recently updated first.
    pub async fn conversations(&self) -> Result<Vec<ConversationSummary>> {
        let sql =
            format!("{SUMMARY_SELECT} ORDER BY c.updated_at_ms DESC, c.created_at_ms DESC, c.id");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.pool)
            .await
            .map_err(db("listing conversations"))?;
        rows.iter().map(summary_from_row).collect()
    }

    /// Creates an empty conversation with a fresh id.
    pub async fn create_conversation(&self, title: &str) -> Result<ConversationSummary> {
        let now = now_ms();
        let summary = ConversationSummary {
            id: uuid::Uuid::new_v4().to_string(),
            title: title.to_owned(),
            created_at_ms: now,
            updated_at_ms: now,
            message_count: 0,
            usage: Usage::default(),
        };
        sqlx::query(
            "INSERT INTO conversations (id, title, created_at_ms, updated_at_ms) \
             VALUES ($1, $2, $3, $3)",
        )
        .bind(&summary.id)
        .bind(&summary.title)
        .bind(now)
        .execute(&self.pool)
        .await
        .map_err(db("creating a conversation"))?;
        Ok(summary)
    }

    /// A conversation with its kept messages, oldest first.
    pub async fn conversation(&self, id: &str) -> Result<Option<Conversation>> {
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(db("reading a conversation"))?;
        let Some(mut summary) = summary_by_id(&mut *tx, id).await? else {
            return Ok(None);
        };
        let rows = sqlx::query(
            "SELECT position, role, content, created_at_ms, run_id, status, usage, reasoning, steps \
             FROM messages WHERE conversation_id = $1 ORDER BY position",
        )
        .bind(id)
        .fetch_all(&mut *tx)
        .await
        .map_err(db("reading messages"))?;
        tx.commit().await.map_err(db("reading a conversation"))?;
        let messages = rows
            .iter()
            .map(|row| message_from_row(row, id))
            .collect::<Result<Vec<_>>>()?;
        summary.message_count = messages.len() as u64;
        Ok(Some(Conversation { summary, messages }))
    }

    /// Renames a conversation (and marks it updated); `None` when it does not exist.
    pub async fn rename_conversation(
        &self,
        id: &str,
        title: &str,
    ) -> Result<Option<ConversationSummary>> {
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(db("renaming a conversation"))?;
        let done = sqlx::query(
            "UPDATE conversations SET title = $2, \
             updated_at_ms = CASE WHEN updated_at_ms > $3 THEN updated_at_ms ELSE $3 END \
             WHERE id = $1",
        )
        .bind(id)
        .bind(title)
        .bind(now_ms())
        .execute(&mut *tx)
        .await
        .map_err(db("renaming a conversation"))?;
        if done.rows_affected() == 0 {
            return Ok(None);
        }
        let summary = summary_by_id(&mut *tx, id).await?;
        tx.commit().await.map_err(db("renaming a conversation"))?;
        Ok(summary)
    }

    /// Deletes a conversation and its messages; `false` when it did not exist. Its runs and
    /// their events stay.
    pub async fn delete_conversation(&self, id: &str) -> Result<bool> {
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(db("deleting a conversation"))?;
        sqlx::query("DELETE FROM messages WHERE conversation_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db("deleting a conversation's messages"))?;
        let done = sqlx::query("DELETE FROM conversations WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db("deleting a conversation"))?;
        tx.commit().await.map_err(db("deleting a conversation"))?;
        Ok(done.rows_affected() > 0)
    }

    /// Appends a message; keeps at most [`MAX_MESSAGES`] per conversation by dropping the
    /// oldest; bumps `updated_at`; adds an assistant message's usage to the conversation's
    /// total (the total keeps dropped messages' tokens). The reasoning is cut to
    /// [`crate::MAX_REASONING_CHARS`] characters. Unknown conversation →
    /// [`StoreError::NotFound`]; a role other than `user`/`assistant` → [`StoreError::Invalid`].
    pub async fn append_message(&self, conversation_id: &str, m: &Message) -> Result<()> {
        if !ROLES.contains(&m.role.as_str()) {
            return Err(StoreError::Invalid(format!(
                "a message's role must be \"user\" or \"assistant\", not {:?}",
                m.role
            )));
        }
        let added = match (&m.usage, m.role.as_str()) {
            (Some(u), "assistant") => usage_to_db(u)?,
            _ => [0; 4],
        };
        let usage_json = m.usage.as_ref().map(to_json);
        let steps_json = to_json(&m.steps);
        let reasoning = m.reasoning.as_deref().map(cap_reasoning);

        let action = "appending a message";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        // The UPDATE comes first: it takes the row's write lock (PostgreSQL) or the database's
        // (SQLite) before anything is read, so concurrent appends serialize.
        let done = sqlx::query(
            "UPDATE conversations SET next_position = next_position + 1, \
             updated_at_ms = CASE WHEN updated_at_ms > $2 THEN updated_at_ms ELSE $2 END, \
             prompt_tokens = prompt_tokens + $3, completion_tokens = completion_tokens + $4, \
             total_tokens = total_tokens + $5, calls = calls + $6 \
             WHERE id = $1",
        )
        .bind(conversation_id)
        .bind(now_ms())
        .bind(added[0])
        .bind(added[1])
        .bind(added[2])
        .bind(added[3])
        .execute(&mut *tx)
        .await
        .map_err(db(action))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!(
                "cannot append a message to conversation {conversation_id:?}: no such conversation"
            )));
        }
        let next: i64 = sqlx::query("SELECT next_position FROM conversations WHERE id = $1")
            .bind(conversation_id)
            .fetch_one(&mut *tx)
            .await
            .and_then(|r| r.try_get("next_position"))
            .map_err(db(action))?;
        let position = next - 1;
        sqlx::query(
            "INSERT INTO messages (conversation_id, position, role, content, created_at_ms, \
             run_id, status, usage, reasoning, steps) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(conversation_id)
        .bind(position)
        .bind(&m.role)
        .bind(&m.content)
        .bind(m.created_at_ms)
        .bind(m.run_id.as_deref())
        .bind(m.status.map(DoneStatus::as_str))
        .bind(usage_json)
        .bind(reasoning)
        .bind(steps_json)
        .execute(&mut *tx)
        .await
        .map_err(db(action))?;
        sqlx::query("DELETE FROM messages WHERE conversation_id = $1 AND position <= $2")
            .bind(conversation_id)
            .bind(position - to_db("MAX_MESSAGES", MAX_MESSAGES as u64)?)
            .execute(&mut *tx)
            .await
            .map_err(db(action))?;
        tx.commit().await.map_err(db(action))?;
        Ok(())
    }
}

/// One summary by id, on any executor (pool or transaction).
async fn summary_by_id<'e, E>(executor: E, id: &str) -> Result<Option<ConversationSummary>>
where
    E: Executor<'e, Database = Any>,
{
    let sql = format!("{SUMMARY_SELECT} WHERE c.id = $1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(executor)
        .await
        .map_err(db("reading a conversation"))?;
    row.as_ref().map(summary_from_row).transpose()
}

fn summary_from_row(row: &AnyRow) -> Result<ConversationSummary> {
    const READ: &str = "reading a conversation";
    let id: String = column(row, "id", READ)?;
    let what = format!("conversation {id}");
    Ok(ConversationSummary {
        title: column(row, "title", READ)?,
        created_at_ms: column(row, "created_at_ms", READ)?,
        updated_at_ms: column(row, "updated_at_ms", READ)?,
        message_count: from_db(&what, column(row, "message_count", READ)?)?,
        usage: usage_from_row(row, &what)?,
        id,
    })
}

fn message_from_row(row: &AnyRow, conversation_id: &str) -> Result<Message> {
    const READ: &str = "reading messages";
    let position: i64 = column(row, "position", READ)?;
    let what =
        |col: &str| format!("message {position} of conversation {conversation_id}, column {col}");
    let usage = match column::<Option<String>>(row, "usage", READ)? {
        Some(json) => Some(from_json::<Usage>(&what("usage"), &json)?),
        None => None,
    };
    let steps: String = column(row, "steps", READ)?;
    Ok(Message {
        role: column(row, "role", READ)?,
        content: column(row, "content", READ)?,
        created_at_ms: column(row, "created_at_ms", READ)?,
        run_id: column(row, "run_id", READ)?,
        status: match column::<Option<String>>(row, "status", READ)? {
            Some(name) => {
                Some(
                    DoneStatus::from_name(&name).ok_or_else(|| StoreError::Corrupt {
                        what: what("status"),
                        cause: format!("unknown run status {name:?}"),
                    })?,
                )
            }
            None => None,
        },
        usage,
        reasoning: column(row, "reasoning", READ)?,
        steps: from_json(&what("steps"), &steps)?,
    })
}
