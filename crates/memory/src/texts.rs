//! Every text the memory writes for a model (the distilling and audit prompts, the prompt
//! sections, `run_action`'s description and answers) and for a person (the cards' notes, why a
//! candidate was dropped). Part of the prompt: keep them stable; tests check them.
//!
//! The prompts ask in plain words and show no example answer to copy: an early prompt with a
//! placeholder example got `"1. …\n2. …"` stored as a recipe (seed 001 §4.1).

use deft_protocol::memory::{MemoryKind, MemoryOutcome};

/// The system prompt of experience distilling.
pub const EXPERIENCE_SYSTEM: &str = "You distil reusable experience for deft, an agent that \
operates desktop applications and web pages through tools. You read one task that was \
completed successfully and the tool calls that did it, and you write down how to do this kind \
of task again: which application to open, which controls to use (by their visible names), \
which keys to press, what to check at the end, and what went wrong on the way and how it was \
solved.

Rules:
- Write the recipe in the same language as the task, as a few short sentences or numbered lines.
- Name controls by their visible text. Never write control ids or screen coordinates.
- Write only what this run showed; do not invent steps.

Answer with JSON only: an object whose \"title\" is a short name for this kind of task (at most \
80 characters) and whose \"recipe\" is the recipe text. If nothing reusable was learned, answer \
an object with only \"skip\", giving the reason.";

/// The user message of experience distilling: the task, the calls, the answer.
pub fn experience_request(task: &str, calls: &[String], more: usize, answer: &str) -> String {
    let mut out = format!("Task: {task}\n\nTool calls, in order:\n");
    for (i, line) in calls.iter().enumerate() {
        out.push_str(&format!("{}. {line}\n", i + 1));
    }
    if more > 0 {
        out.push_str(&format!("({more} later calls are not shown)\n"));
    }
    if !answer.trim().is_empty() {
        out.push_str(&format!("\nThe agent's final answer: {answer}\n"));
    }
    out
}

/// One call of a run as distilling shows it: `tool {args} [in app] → ok: result`.
pub fn call_line(tool: &str, args: &str, app: Option<&str>, ok: bool, result: &str) -> String {
    let args = if args.is_empty() {
        String::new()
    } else {
        format!(" {args}")
    };
    let app = app.map(|a| format!(" [in {a}]")).unwrap_or_default();
    let outcome = if ok { "ok" } else { "failed" };
    format!("{tool}{args}{app} → {outcome}: {result}")
}

/// The system prompt of action distilling.
pub const ACTION_SYSTEM: &str = "You turn the successful steps of a run into named, reusable \
actions for deft's action library. An action is a short list of steps in deft's task step \
language that does one thing on its own (open an application, search for something, fill in a \
form), with each control located by a selector, so that it works again on another screen.

The step types you may use and their fields:
- open_app: \"app\", the program to start (as it was launched)
- stop_app: \"app\"
- click: \"selector\"
- long_click: \"selector\"
- input_text: \"selector\", \"text\" (replaces what the control holds)
- key_event: \"keys\" in the key syntax ({ENTER}, {TAB}, ^a for Ctrl+A; plain text is typed)
- wait_el: \"selector\" (waits until the control shows)
- wait: \"seconds\"
- swipe: \"direction\" (up, down, left or right)
A selector is an object with the control's visible name as \"text\", optionally its \"type\" \
(button, edit, text, link, listitem, menuitem, checkbox, …) and \"match\": \"exact\" when the \
name must be equal.

Rules:
- At most 3 actions, each of at most 4 steps. Keep only steps that worked.
- Never use coordinates, click_xy or control ids.
- Where the text differs from one use to the next (what to type or search for), write \
{{name}} and give the value this run used under \"variables\".
- Name each action by what it does, in the language of the task, and give other names people \
might call it by as \"aliases\".

Answer with JSON only: an object whose \"actions\" is a list; each action has \"name\", \
\"aliases\" (a list of strings), \"description\", \"variables\" (an object) and \"steps\" (a \
list). If no step is worth keeping, the list is empty.";

/// The user message of action distilling.
pub fn action_request(task: &str, calls: &[String], more: usize) -> String {
    let mut out = format!("Task: {task}\n\nThe steps that worked, in order:\n");
    for (i, line) in calls.iter().enumerate() {
        out.push_str(&format!("{}. {line}\n", i + 1));
    }
    if more > 0 {
        out.push_str(&format!("({more} later steps are not shown)\n"));
    }
    out
}

/// The system prompt of the audit.
pub const AUDIT_SYSTEM: &str = "You review the experience library of deft, an agent that \
operates desktop applications and web pages. Each entry is a recipe an earlier run wrote down \
for a kind of task. Judge each one: is it a concrete, reusable recipe (which application, which \
controls by name, which keys, what to check), or is it wrong, empty, vague, a placeholder, \
bound to screen coordinates, or a duplicate of another entry?

