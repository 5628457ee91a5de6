//! The managed virtual desktop: start, idempotent start, status, stop leaves no process behind,
//! and a stale state (dead Xvfb) is cleaned up instead of refused.

use deft_backend_desktop::vdesktop::{self, DesktopStatus};

fn dirs() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let tmp = tempfile::Builder::new()
        .prefix("deft-vdesktop-")
        .tempdir()
        .expect("temp dir");
    let state = vdesktop::state_path(tmp.path());
    let work = tmp.path().join(vdesktop::WORK_DIR);
    (tmp, state, work)
}

#[tokio::test(flavor = "multi_thread")]
async fn start_is_idempotent_and_stop_leaves_nothing() {
    let (_tmp, state_file, work) = dirs();
    assert_eq!(
        vdesktop::status(&state_file).unwrap(),
        DesktopStatus::NotStarted
    );
    let (state, started) = vdesktop::start(&state_file, &work)
        .await
        .expect("the managed desktop starts (needs xvfb, dbus-daemon, at-spi2-core, openbox)");
    assert!(started);
    assert!(state.display.starts_with(':'), "{}", state.display);
    assert_ne!(state.display, ":99", "must not take the foreign display");
    for part in ["xvfb", "dbus", "bus_launcher", "registryd", "openbox"] {
        assert!(
            state.pids.contains_key(part),
            "{part} missing in {:?}",
            state.pids
        );
    }
    assert!(state.a11y_bus.starts_with("unix:"), "{}", state.a11y_bus);
    assert!(state.home.starts_with(&work));

    let (again, started_again) = vdesktop::start(&state_file, &work).await.unwrap();
    assert!(!started_again);
    assert_eq!(again, state);

    match vdesktop::status(&state_file).unwrap() {
        DesktopStatus::Running { alive, dead, .. } => {
            assert!(dead.is_empty(), "dead parts: {dead:?}");
            assert_eq!(alive.len(), state.pids.len());
        }
        other => panic!("expected running, got {other:?}"),
    }

    let members = vdesktop::group_members(state.pgid);
    assert!(members.len() >= 5, "{members:?}");
    let stopped = vdesktop::stop(&state_file)
        .unwrap()
        .expect("stopped a desktop");
    assert_eq!(stopped.pgid, state.pgid);
    assert!(vdesktop::group_members(state.pgid).is_empty());
    for (part, pid) in &state.pids {
        assert!(!vdesktop::pid_alive(*pid), "{part} ({pid}) survived stop");
    }
    assert!(!state_file.exists());
    assert_eq!(
        vdesktop::status(&state_file).unwrap(),
        DesktopStatus::NotStarted
    );
    assert!(vdesktop::stop(&state_file).unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stale_state_is_cleaned_up_on_start() {
    let (_tmp, state_file, work) = dirs();
    let (state, _) = vdesktop::start(&state_file, &work).await.unwrap();
    let xvfb = state.pids["xvfb"];
    deft_test_support::proc::signal_process(xvfb, deft_test_support::proc::Signal::KILL);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while vdesktop::pid_alive(xvfb) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(matches!(
        vdesktop::status(&state_file).unwrap(),
        DesktopStatus::Stale(_)
    ));
    let (fresh, started) = vdesktop::start(&state_file, &work).await.unwrap();
    assert!(started);
    assert_ne!(fresh.pgid, state.pgid);
    assert!(
        vdesktop::group_members(state.pgid).is_empty(),
        "the stale desktop's processes were not cleaned up"
    );
    vdesktop::stop(&state_file).unwrap();
    assert!(vdesktop::group_members(fresh.pgid).is_empty());
}
