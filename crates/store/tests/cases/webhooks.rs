//! Webhooks and their deliveries: names unique, changes in place, the secret only by id; the
//! delivery queue claimed once, attempts recorded, pages newest first, deleting a hook deletes
//! its deliveries.

use deft_store::{
    AttemptRecord, DeliveryState, NewDelivery, NewWebhook, Store, StoreError, WebhookChange,
};

fn new_hook(name: &str) -> NewWebhook {
    NewWebhook {
        name: name.to_owned(),
        url: "https://example.com/hook".to_owned(),
        events: vec!["run.ended".to_owned(), "task_run.ended".to_owned()],
        sealed_secret: "sealed-1".to_owned(),
        enabled: true,
        now_ms: 1_000,
    }
}

fn delivery(hook: &str, event: &str, now_ms: i64) -> NewDelivery {
    NewDelivery {
        webhook_id: hook.to_owned(),
        event_kind: "run.ended".to_owned(),
        event_id: event.to_owned(),
        payload: format!("{{\"id\":\"{event}\"}}"),
        now_ms,
    }
}

pub async fn webhooks_crud_and_secret(store: &Store) {
    let ci = store.create_webhook(&new_hook("ci")).await.unwrap();
    assert_eq!(ci.events, ["run.ended", "task_run.ended"]);
    assert!(ci.enabled && !ci.failing);
    assert_eq!(ci.last_delivery_at_ms, None);
    let clash = store.create_webhook(&new_hook("ci")).await;
    assert!(matches!(clash, Err(StoreError::Conflict(_))), "{clash:?}");
    let ops = store.create_webhook(&new_hook("ops")).await.unwrap();
    let names: Vec<String> = store
        .webhooks()
        .await
        .unwrap()
        .into_iter()
        .map(|h| h.name)
        .collect();
    assert_eq!(names, ["ci", "ops"]);
    assert_eq!(store.webhook("ops").await.unwrap(), Some(ops.clone()));

    let change = WebhookChange {
        enabled: Some(false),
        events: Some(vec!["device.offline".to_owned()]),
        ..WebhookChange::default()
    };
    let changed = store
        .update_webhook(&ci.id, &change, 2_000)
        .await
        .unwrap()
        .unwrap();
    assert!(!changed.enabled);
    assert_eq!(changed.events, ["device.offline"]);
    assert_eq!(
        (changed.name.as_str(), changed.updated_at_ms),
        ("ci", 2_000)
    );
    let rename = WebhookChange {
        name: Some("ops".to_owned()),
        ..WebhookChange::default()
    };
    let taken = store.update_webhook(&ci.id, &rename, 3_000).await;
    assert!(matches!(taken, Err(StoreError::Conflict(_))), "{taken:?}");
    assert_eq!(
        store.update_webhook("nope", &change, 1).await.unwrap(),
        None
    );
    // disabled hooks and hooks of other kinds are not asked
    assert!(
        store
            .webhooks_for("device.offline")
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.webhooks_for("run.ended").await.unwrap(),
        vec![ops.clone()]
    );

    assert_eq!(
        store
            .sealed_webhook_secret(&ci.id)
            .await
            .unwrap()
            .as_deref(),
        Some("sealed-1")
    );
    assert!(
        store
            .set_webhook_secret(&ci.id, "sealed-2", 4_000)
            .await
            .unwrap()
    );
    assert_eq!(
        store
            .sealed_webhook_secret(&ci.id)
            .await
            .unwrap()
            .as_deref(),
        Some("sealed-2")
    );
    assert!(!store.set_webhook_secret("nope", "x", 1).await.unwrap());

    store.set_webhook_failing(&ci.id, true).await.unwrap();
    assert!(store.webhook(&ci.id).await.unwrap().unwrap().failing);

    store
        .enqueue_webhook_delivery(&delivery(&ci.id, "e1", 5_000))
        .await
        .unwrap();
    assert!(store.delete_webhook(&ci.id).await.unwrap());
    assert!(!store.delete_webhook(&ci.id).await.unwrap());
    assert_eq!(store.webhook(&ci.id).await.unwrap(), None);
    assert_eq!(
        store.next_webhook_due().await.unwrap(),
        None,
        "its deliveries went with it"
    );
}

pub async fn webhook_deliveries_are_claimed_once_and_paged(store: &Store) {
    let hook = store.create_webhook(&new_hook("ci")).await.unwrap();
    for (i, at) in [10_i64, 20, 30].iter().enumerate() {
        store
            .enqueue_webhook_delivery(&delivery(&hook.id, &format!("e{i}"), *at))
            .await
            .unwrap();
    }
    assert_eq!(store.next_webhook_due().await.unwrap(), Some(10));
    // due at 25: the two older ones, claimed until 1_000; a second claim finds nothing
    let claimed = store.claim_webhook_deliveries(25, 1_000, 10).await.unwrap();
    let events: Vec<&str> = claimed.iter().map(|d| d.event_id.as_str()).collect();
    assert_eq!(events, ["e0", "e1"]);
    assert!(
        store
            .claim_webhook_deliveries(25, 1_000, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.next_webhook_due().await.unwrap(), Some(30));

    let first = &claimed[0];
    let retry = AttemptRecord {
        state: DeliveryState::Pending,
        next_attempt_at_ms: Some(2_000),
        response_code: Some(500),
        error: Some("HTTP 500".to_owned()),
        response_excerpt: Some("boom".to_owned()),
        duration_ms: 12,
        now_ms: 40,
    };
    store
        .record_webhook_attempt(&first.id, &retry)
        .await
        .unwrap();
    let kept = store.webhook_delivery(&first.id).await.unwrap().unwrap();
    assert_eq!((kept.attempts, kept.state), (1, DeliveryState::Pending));
    assert_eq!(kept.response_code, Some(500));
    assert_eq!(kept.response_excerpt.as_deref(), Some("boom"));
    let done = AttemptRecord {
        state: DeliveryState::Succeeded,
        next_attempt_at_ms: None,
        response_code: Some(204),
        error: None,
        response_excerpt: None,
        duration_ms: 3,
        now_ms: 2_100,
    };
    store
        .record_webhook_attempt(&first.id, &done)
        .await
        .unwrap();
    let kept = store.webhook_delivery(&first.id).await.unwrap().unwrap();
    assert_eq!(
        (kept.attempts, kept.state, kept.last_error),
        (2, DeliveryState::Succeeded, None)
    );
    let hook = store.webhook(&hook.id).await.unwrap().unwrap();
    assert_eq!(hook.last_delivery_at_ms, Some(2_100));

    // newest first, two at a time
    let page = store.webhook_deliveries(&hook.id, None, 2).await.unwrap();
    let events: Vec<&str> = page.items.iter().map(|d| d.event_id.as_str()).collect();
    assert_eq!(events, ["e2", "e1"]);
    let rest = store
        .webhook_deliveries(&hook.id, page.next.as_deref(), 2)
        .await
        .unwrap();
    let events: Vec<&str> = rest.items.iter().map(|d| d.event_id.as_str()).collect();
    assert_eq!((events, rest.next), (vec!["e0"], None));
    let foreign = store.webhook_deliveries(&hook.id, Some("nope"), 2).await;
    assert!(
        matches!(foreign, Err(StoreError::Invalid(_))),
        "{foreign:?}"
    );
}
