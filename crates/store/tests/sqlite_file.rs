//! What only the SQLite file backend has: the data folder, WAL, reopening (a restart), and the
//! errors for a path that cannot hold a database.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use deft_store::{Backend, Message, RunRecord, SessionRow, Store, StoreError, Usage};
use sqlx::{AnyConnection, Connection, Row};

fn answer(text: &str) -> Message {
    Message {
        role: "assistant".into(),
        content: text.into(),
        created_at_ms: 42,
        run_id: Some("run-1".into()),
        status: Some(deft_protocol::DoneStatus::Completed),
        usage: Some(Usage {
            prompt_tokens: 7,
            completion_tokens: 3,
            total_tokens: 10,
            calls: 1,
        }),
        reasoning: Some("因为……".into()),
        steps: vec![
            serde_json::from_value(
                serde_json::json!({"call_id": "c1", "tool": "run_shell", "args": {"argv": ["ls"]}}),
            )
            .unwrap(),
        ],
    }
}

#[tokio::test]
async fn file_is_created_in_a_new_folder_with_wal() {
    let tmp = tempfile::tempdir().unwrap();
    // Spaces, '#' and '?' in the folder name survive the sqlite:// URL.
    let data_dir = tmp.path().join("deft data #1?").join("nested");
    let store = Store::open(&data_dir, None).await.unwrap();
    assert_eq!(store.backend(), Backend::Sqlite);
    store.set_meta("k", "v").await.unwrap();
    let file = data_dir.join("deft.db");
    assert!(file.is_file(), "{} exists", file.display());

    let url = format!(
        "sqlite://{}",
        file.to_str()
            .unwrap()
            .replace(' ', "%20")
            .replace('#', "%23")
            .replace('?', "%3F")
    );
    let mut raw = AnyConnection::connect(&url).await.unwrap();
    let mode: String = sqlx::query("PRAGMA journal_mode")
        .fetch_one(&mut raw)
        .await
        .unwrap()
        .get(0);
    assert_eq!(mode, "wal");
    let value: String = sqlx::query("SELECT value FROM app_meta WHERE key = 'k'")
        .fetch_one(&mut raw)
        .await
        .unwrap()
        .get(0);
    assert_eq!(value, "v", "the store wrote to that very file");
    raw.close().await.unwrap();
    store.close().await;
}

#[tokio::test]
async fn reopening_keeps_everything() {
    let tmp = tempfile::tempdir().unwrap();
    let (conv_id, user_id) = {
        let store = Store::open(tmp.path(), None).await.unwrap();
        store
            .set_meta("agent_model", "deepseek-chat")
            .await
            .unwrap();
        let user = store.create_user("admin", "hash").await.unwrap();
        store
            .create_session(&SessionRow {
                id_hash: "sess".into(),
                user_id: user.id.clone(),
                csrf_token: "csrf".into(),
                created_at_ms: 1,
                expires_at_ms: 99,
            })
            .await
            .unwrap();
        let conv = store.create_conversation("kept").await.unwrap();
        store
            .append_message(&conv.id, &answer("first"))
            .await
            .unwrap();
        store
            .create_run(&RunRecord {
                id: "run-1".into(),
                conversation_id: conv.id.clone(),
                device: "local".into(),
                prompt: "p".into(),
                mode: deft_protocol::RunMode::Chat,
                status: deft_protocol::RunStatus::Running,
                answer: String::new(),
                usage: Usage::default(),
                started_at_ms: 5,
                finished_at_ms: None,
                owner: None,
            })
            .await
            .unwrap();
        store
            .append_events("run-1", &[(1, "{\"a\":1}".into()), (2, "{\"b\":2}".into())])
            .await
            .unwrap();
        store.close().await;
        (conv.id, user.id)
    };

    let store = Store::open(tmp.path(), None).await.unwrap();
    assert_eq!(
        store.meta("agent_model").await.unwrap().as_deref(),
        Some("deepseek-chat")
    );
    assert_eq!(store.user("admin").await.unwrap().unwrap().id, user_id);
    assert_eq!(
        store.session("sess").await.unwrap().unwrap().csrf_token,
        "csrf"
    );
    let conv = store.conversation(&conv_id).await.unwrap().unwrap();
    assert_eq!(conv.messages, vec![answer("first")]);
    assert_eq!(conv.summary.usage.total_tokens, 10);
    assert_eq!(
        store.unfinished_runs().await.unwrap().len(),
        1,
        "a run cut off by the restart"
    );
    assert_eq!(
        store.events("run-1", 1).await.unwrap(),
        vec![(2, "{\"b\":2}".to_owned())]
    );

    // Positions continue after a restart: the next message does not overwrite the first.
    store
        .append_message(&conv_id, &answer("second"))
        .await
        .unwrap();
    let contents: Vec<String> = store
        .conversation(&conv_id)
        .await
        .unwrap()
        .unwrap()
        .messages
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(contents, ["first", "second"]);
    store.close().await;
}

