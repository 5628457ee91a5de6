//! The application a device session operates (docs/design.md "HostAgent and AppAgent"): a result
//! that names a window's root (`select_application_window`, a browser's new tab) hands the
//! session from the HostAgent Computer to the AppAgent Computer of that root. The agent and
//! the task runner both follow hand-offs with it.

use deft_protocol::{CommandResult, ResultStatus};
use serde_json::Value;

use crate::dispatcher::ExecContext;

/// The selected application: the AppAgent Computer's process (window title) and root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppSelection {
    /// The window's title.
    pub process: String,
    /// The application root (executable basename, a page's host).
    pub root: String,
}

impl AppSelection {
    /// The selection a successful result reports: `{root_name, window_info: {name, …}}`;
    /// `None` for any other result.
    pub fn from_result(r: &CommandResult) -> Option<AppSelection> {
        if r.status != ResultStatus::Success {
            return None;
        }
        let root = r.result.get("root_name")?.as_str()?.to_owned();
        r.result.get("window_info")?.as_object()?;
        let process = r
            .result
            .pointer("/window_info/name")
            .or_else(|| r.result.pointer("/window_info/title"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        Some(AppSelection { process, root })
    }

    /// Points `ctx` at this application's AppAgent Computer.
    pub fn apply(&self, ctx: &mut ExecContext) {
        ctx.agent = "AppAgent".to_owned();
        ctx.process = self.process.clone();
        ctx.root = self.root.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_window_selection_names_the_root_and_nothing_else_does() {
        let ok = CommandResult::success(
            "c",
            json!({"root_name": "mousepad", "window_info": {"id": "2", "name": "notes.txt"}}),
            None,
        );
        let sel = AppSelection::from_result(&ok).unwrap();
        assert_eq!(
            sel,
            AppSelection {
                process: "notes.txt".into(),
                root: "mousepad".into()
            }
        );
        let mut ctx = ExecContext::new("local", "desktop");
        sel.apply(&mut ctx);
        assert_eq!(
            (ctx.agent.as_str(), ctx.root.as_str()),
            ("AppAgent", "mousepad")
        );
        assert!(
            AppSelection::from_result(&CommandResult::success("c", json!({"exit_code": 0}), None))
                .is_none()
        );
        assert!(AppSelection::from_result(&CommandResult::failure("c", "no", None)).is_none());
    }
}
