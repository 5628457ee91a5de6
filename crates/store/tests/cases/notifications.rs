//! Notifications: stored newest first, each reader's own read state and unread count, a reader
//! from later sees the older ones as read, pages, pruning to the newest, and a task's
//! notification settings (defaults, set, kept by a replace).

use deft_store::{
    NewNotification, NewTask, NotificationKind, NotificationLevel, Page, Reader, Store, StoreError,
    TaskNotify,
};

fn note(title: &str) -> NewNotification {
    NewNotification {
        kind: NotificationKind::TaskRunFailed,
        level: NotificationLevel::Error,
        title: title.to_owned(),
        body: format!("{title}: <b>not html</b>"),
        link: "/tasks/runs/r1".to_owned(),
        task_id: Some("t1".to_owned()),
        run_id: Some("r1".to_owned()),
        conversation_id: None,
        device: None,
    }
}

fn reader(key: &str, since_ms: i64) -> Reader {
    Reader {
        key: key.to_owned(),
        since_ms,
    }
}

fn page(limit: u32, offset: u64) -> Page {
    Page { limit, offset }
}

fn titles(p: &deft_store::NotificationPage) -> Vec<(&str, bool)> {
    p.items.iter().map(|n| (n.title.as_str(), n.read)).collect()
}

pub async fn notifications_have_a_read_state_per_reader(store: &Store) {
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            store
                .add_notification(&note(&format!("n{i}")))
                .await
                .unwrap()
                .id,
        );
    }
    let (ann, bob) = (reader("ann", 0), reader("bob", 0));
    let all = store.notifications(&ann, false, page(10, 0)).await.unwrap();
    assert_eq!(
        titles(&all),
        [
            ("n4", false),
            ("n3", false),
            ("n2", false),
            ("n1", false),
            ("n0", false)
        ]
    );
    assert_eq!((all.total, all.unread_count), (5, 5));
    let first = &all.items[0];
    assert_eq!(
        (
            first.kind,
            first.level,
            first.body.as_str(),
            first.run_id.as_deref()
        ),
        (
            NotificationKind::TaskRunFailed,
            NotificationLevel::Error,
            "n4: <b>not html</b>",
            Some("r1")
        )
    );

    // Ann reads one (twice: no change); Bob's state is his own.
    store.mark_notification_read(&ann, &ids[1]).await.unwrap();
    store.mark_notification_read(&ann, &ids[1]).await.unwrap();
    assert_eq!(store.unread_notifications(&ann).await.unwrap(), 4);
    assert_eq!(store.unread_notifications(&bob).await.unwrap(), 5);
    let unread = store.notifications(&ann, true, page(2, 2)).await.unwrap();
    assert_eq!(titles(&unread), [("n2", false), ("n0", false)]);
    assert_eq!((unread.total, unread.unread_count), (4, 4));
    let paged = store.notifications(&ann, false, page(2, 2)).await.unwrap();
    assert_eq!(titles(&paged), [("n2", false), ("n1", true)]);
    assert_eq!(paged.total, 5);

    assert!(matches!(
        store.mark_notification_read(&ann, "no-such-id").await,
        Err(StoreError::NotFound(t)) if t.contains("no-such-id")
    ));
    assert!(matches!(
        store.notifications(&ann, false, page(0, 0)).await,
        Err(StoreError::Invalid(_))
    ));

    assert_eq!(store.mark_all_notifications_read(&ann).await.unwrap(), 4);
    assert_eq!(store.unread_notifications(&ann).await.unwrap(), 0);
    assert_eq!(store.unread_notifications(&bob).await.unwrap(), 5);
    let newer = store.add_notification(&note("n5")).await.unwrap();
    assert!(!newer.read);
    assert_eq!(store.unread_notifications(&ann).await.unwrap(), 1);

    // A reader who exists from after them all inherits nothing unread, but sees them as read.
    let carl = reader("carl", newer.created_at_ms + 1);
    assert_eq!(store.unread_notifications(&carl).await.unwrap(), 0);
    let seen = store.notifications(&carl, false, page(3, 0)).await.unwrap();
    assert_eq!(titles(&seen), [("n5", true), ("n4", true), ("n3", true)]);
    assert_eq!(store.mark_all_notifications_read(&carl).await.unwrap(), 0);
}

