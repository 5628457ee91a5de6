//! Conversations and messages.

use deft_protocol::{DoneStatus, StepSummary};
use deft_store::{MAX_MESSAGES, MAX_REASONING_CHARS, Message, Store, StoreError, Usage};
use serde_json::json;

use super::{assistant, tick, usage, user};

fn ids(list: &[deft_store::ConversationSummary]) -> Vec<&str> {
    list.iter().map(|c| c.id.as_str()).collect()
}

pub async fn conversation_crud_and_order(store: &Store) {
    assert!(store.conversations().await.unwrap().is_empty());
    let a = store.create_conversation("first").await.unwrap();
    tick().await;
    let b = store.create_conversation("second").await.unwrap();
    tick().await;
    let c = store.create_conversation("third · 第三").await.unwrap();
    assert_eq!(uuid::Uuid::parse_str(&a.id).unwrap().get_version_num(), 4);
    assert_eq!((a.message_count, a.usage), (0, Usage::default()));
    assert_eq!(a.created_at_ms, a.updated_at_ms);

    let list = store.conversations().await.unwrap();
    assert_eq!(ids(&list), [&c.id, &b.id, &a.id], "newest updated first");
    assert_eq!(list[0], c);

    tick().await;
    store.append_message(&a.id, &user("hello")).await.unwrap();
    let list = store.conversations().await.unwrap();
    assert_eq!(
        ids(&list),
        [&a.id, &c.id, &b.id],
        "a new message moves it to the top"
    );
    assert!(list[0].updated_at_ms > a.updated_at_ms);
    assert_eq!(list[0].created_at_ms, a.created_at_ms);
    assert_eq!(list[0].message_count, 1);

    tick().await;
    let renamed = store
        .rename_conversation(&b.id, "renamed")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(renamed.title, "renamed");
    assert_eq!(renamed.id, b.id);
    assert!(renamed.updated_at_ms > b.updated_at_ms);
    let list = store.conversations().await.unwrap();
    assert_eq!(ids(&list), [&b.id, &a.id, &c.id]);
    assert_eq!(
        store.rename_conversation("no-such-id", "x").await.unwrap(),
        None
    );

    let full = store.conversation(&a.id).await.unwrap().unwrap();
    assert_eq!(full.summary.title, "first");
    assert_eq!(full.summary.message_count, 1);
    assert_eq!(full.messages, vec![user("hello")]);
    assert_eq!(store.conversation("no-such-id").await.unwrap(), None);

    assert!(store.delete_conversation(&a.id).await.unwrap());
    assert!(
        !store.delete_conversation(&a.id).await.unwrap(),
        "already gone"
    );
    assert_eq!(store.conversation(&a.id).await.unwrap(), None);
    assert_eq!(ids(&store.conversations().await.unwrap()), [&b.id, &c.id]);

    let err = store
        .append_message(&a.id, &user("late"))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "cannot append a message to conversation {:?}: no such conversation",
            a.id
        )
    );
}