Give each entry a score from 0 (useless) to 100 (clearly useful) and a verdict: \"keep\", or \
\"delete\" to suggest deleting it (a person decides). The reason is one short sentence a person \
reads.

Answer with JSON only: an object whose \"reviews\" is a list with one object per entry, with \
its number as \"n\", and \"verdict\", \"score\" and \"reason\".";

/// The user message of the audit: the entries, numbered from 1.
pub fn audit_request(entries: &[(String, String, String, u64)]) -> String {
    let mut out = String::from("The entries:\n");
    for (i, (title, task, recipe, hits)) in entries.iter().enumerate() {
        out.push_str(&format!(
            "\n[{n}] {title}\nTask: {task}\nUsed {hits} times.\nRecipe:\n{recipe}\n",
            n = i + 1
        ));
    }
    out
}

/// The experience section of a run's system prompt.
pub fn experience_section(entries: &[(String, String, String)]) -> String {
    let mut out = String::from(
        "## Experience from similar tasks\nThese recipes worked for similar tasks before. Use \
         them as a guide; what the screen shows now decides.\n",
    );
    for (title, task, recipe) in entries {
        out.push_str(&format!(
            "\n### {title}\n(for the task: {task})\n{recipe}\n"
        ));
    }
    out
}

/// The action section of a run's system prompt (seed 001 §5.3's hint).
pub fn action_section(entries: &[String]) -> String {
    let mut out = String::from(
        "## Reusable actions\nNamed actions that worked before, as steps with element \
         selectors. Prefer these locators; if the screen differs from what they expect, observe \
         it again first. run_action runs one in a single call (give \"variables\" for its \
         {{names}}) and reports each step.\n",
    );
    for entry in entries {
        out.push('\n');
        out.push_str(entry);
    }
    out
}

/// One action in the prompt section: its name, aliases, variables and steps.
pub fn action_entry(
    name: &str,
    aliases: &[String],
    description: &str,
    variables: &[(String, String)],
    steps: &[String],
) -> String {
    let mut out = format!("### {name}");
    if !aliases.is_empty() {
        out.push_str(&format!(" (also: {})", aliases.join(", ")));
    }
    out.push('\n');
    if !description.trim().is_empty() {
        out.push_str(description.trim());
        out.push('\n');
    }
    if !variables.is_empty() {
        let vars: Vec<String> = variables
            .iter()
            .map(|(k, v)| format!("{k} (last: {v:?})"))
            .collect();
        out.push_str(&format!("Variables: {}\n", vars.join(", ")));
    }
    for (i, step) in steps.iter().enumerate() {
        out.push_str(&format!("{}. {step}\n", i + 1));
    }
    out
}

/// `run_action`'s description.
pub const RUN_ACTION_DESCRIPTION: &str = "Run a named action of the action library (see \
\"Reusable actions\") on this device in one call: its steps run in order, each control located \
by its selector (a selector that no longer matches is retried fuzzily). Answers how each step \
went; when a step fails, observe the screen before going on.";

/// `run_action`'s `name` parameter.
pub const RUN_ACTION_NAME: &str = "The action's name or one of its aliases.";

/// `run_action`'s `variables` parameter.
pub const RUN_ACTION_VARIABLES: &str =
    "Values for the action's variables, by name (text); the ones left out keep their last value.";

/// No action has this name.
pub fn no_such_action(name: &str, known: &[String]) -> String {
    if known.is_empty() {
        format!("There is no action named {name:?} in the action library.")
    } else {
        format!(
            "There is no action named {name:?}. Actions offered in this run: {}.",
            known.join(", ")
        )
    }
}

/// `run_action` was called without a name.
pub const RUN_ACTION_NEEDS_NAME: &str =
    "run_action needs \"name\": the name of an action from \"Reusable actions\".";

/// A variable the action does not have.
pub fn unknown_variable(name: &str, action: &str, known: &[String]) -> String {
    if known.is_empty() {
        format!("The action {action:?} has no variables; leave out {name:?}.")
    } else {
        format!(
            "The action {action:?} has no variable {name:?}; its variables: {}.",
            known.join(", ")
        )
    }
}

/// A stored action that no longer validates (the store was edited around the API).
pub fn action_invalid(action: &str, errors: &str) -> String {
    format!("The action {action:?} is invalid and was not run: {errors}")
}

