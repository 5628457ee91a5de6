//! Every text the agent writes for the model (tool messages, nudges). Part of the prompt: keep
//! them stable; tests check them.

/// The tool message of a call whose arguments are not a JSON object.
pub fn invalid_arguments(tool: &str, detail: &str) -> String {
    format!(
        "Error: the arguments of {tool} are not a valid JSON object ({detail}). Call it again with a JSON object that matches its parameters."
    )
}

/// The tool message of a call to a tool that does not exist.
pub fn unknown_tool(tool: &str, available: &[String]) -> String {
    format!(
        "Error: there is no tool named '{tool}'. Available tools: {}.",
        available.join(", ")
    )
}

/// The tool message of a call the person denied.
pub fn denied(tool: &str) -> String {
    format!(
        "Error: the user did not approve this {tool} call, so it was not executed. Choose another way or explain what you need."
    )
}

/// The tool message of a call not run because an earlier call of the turn failed.
pub const SKIPPED_AFTER_FAILURE: &str =
    "Skipped: an earlier tool call of this turn failed, so this one was not executed.";

/// The text part that replaces an older screenshot in the context.
pub const IMAGE_REMOVED: &str =
    "[an earlier screenshot was removed to save context; take a new one if you need it]";

/// The user message that introduces the images of the preceding tool results.
pub fn images_follow(n: usize) -> String {
    if n == 1 {
        "The image returned by the tool call above:".to_owned()
    } else {
        format!("The {n} images returned by the tool calls above, in order:")
    }
}

/// Asked once when the step limit is reached, without tools.
pub const STEP_LIMIT_SUMMARY: &str = "You have reached the step limit for this task. Do not call tools. Summarize what you did, what the current state is, and what remains to be done.";

/// Ends a run whose model keeps repeating a failing call.
pub fn repeated_failure(tool: &str, times: u32) -> String {
    format!(
        "The model called {tool} with the same arguments {times} times in a row and it failed each time; the run was stopped."
    )
}

/// A successful call with no result.
pub const DONE_NO_RESULT: &str = "Done.";

/// Ends a run that took longer than its limit.
pub fn run_timeout(limit: std::time::Duration) -> String {
    let secs = limit.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("the run timeout of {} s passed", secs as u64)
    } else {
        format!("the run timeout of {secs:.1} s passed")
    }
}

/// A question to the model (`llm::ask`) that passed its time limit.
pub fn model_call_timed_out(limit: std::time::Duration) -> String {
    format!("the model did not answer within {} s", limit.as_secs())
}

/// `list_devices`' description.
pub const LIST_DEVICES_DESCRIPTION: &str = "List the devices deft knows (id, profile, busy). Read-only: this run operates only its own device.";

/// Why a call past the run's tool-call limit was refused (the run ends with it; its tool
/// message is this after `Error: `).
pub fn tool_call_limit(limit: u32) -> String {
    format!(
        "this run allows at most {limit} tool calls and they are used up, so the call was not executed and the run ends here"
    )
}

/// Appended to a tool message when few tool calls are left.
pub fn calls_left(n: u32) -> String {
    if n == 1 {
        "\n[1 tool call left in this run.]".to_owned()
    } else {
        format!("\n[{n} tool calls left in this run.]")
    }
}

/// Ends a run that reached its model-call limit without asking for a summary.
pub fn model_call_limit(limit: u32) -> String {
    format!("the run reached its limit of {limit} model calls")
}

/// A JSON value's kind as the texts name it (`a number`, `an array`, …).
pub fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The system section that asks for a typed answer, when the provider is not sent the schema
/// as a structured-output `response_format` (or refused it).
pub fn output_schema_prompt(schema: &str) -> String {
    format!(
        "Your final answer (the message in which you call no tool) must be a single JSON value valid against this JSON Schema, and nothing else: no prose before or after it, no code fence.\n\nJSON Schema:\n{schema}"
    )
}

/// The repair turn: the final answer failed its schema; each error as `- <path>: <message>`
/// (`(the answer)` for the answer as a whole).
pub fn output_repair(errors: &[deft_protocol::OutputError]) -> String {
    let mut text =
        String::from("Your final answer is not valid against the required JSON Schema:\n");
    for e in errors {
        let path = if e.path.is_empty() {
            "(the answer)"
        } else {
            e.path.as_str()
        };
        text.push_str(&format!("- {path}: {}\n", e.message));
    }
    text.push_str("Answer again with only the corrected JSON value, valid against the schema. Do not call tools.");
    text
}

/// The error of an answer that is not JSON (`detail`: the parser's words).
pub fn answer_not_json(detail: &str) -> String {
    format!(
        "the answer is not JSON ({detail}); write only the JSON value, optionally in one ```json fenced block"
    )
}

/// The error of a typed run that ended without a final answer to check.
pub fn no_final_answer(status: &str) -> String {
    format!("the run ended {status} before a final answer, so there is no value to check")
}

/// An output schema larger than the limit.
pub fn schema_too_large(bytes: usize, limit: usize) -> String {
    format!(
        "the output schema is {bytes} bytes; at most {limit} bytes are allowed — send a smaller schema"
    )
}

/// An output schema that is not JSON.
pub fn schema_not_json(detail: &str) -> String {
    format!("the output schema is not JSON: {detail}")
}

/// An output schema that is JSON but not a valid JSON Schema (`path`: the JSON pointer of the
/// faulty part inside the schema, empty when the validator names none; `detail`: the
/// meta-validator's words).
pub fn schema_invalid(path: &str, detail: &str) -> String {
    let at = if path.is_empty() {
        String::new()
    } else {
        format!("at {path}: ")
    };
    format!(
        "the output schema is not a valid JSON Schema (draft 2020-12 unless its $schema says another): {at}{detail}"
    )
}

/// An output schema that is neither an object nor a boolean.
pub fn schema_not_object(kind: &str) -> String {
    format!("the output schema must be a JSON object (or true/false), got {kind}")
}
