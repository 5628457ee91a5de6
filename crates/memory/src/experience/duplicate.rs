//! The near-duplicate a new experience is merged into: an experience at least
//! [`crate::MemoryConfig::merge_threshold`] alike (weighted Dice over character bigrams and
//! words, see [`crate::similar`]) in its task and title — the same kind of task, found through
//! the recall index — or in its recipe — the same way of doing it, whatever the task's wording.
//! Recipe candidates are the experiences whose recipe holds one of the new recipe's longest
//! sentences (the store's text search), each then compared whole.

use std::collections::HashSet;

use deft_store::{ExperienceFilter, Page};

use crate::Memory;
use crate::index::Hit;
use crate::similar::{dice, features};

/// Sentences of the new recipe searched for.
const PROBES: usize = 3;
/// Characters of a sentence searched for (its start).
const PROBE_CHARS: usize = 60;
/// Experiences read per searched sentence, most recently changed first.
const PER_PROBE: u32 = 20;

/// The most similar experience at least the merge threshold alike, by task and title or by
/// recipe; `None` when there is none, or when the library cannot be read (then the recipe is
/// saved as new, which the audit can flag).
pub(crate) async fn near_duplicate(
    memory: &Memory,
    task: &str,
    title: &str,
    recipe: &str,
) -> Option<Hit> {
    let threshold = memory.config().merge_threshold;
    let by_task = match memory.index().await {
        Ok(index) => {
            let query = features(task).union(&features(title));
            index.experiences(&query, threshold, 1).into_iter().next()
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot look for an experience of the same task");
            None
        }
    };
    let by_recipe = same_recipe(memory, recipe, threshold).await;
    [by_task, by_recipe]
        .into_iter()
        .flatten()
        .max_by(|a, b| a.score.total_cmp(&b.score))
}

/// The experience whose recipe is most like `recipe`, at least `threshold`.
async fn same_recipe(memory: &Memory, recipe: &str, threshold: f32) -> Option<Hit> {
    let wanted = features(recipe);
    let mut seen = HashSet::new();
    let mut best: Option<Hit> = None;
    for probe in probes(recipe) {
        let filter = ExperienceFilter {
            audit_state: None,
            text: Some(probe),
        };
        let page = Page {
            limit: PER_PROBE,
            offset: 0,
        };
        let found = match memory.store().experiences(&filter, page).await {
            Ok(found) => found.items,
            Err(e) => {
                tracing::warn!(error = %e, "cannot look for an experience of the same recipe");
                return best;
            }
        };
        for e in found {
            if !seen.insert(e.id.clone()) {
                continue;
            }
            let score = dice(&wanted, &features(&e.recipe));
            if score >= threshold && best.as_ref().is_none_or(|b| score > b.score) {
                best = Some(Hit { id: e.id, score });
            }
        }
    }
    best
}

/// The recipe's longest sentences (lines, or what ends in `.`, `!`, `?`, `;` or their CJK
/// forms), longest first, each cut to [`PROBE_CHARS`].
fn probes(recipe: &str) -> Vec<String> {
    let mut sentences: Vec<&str> = recipe
        .split(['\n', '.', '!', '?', ';', '。', '！', '？', '；'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    sentences.sort_by_key(|s| std::cmp::Reverse(s.chars().count()));
    sentences.dedup();
    sentences
        .into_iter()
        .take(PROBES)
        .map(|s| s.chars().take(PROBE_CHARS).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_sentences_are_searched_for() {
        let recipe = "1. Open gnome-calculator.\n2. Click 7, ×, 8 and = in its window.\n\
                      3. Read the display; it shows 56.";
        assert_eq!(
            probes(recipe),
            [
                "Click 7, ×, 8 and = in its window",
                "Open gnome-calculator",
                "Read the display"
            ]
        );
        let zh = "打开计算器。依次点击 7、×、8 和 =。读出结果";
        assert_eq!(probes(zh)[0], "依次点击 7、×、8 和 =");
        let long = "x".repeat(100);
        assert_eq!(probes(&long)[0].chars().count(), PROBE_CHARS);
        assert!(probes(" .\n ").is_empty());
    }
}
