//! The conversation sent to the model: plain messages, and image messages of which only the
//! newest few keep their images (older ones become a one-line placeholder).

use serde_json::{Value, json};

use crate::texts;

enum Entry {
    Plain(Value),
    /// Images; a pruned one is `None` (its bytes are not kept).
    Images {
        intro: String,
        uris: Vec<Option<String>>,
    },
}

/// The messages of a run.
pub struct Conversation {
    entries: Vec<Entry>,
    keep: usize,
}

impl Conversation {
    /// A conversation that keeps the newest `keep` images as images.
    pub fn new(keep: usize) -> Self {
        Conversation {
            entries: Vec::new(),
            keep,
        }
    }
}

impl Conversation {
    /// Appends a message as it is.
    pub fn push(&mut self, message: Value) {
        self.entries.push(Entry::Plain(message));
    }

    /// Appends one user message carrying images (data URIs) after an intro text.
    pub fn push_images(&mut self, uris: Vec<String>) {
        if uris.is_empty() {
            return;
        }
        self.entries.push(Entry::Images {
            intro: texts::images_follow(uris.len()),
            uris: uris.into_iter().map(Some).collect(),
        });
        // Forget the bytes of images that will never be sent again.
        let mut kept = 0;
        for entry in self.entries.iter_mut().rev() {
            if let Entry::Images { uris, .. } = entry {
                for uri in uris.iter_mut().rev() {
                    if uri.is_some() {
                        if kept < self.keep {
                            kept += 1;
                        } else {
                            *uri = None;
                        }
                    }
                }
            }
        }
    }

    /// The messages for a request: pruned images become a placeholder text part.
    pub fn request(&self) -> Vec<Value> {
        self.entries
            .iter()
            .map(|e| match e {
                Entry::Plain(v) => v.clone(),
                Entry::Images { intro, uris } => {
                    let mut parts = vec![json!({"type": "text", "text": intro})];
                    for uri in uris {
                        parts.push(match uri {
                            Some(u) => json!({"type": "image_url", "image_url": {"url": u}}),
                            None => json!({"type": "text", "text": texts::IMAGE_REMOVED}),
                        });
                    }
                    json!({"role": "user", "content": parts})
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_images_stay() {
        let mut c = Conversation::new(2);
        c.push(json!({"role": "user", "content": "go"}));
        c.push_images(vec!["data:a".into(), "data:b".into()]);
        c.push_images(vec!["data:c".into()]);
        let r = c.request();
        let images: Vec<&str> = r
            .iter()
            .flat_map(|m| m["content"].as_array().into_iter().flatten())
            .filter_map(|p| p["image_url"]["url"].as_str())
            .collect();
        assert_eq!(images, ["data:b", "data:c"]);
        assert_eq!(r[1]["content"][1]["text"], texts::IMAGE_REMOVED);
        assert_eq!(
            r[1]["content"][0]["text"],
            "The 2 images returned by the tool calls above, in order:"
        );
    }
}
