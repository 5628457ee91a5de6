//! The quality gate of distilled recipes (seed 001 §4.1): a recipe that is empty, too short, a
//! placeholder (`"1. …\n2. …"`, `<step>`), bound to screen coordinates, an echo of the prompt or
//! of the task, or written in another script than the task is dropped with the reason; one that
//! is too long is cut at a line or sentence end, and says so.

use std::sync::LazyLock;

use regex::Regex;

use crate::similar::{containment, dice, features, is_cjk};
use crate::texts;

/// The fewest meaningful units a recipe has (a letter or digit counts 1, a CJK character 2).
pub const MIN_UNITS: usize = 20;

/// The most characters a recipe keeps.
pub const MAX_RECIPE_CHARS: usize = 2_000;

/// A recipe that passed, maybe trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passed {
    /// The recipe to store.
    pub recipe: String,
    /// Why it differs from what the model wrote.
    pub trimmed: Option<String>,
}

static LIST_MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\s*(?:\d+\s*[.)、:：]|[-*•·])\s*").expect("a valid list-marker pattern")
});

static PLACEHOLDER_BITS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)…+|\.{2,}|<[^<>\n]{0,40}>|\[[^\[\]\n]{0,40}\]|\{[^{}\n]{0,40}\}|\b(?:step|steps|todo|tbd|xxx+|etc|action|placeholder)\b|步骤|第?\d+步|略|等等",
    )
    .expect("a valid placeholder pattern")
});

static COORDINATE_PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // (0.52, 0.31), (120,340)
        r"\(\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*\)",
        // x=120, y: 0.4
        r"(?i)\b[xy]\s*[=:：]\s*-?\d",
        r"(?i)\bcoordinates?\b|\bclick_xy\b|\bclick_on_coordinates\b|\bdrag_on_coordinates\b",
        r"坐标",
        // 120 px, 340像素
        r"(?i)\b\d+\s*(?:px|pixels?)\b|\d+\s*像素",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("a valid coordinate pattern"))
    .collect()
});

/// Phrases of the distilling prompt a recipe that echoes it repeats.
const PROMPT_PHRASES: &[&str] = &[
    "you distil reusable experience",
    "name controls by their visible text",
    "never write control ids",
    "write only what this run showed",
    "answer with json only",
    "if nothing reusable was learned",
    "tool calls, in order",
];

/// Checks a recipe distilled for `task` (see the module docs).
pub fn check(recipe: &str, task: &str) -> Result<Passed, String> {
    let text = recipe.trim();
    if text.is_empty() {
        return Err(texts::EMPTY.to_owned());
    }
    let units = meaningful_units(text);
    if units < MIN_UNITS {
        return Err(texts::too_short(text.chars().count()));
    }
    if is_placeholder(text) {
        return Err(texts::PLACEHOLDER.to_owned());
    }
    if echoes_prompt(text) {
        return Err(texts::PROMPT_ECHO.to_owned());
    }
    if COORDINATE_PATTERNS.iter().any(|p| p.is_match(text)) {
        return Err(texts::COORDINATES.to_owned());
    }
    if dice(&features(text), &features(task)) >= 0.85 {
        return Err(texts::TASK_ECHO.to_owned());
    }
    let (want, got) = (script(task), script(text));
    if let (Some(want), Some(got)) = (want, got)
        && want != got
    {
        return Err(texts::wrong_language(want.name(), got.name()));
    }
    Ok(trim(text))
}

/// Letters and digits count 1, CJK characters 2.
fn meaningful_units(text: &str) -> usize {
    text.chars()
        .map(|c| {
            if is_cjk(c) {
                2
            } else {
                usize::from(c.is_alphanumeric())
            }
        })
        .sum()
}

/// What is left without list markers and placeholder bits is not enough to be steps.
fn is_placeholder(text: &str) -> bool {
    let without_markers = LIST_MARKER.replace_all(text, " ");
    let bare = PLACEHOLDER_BITS.replace_all(&without_markers, " ");
    if meaningful_units(&bare) < MIN_UNITS {
        return true;
    }
    // Most lines trailing off: a template with a word or two filled in.
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let trailing = lines
        .iter()
        .filter(|l| {
            let l = l.trim_end();
            l.ends_with('…') || l.ends_with("...")
        })
        .count();
    lines.len() >= 2 && trailing * 2 > lines.len()
}

/// The recipe repeats the prompt's own instructions.
fn echoes_prompt(text: &str) -> bool {
    let lower = text.to_lowercase();
    if PROMPT_PHRASES.iter().any(|p| lower.contains(p)) {
        return true;
    }
    containment(&features(text), &features(texts::EXPERIENCE_SYSTEM)) >= 0.8
}

/// The script a text is mostly written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Cjk,
    Latin,
    Other,
}

impl Script {
    fn name(self) -> &'static str {
        match self {
            Script::Cjk => "Chinese, Japanese or Korean script",
            Script::Latin => "Latin script",
            Script::Other => "another script",
        }
    }
}

/// The main script: CJK characters weigh 3 (a character is about a word), letters 1; `None`
/// for a text with no letters.
fn script(text: &str) -> Option<Script> {
    let (mut cjk, mut latin, mut other) = (0usize, 0usize, 0usize);
    for c in text.chars() {
        if is_cjk(c) {
            cjk += 3;
        } else if c.is_ascii_alphabetic() || ('\u{00C0}'..='\u{024F}').contains(&c) {
            latin += 1;
        } else if c.is_alphabetic() {
            other += 1;
        }
    }
    let most = cjk.max(latin).max(other);
    if most == 0 {
        None
    } else if most == cjk {
        Some(Script::Cjk)
    } else if most == latin {
        Some(Script::Latin)
    } else {
        Some(Script::Other)
    }
}

