//! Every text the pipeline writes for the model (the stages' prompts) and for a person (errors
//! in result files, warnings), in one place: they are part of the interface and are tested.

use std::path::Path;

/// The longest piece of a model answer quoted in an error.
const QUOTE_CHARS: usize = 400;

fn quote(text: &str) -> String {
    let t = text.trim();
    if t.chars().count() <= QUOTE_CHARS {
        format!("{t:?}")
    } else {
        let cut: String = t.chars().take(QUOTE_CHARS).collect();
        format!("{cut:?}… ({} characters in all)", t.chars().count())
    }
}

// ── config ─────────────────────────────────────────────────────────────────────────────────

/// A key the config has that deft does not read.
pub fn unknown_config_key(key: &str) -> String {
    format!("the dataflow config has '{key}', which deft does not read; it is ignored")
}

/// `TEMPLATE_METHOD` other than `llm`.
pub fn unknown_template_method(method: &str) -> String {
    format!(
        "TEMPLATE_METHOD '{method}' is not available: deft chooses templates with the model ('llm'); \
         UFO's SemanticSimilarity needs an embedding model deft does not ship"
    )
}

/// `MATCH_STRATEGY` other than the matcher's modes.
pub fn unknown_match_strategy(s: &str) -> String {
    format!("MATCH_STRATEGY '{s}' is not one of contains, fuzzy, regex (or exact)")
}

/// `MAX_STEPS: 0`.
pub const ZERO_MAX_STEPS: &str = "MAX_STEPS must be at least 1";

/// An app's extension without its dot.
pub fn bad_extension(app: &str, ext: &str) -> String {
    format!("APPS.{app}.extension must start with a dot, like \".docx\"; got {ext:?}")
}

/// An app's call without a tool.
pub fn app_call_without_tool(app: &str, what: &str) -> String {
    format!("APPS.{app}.{what}.tool is empty: name the tool that does it")
}

/// A task names an app the config does not have.
pub fn unknown_app<'a>(app: &str, known: impl Iterator<Item = &'a String>) -> String {
    let known: Vec<&str> = known.map(String::as_str).collect();
    format!(
        "unknown app '{app}'; known apps: {} (APPS in the dataflow config adds more)",
        known.join(", ")
    )
}

// ── task files ─────────────────────────────────────────────────────────────────────────────

/// A task file whose name starts with a dot.
pub fn task_without_name(file: &Path) -> String {
    format!(
        "{}: a task's name is its file name up to the first dot, and this one has none",
        file.display()
    )
}

/// An unreadable task file.
pub fn task_unreadable(file: &Path, e: &std::io::Error) -> String {
    format!("cannot read the task file {}: {e}", file.display())
}

/// A task file that is not JSON.
pub fn task_not_json(file: &Path, e: &serde_json::Error) -> String {
    format!("the task file {} is not valid JSON: {e}", file.display())
}

/// A task file that is JSON but not an object.
pub fn task_not_an_object(file: &Path) -> String {
    format!(
        "the task file {} must hold one JSON object like {{\"app\": \"word\", \"unique_id\": \"1\", \"task\": \"…\", \"refined_steps\": [\"…\"]}}",
        file.display()
    )
}

/// Required task keys that are missing or empty.
pub fn task_missing(keys: &[&str]) -> String {
    format!(
        "the task file lacks {}: a task needs a non-empty \"app\" and \"task\"",
        keys.join(" and ")
    )
}

/// `refined_steps` of the wrong type.
pub const STEPS_NOT_STRINGS: &str =
    "\"refined_steps\" (\"original.original_steps\" in a result) must be a list of strings";

/// Execution mode given a file without a plan.
pub const NOT_INSTANTIATED: &str = "this file has no instantiated plan (instantiation_result.prefill.result.instantiated_plan): \
     the execution mode runs results of the instantiation mode; run --instantiation (or --dataflow) first";

/// Execution mode given a plan that is not a list.
pub const PLAN_NOT_A_LIST: &str =
    "instantiation_result.prefill.result.instantiated_plan must be a list of steps";

// ── schemas and files ──────────────────────────────────────────────────────────────────────

/// A configured schema file that cannot be read.
pub fn schema_unreadable(path: &Path, e: &std::io::Error) -> String {
    format!("cannot read the result schema {}: {e}", path.display())
}

