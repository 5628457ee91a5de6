//! The pipeline on real LibreOffice: the example tasks (Writer, Calc, Impress) run in dataflow
//! mode on one managed desktop whose `launch_app` opens documents in its supervised LibreOffice —
//! hybrid plans of office API tools and GUI actions on controls found by the device's
//! `find_controls`, each document saved and closed, its text read back for the evaluation — and
//! the saved documents, read independently (a separate headless LibreOffice, poppler), really
//! changed while the templates did not.

#![allow(clippy::unwrap_used)] // helpers outside #[test] functions: a failed set-up is a failed test

mod common;

use common::{Stage, office_desktop, pipeline, run_folder, scripted};
use deft_dataflow::Mode;
use deft_test_support::dataflow::{Workspace, check_example_documents, example_answers};
use deft_test_support::office;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_tasks_change_real_documents_in_writer_calc_and_impress() {
    let ws = Workspace::example().unwrap();
    let model = scripted(example_answers(), 40).await;
    let (desk, _office) = office_desktop("desk-1", ws.path()).await;
    let p = pipeline(&ws, &model, Mode::Dataflow, false);
    let summary = run_folder(&p, &ws.path().join("tasks"), vec![desk.device.clone()]).await;

    let results = ws.results("dataflow");
    assert_eq!(
        results.keys().collect::<Vec<_>>(),
        [
            "execution_pass/excel_totals.json",
            "execution_pass/powerpoint_background.json",
            "execution_pass/word_bullets.json",
            "execution_pass/word_font.json"
        ],
        "{:#?}",
        summary.outcomes
    );
    for o in &summary.outcomes {
        assert!(o.violations.is_empty() && o.errors.is_empty(), "{o:#?}");
    }
    // Every step ran; a GUI step on a control records the control it matched.
    for r in results.values() {
        let plan = r["instantiation_result"]["prefill"]["result"]["instantiated_plan"]
            .as_array()
            .unwrap();
        for step in plan {
            assert_eq!(step["Success"], true, "{step}");
        }
    }
    let calc = &results["execution_pass/excel_totals.json"];
    let typed = &calc["instantiation_result"]["prefill"]["result"]["instantiated_plan"][2];
    assert!(typed["MatchedControlText"].is_null(), "the window: {typed}");
    let word = &results["execution_pass/word_font.json"];
    let click = &word["instantiation_result"]["prefill"]["result"]["instantiated_plan"][2];
    assert_eq!(click["MatchedControlText"], "Italic", "{click}");
    assert!(
        click["ControlLabel"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
    // The evaluation read each document's text through the office API.
    let asked: Vec<String> = model.requests().iter().map(|r| r.text()).collect();
    let eval = |about: &str| {
        asked
            .iter()
            .find(|t| t.contains(Stage::Eval.marker()) && t.contains(about))
            .unwrap_or_else(|| panic!("no evaluation of {about}"))
            .clone()
    };
    for (task, text) in [
        (
            "total of each quarter",
            "| Total | 340 | 385 | 435 | checked |",
        ),
        ("light blue background", "Quarterly Review"),
        ("bulleted list", "Coffee beans"),
    ] {
        let asked = eval(task);
        assert!(asked.contains(text), "{asked}");
    }

    check_example_documents(&ws.path().join("results/saved_document"));
    // The templates are as they were: the copies changed.
    let template = ws.path().join("templates/excel/sales.xlsx");
    assert!(!office::sheet_csv(&template).contains("Total"));
    // Passed tasks became batch tasks with their real extensions.
    for doc in [
        "excel_totals.xlsx",
        "powerpoint_background.pptx",
        "word_bullets.docx",
        "word_font.docx",
    ] {
        assert!(
            ws.path().join("datasUFO/files").join(doc).is_file(),
            "{doc}"
        );
    }
}
