//! Agent settings.

use std::time::Duration;

/// Which calls need a person's approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmPolicy {
    /// Tools that always need approval.
    pub tools: Vec<String>,
    /// Case-insensitive words that make a control action need approval when the control's
    /// `name` argument contains one (Send, Delete, Pay …).
    pub name_patterns: Vec<String>,
    /// How long to wait for an answer before denying.
    pub timeout: Duration,
}

impl Default for ConfirmPolicy {
    fn default() -> Self {
        ConfirmPolicy {
            tools: vec!["run_shell".to_owned()],
            name_patterns: [
                "send", "delete", "pay", "purchase", "buy", "remove", "transfer",
            ]
            .map(str::to_owned)
            .to_vec(),
            timeout: Duration::from_secs(120),
        }
    }
}

impl ConfirmPolicy {
    /// No approvals at all.
    pub fn none() -> Self {
        ConfirmPolicy {
            tools: Vec::new(),
            name_patterns: Vec::new(),
            timeout: Duration::from_secs(120),
        }
    }

    /// Why `tool(args)` needs approval, or `None`.
    pub fn reason(
        &self,
        tool: &str,
        args: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<String> {
        if self.tools.iter().any(|t| t == tool) {
            return Some(format!("{tool} needs approval on this device"));
        }
        let name = args.get("name").and_then(|v| v.as_str())?;
        let lower = name.to_lowercase();
        self.name_patterns
            .iter()
            .find(|p| lower.contains(&p.to_lowercase()))
            .map(|p| format!("the control '{name}' looks sensitive ('{p}')"))
    }
}

/// Settings of the loop.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Model calls per run (1–200).
    pub max_steps: u32,
    /// The whole run.
    pub run_timeout: Duration,
    /// History rounds kept (user + assistant pairs).
    pub history_rounds: usize,
    /// Images kept as images in the context; older ones become a placeholder.
    pub keep_images: usize,
    /// Widest image sent to the model.
    pub image_max_width: u32,
    /// JPEG quality of images sent to the model.
    pub jpeg_quality: u8,
    /// Approvals.
    pub confirm: ConfirmPolicy,
    /// The same failing call this many times in a row ends the run.
    pub max_repeated_failures: u32,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            max_steps: 40,
            run_timeout: Duration::from_secs(900),
            history_rounds: 12,
            keep_images: 2,
            image_max_width: 1280,
            jpeg_quality: 80,
            confirm: ConfirmPolicy::default(),
            max_repeated_failures: 3,
        }
    }
}

impl AgentConfig {
    /// `max_steps` clamped to 1–200.
    pub fn with_max_steps(mut self, n: u32) -> Self {
        self.max_steps = n.clamp(1, 200);
        self
    }
}
