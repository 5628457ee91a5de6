//! The Remote dispatcher's contract, driven through its connection side (the outbox it writes
//! `command`/`cancel` messages to and `resolve`/`disconnect`, which the server's connection loop
//! calls): one answer per batch, resolved once, the contract's texts on deadline, stop and
//! disconnect, and the pending entry always removed.

use std::time::Duration;

use deft_link::{RemoteDispatcher, Resolution, texts};
use deft_protocol::link::{ServerMessage, ServerMessageType};
use deft_protocol::{Command, CommandResult, ResultStatus, ToolType};
use deft_tools::{Dispatcher, ExecContext, texts as tool_texts};
use serde_json::json;
use tokio::sync::mpsc;

fn commands(n: usize) -> Vec<Command> {
    (0..n)
        .map(|_| Command::new("noop", Some(ToolType::Action), json!({})))
        .collect()
}

fn ctx() -> ExecContext {
    ExecContext::new("pc1", "shell")
}

async fn next(rx: &mut mpsc::Receiver<ServerMessage>) -> ServerMessage {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a message")
        .expect("open")
}

#[tokio::test]
async fn a_batch_is_sent_with_a_fresh_response_id_and_resolved_once() {
    let (tx, mut rx) = mpsc::channel(8);
    let d = RemoteDispatcher::new("pc1", tx);
    let dd = d.clone();
    let run = tokio::spawn(async move {
        let c = ctx();
        dd.execute(&c, commands(2)).await
    });
    let m = next(&mut rx).await;
    assert_eq!(m.kind, ServerMessageType::Command);
    let rid = m.response_id.clone().unwrap();
    let actions = m.actions.unwrap();
    assert!(
        actions.iter().all(|c| !c.call_id.is_empty()),
        "call ids are filled before sending"
    );
    assert_eq!(d.pending_count(), 1);
    let results: Vec<_> = actions
        .iter()
        .map(|c| CommandResult::success(&c.call_id, json!("ok"), None))
        .collect();
    assert_eq!(d.resolve(&rid, results.clone()), Resolution::Delivered);
    assert_eq!(
        d.resolve(&rid, results),
        Resolution::NotPending,
        "a duplicate reply is not delivered"
    );
    let r = run.await.unwrap();
    assert_eq!(r.len(), 2);
    assert!(r.iter().all(|r| r.status == ResultStatus::Success));
    assert_eq!(d.pending_count(), 0);

    // The next batch gets another response id.
    let dd = d.clone();
    let _second = tokio::spawn(async move {
        let c = ctx();
        dd.execute(&c, commands(1)).await
    });
    assert_ne!(next(&mut rx).await.response_id.unwrap(), rid);
}

#[tokio::test]
async fn a_disconnect_fails_the_waiting_batch_and_every_later_one() {
    let (tx, mut rx) = mpsc::channel(8);
    let d = RemoteDispatcher::new("pc1", tx);
    let dd = d.clone();
    let run = tokio::spawn(async move {
        let c = ctx();
        dd.execute(&c, commands(3)).await
    });
    let _ = next(&mut rx).await;
    d.disconnect();
    let r = run.await.unwrap();
    assert_eq!(r.len(), 3);
    assert!(
        r.iter()
            .all(|r| r.error.as_deref() == Some(tool_texts::DISCONNECTED))
    );
    assert_eq!(d.pending_count(), 0);
    let later = d.execute(&ctx(), commands(1)).await;
    assert_eq!(later[0].error.as_deref(), Some(tool_texts::DISCONNECTED));
}

#[tokio::test]
async fn a_stop_sends_cancel_and_takes_the_devices_answer() {
    let (tx, mut rx) = mpsc::channel(8);
    let d = RemoteDispatcher::new("pc1", tx);
    let c = ctx();
    let stop = c.cancel.clone();
    let dd = d.clone();
    let run = tokio::spawn(async move { dd.execute(&c, commands(1)).await });
    let m = next(&mut rx).await;
    let rid = m.response_id.unwrap();
    let call_id = m.actions.unwrap()[0].call_id.clone();
    stop.cancel();
    let cancel = next(&mut rx).await;
    assert_eq!(cancel.kind, ServerMessageType::Cancel);
    assert_eq!(cancel.response_id.as_deref(), Some(rid.as_str()));
    let answer = vec![CommandResult::failure(
        &call_id,
        tool_texts::STOPPED,
        Some("fixture"),
    )];
    assert_eq!(d.resolve(&rid, answer), Resolution::Delivered);
    let r = run.await.unwrap();
    assert_eq!(
        r[0].namespace.as_deref(),
        Some("fixture"),
        "the device's own answer"
    );
}

