//! `deft task run examples/tasks/calculator.json --device local`: the real binary plays the
//! committed example on the managed virtual desktop with no server and no model — exit status
//! 0, a line per step on stderr, and the run's trace folder with its report.

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
