//! app_meta, users and login sessions.

use deft_store::{SessionRow, Store, StoreError};

pub async fn meta_upsert(store: &Store) {
    assert_eq!(store.meta("agent_model").await.unwrap(), None);
    store
        .set_meta("agent_model", "deepseek-chat")
        .await
        .unwrap();
    store
        .set_meta("agent_api_base", "https://api.deepseek.com")
        .await
        .unwrap();
    assert_eq!(
        store.meta("agent_model").await.unwrap().as_deref(),
        Some("deepseek-chat")
    );

    store.set_meta("agent_model", "qwen3 · 推理").await.unwrap();
    assert_eq!(
        store.meta("agent_model").await.unwrap().as_deref(),
        Some("qwen3 · 推理")
    );
    assert_eq!(
        store.meta("agent_api_base").await.unwrap().as_deref(),
        Some("https://api.deepseek.com"),
        "an upsert touches only its key"
    );

    store.delete_meta("agent_model").await.unwrap();
    assert_eq!(store.meta("agent_model").await.unwrap(), None);
    store.delete_meta("agent_model").await.unwrap(); // deleting a missing key is fine
    store.set_meta("agent_model", "").await.unwrap();
    assert_eq!(
        store.meta("agent_model").await.unwrap().as_deref(),
        Some("")
    );
}

pub async fn user_conflict(store: &Store) {
    assert_eq!(store.user_count().await.unwrap(), 0);
    let admin = store
        .create_user("admin", "$argon2id$v=19$hash")
        .await
        .unwrap();
    let id = uuid::Uuid::parse_str(&admin.id).expect("user ids are UUIDs");
    assert_eq!(id.get_version_num(), 4);
    assert_eq!(admin.username, "admin");
    assert_eq!(store.user_count().await.unwrap(), 1);
    assert_eq!(store.user("admin").await.unwrap(), Some(admin.clone()));
    assert_eq!(
        store.user_by_id(&admin.id).await.unwrap(),
        Some(admin.clone())
    );

    let err = store.create_user("admin", "other").await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert_eq!(err.to_string(), "the username \"admin\" is taken");
    assert_eq!(store.user_count().await.unwrap(), 1);
    assert_eq!(
        store.user("admin").await.unwrap().unwrap().password_hash,
        "$argon2id$v=19$hash",
        "a refused create changes nothing"
    );

    let second = store.create_user("Admin", "h2").await.unwrap();
    assert_ne!(second.id, admin.id);
    assert_eq!(store.user_count().await.unwrap(), 2);
    assert_eq!(store.user("nobody").await.unwrap(), None);
    assert_eq!(store.user_by_id("no-such-id").await.unwrap(), None);
}

fn session(id_hash: &str, user_id: &str, expires_at_ms: i64) -> SessionRow {
    SessionRow {
        id_hash: id_hash.into(),
        user_id: user_id.into(),
        csrf_token: format!("csrf-{id_hash}"),
        created_at_ms: 500,
        expires_at_ms,
    }
}

pub async fn session_expiry_purge(store: &Store) {
    let admin = store.create_user("admin", "h").await.unwrap();
    for (id, expires) in [("a", 1_000), ("b", 2_000), ("c", 3_000)] {
        store
            .create_session(&session(id, &admin.id, expires))
            .await
            .unwrap();
    }
    assert_eq!(
        store.session("a").await.unwrap(),
        Some(session("a", &admin.id, 1_000))
    );

    assert_eq!(store.purge_sessions(999).await.unwrap(), 0);
    assert_eq!(
        store.purge_sessions(2_000).await.unwrap(),
        2,
        "expiry at `now` counts as expired"
    );
    assert_eq!(store.session("a").await.unwrap(), None);
    assert_eq!(store.session("b").await.unwrap(), None);
    assert!(store.session("c").await.unwrap().is_some());

    let err = store
        .create_session(&session("c", &admin.id, 9_000))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    let err = store
        .create_session(&session("d", "ghost-user", 9_000))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
    assert!(err.to_string().contains("\"ghost-user\""), "{err}");

    store.delete_session("c").await.unwrap();
    assert_eq!(store.session("c").await.unwrap(), None);
    store.delete_session("c").await.unwrap();
    assert_eq!(store.purge_sessions(i64::MAX).await.unwrap(), 0);
}

pub async fn secrets_upsert_list_by_name_and_delete(store: &Store) {
    assert!(store.secrets().await.unwrap().is_empty());
    assert_eq!(store.sealed_secret("LOGIN_PW").await.unwrap(), None);
    let first = store
        .set_secret("LOGIN_PW", "v1:sealed-one", "admin")
        .await
        .unwrap();
    store
        .set_secret("API_TOKEN", "v1:sealed-two", "admin")
        .await
        .unwrap();
    super::tick().await;
    let replaced = store
        .set_secret("LOGIN_PW", "v1:sealed-three", "ops")
        .await
        .unwrap();
    assert!(replaced.updated_at_ms > first.updated_at_ms);
    let listed = store.secrets().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["API_TOKEN", "LOGIN_PW"], "in name order");
    assert_eq!(listed[1], replaced, "who set it last, and when");
    assert_eq!(
        store.sealed_secret("LOGIN_PW").await.unwrap().as_deref(),
        Some("v1:sealed-three"),
        "a set replaces the value"
    );
    assert!(store.delete_secret("LOGIN_PW").await.unwrap());
    assert!(
        !store.delete_secret("LOGIN_PW").await.unwrap(),
        "already gone"
    );
    assert_eq!(store.sealed_secret("LOGIN_PW").await.unwrap(), None);
    assert_eq!(store.secrets().await.unwrap().len(), 1);
}