pub async fn append_caps_at_60_and_totals_usage(store: &Store) {
    let conv = store.create_conversation("long").await.unwrap();
    let per_answer = usage(3_480, 126, 1);
    for i in 0..70 {
        let m = if i % 2 == 0 {
            // A user message's usage (should one be given) is not the model's: not counted.
            Message {
                usage: Some(usage(1_000_000, 0, 9)),
                ..user(&format!("m{i}"))
            }
        } else {
            assistant(&format!("m{i}"), per_answer)
        };
        store.append_message(&conv.id, &m).await.unwrap();
    }
    let full = store.conversation(&conv.id).await.unwrap().unwrap();
    assert_eq!(full.messages.len(), MAX_MESSAGES);
    assert_eq!(full.summary.message_count, MAX_MESSAGES as u64);
    let contents: Vec<String> = full.messages.iter().map(|m| m.content.clone()).collect();
    let expected: Vec<String> = (10..70).map(|i| format!("m{i}")).collect();
    assert_eq!(
        contents, expected,
        "the oldest ten are dropped, the rest stay oldest first"
    );
    assert_eq!(
        full.summary.usage,
        Usage {
            prompt_tokens: 35 * 3_480,
            completion_tokens: 35 * 126,
            total_tokens: 35 * 3_606,
            calls: 35,
        },
        "the total keeps the usage of the five dropped answers"
    );
    let listed = store.conversations().await.unwrap();
    assert_eq!(listed[0].message_count, 60);
    assert_eq!(listed[0].usage, full.summary.usage);

    let err = store
        .append_message(
            &conv.id,
            &Message {
                role: "system".into(),
                ..user("x")
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "a message's role must be \"user\" or \"assistant\", not \"system\""
    );
    assert_eq!(
        store
            .conversation(&conv.id)
            .await
            .unwrap()
            .unwrap()
            .messages
            .len(),
        60
    );
}

pub async fn reasoning_truncated_on_char_boundary(store: &Store) {
    let conv = store.create_conversation("reasoning").await.unwrap();
    // 3-byte and 4-byte characters so a byte cut would split one.
    let long: String = "推理🧠ab"
        .chars()
        .cycle()
        .take(MAX_REASONING_CHARS + 37)
        .collect();
    let m = Message {
        reasoning: Some(long.clone()),
        ..assistant("answer", usage(1, 1, 1))
    };
    store.append_message(&conv.id, &m).await.unwrap();
    let exact: String = "é".repeat(MAX_REASONING_CHARS);
    let m2 = Message {
        reasoning: Some(exact.clone()),
        ..assistant("two", usage(1, 1, 1))
    };
    store.append_message(&conv.id, &m2).await.unwrap();
    let m3 = Message {
        reasoning: None,
        ..assistant("three", usage(1, 1, 1))
    };
    store.append_message(&conv.id, &m3).await.unwrap();

    let got = store
        .conversation(&conv.id)
        .await
        .unwrap()
        .unwrap()
        .messages;
    let kept = got[0].reasoning.clone().unwrap();
    assert_eq!(kept.chars().count(), MAX_REASONING_CHARS);
    let prefix: String = long.chars().take(MAX_REASONING_CHARS).collect();
    assert_eq!(kept, prefix);
    assert_eq!(
        got[1].reasoning.as_deref(),
        Some(exact.as_str()),
        "exactly 6,000 stays whole"
    );
    assert_eq!(got[2].reasoning, None);
}

pub async fn steps_json_round_trip(store: &Store) {
    let conv = store.create_conversation("steps").await.unwrap();
    let steps: Vec<StepSummary> = serde_json::from_value(json!([{"call_id": "c1", "tool": "click_input", "args": {"id": "7", "name": "Save"},
               "image_ids": ["img-1", "img-2"], "duration_ms": 412, "status": "success",
               "effect": "changed"},
        {"call_id": "c2", "tool": "run_shell", "args": {"argv": ["ls", "-la"], "nested": {"deep": [1, 2.5, null, true]},
               "text": "引号 \" 反斜杠 \\ 换行\n 和 emoji 🧪"},
               "image_ids": [], "duration_ms": 0, "status": "failure", "effect": null},
    ]))
    .unwrap();
    let m = Message {
        run_id: Some("run-42".into()),
        status: Some(DoneStatus::MaxSteps),
        steps: steps.clone(),
        ..assistant("done **bold**", usage(10, 5, 2))
    };
    store.append_message(&conv.id, &m).await.unwrap();
    let got = store
        .conversation(&conv.id)
        .await
        .unwrap()
        .unwrap()
        .messages;
    assert_eq!(got, vec![m]);
    assert_eq!(got[0].steps, steps);
}

pub async fn concurrent_appends_serialize(store: &Store) {
    let conv = store.create_conversation("busy").await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..24 {
        let store = store.clone();
        let id = conv.id.clone();
        tasks.push(tokio::spawn(async move {
            store
                .append_message(&id, &assistant(&format!("a{i}"), usage(1, 2, 1)))
                .await
        }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let full = store.conversation(&conv.id).await.unwrap().unwrap();
    assert_eq!(full.messages.len(), 24);
    let mut contents: Vec<String> = full.messages.into_iter().map(|m| m.content).collect();
    contents.sort();
    let mut expected: Vec<String> = (0..24).map(|i| format!("a{i}")).collect();
    expected.sort();
    assert_eq!(contents, expected, "every append landed once");
    assert_eq!(
        full.summary.usage,
        Usage {
            prompt_tokens: 24,
            completion_tokens: 48,
            total_tokens: 72,
            calls: 24
        }
    );
}

/// Reaches under the store (through `url`) to break a JSON column, then reads it back.
pub async fn corrupt_json_is_reported(store: &Store, url: &str) {
    use sqlx::{AnyConnection, Connection};
    let conv = store.create_conversation("corrupt").await.unwrap();
    store.append_message(&conv.id, &user("fine")).await.unwrap();
    store
        .append_message(&conv.id, &assistant("broken soon", usage(1, 1, 1)))
        .await
        .unwrap();

    let mut raw = AnyConnection::connect(url).await.unwrap();
    sqlx::query("UPDATE messages SET steps = $1 WHERE conversation_id = $2 AND position = 1")
        .bind("[{not json")
        .bind(&conv.id)
        .execute(&mut raw)
        .await
        .unwrap();
    let err = store.conversation(&conv.id).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    let text = err.to_string();
    let expected = format!(
        "corrupt data in message 1 of conversation {}, column steps: not the expected JSON (",
        conv.id
    );
    assert!(text.starts_with(&expected), "{text}");

    sqlx::query("UPDATE messages SET steps = '[]', usage = $1 WHERE conversation_id = $2")
        .bind("{\"prompt_tokens\": \"many\"}")
        .bind(&conv.id)
        .execute(&mut raw)
        .await
        .unwrap();
    let err = store.conversation(&conv.id).await.unwrap_err();
    assert!(
        err.to_string().contains("message 0 of conversation"),
        "{err}"
    );
    assert!(err.to_string().contains("column usage"), "{err}");
    raw.close().await.unwrap();

    // The listing does not parse messages: it still works, so a person can delete the conversation.
    assert_eq!(store.conversations().await.unwrap().len(), 1);
    assert!(store.delete_conversation(&conv.id).await.unwrap());
}
