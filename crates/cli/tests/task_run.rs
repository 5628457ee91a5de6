//! `deft task run FILE`: the real binary plays a task with no server and no model — the
//! committed calculator example on the managed virtual desktop (exit status 0, a line per step
//! on stderr, the run's trace folder with its report), the browser-search example in the managed
//! Chromium (its condition reads the variable, so it takes `then`), look-once and short waits
//! with the documented texts, and `open_app` of the user's own desktop entries (found in the XDG
//! folders of the process's environment, through a launcher script, or by `StartupWMClass`).

#[path = "common/desktop.rs"]
mod desktop;

use std::path::PathBuf;

use deft_test_support::desktop::require_program;
use desktop::{Desktop, deft};

#[test]
fn task_run_plays_the_calculator_example_on_the_managed_desktop() {
    require_program("gnome-calculator", "gnome-calculator");
    require_program("Xvfb", "xvfb");
    let data = tempfile::tempdir().unwrap();
    let _desktop = Desktop::start(data.path());
    let example =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks/calculator.json");
    let out = deft(data.path())
        .arg("task")
        .arg("run")
        .arg(&example)
        .args(["--device", "local"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}:\n{stderr}", out.status);
    // A line per step, each marked done, in the order the steps finish.
    let marked: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with(['✓', '✗', '–']))
        .filter(|l| l.split(' ').nth(1).is_some_and(|p| p.starts_with("steps[")))
        .collect();
    let paths: Vec<&str> = marked.iter().filter_map(|l| l.split(' ').nth(1)).collect();
    assert_eq!(
        paths,
        [
            "steps[0]",
            "steps[1]",
            "steps[2]",
            "steps[3]",
            "steps[4]",
            "steps[5]",
            "steps[6].else[0]",
            "steps[6].then[0]",
            "steps[6]",
            "steps[7]"
        ],
        "{stderr}"
    );
    for line in &marked {
        let skipped = line.contains("else[0]");
        assert!(
            line.starts_with(if skipped { '–' } else { '✓' }),
            "{line}\n{stderr}"
        );
    }
    assert!(
        stderr.contains("steps[5] wait_el") && stderr.contains(" edit "),
        "{stderr}"
    );
    assert!(stderr.contains("\nCompleted"), "{stderr}");
    let trace = stderr
        .lines()
        .find_map(|l| l.strip_prefix("trace: "))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no trace line in {stderr}"));
    assert!(
        trace.starts_with(data.path().join("traces")),
        "{}",
        trace.display()
    );
    assert!(
        trace.ends_with("report.html") && trace.is_file(),
        "{}",
        trace.display()
    );
    let files: Vec<String> = std::fs::read_dir(trace.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        files.iter().any(|f| f == "trace.jsonl"),
        "the run's events beside the report: {files:?}"
    );
}

/// The step lines of a run's stderr (`✓ steps[3] …`).
fn step_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with(['✓', '✗', '–']))
        .filter(|l| l.split(' ').nth(1).is_some_and(|p| p.starts_with("steps[")))
        .collect()
}

/// The line of step `path` (`steps[4]`), which must be there.
fn line_of<'a>(stderr: &'a str, path: &str) -> &'a str {
    step_lines(stderr)
        .into_iter()
        .find(|l| l.split(' ').nth(1) == Some(path))
        .unwrap_or_else(|| panic!("no line of {path} in\n{stderr}"))
}

#[test]
fn the_browser_search_example_reads_its_variable_in_the_condition_and_takes_then() {
    if let Err(e) = deft_backend_browser::launch::find_chromium(None) {
        panic!("{e} (scripts/test.sh installs it)");
    }
    let data = tempfile::tempdir().unwrap();
    let example =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks/browser-search.json");
    let out = deft(data.path())
        .args(["task", "run"])
        .arg(&example)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}:\n{stderr}", out.status);
    assert!(
        line_of(&stderr, "steps[4].then[0]").starts_with("✓ steps[4].then[0] mark_done"),
        "{stderr}"
    );
    assert!(
        line_of(&stderr, "steps[4].else[0]").starts_with("– steps[4].else[0] notify"),
        "{stderr}"
    );
    assert!(
        line_of(&stderr, "steps[4]").ends_with("— took then"),
        "{stderr}"
    );
    assert!(stderr.contains("\nCompleted"), "{stderr}");
}