/// One step of an action's run: `steps[1] click: ok → button "7"`, with the selector it was
/// healed from, its error, its message, and what its wait saw.
pub fn step_line(step: &deft_protocol::task_run::TaskStepResult, saw: Option<&str>) -> String {
    let mut line = format!("{} {}: {}", step.path, step.step_type, step.status.as_str());
    if let Some(m) = &step.matched {
        line.push_str(&format!(" → {} {:?}", m.kind, m.name));
    }
    if let Some(h) = &step.healed_from {
        line.push_str(&format!(" (healed from {h})"));
    }
    if let Some(e) = &step.error {
        line.push_str(&format!(": {e}"));
    }
    if let Some(m) = &step.message {
        line.push_str(&format!(" ({m})"));
    }
    if let Some(saw) = saw {
        line.push_str(&format!("; it saw {saw}"));
    }
    line
}

/// What a wait saw: `edit "" = "108"`.
pub fn seen_control(kind: &str, name: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("{kind} {name:?} = {v:?}"),
        None => format!("{kind} {name:?}"),
    }
}

/// The first line of `run_action`'s answer.
pub fn action_ran(action: &str, ok: usize, failed: usize, skipped: usize, done: bool) -> String {
    let how = if done {
        "completed"
    } else {
        "did not complete"
    };
    let mut s = format!("Action {action:?} {how}: {ok} step(s) ok");
    if failed > 0 {
        s.push_str(&format!(", {failed} failed"));
    }
    if skipped > 0 {
        s.push_str(&format!(", {skipped} skipped"));
    }
    s.push('.');
    s
}

/// The last line of a failed `run_action` answer.
pub const ACTION_FAILED_HINT: &str = "The screen may differ from what the action expects: \
observe it before going on, and finish the task with your other tools.";

/// The last line of a completed `run_action` answer.
pub const ACTION_DONE_HINT: &str = "Check the result on the screen if the task needs it; no \
application window is selected for your tools by this action.";

/// A completed action left this window selected.
pub fn action_selected(root: &str, title: &str) -> String {
    format!(
        "The window {title:?} of {root} is selected now: its controls are yours to observe and use."
    )
}

/// A model call the run's stop ended.
pub const CALL_STOPPED: &str = "the model call was stopped";

// ---- Why a distilled candidate was dropped or trimmed (cards and logs) ----

/// The model call failed.
pub fn model_failed(why: &str) -> String {
    format!("the model call failed: {why}")
}

/// The answer held no JSON.
pub const NOT_JSON: &str = "the answer was not JSON";

/// What a usable experience answer is (the corrective retry names it).
pub const EXPERIENCE_SHAPE: &str =
    "an object with \"title\" and \"recipe\", or with only \"skip\" and the reason";

/// What a usable action answer is.
pub const ACTION_SHAPE: &str =
    "an object whose \"actions\" is a list of actions (empty when no step is worth keeping)";

/// What a usable audit answer is.
pub const AUDIT_SHAPE: &str = "an object whose \"reviews\" is a list with one object per entry: \
its number as \"n\", \"verdict\" (keep or delete), \"score\" and \"reason\"";

/// The corrective retry's message after an unusable answer: what was wrong, what to send.
pub fn correction(why: &str, shape: &str) -> String {
    format!(
        "That answer could not be used: {why}. Answer again with JSON only: {shape}, with no text \
         before or after it."
    )
}

/// The answer was unusable, and so was the one after the corrective retry.
pub fn unusable_twice(why: &str) -> String {
    format!("{why}, also when asked again")
}

/// The answer was cut off and held nothing complete.
pub fn cut_off(capped: bool, cap: usize) -> String {
    if capped {
        format!(
            "the answer was longer than {} KB and was cut off there; nothing complete was in it",
            cap / 1024
        )
    } else {
        "the answer was cut off; nothing complete was in it".to_owned()
    }
}

/// A review or a skip that gave no reason.
pub const NO_REASON: &str = "no reason given";

/// The title of a card item when the answer named no action.
pub const UNNAMED_ACTIONS: &str = "(actions of this run)";

/// No recipe in the answer.
pub const NO_RECIPE: &str = "the answer has no recipe";

/// An empty recipe.
pub const EMPTY: &str = "the recipe is empty";

/// A too-short recipe.
pub fn too_short(chars: usize) -> String {
    format!("the recipe is too short to be useful ({chars} characters)")
}

/// A placeholder recipe.
pub const PLACEHOLDER: &str = "the recipe is a placeholder, not steps (\"1. …\", \"<step>\")";

/// A recipe with coordinates.
pub const COORDINATES: &str =
    "the recipe uses screen coordinates, which break on another screen or window size";

/// A recipe that repeats the prompt.
pub const PROMPT_ECHO: &str = "the recipe repeats the instructions instead of following them";

/// A recipe that only repeats the task.
pub const TASK_ECHO: &str = "the recipe only repeats the task";

