//! Between the tool layer's types and MCP's: a device's [`ToolInfo`] as an MCP [`Tool`], and a
//! [`CommandResult`] as the [`CallToolResult`] an outside client reads (structured content kept,
//! images as image content, a failure as a tool error with its text).

use std::sync::Arc;

use deft_protocol::{CommandResult, ResultStatus, ToolInfo};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::Value;

/// `info` as MCP lists it: its name, title, description, schemas, annotations and `_meta`
/// (such as `deft/timeout_secs`) as its server declared them.
pub fn tool(info: &ToolInfo) -> Tool {
    let input = match &info.input_schema {
        Some(Value::Object(schema)) => schema.clone(),
        _ => empty_object_schema(),
    };
    let mut tool = Tool::new_with_raw(
        info.tool_name.clone(),
        info.description.clone().map(Into::into),
        Arc::new(input),
    );
    tool.title = info.title.clone();
    if let Some(Value::Object(schema)) = &info.output_schema {
        tool.output_schema = Some(Arc::new(schema.clone()));
    }
    tool.annotations = info
        .annotations
        .clone()
        .and_then(|a| serde_json::from_value(a).ok());
    tool.meta = info
        .meta
        .clone()
        .and_then(|m| serde_json::from_value(m).ok());
    tool
}

/// `{"type": "object"}`: a tool that declares no parameters.
fn empty_object_schema() -> JsonObject {
    let mut schema = JsonObject::new();
    schema.insert("type".to_owned(), Value::String("object".to_owned()));
    schema
}

/// `r` as an MCP tool result: a success's value as text (JSON unless it is a string) and, when
/// it is an object, as structured content; a failure or skip as a tool error with its text;
/// images (data URIs) as image content either way.
pub fn call_result(r: &CommandResult) -> CallToolResult {
    let mut content = Vec::new();
    let mut structured = None;
    let failed = r.status != ResultStatus::Success;
    if failed {
        let text = r
            .error
            .clone()
            .unwrap_or_else(|| crate::texts::MCP_TOOL_FAILED_WITHOUT_TEXT.to_owned());
        content.push(ContentBlock::text(text));
    } else {
        match &r.result {
            Value::Null => {}
            Value::String(s) => content.push(ContentBlock::text(s.clone())),
            value => {
                content.push(ContentBlock::text(value.to_string()));
                if value.is_object() {
                    structured = Some(value.clone());
                }
            }
        }
    }
    content.extend(r.images.iter().filter_map(|uri| image(uri)));
    let mut out = if failed {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    out.structured_content = structured;
    out
}

/// A tool error with `text` (what the client reads when deft refuses or cannot run a call).
pub fn refusal(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.into())])
}

/// `data:<mime>;base64,<data>` as image content; `None` for anything else.
fn image(uri: &str) -> Option<ContentBlock> {
    let rest = uri.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    Some(ContentBlock::image(data.to_owned(), mime.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use deft_protocol::ToolType;
    use serde_json::json;

    fn info(name: &str) -> ToolInfo {
        ToolInfo {
            tool_key: format!("action::{name}"),
            tool_name: name.to_owned(),
            title: Some("Insert a table".to_owned()),
            namespace: "office".to_owned(),
            tool_type: ToolType::Action,
            description: Some("Writer: insert a table".to_owned()),
            input_schema: Some(
                json!({"type": "object", "properties": {"rows": {"type": "integer"}}}),
            ),
            output_schema: None,
            meta: Some(json!({"deft/timeout_secs": 130})),
            annotations: Some(json!({"destructiveHint": false})),
        }
    }

    #[test]
    fn a_tool_keeps_its_schema_meta_and_annotations() {
        let t = tool(&info("insert_table"));
        assert_eq!(t.name, "insert_table");
        assert_eq!(t.title.as_deref(), Some("Insert a table"));
        assert_eq!(t.input_schema["properties"]["rows"]["type"], "integer");
        let listed = serde_json::to_value(&t).unwrap();
        assert_eq!(listed["_meta"]["deft/timeout_secs"], 130);
        assert_eq!(listed["annotations"]["destructiveHint"], false);
        let mut bare = info("x");
        bare.input_schema = None;
        assert_eq!(*tool(&bare).input_schema, empty_object_schema());
    }

    #[test]
    fn results_become_text_structured_content_images_or_errors() {
        let mut r = CommandResult::success("c", json!({"root_name": "soffice.bin"}), None);
        r.images = vec!["data:image/png;base64,iVBO".to_owned(), "junk".to_owned()];
        let out = serde_json::to_value(call_result(&r)).unwrap();
        assert_eq!(out["structuredContent"]["root_name"], "soffice.bin");
        assert_eq!(out["content"][0]["text"], r#"{"root_name":"soffice.bin"}"#);
        assert_eq!(out["content"][1]["type"], "image");
        assert_eq!(out["content"][1]["mimeType"], "image/png");
        assert_eq!(out["content"][1]["data"], "iVBO");
        assert_eq!(out["content"].as_array().unwrap().len(), 2, "{out}");
        assert_ne!(out["isError"], true);

        let text = call_result(&CommandResult::success("c", json!("- 1 edit"), None));
        assert_eq!(text.structured_content, None);
        assert_eq!(
            serde_json::to_value(&text).unwrap()["content"][0]["text"],
            "- 1 edit"
        );

        let list = call_result(&CommandResult::success("c", json!([1, 2]), None));
        assert_eq!(
            list.structured_content, None,
            "structured content is an object"
        );

        let failed = call_result(&CommandResult::failure("c", "no such control", None));
        assert_eq!(failed.is_error, Some(true));
        assert_eq!(
            serde_json::to_value(&failed).unwrap()["content"][0]["text"],
            "no such control"
        );
    }
}
