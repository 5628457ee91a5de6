//! Is a font there? LibreOffice's own font list first; else fontconfig's answer: a name it maps
//! to a family other than its fallback for an unknown name is a known substitute (`Arial` →
//! a metric-compatible font), which LibreOffice shows and the file keeps by name. Anything else
//! is not installed, and the error names installed fonts like it.

use std::time::Duration;

use crate::texts;

/// What `set_font` may use for `wanted`: the installed name, and the family that stands in for
/// it when it is not installed (fontconfig asked as the device's programs are, with `env`).
pub async fn resolve(
    wanted: &str,
    installed: &[String],
    env: &[(String, String)],
) -> Result<(String, Option<String>), String> {
    let wanted = wanted.trim();
    if let Some(name) = installed.iter().find(|f| f.eq_ignore_ascii_case(wanted)) {
        return Ok((name.clone(), None));
    }
    if let (Some(got), Some(fallback)) = (
        fc_match(wanted, env).await,
        fc_match("deft-no-such-font-family", env).await,
    ) && got != fallback
    {
        return Ok((wanted.to_owned(), Some(got)));
    }
    Err(texts::no_such_font(wanted, &similar(wanted, installed)))
}

/// The family fontconfig picks for `name` (`fc-match`), if it can be asked.
async fn fc_match(name: &str, env: &[(String, String)]) -> Option<String> {
    let mut cmd = tokio::process::Command::new("fc-match");
    deft_tools::device_env::apply(cmd.as_std_mut(), env);
    let run = cmd
        .args(["-f", "%{family[0]}", name])
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(5), run)
        .await
        .ok()?
        .ok()?;
    let family = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !family.is_empty()).then_some(family)
}

/// Installed fonts whose names are like `wanted`, best first (at most five).
pub fn similar(wanted: &str, installed: &[String]) -> Vec<String> {
    let w = wanted.to_lowercase();
    let mut scored: Vec<(f64, &String)> = installed
        .iter()
        .map(|f| (strsim::jaro_winkler(&w, &f.to_lowercase()), f))
        .filter(|(s, _)| *s >= 0.7)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(5).map(|(_, f)| f.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_names_come_first() {
        let installed: Vec<String> = ["DejaVu Sans", "DejaVu Serif", "Nimbus Sans", "OpenSymbol"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let s = similar("DejaVu Sanz", &installed);
        assert_eq!(s.first().map(String::as_str), Some("DejaVu Sans"));
        assert!(!s.contains(&"OpenSymbol".to_owned()));
    }

    #[tokio::test]
    async fn installed_names_match_in_any_case() {
        let installed = vec!["DejaVu Sans".to_owned()];
        assert_eq!(
            resolve("dejavu sans", &installed, &[]).await,
            Ok(("DejaVu Sans".to_owned(), None))
        );
        let e = resolve("Qqqqxx Nonexistent", &installed, &[])
            .await
            .unwrap_err();
        assert!(
            e.starts_with("The font \"Qqqqxx Nonexistent\" is not installed"),
            "{e}"
        );
    }
}
