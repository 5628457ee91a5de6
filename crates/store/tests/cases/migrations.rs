//! Migrations 3 (the memory libraries), 4 (a run's mode) and 5 (durable task runs) came from three
//! branches; sqlx applies whichever versions a database lacks, in any order. A database at any
//! branch's version — missing the memory, the mode or the task runs' log — gains what it lacks
//! when it is opened, and keeps what it had; so does one from before notifications, the run
//! history, webhooks (migration 12), the fleet (13) or the server token's calls (14).

use deft_protocol::{RunMode, RunStatus};
use deft_store::{NewExperience, RunRecord, Store, Usage};
use sqlx::{AnyConnection, Connection};

/// Back to designer mode's version: migration 3's tables (dependants first) and record gone.
const WITHOUT_MEMORY: &[&str] = &[
    "DROP TABLE jobs",
    "DROP TABLE memory_generation",
    "DROP TABLE run_memory",
    "DROP TABLE actions",
    "DROP TABLE experience_audits",
    "DROP TABLE memory_audits",
    "DROP TABLE experiences",
    "DELETE FROM _sqlx_migrations WHERE version = 3",
];

/// Back to the memory's version: the runs' mode and migration 4's record gone.
const WITHOUT_MODE: &[&str] = &[
    "ALTER TABLE runs DROP COLUMN mode",
    "DELETE FROM _sqlx_migrations WHERE version = 4",
];

/// Back to a version before durable task runs: migration 5's table, columns and record gone.
const WITHOUT_TASK_RUN_LOG: &[&str] = &[
    "DROP TABLE task_run_events",
    "ALTER TABLE task_run_steps DROP COLUMN message",
    "ALTER TABLE task_run_steps DROP COLUMN image_ids",
    "ALTER TABLE task_runs DROP COLUMN owner",
    "ALTER TABLE task_runs DROP COLUMN heartbeat_at_ms",
    "DELETE FROM _sqlx_migrations WHERE version = 5",
];

/// Back to a version before notifications: migration 8's tables, columns and record gone.
const WITHOUT_NOTIFICATIONS: &[&str] = &[
    "DROP TABLE notification_reads",
    "DROP TABLE notifications",
    "ALTER TABLE tasks DROP COLUMN notify_on_failure",
    "ALTER TABLE tasks DROP COLUMN notify_on_success",
    "ALTER TABLE tasks DROP COLUMN notify_on_notify_step",
    "DELETE FROM _sqlx_migrations WHERE version = 8",
];

/// Back to a version before the run history: migration 7's indexes, column and record gone.
const WITHOUT_RUN_HISTORY: &[&str] = &[
    "DROP INDEX task_runs_by_duration",
    "DROP INDEX task_runs_by_device",
    "DROP INDEX task_runs_by_trigger",
    "DROP INDEX task_runs_by_status",
    "DROP INDEX task_runs_by_schedule",
    "ALTER TABLE task_runs DROP COLUMN duration_ms",
    "DELETE FROM _sqlx_migrations WHERE version = 7",
];

