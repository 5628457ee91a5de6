//! The system prompt, a minijinja template in `prompts/system.j2` (strict: a missing variable is
//! an error, not an empty string).

use minijinja::{Environment, UndefinedBehavior, context};

const SYSTEM: &str = include_str!("../prompts/system.j2");

/// Renders the system prompt for a run on `device` (`profile`) with these tool names.
pub fn system_prompt(device: &str, profile: &str, tools: &[String]) -> Result<String, String> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.add_template("system", SYSTEM)
        .map_err(|e| format!("the system prompt template is invalid: {e}"))?;
    let template = env
        .get_template("system")
        .map_err(|e| format!("the system prompt template is missing: {e}"))?;
    template
        .render(context! { device => device, profile => profile, tools => tools.to_vec() })
        .map(|s| s.trim().to_owned())
        .map_err(|e| format!("cannot render the system prompt: {e}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn renders_device_profile_and_tools() {
        let p = super::system_prompt("local", "desktop", &["click_input".into(), "wait".into()])
            .unwrap();
        assert!(
            p.starts_with("You are deft, an agent that operates a real desktop device (\"local\")")
        );
        assert!(p.ends_with("Your tools now: click_input, wait."));
    }
}
