//! The recall index: an inverted index from feature hash to the entries that have it, so a task
//! is compared with ten thousand experiences and actions by touching only the entries that share
//! a feature with it. Built from the store's recall keys and rebuilt when the store's memory
//! generation moves (another server, or this one, changed what recall compares).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use deft_store::{ActionKey, ExperienceKey};

use crate::similar::{Features, containment_of, dice_of, features, fold, weight_of};

/// The postings' hasher: the keys are feature hashes already, so hashing them again (SipHash)
/// would only cost time.
#[derive(Default)]
struct FeatureHasher(u64);

impl Hasher for FeatureHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u32(&mut self, n: u32) {
        // Spread the 32 bits over the 64 the table takes its buckets from.
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Postings = HashMap<u32, Vec<u32>, BuildHasherDefault<FeatureHasher>>;

/// One indexed text.
#[derive(Debug)]
struct Entry {
    /// Which experience or action it belongs to (index into `ids`).
    owner: u32,
    /// Its total feature weight.
    weight: u32,
    /// The text folded for substring checks (action labels only).
    folded: String,
}

/// Features → entries, over one library.
#[derive(Debug, Default)]
struct Inverted {
    ids: Vec<String>,
    entries: Vec<Entry>,
    postings: Postings,
}

impl Inverted {
    fn owner(&mut self, id: &str) -> u32 {
        self.ids.push(id.to_owned());
        (self.ids.len() - 1) as u32
    }

    fn add(&mut self, owner: u32, f: &Features, folded: String) {
        let entry = self.entries.len() as u32;
        for h in &f.hashes {
            self.postings.entry(*h).or_default().push(entry);
        }
        self.entries.push(Entry {
            owner,
            weight: f.weight,
            folded,
        });
    }

    /// The weight each touched entry shares with `query`: `(entry, shared)`.
    fn shared(&self, query: &Features) -> Vec<(u32, u32)> {
        let mut acc = vec![0u32; self.entries.len()];
        let mut touched = Vec::new();
        for h in &query.hashes {
            let Some(list) = self.postings.get(h) else {
                continue;
            };
            let w = weight_of(*h);
            for &e in list {
                let slot = &mut acc[e as usize];
                if *slot == 0 {
                    touched.push(e);
                }
                *slot += w;
            }
        }
        touched.into_iter().map(|e| (e, acc[e as usize])).collect()
    }
}

/// A match: the entry's id and how similar it is, 0–1.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The experience's or action's id.
    pub id: String,
    /// The similarity.
    pub score: f32,
}

/// The recall index of both libraries, as of one memory generation.
#[derive(Debug, Default)]
pub struct RecallIndex {
    /// The store's memory generation it was built at.
    pub generation: u64,
    experiences: Inverted,
    actions: Inverted,
    /// Action names and aliases, folded, to the action's id.
    labels: HashMap<String, String>,
}

impl RecallIndex {
    /// Builds the index from the libraries' recall keys.
    pub fn build(generation: u64, experiences: &[ExperienceKey], actions: &[ActionKey]) -> Self {
        let mut ex = Inverted::default();
        for key in experiences {
            let owner = ex.owner(&key.id);
            let f = features(&key.task).union(&features(&key.title));
            ex.add(owner, &f, String::new());
        }
        let mut ac = Inverted::default();
        let mut labels = HashMap::new();
        for key in actions {
            let owner = ac.owner(&key.id);
            for label in std::iter::once(&key.name).chain(&key.aliases) {
                ac.add(owner, &features(label), fold(label));
                labels.entry(fold(label)).or_insert_with(|| key.id.clone());
            }
        }
        RecallIndex {
            generation,
            experiences: ex,
            actions: ac,
            labels,
        }
    }

    /// The id of the action named `label` (its name or an alias, compared folded); when two
    /// actions share a label, the one first in id order.
    pub fn action_by_label(&self, label: &str) -> Option<&str> {
        self.labels.get(&fold(label)).map(String::as_str)
    }