#[tokio::test]
async fn a_stop_the_device_does_not_answer_resolves_with_the_stop_text() {
    let (tx, mut rx) = mpsc::channel(8);
    let d = RemoteDispatcher::new("pc1", tx);
    let c = ctx();
    let stop = c.cancel.clone();
    let dd = d.clone();
    let run = tokio::spawn(async move { dd.execute(&c, commands(2)).await });
    let rid = next(&mut rx).await.response_id.unwrap();
    stop.cancel();
    let r = run.await.unwrap();
    assert!(
        r.iter()
            .all(|r| r.error.as_deref() == Some(tool_texts::STOPPED))
    );
    assert_eq!(d.pending_count(), 0);
    assert_eq!(
        d.resolve(&rid, vec![]),
        Resolution::NotPending,
        "a late reply is ignored"
    );
}

#[tokio::test]
async fn an_unanswered_batch_may_have_run_and_is_cancelled() {
    let (tx, mut rx) = mpsc::channel(8);
    let d = RemoteDispatcher::new("pc1", tx);
    let mut c = ctx();
    c.deadline = Duration::from_millis(100);
    let dd = d.clone();
    let run = tokio::spawn(async move { dd.execute(&c, commands(1)).await });
    let m = next(&mut rx).await;
    assert!(m.deadline_ms.unwrap() <= 100);
    let r = run.await.unwrap();
    assert_eq!(
        r[0].error.as_deref(),
        // It was sent: never "not executed".
        Some(tool_texts::deadline_unanswered(Duration::from_millis(100)).as_str())
    );
    assert_eq!(next(&mut rx).await.kind, ServerMessageType::Cancel);
    assert_eq!(d.pending_count(), 0);
}

#[tokio::test]
async fn an_abandoned_batch_is_removed_and_cancelled_on_the_device() {
    let (tx, mut rx) = mpsc::channel(8);
    let d = RemoteDispatcher::new("pc1", tx);
    let dd = d.clone();
    let run = tokio::spawn(async move {
        let c = ctx();
        dd.execute(&c, commands(1)).await
    });
    let rid = next(&mut rx).await.response_id.unwrap();
    run.abort();
    let _ = run.await;
    assert_eq!(d.pending_count(), 0);
    let cancel = next(&mut rx).await;
    assert_eq!(
        (cancel.kind, cancel.response_id),
        (ServerMessageType::Cancel, Some(rid))
    );
}

#[tokio::test]
async fn batches_run_one_at_a_time_in_order() {
    let (tx, mut rx) = mpsc::channel(8);
    let d = RemoteDispatcher::new("pc1", tx);
    let (d1, d2) = (d.clone(), d.clone());
    let first = tokio::spawn(async move {
        let c = ctx();
        d1.execute(&c, vec![Command::new("first", None, json!({}))])
            .await
    });
    let m1 = next(&mut rx).await;
    let second = tokio::spawn(async move {
        let c = ctx();
        d2.execute(&c, vec![Command::new("second", None, json!({}))])
            .await
    });
    // The second batch is not sent while the first waits for its answer.
    assert!(
        tokio::time::timeout(Duration::from_millis(200), rx.recv())
            .await
            .is_err()
    );
    let a1 = m1.actions.unwrap();
    assert_eq!(a1[0].tool_name, "first");
    d.resolve(
        &m1.response_id.unwrap(),
        vec![CommandResult::success(&a1[0].call_id, json!(1), None)],
    );
    first.await.unwrap();
    let m2 = next(&mut rx).await;
    let a2 = m2.actions.unwrap();
    assert_eq!(a2[0].tool_name, "second");
    d.resolve(&m2.response_id.unwrap(), vec![]);
    let r = second.await.unwrap();
    assert_eq!(r[0].error.as_deref(), Some(texts::NO_RESULT));
}
