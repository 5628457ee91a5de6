//! A sensitive call's approval when the caller is an outside MCP client: the same rule as a
//! run's ([`ConfirmPolicy`]: `run_shell`, controls named Send, Delete, Pay …), asked of the
//! client's person by elicitation — a server request on a handshake-era session, an
//! input-required result (multi round-trip) on a 2026-era one — and refused with a clear text
//! when the client cannot ask anyone. Nothing runs unless a person said yes (or the endpoint was
//! started with approvals off).

use std::time::Duration;

use deft_agent::ConfirmPolicy;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequiredResult, JsonObject,
};
use rmcp::service::RequestContext;
use serde_json::{Map, Value, json};

use crate::texts;

/// The key of the approval among a multi round-trip call's input requests and responses.
pub const APPROVAL_INPUT: &str = "deft_approval";

/// Which calls need a person's approval at an MCP endpoint.
#[derive(Debug, Clone, Default)]
pub struct ApprovalRule {
    /// The calls that need one (a run's default rule).
    pub confirm: ConfirmPolicy,
    /// Approve them all without asking (`deft mcp device --yes`).
    pub approve_all: bool,
}

/// What became of a call that needs approval.
#[derive(Debug)]
pub enum Decision {
    /// Run it.
    Approved,
    /// Do not run it; the client reads this text.
    Refused(String),
    /// Ask the client's person first (2026-era clients): answer the call with this.
    Ask(InputRequiredResult),
}

impl ApprovalRule {
    /// Why `tool(args)` needs approval here, or `None` (no approval, or all approved).
    pub fn reason(&self, tool: &str, args: &Map<String, Value>) -> Option<String> {
        if self.approve_all {
            return None;
        }
        self.confirm.reason(tool, args)
    }

    /// Asks for the approval of `request` on `device`, which needs it for `reason`.
    pub async fn decide(
        &self,
        device: &str,
        reason: &str,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Decision {
        let tool = request.name.as_ref();
        if let Some(answer) = request
            .input_responses
            .as_ref()
            .and_then(|r| r.get(APPROVAL_INPUT))
        {
            return match serde_json::from_value::<ElicitResult>(answer.clone()) {
                Ok(answer) => judge(tool, &answer),
                Err(e) => Decision::Refused(texts::mcp_approval_unreadable(tool, &e.to_string())),
            };
        }
        let can_ask = context
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some());
        if !can_ask {
            return Decision::Refused(texts::mcp_approval_unavailable(tool, reason));
        }
        let params = question(device, reason, request);
        if context.peer.peer_info().is_none() {
            // A 2026-era client (no handshake): it asks its person and calls again with the
            // answer among its input responses.
            let requests = [(
                APPROVAL_INPUT.to_owned(),
                InputRequest::Elicitation(ElicitRequest::new(params)),
            )]
            .into_iter()
            .collect();
            return Decision::Ask(InputRequiredResult::from_input_requests(requests));
        }
        match context
            .peer
            .create_elicitation_with_timeout(params, Some(self.timeout()))
            .await
        {
            Ok(answer) => judge(tool, &answer),
            Err(e) => Decision::Refused(texts::mcp_approval_unanswered(tool, &e.to_string())),
        }
    }

    /// How long a person may take to answer.
    fn timeout(&self) -> Duration {
        self.confirm.timeout
    }
}

/// Approved only when the person accepted and said `approve: true`.
fn judge(tool: &str, answer: &ElicitResult) -> Decision {
    let yes = answer.action == ElicitationAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|c| c.get("approve"))
            .and_then(Value::as_bool)
            == Some(true);
    if yes {
        Decision::Approved
    } else {
        Decision::Refused(texts::mcp_approval_denied(tool))
    }
}

/// The form the client's person sees: what would run, where, and why it needs a yes.
fn question(device: &str, reason: &str, request: &CallToolRequestParams) -> ElicitRequestParams {
    let args = request
        .arguments
        .clone()
        .map(Value::Object)
        .unwrap_or_else(|| json!({}));
    let schema: JsonObject = json!({
        "type": "object",
        "properties": {
            "approve": {
                "type": "boolean",
                "title": "Approve",
                "description": texts::MCP_APPROVE_FIELD,
            }
        },
        "required": ["approve"],
    })
    .as_object()
    .cloned()
    .unwrap_or_default();
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: texts::mcp_approval_question(request.name.as_ref(), device, reason, &args),
        requested_schema: ElicitationSchema::from_json_schema(schema)
            .unwrap_or_else(|_| ElicitationSchema::new(Default::default())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
        serde_json::from_value(json!({
            "action": action,
            "content": content,
        }))
        .unwrap()
    }

    #[test]
    fn only_an_accepted_yes_approves() {
        assert!(matches!(
            judge(
                "run_shell",
                &answer(ElicitationAction::Accept, Some(json!({"approve": true})))
            ),
            Decision::Approved
        ));
        for refused in [
            answer(ElicitationAction::Accept, Some(json!({"approve": false}))),
            answer(ElicitationAction::Accept, Some(json!({"approve": "yes"}))),
            answer(ElicitationAction::Accept, None),
            answer(ElicitationAction::Decline, None),
            answer(ElicitationAction::Cancel, None),
        ] {
            match judge("run_shell", &refused) {
                Decision::Refused(text) => {
                    assert_eq!(text, texts::mcp_approval_denied("run_shell"))
                }
                other => panic!("{refused:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn approve_all_needs_no_reason_and_the_default_rule_asks_for_shell() {
        let args = Map::new();
        let rule = ApprovalRule::default();
        assert!(rule.reason("run_shell", &args).is_some());
        assert!(rule.reason("get_desktop_app_info", &args).is_none());
        let all = ApprovalRule {
            approve_all: true,
            ..ApprovalRule::default()
        };
        assert!(all.reason("run_shell", &args).is_none());
    }

    #[test]
    fn the_question_is_a_form_with_one_boolean() {
        let request = CallToolRequestParams::new("run_shell")
            .with_arguments(json!({"command": "ls"}).as_object().unwrap().clone());
        let q =
            serde_json::to_value(question("local", "run_shell needs approval", &request)).unwrap();
        assert_eq!(q["mode"], "form", "{q}");
        assert_eq!(
            q["requestedSchema"]["properties"]["approve"]["type"],
            "boolean"
        );
        let message = q["message"].as_str().unwrap();
        assert!(
            message.contains("run_shell") && message.contains("\"ls\""),
            "{message}"
        );
    }
}