async fn execute(url: &str, statements: &[&'static str]) {
    let mut raw = AnyConnection::connect(url).await.unwrap();
    for sql in statements {
        sqlx::query(*sql)
            .execute(&mut raw)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    raw.close().await.unwrap();
}

async fn versions(url: &str) -> Vec<i64> {
    let mut raw = AnyConnection::connect(url).await.unwrap();
    let rows: Vec<(i64,)> = sqlx::query_as("SELECT version FROM _sqlx_migrations ORDER BY version")
        .fetch_all(&mut raw)
        .await
        .unwrap();
    raw.close().await.unwrap();
    rows.into_iter().map(|(v,)| v).collect()
}

fn designer_run(conversation_id: &str) -> RunRecord {
    RunRecord {
        id: "run-designer".into(),
        conversation_id: conversation_id.into(),
        device: "local".into(),
        prompt: "draft a task".into(),
        mode: RunMode::Designer,
        status: RunStatus::Running,
        answer: String::new(),
        usage: Usage::default(),
        started_at_ms: 1_000,
        finished_at_ms: None,
        owner: None,
    }
}

pub async fn any_branchs_database_gains_the_migrations_it_lacks(store: &Store, url: &str) {
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14],
        "a fresh database has all thirteen"
    );
    let conv = store.create_conversation("before").await.unwrap();
    store.create_run(&designer_run(&conv.id)).await.unwrap();

    execute(url, WITHOUT_MEMORY).await;
    assert_eq!(
        versions(url).await,
        [1, 2, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    let reopened = Store::connect(url).await.unwrap();
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    assert_eq!(
        reopened.run("run-designer").await.unwrap().unwrap().mode,
        RunMode::Designer,
        "the run kept its mode"
    );
    let kept = reopened
        .create_experience(&NewExperience {
            task: "compute 7 × 8".into(),
            title: "Multiply in the calculator".into(),
            recipe: "Open the calculator, press 7 × 8 =".into(),
            source_run: None,
        })
        .await
        .unwrap();
    reopened.close().await;

    execute(url, WITHOUT_MODE).await;
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    let reopened = Store::connect(url).await.unwrap();
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    assert_eq!(
        reopened.run("run-designer").await.unwrap().unwrap().mode,
        RunMode::Chat,
        "a run recorded before the mode existed reads as a chat"
    );
    assert_eq!(
        reopened.experience(&kept.id).await.unwrap().recipe,
        kept.recipe,
        "the memory kept what it had"
    );
    reopened.close().await;

    execute(url, WITHOUT_TASK_RUN_LOG).await;
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    let reopened = Store::connect(url).await.unwrap();
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    assert!(
        reopened.running_task_runs().await.unwrap().is_empty(),
        "the task runs' owner and heartbeat columns are back"
    );
    assert_eq!(
        reopened.experience(&kept.id).await.unwrap().recipe,
        kept.recipe,
        "the memory outlived the task runs' migration"
    );
    reopened.close().await;

    ended_runs_gain_their_durations(url).await;
    old_tasks_gain_the_default_notification_settings(url).await;
    a_database_without_webhooks_gains_them(url).await;
    a_database_without_the_fleet_gains_it(url).await;
    a_database_before_the_server_token_calls_keeps_its_calls(url).await;
}

/// Back to migration 11's calls log, whose rows referenced a named token.
const WITHOUT_SERVER_TOKEN_CALLS: &[&str] = &[
    "DROP TABLE api_token_calls",
    "CREATE TABLE api_token_calls (token_id TEXT NOT NULL REFERENCES api_tokens(id) \
     ON DELETE CASCADE, at_ms BIGINT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL, \
     status BIGINT NOT NULL)",
    "CREATE INDEX api_token_calls_by_token ON api_token_calls (token_id, at_ms)",
    "INSERT INTO api_tokens (id, name, token_hash, prefix, scopes, created_by, created_at_ms) \
     VALUES ('token-ci', 'ci', 'h-ci', 'deft_ci', 'runs', 'admin', 1000)",
    "INSERT INTO api_token_calls (token_id, at_ms, method, path, status) \
     VALUES ('token-ci', 2000, 'GET', '/api/tasks', 200)",
    "DELETE FROM _sqlx_migrations WHERE version = 14",
];

/// A database of the version before 14 keeps its named tokens' calls and can log the server
/// token's.
async fn a_database_before_the_server_token_calls_keeps_its_calls(url: &str) {
    execute(url, WITHOUT_SERVER_TOKEN_CALLS).await;
    assert_eq!(versions(url).await, [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13]);
    let reopened = Store::connect(url).await.unwrap();
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    let kept = reopened.api_token_calls("token-ci", 10).await.unwrap();
    assert_eq!(
        kept.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
        ["/api/tasks"]
    );
    let server_call = deft_store::ApiTokenCall {
        token_id: deft_store::SERVER_TOKEN_ID.into(),
        at_ms: 3_000,
        method: "POST".into(),
        path: "/api/tokens".into(),
        status: 201,
    };
    reopened
        .record_api_token_calls(std::slice::from_ref(&server_call), 10)
        .await
        .unwrap();
    assert_eq!(
        reopened
            .api_token_calls(deft_store::SERVER_TOKEN_ID, 10)
            .await
            .unwrap(),
        [server_call]
    );
    reopened.close().await;
}

/// Back to a version before the fleet: migration 13's tables gone.
const WITHOUT_FLEET: &[&str] = &[
    "DROP TABLE fleet_jobs",
    "DROP TABLE device_leases",
    "DROP TABLE fleet_servers",
    "ALTER TABLE runs DROP COLUMN owner",
    "DELETE FROM _sqlx_migrations WHERE version = 13",
];

/// A database of the version before the fleet gains its tables, empty, and its runs an owner
/// column (none for the runs it had).
async fn a_database_without_the_fleet_gains_it(url: &str) {
    execute(url, WITHOUT_FLEET).await;
    assert_eq!(versions(url).await, [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 14]);
    let reopened = Store::connect(url).await.unwrap();
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    assert!(reopened.fleet_servers().await.unwrap().is_empty());
    assert!(reopened.live_leases(0).await.unwrap().is_empty());
    let kept = reopened.run("run-designer").await.unwrap().unwrap();
    assert_eq!(kept.owner, None);
    reopened.close().await;
}

/// Back to a version before webhooks: migration 12's tables (their indexes with them) and record
/// gone.
const WITHOUT_WEBHOOKS: &[&str] = &[
    "DROP TABLE webhook_deliveries",
    "DROP TABLE webhooks",
    "DELETE FROM _sqlx_migrations WHERE version = 12",
];

/// A database of the version before webhooks gains their tables, empty.
async fn a_database_without_webhooks_gains_them(url: &str) {
    execute(url, WITHOUT_WEBHOOKS).await;
    assert_eq!(versions(url).await, [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 14]);
    let reopened = Store::connect(url).await.unwrap();
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    assert!(reopened.webhooks().await.unwrap().is_empty());
    assert_eq!(reopened.next_webhook_due().await.unwrap(), None);
    reopened.close().await;
}

/// Runs that ended before migration 7 get their duration from their start and end: a database
/// back at version 6 gains migration 7 with the durations filled in.
async fn ended_runs_gain_their_durations(url: &str) {
    let reopened = Store::connect(url).await.unwrap();
    let task = reopened
        .create_task(
            &deft_store::NewTask {
                name: "timed".into(),
                device: "local".into(),
                definition: "{}".into(),
                enabled: true,
                folder: String::new(),
                tags: Vec::new(),
                notify: Default::default(),
            },
            &super::created(),
        )
        .await
        .unwrap();
    let mut ended = Vec::new();
    for (start, took) in [(1_000, 300), (2_000, 100), (3_000, 200)] {
        let new = deft_store::NewTaskRun {
            task_id: task.id.clone(),
            trigger: deft_store::TaskTrigger::Manual,
            schedule_id: None,
            fire_at_ms: None,
            device: None,
            variables: serde_json::Map::new(),
            started_at_ms: start,
            owner: None,
            task_version: None,
        };
        let deft_store::RunStart::Started(run) = reopened.start_task_run(&new).await.unwrap()
        else {
            panic!("busy");
        };
        reopened
            .finish_task_run(&run.id, deft_store::TaskRunStatus::Ok, None, start + took)
            .await
            .unwrap();
        ended.push(run.id);
    }
    reopened.close().await;
    execute(url, WITHOUT_RUN_HISTORY).await;
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 8, 9, 11, 12, 13, 14]
    );
    let reopened = Store::connect(url).await.unwrap();
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    let longest_first = deft_store::RunOrder {
        key: deft_store::RunSortKey::Duration,
        descending: true,
    };
    let page = reopened
        .task_run_page(
            &deft_store::TaskRunFilter::default(),
            longest_first,
            None,
            10,
        )
        .await
        .unwrap();
    let ids: Vec<&str> = page.items.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [&ended[0], &ended[2], &ended[1]],
        "durations filled in"
    );
    reopened.close().await;
    tasks_gain_their_first_version(url).await;
}