/// A schema that is not a usable JSON Schema.
pub fn schema_invalid(name: &str, why: &str) -> String {
    format!("the result schema {name} is not a valid JSON Schema: {why}")
}

/// A result file of the pass folder that is not JSON.
pub fn reformat_unreadable(why: &str) -> String {
    format!("the result file is not valid JSON: {why}")
}

/// Reformat leaves out results whose instantiation was not judged doable.
pub const REFORMAT_NOT_JUDGED: &str = "its instantiation was not judged doable (judge is not true)";

/// Reformat leaves out results without a request.
pub const REFORMAT_NO_REQUEST: &str = "it has no instantiated_request";

/// Reformat leaves out results whose document is gone.
pub fn reformat_no_document(path: &str) -> String {
    format!("its document {path:?} does not exist")
}

// ── model answers ──────────────────────────────────────────────────────────────────────────

/// A model answer without a JSON object.
pub fn not_json(answer: &str) -> String {
    format!(
        "the model's answer holds no JSON object (an object alone, in a ```json fence, or amid text): {}",
        quote(answer)
    )
}

/// A model answer whose object lacks what the stage needs.
pub fn answer_lacks(stage: &str, what: &str, answer: &str) -> String {
    format!("the model's {stage} answer lacks {what}: {}", quote(answer))
}

// ── stages ─────────────────────────────────────────────────────────────────────────────────

/// No templates folder for the app.
pub fn no_templates_folder(dir: &Path) -> String {
    format!(
        "no templates folder {}: put the app's template documents there, with a description.json \
         of {{\"<file>\": \"<what it contains>\"}} (TEMPLATE_PATH in the config moves it)",
        dir.display()
    )
}

/// `description.json` is not `{file: text}`.
pub fn bad_descriptions(file: &Path, why: &str) -> String {
    format!(
        "{} must be an object of {{\"<template file>\": \"<description>\"}}: {why}",
        file.display()
    )
}

/// A description names a file that is not there.
pub fn described_file_missing(file: &str, dir: &Path) -> String {
    format!(
        "description.json describes {file:?}, which is not in {}; it is left out",
        dir.display()
    )
}

/// No template to choose from.
pub fn no_templates(dir: &Path, ext: &str) -> String {
    format!(
        "{} has no template to choose from (no described file, and no {ext} file)",
        dir.display()
    )
}

/// The model chose a template that is not offered.
pub fn unknown_template(chosen: &str, offered: &[String]) -> String {
    format!(
        "the model chose {chosen:?}, which is not one of the templates: {}",
        offered.join(", ")
    )
}

/// Copying the template failed.
pub fn copy_failed(from: &Path, to: &Path, e: &std::io::Error) -> String {
    format!(
        "cannot copy the template {} to {}: {e}",
        from.display(),
        to.display()
    )
}

/// A stage that needs the document when none was chosen.
pub const NO_DOCUMENT: &str = "no document to open: the template stage did not choose one";

/// A stage that needs the plan when prefill made none.
pub const NO_PLAN: &str = "no plan to run: prefill did not make one";

/// A stage that needs the request when prefill made none.
pub const NO_REQUEST: &str = "no instantiated request to judge: prefill did not make one";

/// Dataflow mode does not execute what instantiation rejected.
pub fn not_executed(why: &str) -> String {
    format!("not executed: {why}")
}

/// The instantiation was judged not doable.
pub fn judged_not_doable(thought: &str) -> String {
    format!("the instantiation was judged not doable ({thought})")
}

/// The plan is longer than `MAX_STEPS`.
pub fn too_many_steps(steps: usize, max: usize) -> String {
    format!("the plan has {steps} steps, more than MAX_STEPS ({max}); none was run")
}

/// A plan step that names no function.
pub fn step_without_function(n: usize) -> String {
    format!("step {n} names no Function")
}

/// A plan step that is not an object.
pub fn step_not_object(n: usize) -> String {
    format!("step {n} is not an object of Step, Subtask, ControlText, Function and Args")
}

/// A plan step whose Args is not an object.
pub fn step_args_not_object(n: usize) -> String {
    format!("step {n}: Args must be an object of the tool's arguments")
}