#[tokio::test]
async fn two_stores_share_one_file() {
    let tmp = tempfile::tempdir().unwrap();
    let a = Store::open(tmp.path(), None).await.unwrap();
    let b = Store::open(tmp.path(), None).await.unwrap();
    let conv = a.create_conversation("shared").await.unwrap();
    b.append_message(&conv.id, &answer("from b")).await.unwrap();
    assert_eq!(
        a.conversation(&conv.id)
            .await
            .unwrap()
            .unwrap()
            .messages
            .len(),
        1
    );
    a.close().await;
    b.close().await;
}

#[tokio::test]
async fn data_folder_under_a_file_names_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let data_dir = file.join("deft");
    let err = Store::open(&data_dir, None).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "the database {} is unavailable: cannot create the data folder: ",
            data_dir.display()
        )),
        "{text}"
    );
}

#[tokio::test]
async fn a_file_that_is_not_a_database_names_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("deft.db");
    std::fs::write(&file, vec![0x5a_u8; 8192]).unwrap();
    let err = Store::open(tmp.path(), None).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("the database {} is unavailable: ", file.display())),
        "{text}"
    );
    assert!(text.contains("file is not a database"), "{text}");
}

#[tokio::test]
async fn a_folder_where_the_file_should_be_names_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("deft.db")).unwrap();
    let err = Store::open(tmp.path(), None).await.unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "the database {} is unavailable: ",
            tmp.path().join("deft.db").display()
        )),
        "{text}"
    );
}

#[tokio::test]
async fn a_url_wins_over_the_data_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tmp.path().join("elsewhere.db");
    let url = format!("sqlite://{}?mode=rwc", elsewhere.display());
    let unused = tmp.path().join("unused");
    let store = Store::open(&unused, Some(&url)).await.unwrap();
    store.set_meta("k", "v").await.unwrap();
    store.close().await;
    assert!(elsewhere.is_file());
    assert!(
        !unused.exists(),
        "the data folder is not touched when a URL is given"
    );
}

#[tokio::test]
async fn an_empty_url_means_the_data_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(tmp.path(), Some("  ")).await.unwrap();
    assert_eq!(store.backend(), Backend::Sqlite);
    store.close().await;
    assert!(tmp.path().join("deft.db").is_file());
}

#[tokio::test]
async fn a_missing_file_without_rwc_is_unavailable() {
    let tmp = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", tmp.path().join("missing.db").display());
    let err = Store::connect(&url).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with(&format!("the database {url} is unavailable: ")),
        "{err}"
    );
}

/// A database made before tasks existed (schema version 1) gains the task tables on open and
/// keeps what it had.
#[tokio::test]
async fn a_version_1_database_is_migrated_to_tasks() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(tmp.path(), None).await.unwrap();
    let conv = store.create_conversation("before tasks").await.unwrap();
    store.close().await;

    // Back to version 1: without the task tables and without the records of migration 2 and
    // of migrations 8 and 9, which change them.
    let url = format!("sqlite://{}", tmp.path().join("deft.db").display());
    let mut raw = AnyConnection::connect(&url).await.unwrap();
    for sql in [
        "DROP TABLE task_versions",
        "DROP TABLE task_run_steps",
        "DROP TABLE task_runs",
        "DROP TABLE schedules",
        "DROP TABLE tasks",
        "DELETE FROM _sqlx_migrations WHERE version = 2",
        "DROP TABLE notification_reads",
        "DROP TABLE notifications",
        "DELETE FROM _sqlx_migrations WHERE version = 8",
        "DELETE FROM _sqlx_migrations WHERE version = 9",
    ] {
        sqlx::query(sql).execute(&mut raw).await.unwrap();
    }
    raw.close().await.unwrap();

    let store = Store::open(tmp.path(), None).await.unwrap();
    assert!(store.conversation(&conv.id).await.unwrap().is_some());
    let task = store
        .create_task(
            &deft_store::NewTask {
                name: "after".into(),
                device: "local".into(),
                definition: "{}".into(),
                enabled: true,
                folder: String::new(),
                tags: Vec::new(),
                notify: Default::default(),
            },
            &deft_store::VersionStamp::new("test", deft_store::VersionCause::Create),
        )
        .await
        .unwrap();
    assert_eq!(store.task(&task.id).await.unwrap(), task);
    store.close().await;
}