#[test]
fn look_once_steps_look_and_short_waits_fail_with_the_documented_text() {
    require_program("gnome-calculator", "gnome-calculator");
    require_program("Xvfb", "xvfb");
    let data = tempfile::tempdir().unwrap();
    let _desktop = Desktop::start(data.path());
    let seven = r#"{"text": "7", "type": "button", "match": "exact"}"#;
    let task = data.path().join("look-once.json");
    std::fs::write(
        &task,
        format!(
            r#"{{"name": "look once", "device": "local", "steps": [
  {{"type": "open_app", "app": "gnome-calculator"}},
  {{"type": "wait_el", "selector": {seven}, "timeout_s": 30}},
  {{"type": "wait_el", "selector": {seven}, "timeout_s": 0}},
  {{"type": "if_el", "selector": {seven}, "then": [{{"type": "notify", "message": "7 shows"}}]}},
  {{"type": "wait_el", "selector": {{"text": "No such control", "match": "exact"}}, "timeout_s": 0.5, "on_error": "continue"}},
  {{"type": "click", "selector": {seven}}},
  {{"type": "click", "selector": {{"text": "×", "type": "button", "match": "exact"}}}},
  {{"type": "click", "selector": {{"text": "8", "type": "button", "match": "exact"}}}},
  {{"type": "click", "selector": {{"text": "=", "type": "button", "match": "exact"}}}},
  {{"type": "wait_el", "selector": {{"text": "56", "type": "edit", "match": "exact"}}, "timeout_s": 10}},
  {{"type": "wait_el", "selector": {{"type": "button"}}, "timeout_s": 0}}
]}}"#
        ),
    )
    .unwrap();
    let out = deft(data.path())
        .args(["task", "run"])
        .arg(&task)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}:\n{stderr}", out.status);
    for path in ["steps[2]", "steps[3].then[0]", "steps[3]"] {
        assert!(line_of(&stderr, path).starts_with('✓'), "{path}:\n{stderr}");
    }
    let short = line_of(&stderr, "steps[4]");
    assert!(
        short.starts_with("✗ steps[4] wait_el (")
            && short.ends_with(
                "): No control matched \"No such control\" (exact) within 0.5 s. Check the selector with find_controls, or wait longer."
            ),
        "{stderr}"
    );
    // The display has no name: its value is shown. A type alone ties every button.
    assert!(
        line_of(&stderr, "steps[9]").contains(" edit = \"56\""),
        "{stderr}"
    );
    let tied = line_of(&stderr, "steps[10]");
    assert!(
        tied.contains(" controls score 100; index 0 in document order picks id "),
        "{stderr}"
    );
}

/// A desktop entry `file` in `dir` (made with its parents) named `name`, running `exec`.
fn desktop_entry(dir: &std::path::Path, file: &str, name: &str, exec: &std::path::Path) {
    std::fs::create_dir_all(dir).expect("the applications folder");
    std::fs::write(
        dir.join(file),
        format!(
            "[Desktop Entry]\nType=Application\nName={name}\nExec={} %U\nStartupWMClass=Mousepad\n",
            exec.display()
        ),
    )
    .expect("the desktop entry");
}

#[test]
fn open_app_finds_the_users_own_entries_in_the_xdg_order_through_a_launcher_script() {
    require_program("mousepad", "mousepad");
    let data = tempfile::tempdir().unwrap();
    let _desktop = Desktop::start(data.path());
    let root = data.path();
    // A launcher that starts the app as its child (no exec), as many real entries do.
    let launcher = root.join("notes-launcher.sh");
    std::fs::write(&launcher, "#!/bin/sh\nmousepad \"$@\"\n").unwrap();
    let mut perms = std::fs::metadata(&launcher).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&launcher, perms).unwrap();
    let home = root.join("home");
    desktop_entry(
        &home.join(".local/share/applications"),
        "deft-notes.desktop",
        "Deft Notes",
        &launcher,
    );
    let data_home = root.join("data-home");
    desktop_entry(
        &data_home.join("applications"),
        "other-notes.desktop",
        "Other Notes",
        &launcher,
    );
    let task = |name: &str, steps: &str| {
        let path = root.join(format!("{name}.json"));
        std::fs::write(
            &path,
            format!(r#"{{"name": "{name}", "device": "local", "on_error": "continue", "steps": {steps}}}"#),
        )
        .unwrap();
        path
    };
    // No XDG_DATA_HOME: ~/.local/share/applications, before the system's folders.
    let first = task(
        "home",
        r#"[{"type": "open_app", "app": "deft-notes"},
            {"type": "wait_el", "selector": {"type": "edit"}, "timeout_s": 30}]"#,
    );
    let out = deft(root)
        .args(["task", "run"])
        .arg(&first)
        .env("HOME", &home)
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let opened = line_of(&stderr, "steps[0]");
    assert!(
        opened.starts_with("✓ steps[0] open_app") && opened.ends_with(" (found by descendant)"),
        "{stderr}"
    );
    assert!(line_of(&stderr, "steps[1]").starts_with('✓'), "{stderr}");
    // XDG_DATA_HOME instead of ~/.local/share: the other entry is found, and its
    // StartupWMClass names the mousepad that is open; the first entry is not looked for.
    let second = task(
        "data-home",
        r#"[{"type": "open_app", "app": "Other Notes"},
            {"type": "open_app", "app": "deft-notes"}]"#,
    );
    let out = deft(root)
        .args(["task", "run"])
        .arg(&second)
        .env("HOME", &home)
        .env("XDG_DATA_HOME", &data_home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        line_of(&stderr, "steps[0]").ends_with(" (already open: nothing was started)"),
        "{stderr}"
    );
    let refused = line_of(&stderr, "steps[1]");
    assert!(
        refused.starts_with("✗ steps[1] open_app")
            && refused.contains(&format!(
                "searched in {}/applications, ",
                data_home.display()
            )),
        "{stderr}"
    );
}

#[test]
fn a_task_with_secrets_is_refused_without_a_server() {
    require_program("Xvfb", "xvfb");
    let data = tempfile::tempdir().unwrap();
    let _desktop = Desktop::start(data.path());
    let file = data.path().join("login.json");
    std::fs::write(
        &file,
        r#"{"name": "login", "variables": {"pw": {"secret": "LOGIN_PW"}},
            "steps": [{"type": "key_event", "keys": "{{pw}}"}]}"#,
    )
    .unwrap();
    let out = deft(data.path())
        .args(["task", "run"])
        .arg(&file)
        .args(["--device", "local"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the task uses the secrets LOGIN_PW, which only deft serve keeps; run it through the server"),
        "{stderr}"
    );
}