/// A plan step names a tool the device does not have.
pub fn unknown_function(n: usize, function: &str, tools: &[String]) -> String {
    format!(
        "step {n} names the tool '{function}', which the device does not offer for this document; its tools: {}",
        tools.join(", ")
    )
}

/// Prefill's plan names tools the device does not have.
pub fn plan_names_unknown_tools(problems: &[String]) -> String {
    format!("the plan cannot run: {}", problems.join("; "))
}

/// UFO's text for a control the matcher did not find.
pub fn control_not_found(text: &str, strategy: &str) -> String {
    format!("Control with text '{text}' not found (MATCH_STRATEGY {strategy})")
}

/// A step's control holds its text inside a longer name or value.
pub fn match_contains(asked: &str, matched: &str) -> String {
    format!(
        "the control matched holds '{asked}' inside its longer text '{}'",
        matched.trim()
    )
}

/// A step's control matched only part of its text, or looks like it without being it.
pub fn match_partial(asked: &str, matched: &str, score: u8) -> String {
    format!(
        "not the text asked for: '{}' matched '{asked}' only in part (score {score})",
        matched.trim()
    )
}

/// A step failed; the plan ends there.
pub fn step_failed(n: usize, why: &str) -> String {
    format!("Step {n} execution failed: {why}")
}

/// Where a step failed, for the traceback.
pub fn step_trace(n: usize, function: &str, control_text: &str) -> String {
    if control_text.is_empty() {
        format!("execute › step {n}: {function} on the window")
    } else {
        format!("execute › step {n}: {function} on {control_text:?}")
    }
}

/// A device call without a usable answer.
pub fn device_call_failed(tool: &str, why: &str) -> String {
    format!("{tool} failed: {why}")
}

/// Opening the document named no window.
pub fn open_named_no_window(tool: &str) -> String {
    format!(
        "{tool} opened the document but named no window (its result has no window.id to select)"
    )
}

/// A run stopped by the person.
pub const INTERRUPTED: &str = "interrupted before the task finished; nothing of it was saved";

/// The result could not be written.
pub fn save_failed(path: &Path, e: &std::io::Error) -> String {
    format!("cannot write the result {}: {e}", path.display())
}

/// A result that does not match its schema.
pub fn schema_warning(file: &Path, schema: &str, violations: usize) -> String {
    format!(
        "{} does not match {schema} ({violations} violation{}); it was saved — check it by hand",
        file.display(),
        if violations == 1 { "" } else { "s" }
    )
}

// ── prompts ────────────────────────────────────────────────────────────────────────────────

/// The template stage's instructions.
pub fn template_system(app_label: &str) -> String {
    format!(
        "You choose the document a task will be carried out on, in {app_label}. You are given the task \
         and the template files available, each with a description of what it contains. Choose the one \
         template whose content the task can act on best (it must already contain what the task needs, \
         such as the text to format or the table to sort).\n\n\
         Answer with one JSON object and nothing else, mapping the chosen file name, exactly as listed, \
         to one sentence on why: {{\"<file name>\": \"<why>\"}}"
    )
}

/// The template stage's question.
pub fn template_user(task: &str, templates: &[(String, String)]) -> String {
    let list: Vec<String> = templates
        .iter()
        .map(|(file, about)| format!("- {file}: {about}"))
        .collect();
    format!("Task: {task}\n\nTemplates:\n{}", list.join("\n"))
}

/// The prefill stage's instructions.
pub fn prefill_system(app_label: &str, tools: &str) -> String {
    format!(
        "You turn a general task into a concrete one on a real document open in {app_label}, and plan \
         the steps that do it. You get the window's control listing (one control per line: id, type, \
         \"name\", value and states) and, when available, a screenshot, plus the task and reference steps \
         written for a generic document.\n\n\
         1. Make the task concrete for THIS document: name the exact text, cells, slides or objects it \
         acts on, as they appear in the document.\n\
         2. Plan the steps with the tools below. A GUI step acts on one control of the listing; an API \
         step (the app's own tools) acts on the document itself. Use whichever does the step best.\n\n\
         Tools:\n{tools}\n\n\
         Answer with one JSON object and nothing else:\n\
         {{\"Observation\": \"<what the document and window show>\", \"Thought\": \"<how to do the task here>\", \
         \"New_task\": \"<the concrete task, one or two sentences>\", \"Actions_plan\": [\
         {{\"Step\": 1, \"Subtask\": \"<what this step does>\", \"ControlLabel\": \"<the control's id in the listing, or null>\", \
         \"ControlText\": \"<the control's name exactly as listed, or \\\"\\\" when the step acts on the document or window as a whole>\", \
         \"Function\": \"<one tool name from the list>\", \"Args\": {{<the tool's arguments>}}}}]}}\n\n\
         Rules: Function must be a tool of the list. Leave id and name out of Args: deft finds the \
         control by ControlText when it runs the plan. Number the steps from 1. Keep the plan short."
    )
}