/// Back to a version before task versions: migration 9's table, index, columns and record gone.
const WITHOUT_VERSIONS: &[&str] = &[
    "DROP TABLE task_versions",
    "DROP INDEX tasks_by_folder",
    "ALTER TABLE tasks DROP COLUMN folder",
    "ALTER TABLE tasks DROP COLUMN tags",
    "ALTER TABLE tasks DROP COLUMN version",
    "ALTER TABLE task_runs DROP COLUMN task_version",
    "DELETE FROM _sqlx_migrations WHERE version = 9",
];

/// The tasks of a database before migration 9 get their record as it stands as version 1.
async fn tasks_gain_their_first_version(url: &str) {
    let store = Store::connect(url).await.unwrap();
    let task = store.task_by_name("timed").await.unwrap();
    let mut new = deft_store::NewTask {
        name: "timed".into(),
        device: "remote".into(),
        definition: "{\"steps\": []}".into(),
        enabled: false,
        folder: String::new(),
        tags: Vec::new(),
        notify: Default::default(),
    };
    store
        .update_task(&task.id, &new, &super::edited())
        .await
        .unwrap();
    store.close().await;
    execute(url, WITHOUT_VERSIONS).await;
    let store = Store::connect(url).await.unwrap();
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    let task = store.task(&task.id).await.unwrap();
    assert_eq!((task.version, task.folder.as_str()), (1, ""));
    let v1 = store.task_version(&task.id, 1).await.unwrap();
    assert_eq!(
        (v1.device.as_str(), v1.definition.as_str(), v1.enabled),
        ("remote", "{\"steps\": []}", false),
        "version 1 is the record as it stood"
    );
    assert_eq!(v1.author, "migration");
    new.enabled = true;
    let next = store
        .update_task(&task.id, &new, &super::edited())
        .await
        .unwrap();
    assert_eq!(next.version, 2);
    store.close().await;
}

/// Tasks from before migration 8 report their failures only: a database back at version 7
/// gains migration 8 with each task at the defaults.
async fn old_tasks_gain_the_default_notification_settings(url: &str) {
    execute(url, WITHOUT_NOTIFICATIONS).await;
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 9, 11, 12, 13, 14]
    );
    execute(
        url,
        &[
            "INSERT INTO tasks (id, name, device, definition, enabled, created_at_ms, \
           updated_at_ms) VALUES ('old', 'old task', 'local', '{}', 1, 1, 1)",
        ],
    )
    .await;
    let reopened = Store::connect(url).await.unwrap();
    assert_eq!(
        versions(url).await,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    );
    assert_eq!(
        reopened.task("old").await.unwrap().notify,
        deft_store::TaskNotify {
            on_failure: true,
            on_success: false,
            on_notify_step: false
        }
    );
    reopened.close().await;
}