/// A recipe in another script than the task.
pub fn wrong_language(task: &str, recipe: &str) -> String {
    format!("the recipe is written in {recipe} but the task in {task}")
}

/// A recipe cut to the limit.
pub fn trimmed(from: usize, to: usize) -> String {
    format!("the recipe was cut from {from} to {to} characters")
}

/// More actions than kept.
pub fn too_many_actions(max: usize) -> String {
    format!("only {max} actions are kept from one run")
}

/// An action without a name.
pub const NO_NAME: &str = "the action has no name";

/// An action without steps.
pub const NO_STEPS: &str = "the action has no steps";

/// Coordinate steps removed from an action.
pub fn coordinate_steps(n: usize) -> String {
    format!(
        "{n} coordinate step(s) (click_xy, gesture) were removed: actions locate controls by selectors"
    )
}

/// An action cut to the step limit.
pub fn steps_trimmed(from: usize, to: usize) -> String {
    format!("cut from {from} to {to} steps")
}

/// An action the validator refused.
pub fn action_refused(errors: &str) -> String {
    format!("the steps are not valid library steps: {errors}")
}

/// An action whose name another took meanwhile.
pub const NAME_TAKEN: &str = "another action took the name meanwhile";

/// The store failed.
pub fn store_failed(why: &str) -> String {
    format!("the library could not be saved to: {why}")
}

// ---- The cards' notes ----

/// A library by name, as notes say it.
fn library(kind: MemoryKind) -> &'static str {
    match kind {
        MemoryKind::Experience => "experience library",
        MemoryKind::Action => "action library",
    }
}

/// The note of a run in which the model found nothing worth keeping (with its reason, if it
/// gave one): nothing was dropped, so no count.
pub fn nothing_reusable(kind: MemoryKind, why: Option<&str>) -> String {
    let library = library(kind);
    match why {
        Some(why) => {
            format!("The model found nothing reusable for the {library} in this run: {why}")
        }
        None => format!("The model found nothing reusable for the {library} in this run"),
    }
}

/// The note of a distilling that brought no candidate (the call failed, the answer was
/// unusable); its item says why.
pub fn nothing_distilled(kind: MemoryKind) -> String {
    format!("Nothing from this run went into the {}", library(kind))
}

/// The note of a card: what happened to how many entries of which library.
pub fn note(kind: MemoryKind, outcome: MemoryOutcome, n: usize) -> String {
    let noun = match (kind, n) {
        (MemoryKind::Experience, 1) => "experience",
        (MemoryKind::Experience, _) => "experiences",
        (MemoryKind::Action, 1) => "action",
        (MemoryKind::Action, _) => "actions",
    };
    match outcome {
        MemoryOutcome::Recalled => {
            format!("Recalled {n} similar {noun} into the prompt")
        }
        MemoryOutcome::Saved => format!("Saved {n} new {noun} from this run"),
        MemoryOutcome::Merged => {
            format!("Merged what this run learned into {n} existing {noun}")
        }
        MemoryOutcome::Dropped => format!("Dropped {n} {noun} distilled from this run"),
    }
}

// ---- Action submissions (the API) ----

/// An action name that is blank or too long.
pub fn bad_name(max: usize) -> String {
    format!("an action needs a name of 1 to {max} characters")
}

/// Too many aliases, or one too long.
pub fn bad_aliases(max: usize, max_chars: usize) -> String {
    format!("at most {max} aliases of 1 to {max_chars} characters each")
}

/// A description too long.
pub fn bad_description(max: usize) -> String {
    format!("the description holds at most {max} characters")
}

/// A hand-made action too long.
pub fn too_many_steps(n: usize, max: usize) -> String {
    format!(
        "an action holds at most {max} steps (counting nested ones), not {n}: make a task for longer work"
    )
}

/// A field of the wrong kind.
pub fn wrong_type(field: &str, what: &str) -> String {
    format!("{field} must be {what}")
}

/// An unknown field.
pub fn unknown_field(field: &str) -> String {
    format!(
        "unknown field {field:?}: an action has name, aliases, description, app, variables and steps"
    )
}

// ---- The audit ----

/// No model to audit with.
pub const AUDIT_NO_MODEL: &str = "no model is configured, so the audit could not run";

/// Another audit runs.
pub const AUDIT_BUSY: &str = "an audit is already running";

/// An audit answer without reviews.
pub const NO_REVIEWS: &str = "the answer has no reviews";

/// An audit answer whose reviews name no entry it was shown.
pub fn no_review_of_an_entry(entries: usize) -> String {
    format!(
        "no review in the answer names an entry shown (1 to {entries}) with the verdict keep or delete"
    )
}

/// A review the model left out.
pub fn review_missing(n: usize) -> String {
    format!("the model gave no review for entry {n}")
}
