//! `close_app` on the managed desktop: gnome-calculator's window closed through the window
//! manager and its process gone without a signal; a launched program without a window ended by
//! SIGTERM while a process of the same name that deft did not start is left alone; and the
//! error for an application that is not running.

mod common;

use std::time::Duration;

use common::Harness;
use deft_backend_desktop::LaunchPolicy;
use deft_test_support::desktop::require_program;
use deft_test_support::proc::{Signal, signal_process};
use serde_json::{Value, json};

fn alive(pid: i64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next())
            .is_some_and(|st| st != "Z" && st != "X")
    })
}

fn pids(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap_or_else(|| panic!("a list of pids: {v}"))
        .iter()
        .map(|p| p.as_i64().expect("a pid is a number"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_calculator_closes_through_its_window_and_then_is_not_running() {
    require_program("gnome-calculator", "gnome-calculator");
    let h = Harness::new().await;
    let launched = h.ok("launch_app", json!({"app": "gnome-calculator"})).await;
    let pid = launched["pid"].as_i64().unwrap();
    let window = launched["window"]["id"].as_str().unwrap().to_owned();

    let closed = h.ok("close_app", json!({"app": "gnome-calculator"})).await;
    assert_eq!(pids(&closed["ended_pids"]), vec![pid], "{closed}");
    assert_eq!(
        closed["closed_windows"][0]["id"].as_str(),
        Some(window.as_str()),
        "{closed}"
    );
    assert_eq!(
        closed["forced"],
        json!([]),
        "the window manager's close was enough: {closed}"
    );
    assert!(!alive(pid));
    let windows = h.ok("get_desktop_app_info", json!({})).await;
    assert!(
        !windows["windows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["app"] == "gnome-calculator"),
        "{windows}"
    );
    // By its desktop-entry name too, and now nothing is left to close.
    assert_eq!(
        h.err("close_app", json!({"app": "org.gnome.Calculator"}))
            .await,
        "No window or process of org.gnome.Calculator is running: nothing to close. get_desktop_app_info lists the open windows with their app (root) names."
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_windowless_launch_is_ended_and_a_namesake_deft_did_not_start_is_left() {
    let h = Harness::with_launch(
        LaunchPolicy::allowing(&["sleep"]).with_window_wait(Duration::from_secs(1)),
    )
    .await;
    // Not deft's: the same program, started by this test.
    let mut namesake = std::process::Command::new("sleep")
        .arg("120")
        .spawn()
        .unwrap();
    let e = h
        .err("launch_app", json!({"app": "sleep", "args": ["120"]}))
        .await;
    let pid: i64 = e
        .split("pid ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {e}"));
    assert!(alive(pid));

    let closed = h.ok("close_app", json!({"app": "sleep"})).await;
    assert_eq!(pids(&closed["ended_pids"]), vec![pid], "{closed}");
    assert_eq!(closed["closed_windows"], json!([]), "{closed}");
    assert_eq!(
        closed["forced"],
        json!([{"pid": pid, "signal": "SIGTERM"}]),
        "{closed}"
    );
    assert!(!alive(pid));
    assert!(
        namesake.try_wait().unwrap().is_none(),
        "the test's own sleep still runs"
    );
    signal_process(namesake.id() as i32, Signal::KILL);
    let _ = namesake.wait();
    // The ended program was reaped: a second close finds nothing.
    let again = h.err("close_app", json!({"app": "sleep"})).await;
    assert!(
        again.starts_with("No window or process of sleep is running"),
        "{again}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn closing_an_app_that_never_ran_says_so() {
    let h = Harness::new().await;
    assert_eq!(
        h.err("close_app", json!({"app": "mousepad"})).await,
        "No window or process of mousepad is running: nothing to close. get_desktop_app_info lists the open windows with their app (root) names."
    );
    let empty = h.err("close_app", json!({"app": "  "})).await;
    assert!(
        empty.starts_with("close_app needs the application's name"),
        "{empty}"
    );
}