    /// How many experiences and actions it holds.
    pub fn len(&self) -> (usize, usize) {
        (self.experiences.ids.len(), self.actions.ids.len())
    }

    /// Experiences whose task and title are like `query` (weighted Dice) at least
    /// `threshold`, the best `top`, best first.
    pub fn experiences(&self, query: &Features, threshold: f32, top: usize) -> Vec<Hit> {
        let inv = &self.experiences;
        let hits = inv.shared(query).into_iter().map(|(e, shared)| {
            let entry = &inv.entries[e as usize];
            (entry.owner, dice_of(shared, query.weight, entry.weight))
        });
        best(&inv.ids, hits, threshold, top)
    }

    /// Actions whose name or an alias the task `query` (folded: `folded`) names: the label
    /// within the task as a substring scores 1; else the larger of how much of the label the
    /// task holds and how alike the two are. At least `threshold`, the best `top`.
    pub fn actions(&self, query: &Features, folded: &str, threshold: f32, top: usize) -> Vec<Hit> {
        let inv = &self.actions;
        let hits = inv.shared(query).into_iter().map(|(e, shared)| {
            let entry = &inv.entries[e as usize];
            let substring = entry.folded.chars().count() >= 2 && folded.contains(&entry.folded);
            let score = if substring {
                1.0
            } else {
                containment_of(shared, entry.weight).max(dice_of(
                    shared,
                    query.weight,
                    entry.weight,
                ))
            };
            (entry.owner, score)
        });
        best(&inv.ids, hits, threshold, top)
    }
}

/// The best score per owner, those at least `threshold`, the best `top` (ties: by id).
fn best(
    ids: &[String],
    hits: impl Iterator<Item = (u32, f32)>,
    threshold: f32,
    top: usize,
) -> Vec<Hit> {
    let mut per_owner: HashMap<u32, f32> = HashMap::new();
    for (owner, score) in hits {
        if score >= threshold {
            let s = per_owner.entry(owner).or_insert(0.0);
            *s = s.max(score);
        }
    }
    let mut out: Vec<Hit> = per_owner
        .into_iter()
        .map(|(owner, score)| Hit {
            id: ids[owner as usize].clone(),
            score,
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    out.truncate(top);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(id: &str, task: &str) -> ExperienceKey {
        ExperienceKey {
            id: id.into(),
            task: task.into(),
            title: String::new(),
        }
    }

    #[test]
    fn experiences_rank_by_dice_above_the_threshold() {
        let index = RecallIndex::build(
            1,
            &[
                ex("a", "打开计算器计算 7 乘 8"),
                ex("b", "打开计算器计算 12 乘 7"),
                ex("c", "rename the report file"),
            ],
            &[],
        );
        let q = features("打开计算器，计算 7 乘 8");
        let hits = index.experiences(&q, 0.3, 2);
        assert_eq!(
            hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(hits[0].score > hits[1].score);
        assert!(index.experiences(&q, 0.99, 2).is_empty());
        assert!(index.experiences(&features("xyz"), 0.1, 2).is_empty());
    }

    #[test]
    fn an_action_is_found_by_its_name_or_an_alias() {
        let index = RecallIndex::build(
            1,
            &[],
            &[ActionKey {
                id: "open".into(),
                name: "Open the calculator".into(),
                aliases: vec!["打开计算器".into()],
            }],
        );
        let by_alias = features("帮我打开计算器算 3+4");
        let hits = index.actions(&by_alias, &fold("帮我打开计算器算 3+4"), 0.5, 3);
        assert_eq!(hits[0].score, 1.0, "the alias is a substring");
        let by_name = "please open the calculator";
        let hits = index.actions(&features(by_name), &fold(by_name), 0.5, 3);
        assert_eq!(hits.len(), 1);
        let unrelated = "delete the report";
        assert!(
            index
                .actions(&features(unrelated), &fold(unrelated), 0.5, 3)
                .is_empty()
        );
        assert_eq!(index.len(), (0, 1));
    }
}
