//! Tasks brought in from an export document: every one created, or replacing the task it
//! clashed with, with its schedules, in one transaction — all or nothing.

use crate::convert::now_ms;
use crate::error::{Result, db};
use crate::schedules::insert_schedule;
use crate::task_versions::VersionStamp;
use crate::tasks::{check_task, insert_task, replace_task};
use crate::{NewSchedule, NewTask, Store, Task};

/// One task of an import.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportTask {
    /// The task to store.
    pub task: NewTask,
    /// Its schedules.
    pub schedules: Vec<NewSchedule>,
    /// The id of the task it replaces (its record becomes that task's next version, its
    /// schedules replace that task's); `None`: a new task.
    pub replaces: Option<String>,
}

impl Store {
    /// Stores every task of `tasks` with its schedules, each version stamped with `stamp`, in
    /// one transaction: when any write fails (a name taken meanwhile, an unknown task to
    /// replace, a bad folder) nothing is stored and that error is the answer. The stored tasks,
    /// in order.
    pub async fn import_tasks(
        &self,
        tasks: &[ImportTask],
        stamp: &VersionStamp,
    ) -> Result<Vec<Task>> {
        let action = "importing tasks";
        let now = now_ms();
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        let mut stored = Vec::with_capacity(tasks.len());
        for item in tasks {
            let new = check_task(&item.task, stamp)?;
            let task = match &item.replaces {
                Some(id) => {
                    sqlx::query("DELETE FROM schedules WHERE task_id = $1")
                        .bind(id)
                        .execute(&mut *tx)
                        .await
                        .map_err(db("replacing a task's schedules"))?;
                    replace_task(&mut tx, id, &new, stamp, now).await?
                }
                None => insert_task(&mut tx, &new, stamp, now).await?,
            };
            for schedule in &item.schedules {
                insert_schedule(&mut tx, &task.id, schedule, now).await?;
            }
            stored.push(task);
        }
        tx.commit().await.map_err(db(action))?;
        Ok(stored)
    }
}
