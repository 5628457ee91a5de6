//! The tool layer end to end over real MCP transports: Dispatcher → Router → Computer → server.

mod common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use deft_protocol::{Command, ResultStatus, ToolInfo, ToolType};
use deft_tools::Dispatcher;
use deft_tools::texts;
use serde_json::json;

#[tokio::test]
async fn early_exit_gives_success_failure_skipped_with_call_ids() {
    let (d, _) = dispatcher(&table_yaml(""));
    let cmds = vec![
        noop().with_call_id("a"),
        act("fail", json!({"message": "the button is disabled"})).with_call_id("b"),
        noop().with_call_id("c"),
    ];
    let r = d.execute(&ctx(), cmds).await;
    let ids: Vec<_> = r.iter().map(|x| x.call_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    let st: Vec<_> = r.iter().map(|x| x.status).collect();
    assert_eq!(
        st,
        [
            ResultStatus::Success,
            ResultStatus::Failure,
            ResultStatus::Skipped
        ]
    );
    assert_eq!(r[0].result, json!("ok"));
    assert_eq!(r[0].namespace.as_deref(), Some("fx"));
    assert_eq!(r[1].error.as_deref(), Some("the button is disabled"));
    assert_eq!(
        r[2].error.as_deref(),
        Some("Skipped due to previous failure (early_exit=True).")
    );
}

#[tokio::test]
async fn without_early_exit_everything_runs_and_ids_are_filled() {
    let (d, _) = dispatcher(&table_yaml(""));
    let mut c = ctx();
    c.early_exit = false;
    let r = d
        .execute(&c, vec![act("fail", json!({"message": "x"})), noop()])
        .await;
    assert_eq!(r[1].status, ResultStatus::Success);
    assert!(
        r.iter().all(|x| uuid::Uuid::parse_str(&x.call_id).is_ok()),
        "{r:?}"
    );
    assert_ne!(r[0].call_id, r[1].call_id);
}

#[tokio::test]
async fn empty_tool_name_takes_no_action() {
    let (d, _) = dispatcher(&table_yaml(""));
    let r = d
        .execute(
            &ctx(),
            vec![Command::new("", None, json!({})).with_call_id("e")],
        )
        .await;
    assert_eq!(r[0].status, ResultStatus::Success);
    assert_eq!(r[0].result, json!("No action taken."));
    assert_eq!(r[0].call_id, "e");
}

#[tokio::test]
async fn unknown_tool_names_the_closest_ones() {
    let (d, _) = dispatcher(&table_yaml(""));
    let r = d
        .execute(&ctx(), vec![act("slep", json!({"ms": 1})), noop()])
        .await;
    assert_eq!(r[0].status, ResultStatus::Failure);
    let e = r[0].error.as_deref().unwrap();
    assert!(
        e.starts_with(
            "Tool action::slep is not registered in current computer: HostAgent::::default."
        ),
        "{e}"
    );
    assert!(e.contains("Closest registered tools: sleep"), "{e}");
    assert!(
        e.ends_with("Call list_tools to see every available tool."),
        "{e}"
    );
    assert_eq!(r[1].status, ResultStatus::Skipped);
    // A tool offered only under data_collection is not found when action is asked for.
    let r = d
        .execute(&ctx(), vec![act("echo", json!({"text": "x"}))])
        .await;
    assert!(
        r[0].error
            .as_deref()
            .unwrap()
            .contains("Closest registered tools: echo"),
        "{r:?}"
    );
}

#[tokio::test]
async fn untyped_commands_resolve_data_collection_then_action() {
    let (d, _) = dispatcher(&table_yaml(""));
    let r = d
        .execute(
            &ctx(),
            vec![cmd("echo", json!({"text": "hé"})), cmd("noop", json!({}))],
        )
        .await;
    assert_eq!(r[0].result, json!({"text": "hé"}), "{r:?}");
    assert_eq!(r[1].result, json!("ok"));
}

#[tokio::test]
async fn bad_arguments_fail_with_the_servers_message() {
    let (d, _) = dispatcher(&table_yaml(""));
    let r = d
        .execute(&ctx(), vec![act("sleep", json!({"ms": "soon"}))])
        .await;
    assert_eq!(r[0].status, ResultStatus::Failure);
    let e = r[0].error.as_deref().unwrap();
    assert!(
        e.contains("invalid type: string \"soon\", expected u64"),
        "{e}"
    );
}

#[tokio::test]
async fn images_come_back_as_data_uris() {
    let (d, _) = dispatcher(&table_yaml(""));
    let r = d.execute(&ctx(), vec![cmd("image", json!({}))]).await;
    assert_eq!(r[0].result, json!("an image"));
    assert_eq!(
        r[0].images,
        [format!(
            "data:image/png;base64,{}",
            deft_test_support::fixture::TINY_PNG_B64
        )]
    );
}

#[tokio::test]
async fn list_tools_is_offered_under_both_types_and_filters() {
    let (d, _) = dispatcher(&table_yaml(""));
    let r = d
        .execute(
            &ctx(),
            vec![
                Command::new("list_tools", Some(ToolType::DataCollection), json!({})),
                Command::new(
                    "list_tools",
                    Some(ToolType::Action),
                    json!({"tool_type": "action"}),
                ),
                cmd("list_tools", json!({"namespace": "nope"})),
                cmd("list_tools", json!({"tool_type": "actions"})),
            ],
        )
        .await;
    let all: Vec<ToolInfo> = serde_json::from_value(r[0].result.clone()).unwrap();
    let keys: Vec<_> = all.iter().map(|t| t.tool_key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "action::block",
            "action::fail",
            "action::noop",
            "action::rendezvous",
            "action::sleep",
            "data_collection::echo",
            "data_collection::image",
            "data_collection::instance",
            "data_collection::pid",
        ]
    );
    let echo = all.iter().find(|t| t.tool_name == "echo").unwrap();
    assert_eq!(echo.namespace, "fx");
    assert!(echo.input_schema.as_ref().unwrap()["properties"]["text"].is_object());
    let actions: Vec<ToolInfo> = serde_json::from_value(r[1].result.clone()).unwrap();
    assert_eq!(actions.len(), 5);
    assert_eq!(r[2].result, json!([]));
    assert_eq!(r[3].status, ResultStatus::Failure);
    assert!(
        r[3].error
            .as_deref()
            .unwrap()
            .contains("unknown tool_type 'actions'")
    );
}

