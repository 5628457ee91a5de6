//! A trace folder as a person finds it: jsonl lines, image files, an escaped static report.

use deft_protocol::event::DeltaKind;
use deft_protocol::{AgentEvent, DoneStatus, EventKind, ToolStep, Usage};
use deft_protocol::{EventSink, ImageSink};
use deft_trace::{Line, TraceMeta, TraceWriter};
use serde_json::json;

fn meta() -> TraceMeta {
    TraceMeta {
        goal: "compute <12 × 7>".into(),
        device: "local".into(),
        model: "m".into(),
    }
}

fn ev(seq: u64, kind: EventKind) -> AgentEvent {
    AgentEvent { seq, kind }
}

#[test]
fn a_run_leaves_jsonl_images_and_an_escaped_report() {
    let root = tempfile::tempdir().unwrap();
    let t = TraceWriter::create(root.path(), "../run 1", meta()).unwrap();
    assert_eq!(
        t.dir(),
        root.path().join("_run_1"),
        "run ids are sanitised into a folder name"
    );
    let png = deft_test_png();
    let id = t.store(&png, "image/png");
    assert_eq!(id, "img-1");
    let events = vec![
        ev(
            1,
            EventKind::Delta {
                text: "thinking <b>".into(),
                kind: DeltaKind::Reasoning,
            },
        ),
        ev(
            2,
            EventKind::StepStart {
                call_id: "c1".into(),
                tool: "capture".into(),
                args: json!({}),
            },
        ),
        ev(
            3,
            EventKind::Step(ToolStep {
                call_id: "c1".into(),
                tool: "capture".into(),
                args: json!({"annotated": true}),
                result: json!({"status": "success", "result": "<img onerror=alert(1)>"}),
                image_ids: vec![id.clone()],
                duration_ms: 42,
                effect: Some("no_change".into()),
            }),
        ),
        ev(
            4,
            EventKind::Usage(Usage {
                prompt_tokens: 10,
                completion_tokens: 5,
                total_tokens: 15,
                calls: 1,
            }),
        ),
        ev(
            5,
            EventKind::done(
                "84 <script>alert(1)</script>",
                Usage {
                    prompt_tokens: 10,
                    completion_tokens: 5,
                    total_tokens: 15,
                    calls: 1,
                },
                DoneStatus::Completed,
            ),
        ),
    ];
    for e in &events {
        t.send(e);
    }
    // Done wrote the report already.
    let report = t.dir().join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(!html.contains("<script>"), "model output must be escaped");
    assert!(
        !html.contains("<img onerror"),
        "tool output must be escaped"
    );
    assert!(html.contains("84 &lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("compute &lt;12 × 7&gt;"));
    assert!(
        html.contains(
            "<details><summary>Reasoning</summary><pre>thinking &lt;b&gt;</pre></details>"
        )
    );
    assert!(html.contains("<img src=\"images/img-1.png\""));
    assert!(html.contains("42 ms"));
    assert!(html.contains("10 prompt + 5 completion = 15 tokens in 1 calls"));
    assert_eq!(html.matches("class=\"card step\"").count(), 1);
    assert_eq!(
        std::fs::read(t.dir().join("images/img-1.png")).unwrap(),
        png
    );
    let lines: Vec<Line> = std::fs::read_to_string(t.dir().join("trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(
        lines.iter().map(|l| l.event.clone()).collect::<Vec<_>>(),
        events
    );
    assert!(lines.windows(2).all(|w| w[0].ts_ms <= w[1].ts_ms));
}

#[test]
fn a_missing_image_file_is_said_in_the_report() {
    let root = tempfile::tempdir().unwrap();
    let t = TraceWriter::create(root.path(), "r", meta()).unwrap();
    t.send(&ev(
        1,
        EventKind::Step(ToolStep {
            call_id: "c".into(),
            tool: "x".into(),
            args: json!({}),
            result: json!({"status": "failure", "error": "boom"}),
            image_ids: vec!["img-9".into()],
            duration_ms: 1,
            effect: None,
        }),
    ));
    let html = std::fs::read_to_string(t.finish()).unwrap();
    assert!(html.contains("image img-9 was not saved"));
    assert!(html.contains("<span class=fail>failure</span>"));
    assert!(html.contains("<pre>boom</pre>"));
}

#[test]
fn a_trace_folder_that_cannot_be_created_is_an_error() {
    let file = tempfile::NamedTempFile::new().unwrap();
    assert!(TraceWriter::create(file.path(), "r", meta()).is_err());
}

fn deft_test_png() -> Vec<u8> {
    // 1×1 PNG.
    vec![
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0,
        0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89, 0, 0, 0, 10, 0x49, 0x44, 0x41,
        0x54, 0x78, 0x9C, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0D, 0x0A, 0x2D, 0xB4, 0, 0, 0, 0, 0x49,
        0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}