/// At most [`MAX_RECIPE_CHARS`], cut after the last line or sentence end that fits.
fn trim(text: &str) -> Passed {
    let count = text.chars().count();
    if count <= MAX_RECIPE_CHARS {
        return Passed {
            recipe: text.to_owned(),
            trimmed: None,
        };
    }
    let limit = text
        .char_indices()
        .nth(MAX_RECIPE_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..limit];
    let cut = head
        .rfind(['\n', '。', '.', '!', '?', '！', '？'])
        .filter(|&i| i > limit / 2)
        .map_or(limit, |i| {
            i + head[i..].chars().next().map_or(1, char::len_utf8)
        });
    let recipe = head[..cut].trim_end().to_owned();
    let kept = recipe.chars().count();
    Passed {
        recipe,
        trimmed: Some(texts::trimmed(count, kept)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK_EN: &str = "compute 7 times 8 in the calculator";
    const TASK_ZH: &str = "在计算器里计算 7 乘 8";
    const GOOD_EN: &str = "Open gnome-calculator, select its window, click the buttons 7, ×, 8 \
                           and =, then read the result from the display.";
    const GOOD_ZH: &str =
        "打开 gnome-calculator，选中它的窗口，依次点击按钮 7、×、8 和 =，然后从显示框读出结果。";

    fn reason(recipe: &str, task: &str) -> String {
        check(recipe, task).unwrap_err()
    }

    #[test]
    fn good_recipes_pass_in_either_language() {
        assert_eq!(check(GOOD_EN, TASK_EN).unwrap().recipe, GOOD_EN);
        assert_eq!(check(GOOD_ZH, TASK_ZH).unwrap().recipe, GOOD_ZH);
        assert!(
            check(&format!("  {GOOD_EN}\n"), TASK_EN)
                .unwrap()
                .trimmed
                .is_none()
        );
    }

    #[test]
    fn the_bad_recipe_corpus_is_dropped_with_its_reason() {
        let corpus: &[(&str, &str, &str)] = &[
            ("", TASK_EN, texts::EMPTY),
            ("  \n\t ", TASK_EN, texts::EMPTY),
            (
                "Open it.",
                TASK_EN,
                "the recipe is too short to be useful (8 characters)",
            ),
            (
                "打开它",
                TASK_ZH,
                "the recipe is too short to be useful (3 characters)",
            ),
            ("1. …\n2. …\n3. …", TASK_EN, "the recipe is too short"),
            (
                "1. <first step here>\n2. <second step here>\n3. <third step here>\n4. ...",
                TASK_EN,
                texts::PLACEHOLDER,
            ),
            (
                "Step 1: ...\nStep 2: ...\nStep 3: ...\nStep 4: ...\nStep 5: ...",
                TASK_EN,
                texts::PLACEHOLDER,
            ),
            (
                "步骤1：……\n步骤2：……\n步骤3：……\n步骤4：……",
                TASK_ZH,
                texts::PLACEHOLDER,
            ),
            (
                "1. Open the app …\n2. Click the button …\n3. Read the result …",
                TASK_EN,
                texts::PLACEHOLDER,
            ),
            (
                "Open the calculator and click at (0.52, 0.31) then at (0.61, 0.31) to enter the numbers.",
                TASK_EN,
                texts::COORDINATES,
            ),
            (
                "Open the calculator, click x=120 y=340 for seven, then press the equals button.",
                TASK_EN,
                texts::COORDINATES,
            ),
            (
                "打开计算器，在坐标 120,340 处点击数字七，然后点击等号按钮读出结果。",
                TASK_ZH,
                texts::COORDINATES,
            ),
            (
                "Name controls by their visible text. Never write control ids or screen coordinates. Write only what this run showed.",
                TASK_EN,
                texts::PROMPT_ECHO,
            ),
            (
                "Compute 7 times 8 in the calculator.",
                TASK_EN,
                texts::TASK_ECHO,
            ),
            (
                GOOD_EN,
                TASK_ZH,
                "the recipe is written in Latin script but the task in Chinese",
            ),
            (
                GOOD_ZH,
                TASK_EN,
                "the recipe is written in Chinese, Japanese or Korean script but the task in Latin",
            ),
            (
                "Откройте калькулятор, нажмите кнопки семь, умножить, восемь и равно.",
                TASK_EN,
                "the recipe is written in another script",
            ),
        ];
        for (recipe, task, want) in corpus {
            let got = reason(recipe, task);
            // Some reasons go on (the length, the other script): compare their start.
            let head: String = want.chars().take(40).collect();
            assert!(
                got.starts_with(&head),
                "{recipe:?}: got {got:?}, wanted {want:?}"
            );
        }
    }

    #[test]
    fn a_long_recipe_is_cut_at_a_sentence_end() {
        let long = format!("{GOOD_EN} ").repeat(40);
        let passed = check(&long, TASK_EN).unwrap();
        assert!(passed.recipe.chars().count() <= MAX_RECIPE_CHARS);
        assert!(
            passed.recipe.ends_with('.'),
            "{:?}",
            &passed.recipe[passed.recipe.len() - 20..]
        );
        assert!(
            passed
                .trimmed
                .unwrap()
                .starts_with("the recipe was cut from")
        );
    }
}
