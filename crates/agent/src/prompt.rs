//! The system prompt: a run profile's minijinja template (the chat's is `prompts/system.j2`),
//! strict: a missing variable is an error, not an empty string.

use minijinja::value::{Serde, Value};
use minijinja::{Environment, UndefinedBehavior};

use crate::profile::PromptTemplate;

/// Renders `template` for a run on `device` (`profile`) with these tool names.
pub fn system_prompt(
    template: &PromptTemplate,
    device: &str,
    profile: &str,
    tools: &[String],
) -> Result<String, String> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    let name = template.name;
    env.add_template(name, &template.source)
        .map_err(|e| format!("the {name} prompt template is invalid: {e}"))?;
    let compiled = env
        .get_template(name)
        .map_err(|e| format!("the {name} prompt template is missing: {e}"))?;
    let mut ctx = template.vars.clone();
    ctx.insert("device".into(), device.into());
    ctx.insert("profile".into(), profile.into());
    ctx.insert("tools".into(), tools.into());
    compiled
        .render(Value::from(Serde(&ctx)))
        .map(|s| s.trim().to_owned())
        .map_err(|e| format!("cannot render the {name} prompt: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_device_profile_and_tools() {
        let p = system_prompt(
            &PromptTemplate::chat(),
            "local",
            "desktop",
            &["click_input".into(), "wait".into()],
        )
        .unwrap();
        assert!(
            p.starts_with("You are deft, an agent that operates a real desktop device (\"local\")")
        );
        assert!(p.ends_with("Your tools now: click_input, wait."));
    }

    #[test]
    fn a_missing_variable_is_an_error() {
        let t = PromptTemplate {
            name: "custom",
            source: "Hello {{ nobody }}".into(),
            vars: Default::default(),
        };
        let e = system_prompt(&t, "local", "desktop", &[]).unwrap_err();
        assert!(e.starts_with("cannot render the custom prompt:"), "{e}");
        let mut vars = serde_json::Map::new();
        vars.insert("nobody".into(), "you".into());
        let t = PromptTemplate { vars, ..t };
        assert_eq!(
            system_prompt(&t, "local", "desktop", &[]).unwrap(),
            "Hello you"
        );
    }
}
