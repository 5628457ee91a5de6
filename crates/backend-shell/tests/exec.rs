//! The executor on real processes: output caps, time limits that kill the whole process group,
//! signals, working directories.

mod common;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use deft_backend_shell::OUTPUT_CAP;
use deft_backend_shell::exec::{self, ExecError};

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

fn big_file(bytes: usize) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    let line = b"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
    let mut written = 0;
    while written < bytes {
        file.write_all(line).expect("write");
        written += line.len();
    }
    file.flush().expect("flush");
    file
}

#[tokio::test]
async fn output_past_the_cap_is_cut_and_drained() {
    // Four times the cap: the child only finishes if the pipe keeps being drained.
    let file = big_file(4 * OUTPUT_CAP);
    let path = file.path().to_str().expect("utf-8 path");
    let run = exec::run_argv(
        &argv(&["cat", path]),
        Duration::from_secs(60),
        None,
        OUTPUT_CAP,
    )
    .await
    .expect("cat runs");
    let out = run.output;
    assert_eq!(out.exit_code, Some(0));
    assert!(out.truncated);
    assert!(!out.timed_out);
    assert_eq!(out.stdout.len(), OUTPUT_CAP);
    assert!(out.stdout.starts_with("0123456789abcdef"));
    assert_eq!(out.stderr, "");

    // stderr has its own cap.
    let script = format!("cat '{path}' >&2; echo done");
    let run = exec::run_argv(
        &argv(&["sh", "-c", &script]),
        Duration::from_secs(60),
        None,
        OUTPUT_CAP,
    )
    .await
    .expect("sh runs");
    assert!(run.output.truncated);
    assert_eq!(run.output.stderr.len(), OUTPUT_CAP);
    assert_eq!(run.output.stdout, "done\n");
}

#[tokio::test]
async fn output_under_the_cap_is_whole() {
    let run = exec::run_argv(
        &argv(&["echo", "hello", "world"]),
        Duration::from_secs(30),
        None,
        OUTPUT_CAP,
    )
    .await
    .expect("echo runs");
    assert_eq!(run.output.stdout, "hello world\n");
    assert!(!run.output.truncated);
    assert_eq!(run.output.exit_code, Some(0));
}

#[tokio::test]
async fn timeout_kills_the_whole_group_including_grandchildren() {
    let run = exec::run_argv(
        &argv(&["sh", "-c", "sleep 31.4159 & sleep 31.4159; wait"]),
        Duration::from_secs(1),
        None,
        OUTPUT_CAP,
    )
    .await
    .expect("sh runs");
    assert!(run.output.timed_out);
    assert_eq!(run.output.exit_code, None);
    assert!(
        run.output.stderr.contains("[timed out after 1 s"),
        "{}",
        run.output.stderr
    );
    assert!(run.pid > 0);
    let left = common::until_empty(Duration::from_secs(5), || common::live_members(run.pid)).await;
    assert!(
        left.is_empty(),
        "processes of group {} survived: {left:?}",
        run.pid
    );
    // The same by command line, in case a process was not in the group at all.
    assert_eq!(
        common::live_with_cmdline("sleep 31.4159"),
        Vec::<u32>::new()
    );
}

#[tokio::test]
async fn background_children_do_not_outlive_a_normal_exit() {
    // The background sleep keeps stdout open; the run must still end when sh exits.
    let run = exec::run_argv(
        &argv(&["sh", "-c", "sleep 29.5 & echo started"]),
        Duration::from_secs(60),
        None,
        OUTPUT_CAP,
    )
    .await
    .expect("sh runs");
    assert!(!run.output.timed_out);
    assert_eq!(run.output.exit_code, Some(0));
    assert_eq!(run.output.stdout, "started\n");
    let left = common::until_empty(Duration::from_secs(5), || common::live_members(run.pid)).await;
    assert!(
        left.is_empty(),
        "processes of group {} survived: {left:?}",
        run.pid
    );
    assert_eq!(common::live_with_cmdline("sleep 29.5"), Vec::<u32>::new());
}

#[tokio::test]
async fn death_by_signal_has_no_exit_code_and_a_note() {
    let run = exec::run_argv(
        &argv(&["sh", "-c", "echo partial >&2; kill -9 $$"]),
        Duration::from_secs(30),
        None,
        OUTPUT_CAP,
    )
    .await
    .expect("sh runs");
    assert_eq!(run.output.exit_code, None);
    assert!(!run.output.timed_out);
    assert_eq!(run.output.stderr, "partial\n[killed by signal 9]");
}

