//! Fuzzed frames (proptest) against a real server on loopback: whatever a device sends after
//! registering, the server answers with an `error` or handles it, and the connection survives.

mod common;

use common::*;
use deft_protocol::link::ServerMessageType;
use deft_server::LinkLimits;
use proptest::prelude::*;
use serde_json::{Value, json};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,20}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(".{0,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Frames shaped like messages: real and made-up types and statuses, fields of any type.
fn message_like() -> impl Strategy<Value = String> {
    let kind = prop_oneof![
        Just("heartbeat"),
        Just("command_results"),
        Just("register"),
        Just("task"),
        Just("error"),
        Just("task_end"),
        Just("device_info_request"),
        Just("bogus"),
        Just("")
    ];
    let status = prop_oneof![Just("ok"), Just("continue"), Just("error"), Just("nope")];
    let field = prop_oneof![
        Just("client_id"),
        Just("prev_response_id"),
        Just("action_results"),
        Just("metadata"),
        Just("client_type"),
        Just("error"),
        Just("timestamp"),
        Just("zzz")
    ];
    (
        kind,
        status,
        prop::collection::vec((field, json_value()), 0..4),
    )
        .prop_map(|(k, s, fields)| {
            let mut m = json!({"type": k, "status": s});
            for (f, v) in fields {
                m[f] = v;
            }
            m.to_string()
        })
}

fn frame() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,64}",
        json_value().prop_map(|v| v.to_string()),
        message_like(),
    ]
}

#[test]
fn fuzzed_frames_never_break_the_connection() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (hub, ws) = rt.block_on(async {
        let hub = Hub::start(LinkLimits::default()).await;
        let ws = hub.device("fuzz").await;
        (hub, ws)
    });
    let ws = tokio::sync::Mutex::new(ws);
    let config = ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(frames in prop::collection::vec(frame(), 1..4))| {
        rt.block_on(async {
            let mut ws = ws.lock().await;
            for f in &frames {
                send_text(&mut ws, f).await;
            }
            // Everything sent so far is answered in order before the heartbeat's ack; only
            // errors and heartbeat acks may come back, and the connection stays open.
            send(&mut ws, &heartbeat("fuzz")).await;
            let mut acks = 0;
            let expected = 1 + frames.iter().filter(|f| is_plain_heartbeat(f)).count();
            while acks < expected {
                let m = recv(&mut ws).await;
                match m.kind {
                    ServerMessageType::Heartbeat => acks += 1,
                    ServerMessageType::Error => assert!(m.error.is_some_and(|e| !e.is_empty())),
                    other => panic!("unexpected {other:?} for {frames:?}"),
                }
            }
        });
    });
    assert!(
        hub.registry.remote_count() == 1,
        "the fuzzed device is still registered"
    );
}

/// A frame the server answers with a heartbeat ack rather than an error.
fn is_plain_heartbeat(frame: &str) -> bool {
    let Ok(m) = serde_json::from_str::<deft_protocol::link::ClientMessage>(frame) else {
        return false;
    };
    m.kind == deft_protocol::link::ClientMessageType::Heartbeat
        && m.client_id.as_deref().is_none_or(|c| c == "fuzz")
        && m.client_type == deft_protocol::link::ClientType::Device
}
