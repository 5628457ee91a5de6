//! The page agent (`agent.js`): its script and evaluating a call of it in a frame session.

use serde_json::{Value, json};

use super::{Browser, BrowserError, Result};
use crate::cdp::CdpError;
use crate::texts;

/// The page agent, evaluated in every document before each use (idempotent).
pub(crate) const AGENT_JS: &str = include_str!("../agent.js");

impl Browser {
    /// Evaluates `call` (an expression using `__deft`) in `session`'s main frame.
    pub(crate) async fn eval(&self, session: &str, call: &str) -> Result<Value> {
        let expression = format!("{AGENT_JS}\n;({call})");
        // A dialog that opens meanwhile blocks the page's script until it is answered.
        let Some(r) = self
            .call_or_dialog(
                session,
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await?
        else {
            let d = {
                let st = self.state();
                st.window_of_session(session)
                    .and_then(|w| st.dialog_of_window(w))
                    .or_else(|| st.dialogs.values().next().cloned())
            };
            return Err(BrowserError::model(match d {
                Some(d) => texts::dialog_open(&d.kind, &d.message),
                None => texts::browser_failed("a dialog interrupted the page"),
            }));
        };
        if let Some(ex) = r.get("exceptionDetails") {
            let text = ex["exception"]["description"]
                .as_str()
                .or_else(|| ex["text"].as_str())
                .unwrap_or("script error");
            return Err(BrowserError::Cdp(CdpError::Protocol {
                method: "Runtime.evaluate".into(),
                message: text.to_owned(),
            }));
        }
        Ok(r["result"]["value"].clone())
    }
}
