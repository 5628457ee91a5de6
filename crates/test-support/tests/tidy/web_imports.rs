//! The console's folders (ARCHITECTURE.md, "`web/`"): a page's folder under
//! `web/src/components/` imports nothing from another page's folder, and the common folders
//! ([`SHARED`]: `common/`, `steps/`) import no page's: what two pages use lives in `common/`.

use std::path::Path;

use deft_test_support::repo_root;

use super::{assert_no_violations, relative};

/// Where the pages' folders are.
const COMPONENTS: &str = "web/src/components/";

/// The folders under [`COMPONENTS`] that hold pieces any page may use; every other folder is
/// one page's.
const SHARED: &[&str] = &["common", "steps"];

/// The folder under [`COMPONENTS`] a file is in (none for a file directly in it).
fn folder_of(path: &str) -> Option<&str> {
    let (folder, _) = path.strip_prefix(COMPONENTS)?.split_once('/')?;
    Some(folder)
}

/// `spec` (a relative import) resolved against the folder of the file at `path`.
fn resolve(path: &str, spec: &str) -> String {
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop();
    for part in spec.split('/') {
        match part {
            "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

/// The relative module paths `text` imports: `from "…"`, `import "…"` and `import("…")`.
fn imports(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for marker in ["from ", "import ", "import("] {
        for (at, _) in text.match_indices(marker) {
            let rest = &text[at + marker.len()..];
            let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                continue;
            };
            if let Some((spec, _)) = rest[1..].split_once(quote)
                && spec.starts_with('.')
            {
                out.push(spec);
            }
        }
    }
    out
}

/// The imports of the file at `path` that cross from one page's folder into another's, or from
/// a common folder into a page's.
fn import_violations(path: &str, text: &str) -> Vec<String> {
    let Some(from) = folder_of(path) else {
        return Vec::new();
    };
    let mut violations = Vec::new();
    for spec in imports(text) {
        let target = resolve(path, spec);
        let Some(to) = folder_of(&target) else {
            continue;
        };
        if to == from || SHARED.contains(&to) {
            continue;
        }
        violations.push(if SHARED.contains(&from) {
            format!(
                "{path}: imports \"{spec}\" from the page folder {to}/: a shared piece depends on \
                 no page; move what both need into {COMPONENTS}common/"
            )
        } else {
            format!(
                "{path}: imports \"{spec}\" from another page's folder ({to}/): move what both \
                 pages use into {COMPONENTS}common/ (git mv)"
            )
        });
    }
    violations
}

/// The `.ts` and `.tsx` files under `dir`, as (path relative to the repository, text).
fn scripts(dir: &Path) -> Vec<(String, String)> {
    let root = repo_root();
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for path in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ts" || e == "tsx") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((relative(&root, &path), text));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_page_folder_imports_another_pages() {
    let files = scripts(&repo_root().join(COMPONENTS));
    assert!(
        files.iter().any(|(p, _)| folder_of(p) == Some("tasks")),
        "the scan found no page folder under {COMPONENTS}"
    );
    let violations = files
        .iter()
        .flat_map(|(path, text)| import_violations(path, text))
        .collect();
    assert_no_violations("web/ page folders", violations);
}

#[test]
fn the_web_import_rule_catches_what_it_is_for() {
    let memory = "web/src/components/memory/ActionPage.tsx";
    let crossing = "import { RunSteps } from \"../tasks/RunSteps\";\n\
                    const Lazy = import('../designer/DraftReview');";
    let found = import_violations(memory, crossing);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].contains("from another page's folder (tasks/)"),
        "{found:#?}"
    );
    assert!(found[1].contains("(designer/)"), "{found:#?}");
    let fine = "import { api } from \"../../api\";\n\
                import { RunSteps } from \"../common/RunSteps\";\n\
                import { StepEditor } from \"../steps/StepEditor\";\n\
                import { Composer } from \"../Composer\";\n\
                import { Card } from \"./ExperienceCard\";\n\
                import { h } from \"preact\";";
    assert_eq!(import_violations(memory, fine), Vec::<String>::new());
    let shared = "web/src/components/common/Pager.tsx";
    let backwards = "import type { AreaProps } from \"../tasks/TasksArea\";";
    let found = import_violations(shared, backwards);
    assert_eq!(found.len(), 1);
    assert!(
        found[0].contains("a shared piece depends on no page"),
        "{found:#?}"
    );
    // The app shell (router, top-level components) imports the pages.
    let shell = "import { TasksArea } from \"./tasks/TasksArea\";";
    assert_eq!(
        import_violations("web/src/components/App.tsx", shell).len(),
        0
    );
    assert_eq!(import_violations("web/src/router.tsx", shell).len(), 0);
    assert_eq!(
        resolve(memory, "../../hooks/x"),
        "web/src/hooks/x",
        "a path is resolved from the file's folder"
    );
}