pub async fn notifications_are_pruned_to_the_newest(store: &Store) {
    for i in 0..4 {
        store
            .add_notification(&note(&format!("n{i}")))
            .await
            .unwrap();
    }
    let ann = reader("ann", 0);
    let all = store.notifications(&ann, false, page(10, 0)).await.unwrap();
    store
        .mark_notification_read(&ann, &all.items[3].id)
        .await
        .unwrap();
    store
        .mark_notification_read(&ann, &all.items[0].id)
        .await
        .unwrap();
    assert_eq!(store.prune_notifications(2).await.unwrap(), 2);
    let kept = store.notifications(&ann, false, page(10, 0)).await.unwrap();
    assert_eq!(titles(&kept), [("n3", true), ("n2", false)]);
    assert_eq!((kept.total, kept.unread_count), (2, 1));
    assert_eq!(store.prune_notifications(2).await.unwrap(), 0);
    // Inserting keeps at most the bound.
    assert_eq!(deft_store::MAX_NOTIFICATIONS, 1_000);
}

pub async fn tasks_keep_their_notification_settings(store: &Store) {
    let new = NewTask {
        name: "nightly".into(),
        device: "local".into(),
        definition: "{}".into(),
        enabled: true,
        folder: String::new(),
        tags: Vec::new(),
        notify: TaskNotify::default(),
    };
    let task = store.create_task(&new, &super::created()).await.unwrap();
    assert_eq!(
        task.notify,
        TaskNotify {
            on_failure: true,
            on_success: false,
            on_notify_step: false
        }
    );
    let loud = TaskNotify {
        on_failure: false,
        on_success: true,
        on_notify_step: true,
    };
    assert_eq!(
        store.set_task_notify(&task.id, loud).await.unwrap().notify,
        loud
    );
    assert_eq!(store.task(&task.id).await.unwrap().notify, loud);
    let replaced = NewTask {
        notify: loud,
        ..new.clone()
    };
    let back = store
        .update_task(&task.id, &replaced, &super::edited())
        .await
        .unwrap();
    assert_eq!(back.notify, loud);
    assert!(matches!(
        store.set_task_notify("nope", loud).await,
        Err(StoreError::NotFound(_))
    ));
}

pub async fn a_notification_is_updated_in_place(store: &Store) {
    let first = store.add_notification(&note("asks")).await.unwrap();
    let after = store.add_notification(&note("later")).await.unwrap();
    let ann = reader("ann", 0);
    store.mark_notification_read(&ann, &first.id).await.unwrap();
    store
        .update_notification(&first.id, NotificationLevel::Info, "answered", "approved")
        .await
        .unwrap();
    let all = store.notifications(&ann, false, page(10, 0)).await.unwrap();
    // Same place in the list, same read state, the new words and level.
    assert_eq!(titles(&all), [("later", false), ("answered", true)]);
    let n = &all.items[1];
    assert_eq!(
        (n.id.as_str(), n.level, n.body.as_str(), n.created_at_ms),
        (
            first.id.as_str(),
            NotificationLevel::Info,
            "approved",
            first.created_at_ms
        )
    );
    assert_eq!(all.items[0].id, after.id);
    let gone = store
        .update_notification("nope", NotificationLevel::Info, "t", "b")
        .await
        .unwrap_err();
    assert!(matches!(gone, StoreError::NotFound(_)), "{gone:?}");
}

pub async fn an_unread_notification_about_a_device_is_found(store: &Store) {
    let kind = NotificationKind::DeviceOffline;
    let about = |device: &str| NewNotification {
        kind,
        level: NotificationLevel::Warning,
        device: Some(device.to_owned()),
        task_id: None,
        run_id: None,
        ..note("offline")
    };
    assert!(!store.unread_notification_about(kind, "p1").await.unwrap());
    let n = store.add_notification(&about("p1")).await.unwrap();
    assert!(store.unread_notification_about(kind, "p1").await.unwrap());
    assert!(!store.unread_notification_about(kind, "p2").await.unwrap());
    assert!(
        !store
            .unread_notification_about(NotificationKind::TaskRunFailed, "p1")
            .await
            .unwrap()
    );
    // Anyone reading it makes it old news.
    store
        .mark_notification_read(&reader("bob", 0), &n.id)
        .await
        .unwrap();
    assert!(!store.unread_notification_about(kind, "p1").await.unwrap());
}