/// The prefill stage's question.
pub fn prefill_user(task: &str, steps: &[String], listing: &str, has_image: bool) -> String {
    let steps = if steps.is_empty() {
        "(none given)".to_owned()
    } else {
        steps.join("\n")
    };
    let shot = if has_image {
        "The screenshot of the window follows."
    } else {
        "No screenshot is available."
    };
    format!(
        "<Given Task:> {task}\n<Reference Steps:>\n{steps}\n\n<Control listing of the document's window:>\n{listing}\n\n{shot}"
    )
}

/// The judge's instructions.
pub fn filter_system(app_label: &str) -> String {
    format!(
        "You judge whether a request can be carried out in {app_label} alone, on the document that is \
         open there: with no other application, no internet, no files or data from elsewhere, and no \
         person's help. Also judge whether it is a task at all (an instruction that changes or creates \
         something), not a question or chat.\n\n\
         Answer with one JSON object and nothing else:\n\
         {{\"judge\": true or false, \"thought\": \"<why, in one or two sentences>\", \
         \"type\": \"None\" when it can be done, else \"Non_task\", \"App_involve\" (needs another app), \
         \"Env\" (needs something outside the document) or \"Others\"}}"
    )
}

/// The judge's question.
pub fn filter_user(request: &str) -> String {
    format!("<Request:> {request}")
}

/// The evaluation's instructions.
pub fn eval_system(app_label: &str) -> String {
    format!(
        "You evaluate whether an agent completed a task in {app_label}. You get the task, every step the \
         agent ran with its result, the text of the document after the steps and, when available, a \
         screenshot of the final window. Judge by the document's final state, not by the agent's \
         intentions. Split the task into its sub-goals and score each.\n\n\
         Answer with one JSON object and nothing else:\n\
         {{\"reason\": \"<what the evidence shows>\", \"sub_scores\": {{\"<sub-goal>\": \"yes\" | \"no\" | \"unsure\"}}, \
         \"complete\": \"yes\" | \"no\" | \"unsure\"}}"
    )
}

/// The evaluation's question.
pub fn eval_user(task: &str, steps: &str, document_text: Option<&str>, has_image: bool) -> String {
    let text = document_text.map_or_else(
        || "(the document's text could not be read)".to_owned(),
        str::to_owned,
    );
    let shot = if has_image {
        "The final screenshot follows."
    } else {
        "No final screenshot is available."
    };
    format!(
        "<Task:> {task}\n\n<Steps run:>\n{steps}\n\n<Document text after the steps:>\n{text}\n\n{shot}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_answers_are_quoted_short() {
        let err = not_json(&"é".repeat(2000));
        assert!(err.contains("2000 characters in all"), "{err}");
        assert!(err.chars().count() < 600);
    }

    #[test]
    fn prompts_name_what_the_model_must_answer() {
        assert!(template_system("Writer").contains("{\"<file name>\": \"<why>\"}"));
        let p = prefill_system("Writer", "- click_input(id, name)");
        for key in [
            "New_task",
            "Actions_plan",
            "ControlText",
            "Function",
            "Args",
            "click_input",
        ] {
            assert!(p.contains(key), "{key}");
        }
        assert!(filter_system("Calc").contains("\"judge\""));
        assert!(eval_system("Impress").contains("\"complete\""));
        assert!(prefill_user("t", &[], "window 1", false).contains("(none given)"));
        assert!(eval_user("t", "1. ok", None, true).contains("could not be read"));
    }
}
