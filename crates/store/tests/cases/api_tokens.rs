//! Named API tokens and the calls they made.

use deft_store::{ApiTokenCall, NewApiToken, SERVER_TOKEN_ID, Store, StoreError};

fn new_token(name: &str, hash: &str) -> NewApiToken {
    NewApiToken {
        name: name.into(),
        token_hash: hash.into(),
        prefix: "deft_abc".into(),
        scopes: vec!["runs".into(), "tasks:read".into()],
        created_by: "admin".into(),
        created_at_ms: 1_000,
        expires_at_ms: Some(9_000),
    }
}

fn call(token_id: &str, at_ms: i64, path: &str) -> ApiTokenCall {
    ApiTokenCall {
        token_id: token_id.into(),
        at_ms,
        method: "GET".into(),
        path: path.into(),
        status: 200,
    }
}

pub async fn api_tokens_by_name_hash_revocation_and_use(store: &Store) {
    assert!(store.api_tokens().await.unwrap().is_empty());
    let ci = store
        .create_api_token(&new_token("ci", "h1"))
        .await
        .unwrap();
    assert_eq!(ci.scopes, ["runs", "tasks:read"]);
    let clash = store.create_api_token(&new_token("ci", "h2")).await;
    assert!(matches!(clash, Err(StoreError::Conflict(_))), "{clash:?}");
    let mut erp = new_token("erp", "h3");
    erp.created_at_ms = 2_000;
    erp.expires_at_ms = None;
    erp.scopes = vec![];
    let erp = store.create_api_token(&erp).await.unwrap();

    let listed = store.api_tokens().await.unwrap();
    assert_eq!(listed, [erp.clone(), ci.clone()], "newest first");
    assert_eq!(
        store.api_token_by_hash("h1").await.unwrap(),
        Some(ci.clone())
    );
    assert_eq!(store.api_token_by_hash("nope").await.unwrap(), None);
    assert_eq!(store.api_token(&erp.id).await.unwrap(), Some(erp.clone()));

    store.touch_api_token(&ci.id, 5_000).await.unwrap();
    let revoked = store.revoke_api_token("ci", 6_000).await.unwrap().unwrap();
    assert_eq!(
        (revoked.last_used_at_ms, revoked.revoked_at_ms),
        (Some(5_000), Some(6_000))
    );
    let again = store.revoke_api_token("ci", 7_000).await.unwrap().unwrap();
    assert_eq!(
        again.revoked_at_ms,
        Some(6_000),
        "the first revocation stands"
    );
    assert_eq!(store.revoke_api_token("nobody", 7_000).await.unwrap(), None);
    assert_eq!(
        store
            .api_token_by_hash("h1")
            .await
            .unwrap()
            .unwrap()
            .revoked_at_ms,
        Some(6_000)
    );
}

pub async fn api_token_calls_are_kept_newest_and_bounded(store: &Store) {
    let a = store.create_api_token(&new_token("a", "ha")).await.unwrap();
    let b = store.create_api_token(&new_token("b", "hb")).await.unwrap();
    let calls: Vec<ApiTokenCall> = (0..7)
        .map(|i| call(&a.id, 100 + i, &format!("/api/tasks/{i}")))
        .chain([
            call(&b.id, 50, "/api/devices"),
            call("gone", 60, "/api/x"),
            call(SERVER_TOKEN_ID, 70, "/api/tokens"),
        ])
        .collect();
    store.record_api_token_calls(&calls, 5).await.unwrap();
    let kept = store.api_token_calls(&a.id, 100).await.unwrap();
    let at: Vec<i64> = kept.iter().map(|c| c.at_ms).collect();
    assert_eq!(
        at,
        [106, 105, 104, 103, 102],
        "the newest five, newest first"
    );
    assert_eq!(kept[0].path, "/api/tasks/6");
    assert_eq!(
        store.api_token_calls(&b.id, 100).await.unwrap(),
        [call(&b.id, 50, "/api/devices")]
    );
    assert!(store.api_token_calls("gone", 100).await.unwrap().is_empty());
    assert_eq!(
        store.api_token_calls(SERVER_TOKEN_ID, 100).await.unwrap(),
        [call(SERVER_TOKEN_ID, 70, "/api/tokens")],
        "the server's own token has no row, its calls are kept"
    );
    assert_eq!(store.api_token_calls(&a.id, 2).await.unwrap().len(), 2);
}