#[tokio::test]
async fn exit_codes_and_stdin_are_passed_through() {
    let run = exec::run_argv(
        &argv(&["sh", "-c", "cat; exit 3"]),
        Duration::from_secs(30),
        None,
        OUTPUT_CAP,
    )
    .await
    .expect("sh runs");
    // stdin is /dev/null, so cat ends at once.
    assert_eq!(run.output.exit_code, Some(3));
    assert_eq!(run.output.stdout, "");
}

#[tokio::test]
async fn working_directory_is_checked_and_used() {
    let dir = tempfile::tempdir().expect("temp dir");
    let canonical = dir.path().canonicalize().expect("canonical");
    let cwd = exec::check_cwd(dir.path().to_str().expect("utf-8"))
        .await
        .expect("exists");
    assert_eq!(cwd, canonical);
    let run = exec::run_argv(
        &argv(&["pwd"]),
        Duration::from_secs(30),
        Some(&cwd),
        OUTPUT_CAP,
    )
    .await
    .expect("pwd runs");
    assert_eq!(run.output.stdout, format!("{}\n", canonical.display()));

    let missing = canonical.join("no-such-dir");
    let err = exec::check_cwd(missing.to_str().expect("utf-8"))
        .await
        .expect_err("missing");
    assert!(matches!(err, ExecError::CwdMissing { .. }));
    assert!(
        err.to_string()
            .contains(&format!("'{}' does not exist", missing.display())),
        "{err}"
    );

    let file = tempfile::NamedTempFile::new().expect("temp file");
    let err = exec::check_cwd(file.path().to_str().expect("utf-8"))
        .await
        .expect_err("a file");
    assert!(err.to_string().contains("is not a directory"), "{err}");
}

#[tokio::test]
async fn programs_are_found_on_path_or_reported_missing() {
    let ls = exec::resolve_program("ls").await.expect("ls is installed");
    assert!(ls.is_absolute() && ls.ends_with("ls"));
    let err = exec::resolve_program("deft-no-such-program")
        .await
        .expect_err("missing");
    let text = err.to_string();
    assert!(
        text.contains("'deft-no-such-program' is allowed but was not found on PATH"),
        "{text}"
    );
    assert!(!Path::new("/usr/bin/deft-no-such-program").exists());
}

#[tokio::test]
async fn a_program_gets_no_more_memory_than_its_limit() {
    use deft_backend_shell::Limits;
    use deft_backend_shell::limits::ran_out_of_memory;
    // 600 MiB at once: under a 256 MiB limit the allocation fails (and without one, it passes).
    let limits = Limits {
        memory_bytes: Some(256 << 20),
        processes: None,
    };
    let run = exec::run_limited(
        &argv(&["python3", "-c", "x = bytearray(600 * 2**20)"]),
        Duration::from_secs(60),
        None,
        OUTPUT_CAP,
        &limits,
        None,
    )
    .await
    .expect("python3 runs");
    assert!(
        run.output.stderr.contains("MemoryError"),
        "{:?}",
        run.output
    );
    assert!(ran_out_of_memory(&run.output));
}

#[tokio::test]
async fn a_program_starts_no_more_processes_than_its_limit() {
    use deft_backend_shell::Limits;
    // The kernel does not apply RLIMIT_NPROC to root: as root, this check runs in a copy of the
    // test binary started as nobody (deft's programs run as deft's own user, as there).
    if rustix::process::getuid().is_root() {
        let exe = std::env::current_exe().expect("test binary");
        let out = std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(exe)
            .args([
                "a_program_starts_no_more_processes_than_its_limit",
                "--exact",
                "--nocapture",
            ])
            .output()
            .expect("setpriv runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "as nobody: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    // It waits until its limit is in place (set the moment it started), then forks 60 sleeps.
    let script = "while ! grep -q '^Max processes  *20 ' /proc/$$/limits; do sleep 0.01; done; \
                  i=0; while [ $i -lt 60 ]; do sleep 1000 & i=$((i+1)); done; echo forked";
    let limits = Limits {
        memory_bytes: None,
        processes: Some(20),
    };
    let run = exec::run_limited(
        &argv(&["sh", "-c", script]),
        Duration::from_secs(60),
        None,
        OUTPUT_CAP,
        &limits,
        None,
    )
    .await
    .expect("sh runs");
    assert!(!run.output.timed_out, "{:?}", run.output);
    assert!(
        run.output.stderr.to_lowercase().contains("fork"),
        "a fork past the limit fails: {:?}",
        run.output
    );
    // The group is gone afterwards, sleeps included.
    let left = common::until_empty(Duration::from_secs(10), || common::live_members(run.pid)).await;
    assert!(left.is_empty(), "left behind: {left:?}");
}
