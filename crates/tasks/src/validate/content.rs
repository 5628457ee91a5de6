//! The checks of a step's parameters that need the variables in scope: every `{{name}}` is
//! known, and what the runner will see after expansion (previewed with the declared values)
//! is a selector that can match, keys that parse and a URL with a scheme.

use deft_protocol::keys;

use super::ctx::Ctx;
use super::variables::check_uses;
use crate::step::{Action, ForEach, OpenApp, Source};
use crate::texts;

/// URL schemes that take no `//` after the colon.
const OPAQUE_SCHEMES: &[&str] = &["about", "data", "mailto", "blob", "javascript", "chrome"];

pub(super) fn check(ctx: &mut Ctx<'_>, action: &Action, path: &str, mark: usize) {
    check_uses(ctx, path, &action.references(), mark);
    if let Action::ForEach(ForEach {
        source: Source::Variable { variable },
        ..
    }) = action
    {
        check_uses(
            ctx,
            path,
            &[("variable".to_owned(), variable.clone())],
            mark,
        );
    }
    let mut preview = action.shallow();
    let mut partly_unknown = Vec::new();
    for (field, text) in preview.texts_mut() {
        let (shown, known) = ctx.vars.preview(text);
        if !known {
            partly_unknown.push(field);
        }
        *text = shown;
    }
    for (field, selector) in preview.selectors() {
        for problem in selector.problems(&format!("{path}.{field}")) {
            match problem.split_once(": ") {
                Some((at, message)) => ctx.error(at, message),
                None => ctx.error(path, problem),
            }
        }
    }
    match &preview {
        Action::KeyEvent(k) => {
            if let Err(e) = keys::parse(&k.keys) {
                ctx.error(format!("{path}.keys"), e.0);
            }
        }
        Action::OpenApp(OpenApp::Url { url, .. })
            if !partly_unknown.iter().any(|f| f == "url") && !has_scheme(url) =>
        {
            ctx.error(format!("{path}.url"), texts::url_without_scheme(url));
        }
        _ => {}
    }
}

/// `https://…`, `file:///…`, `about:blank`, `data:…`.
fn has_scheme(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once(':') else {
        return false;
    };
    let well_formed = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c));
    well_formed
        && (rest.starts_with("//")
            || OPAQUE_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::has_scheme;

    #[test]
    fn urls_need_a_scheme() {
        for ok in [
            "https://example.com",
            "file:///tmp/a.html",
            "about:blank",
            "data:text/html,hi",
        ] {
            assert!(has_scheme(ok), "{ok}");
        }
        for bad in ["example.com", "localhost:8080/x", "://x", "1http://x"] {
            assert!(!has_scheme(bad), "{bad}");
        }
    }
}