#[tokio::test]
async fn a_tool_past_its_timeout_fails_and_is_cancelled_over_mcp() {
    let yaml = table_yaml("").replace(
        "timeouts: {block: 0.3}",
        "timeouts: {block: 0.3, sleep: 0.2}",
    );
    let (d, state) = dispatcher(&yaml);
    let started = std::time::Instant::now();
    let r = d
        .execute(
            &ctx(),
            vec![
                act("sleep", json!({"ms": 20_000})).with_call_id("s"),
                noop(),
            ],
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(r[0].status, ResultStatus::Failure);
    assert_eq!(
        r[0].error.as_deref(),
        Some(
            "Tool sleep execution timed out after 0.2 s and was cancelled; it may have partly run. Observe the current state before retrying."
        )
    );
    assert_eq!(r[1].status, ResultStatus::Skipped);
    // The server saw the MCP cancellation and stopped sleeping.
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while state.cancelled.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(state.cancelled.load(Ordering::SeqCst), 1);
    assert_eq!(state.completed.load(Ordering::SeqCst), 0);
    // A blocking tool past its limit times out the same way, and the server still answers.
    let r = d
        .execute(&ctx(), vec![act("block", json!({"ms": 2_000})), noop()])
        .await;
    assert!(
        r[0].error
            .as_deref()
            .unwrap()
            .starts_with("Tool block execution timed out after 0.3 s"),
        "{r:?}"
    );
    let r = d.execute(&ctx(), vec![noop()]).await;
    assert_eq!(r[0].status, ResultStatus::Success);
}

#[tokio::test]
async fn batch_deadline_keeps_finished_results_and_fails_the_rest() {
    let (d, _) = dispatcher(&table_yaml(""));
    let mut c = ctx();
    c.deadline = Duration::from_millis(400);
    let r = d
        .execute(
            &c,
            vec![
                noop().with_call_id("1"),
                act("sleep", json!({"ms": 10_000})).with_call_id("2"),
                noop().with_call_id("3"),
            ],
        )
        .await;
    assert_eq!(r.len(), 3);
    assert_eq!(r[0].status, ResultStatus::Success);
    assert_eq!(r[1].status, ResultStatus::Failure);
    assert!(
        r[1].error
            .as_deref()
            .unwrap()
            .starts_with("The batch deadline of 0.4 s passed while this command was running"),
        "{r:?}"
    );
    assert_eq!(
        r[2].error.as_deref(),
        Some("The batch deadline of 0.4 s passed before this command ran; it was not executed.")
    );
    assert_eq!(
        texts::deadline_not_run(Duration::from_secs(600)),
        "The batch deadline of 600 s passed before this command ran; it was not executed."
    );
}

#[tokio::test]
async fn stop_cancels_the_call_in_flight_within_two_seconds() {
    let (d, state) = dispatcher(&table_yaml(""));
    let c = ctx();
    let cancel = c.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let started = std::time::Instant::now();
    let r = d
        .execute(&c, vec![act("sleep", json!({"ms": 30_000})), noop()])
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    for x in &r {
        assert_eq!(
            x.error.as_deref(),
            Some("Cancelled because the run was stopped; the action may not have completed.")
        );
    }
    let until = std::time::Instant::now() + Duration::from_secs(2);
    while state.cancelled.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(state.cancelled.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_on_different_computers_run_in_parallel() {
    let (d, _) = dispatcher(&table_yaml(""));
    let dir = tempfile::tempdir().unwrap();
    let args = json!({"dir": dir.path(), "parties": 2, "timeout_ms": 5_000});
    let mut a = ctx();
    a.agent = "AppAgent".into();
    a.root = "shared".into();
    a.process = "window one".into();
    let mut b = a.clone();
    b.process = "window two".into();
    let (ra, rb) = tokio::join!(
        d.execute(&a, vec![act("rendezvous", args.clone())]),
        d.execute(&b, vec![act("rendezvous", args.clone())]),
    );
    // Each waits for the other: run one after the other, both would fail.
    assert_eq!(ra[0].status, ResultStatus::Success, "{ra:?}");
    assert_eq!(rb[0].status, ResultStatus::Success, "{rb:?}");
    let router = d.router("test").unwrap();
    let m = router.manager();
    let ca = m
        .get_or_create("AppAgent", "window one", "shared")
        .await
        .unwrap();
    let cb = m
        .get_or_create("AppAgent", "window two", "shared")
        .await
        .unwrap();
    assert_ne!(ca.name(), cb.name());
}

#[tokio::test]
async fn reset_servers_are_fresh_per_process_and_others_are_shared() {
    let (d, _) = dispatcher(&table_yaml(""));
    let instance = |agent: &str, process: &str| {
        let mut c = ctx();
        c.agent = agent.into();
        c.process = process.into();
        let d = &d;
        async move {
            let r = d.execute(&c, vec![act("instance", json!({}))]).await;
            r[0].result["instance"]
                .as_str()
                .unwrap_or_else(|| panic!("{r:?}"))
                .to_owned()
        }
    };
    let p1 = instance("AppAgent", "doc1").await;
    let p1_again = instance("AppAgent", "doc1").await;
    let p2 = instance("AppAgent", "doc2").await;
    assert_eq!(p1, p1_again);
    assert_ne!(
        p1, p2,
        "reset: true must give each process its own instance"
    );
    // Non-reset: HostAgent's two entries and every process share one instance.
    let mut c = ctx();
    c.process = "x".into();
    let h1 = d.execute(&c, vec![cmd("instance", json!({}))]).await;
    c.process = "y".into();
    let h2 = d.execute(&c, vec![cmd("instance", json!({}))]).await;
    assert_eq!(h1[0].result, h2[0].result);
}

#[tokio::test]
async fn concurrent_requests_for_one_computer_build_it_once() {
    let (d, _) = dispatcher(&table_yaml(""));
    let router = d.router("test").unwrap();
    let m = router.manager().clone();
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let m = m.clone();
            tokio::spawn(async move { m.get_or_create("HostAgent", "p", "root-x").await.unwrap() })
        })
        .collect();
    let mut computers = Vec::new();
    for t in tasks {
        computers.push(t.await.unwrap());
    }
    assert!(
        computers
            .windows(2)
            .all(|w| std::sync::Arc::ptr_eq(&w[0], &w[1]))
    );
    assert_eq!(computers[0].name(), "HostAgent::p::default");
}

#[tokio::test]
async fn a_server_that_cannot_start_leaves_its_tools_out_and_the_rest_working() {
    let extra = "          - {namespace: gui, type: builtin, name: broken}\n          - {namespace: ext, type: stdio, command: /nonexistent/deft-mcp-server}";
    let (d, _) = dispatcher(&table_yaml(extra));
    let r = d.execute(&ctx(), vec![noop()]).await;
    assert_eq!(r[0].status, ResultStatus::Success);
    let computer = d
        .router("test")
        .unwrap()
        .manager()
        .get_or_create("HostAgent", "", "")
        .await
        .unwrap();
    let w = computer.warnings().join("\n");
    assert!(w.contains("tool server 'gui' (builtin 'broken') cannot start: no display is reachable (DISPLAY is not set)"), "{w}");
    assert!(
        w.contains(
            "tool server 'ext' cannot start: program '/nonexistent/deft-mcp-server' was not found"
        ),
        "{w}"
    );
    assert!(
        w.contains("its action tools are left out of HostAgent::::default"),
        "{w}"
    );
}

#[tokio::test]
async fn a_tool_offered_twice_by_two_servers_is_refused_for_every_command() {
    let extra = "          - {namespace: again, type: builtin, name: fresh}";
    let (d, _) = dispatcher(&table_yaml(extra));
    let r = d
        .execute(&ctx(), vec![noop().with_call_id("n"), noop()])
        .await;
    assert_eq!(r.len(), 2);
    let e = r[0].error.as_deref().unwrap();
    assert!(e.starts_with("Error occurred while executing command noop({}): routing table test.yaml: at profiles.test.HostAgent.default.action[1]: expected each tool name once per computer, but '"), "{e}");
    assert!(
        e.contains(
            "' is offered by both 'fx' and 'again' (use 'tools: [...]' to split a server's tools)"
        ),
        "{e}"
    );
    assert!(
        e.ends_with(", please retry or execute a different command."),
        "{e}"
    );
    assert_eq!(r[0].call_id, "n");
}

#[tokio::test]
async fn unknown_profile_and_agent_fail_every_command_with_the_reason() {
    let (d, _) = dispatcher(&table_yaml(""));
    let mut c = ctx();
    c.profile = "android".into();
    let r = d.execute(&c, vec![noop(), noop()]).await;
    assert_eq!(r.len(), 2);
    assert!(
        r[1].error
            .as_deref()
            .unwrap()
            .contains("profile 'android' is not configured; expected one of: test"),
        "{r:?}"
    );
    let mut c = ctx();
    c.agent = "MobileAgent".into();
    let r = d.execute(&c, vec![noop()]).await;
    assert!(
        r[0].error.as_deref().unwrap().contains(
            "agent 'MobileAgent' is not configured; expected one of: AppAgent, HostAgent"
        ),
        "{r:?}"
    );
}

#[tokio::test]
async fn a_tool_that_panics_is_a_failure_not_a_hang() {
    let yaml = table_yaml("").replace(
        "tools: [noop, sleep, block, fail, rendezvous]",
        "tools: [noop, sleep, block, fail, rendezvous, panic]",
    );
    let (d, _) = dispatcher(&yaml);
    let started = std::time::Instant::now();
    let r = d
        .execute(
            &ctx(),
            vec![act("panic", json!({})).with_call_id("p"), noop()],
        )
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(r[0].status, ResultStatus::Failure, "{r:?}");
    assert_eq!(
        r[0].error.as_deref(),
        Some(texts::tool_panicked("panic", "the fixture tool panicked on purpose").as_str())
    );
    assert_eq!(r[0].call_id, "p");
    assert_eq!(r[1].status, ResultStatus::Skipped);
    // The server still answers afterwards.
    let r = d.execute(&ctx(), vec![noop()]).await;
    assert_eq!(r[0].status, ResultStatus::Success, "{r:?}");
}

#[tokio::test]
async fn a_reset_server_is_told_the_process_and_root_it_serves() {
    let yaml = table_yaml("").replace(
        "      shared:\n",
        &format!(
            "      writer:\n        action:\n          - {{namespace: child, type: stdio, command: \"{}\", reset: true}}\n      shared:\n",
            deft_test_support::proc::fixture_bin().display()
        ),
    );
    assert!(yaml.contains("writer:"), "{yaml}");
    let (d, _) = dispatcher(&yaml);
    let binding = |root: &str, process: &str| {
        let mut c = ctx();
        c.agent = "AppAgent".into();
        c.root = root.into();
        c.process = process.into();
        let d = &d;
        async move {
            let r = d.execute(&c, vec![act("binding", json!({}))]).await;
            assert_eq!(r[0].status, ResultStatus::Success, "{r:?}");
            r[0].result.clone()
        }
    };
    // A builtin finds it in its options (the root as the window's, not the table's `default`).
    let b = binding("some-app", "report.docx - Editor").await;
    assert_eq!(
        b["options"],
        json!({"process": "report.docx - Editor", "root": "some-app"})
    );
    // A stdio child in its environment.
    let s = binding("writer", "Ünïcode – title").await;
    assert_eq!(
        s["env"],
        json!({"process": "Ünïcode – title", "root": "writer"})
    );
    // A shared (non-reset) instance is bound to nothing.
    let mut c = ctx();
    c.agent = "AppAgent".into();
    c.root = "shared".into();
    c.process = "x".into();
    let r = d.execute(&c, vec![act("binding", json!({}))]).await;
    assert_eq!(r[0].result["options"], json!(null), "{r:?}");
}
