//! URLs the store refuses or cannot reach: clear texts, passwords never shown.

use deft_store::{Store, StoreError};

#[tokio::test]
async fn unsupported_scheme_is_named() {
    let err = Store::connect("mysql://root:hunter2@127.0.0.1/deft")
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::UnsupportedUrl { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "unsupported database URL mysql://root:***@127.0.0.1/deft: expected \
         postgres://USER@HOST:PORT/DB or sqlite://PATH"
    );
    let err = Store::open("/tmp".as_ref(), Some("deft.db"))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::UnsupportedUrl { .. }), "{err:?}");
}

#[tokio::test]
async fn unreachable_postgres_is_named_without_its_password() {
    // Port 9 (discard) on loopback: nothing listens there, the connection is refused at once.
    let err = Store::connect("postgres://deft:hunter2@127.0.0.1:9/deft")
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with("the database postgres://deft:***@127.0.0.1:9/deft is unavailable: "),
        "{text}"
    );
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("refused"), "the cause is kept: {text}");
}
