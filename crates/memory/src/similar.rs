//! How alike two texts are, for Chinese and English alike (seed 001 §4.2): a text becomes a set
//! of features — character bigrams inside runs of CJK characters (a lone CJK character counts on
//! its own), and for Latin text each word plus the character bigrams inside it — each hashed to
//! 32 bits. Words weigh 2, bigrams and lone characters 1. Two measures over the weighted sets:
//! [`dice`] (how alike two texts are as a whole: experiences) and [`containment`] (how much of a
//! short label a long text holds: an action's name in a task).

/// Weight of a word feature.
const WORD_WEIGHT: u32 = 2;
/// Weight of a bigram or a lone CJK character.
const CHAR_WEIGHT: u32 = 1;

/// A text's features: sorted, without repeats, each with its weight in its lowest bit (1: a
/// word), and their total weight.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Features {
    /// Hashes, sorted and unique.
    pub hashes: Vec<u32>,
    /// Sum of their weights.
    pub weight: u32,
}

impl Features {
    /// No features (an empty or punctuation-only text).
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The union of two feature sets.
    pub fn union(&self, other: &Features) -> Features {
        let mut hashes = self.hashes.clone();
        hashes.extend_from_slice(&other.hashes);
        Features::from_hashes(hashes)
    }

    fn from_hashes(mut hashes: Vec<u32>) -> Features {
        hashes.sort_unstable();
        hashes.dedup();
        let weight = hashes.iter().map(|h| weight_of(*h)).sum();
        Features { hashes, weight }
    }
}

/// The weight a feature hash carries.
pub fn weight_of(hash: u32) -> u32 {
    if hash & 1 == 1 {
        WORD_WEIGHT
    } else {
        CHAR_WEIGHT
    }
}

/// Whether `c` is written in a CJK script (Han, kana, Hangul, CJK punctuation excluded).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F  // Extensions B–F, compatibility supplement
    )
}

/// The features of `text` (see the module docs).
pub fn features(text: &str) -> Features {
    let lower = text.to_lowercase();
    let mut hashes = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let mut run_cjk = false;
    let flush = |run: &mut Vec<char>, cjk: bool, hashes: &mut Vec<u32>| {
        match (cjk, run.len()) {
            (_, 0) => {}
            (true, 1) => hashes.push(hash(b'u', &run[..1], false)),
            (true, _) => hashes.extend(run.windows(2).map(|w| hash(b'b', w, false))),
            (false, n) => {
                hashes.push(hash(b'w', run, true));
                if n >= 2 {
                    hashes.extend(run.windows(2).map(|w| hash(b'b', w, false)));
                }
            }
        }
        run.clear();
    };
    for c in lower.chars() {
        let cjk = is_cjk(c);
        let word = !cjk && c.is_alphanumeric();
        if !(cjk || word) {
            flush(&mut run, run_cjk, &mut hashes);
            continue;
        }
        if !run.is_empty() && cjk != run_cjk {
            flush(&mut run, run_cjk, &mut hashes);
        }
        run_cjk = cjk;
        run.push(c);
    }
    flush(&mut run, run_cjk, &mut hashes);
    Features::from_hashes(hashes)
}

/// FNV-1a over a tag and the characters; the lowest bit says whether it is a word.
fn hash(tag: u8, chars: &[char], word: bool) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    let mut eat = |b: u8| {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    };
    eat(tag);
    let mut buf = [0u8; 4];
    for c in chars {
        for b in c.encode_utf8(&mut buf).bytes() {
            eat(b);
        }
    }
    (h & !1) | u32::from(word)
}

/// The weight the two sets share.
pub fn shared_weight(a: &Features, b: &Features) -> u32 {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.hashes.len() && j < b.hashes.len() {
        match a.hashes[i].cmp(&b.hashes[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += weight_of(a.hashes[i]);
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// Weighted Dice coefficient, 0–1: twice the shared weight over both weights.
pub fn dice(a: &Features, b: &Features) -> f32 {
    dice_of(shared_weight(a, b), a.weight, b.weight)
}

/// Dice from the shared weight and the two totals.
pub fn dice_of(shared: u32, a: u32, b: u32) -> f32 {
    if a + b == 0 {
        0.0
    } else {
        (2 * shared) as f32 / (a + b) as f32
    }
}

/// How much of `part` `whole` holds, 0–1.
pub fn containment(part: &Features, whole: &Features) -> f32 {
    containment_of(shared_weight(part, whole), part.weight)
}

/// Containment from the shared weight and the part's total.
pub fn containment_of(shared: u32, part: u32) -> f32 {
    if part == 0 {
        0.0
    } else {
        shared as f32 / part as f32
    }
}

/// `text` as compared for substrings: lower case, runs of anything but letters and digits made
/// one space, trimmed.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.to_lowercase().chars() {
        if c.is_alphanumeric() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        } else {
            space = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_text_becomes_bigrams_and_latin_text_words_and_bigrams() {
        // 打开计算器 → 打开 开计 计算 算器 (4 bigrams); "7" a word (2) with no bigram.
        let f = features("打开计算器 7");
        assert_eq!(f.hashes.len(), 5);
        assert_eq!(f.weight, 4 + WORD_WEIGHT);
        // "open" → word + op pe en; "it" → word + it.
        let g = features("Open it!");
        assert_eq!(g.hashes.len(), 2 + 3 + 1);
        assert_eq!(g.weight, 2 * WORD_WEIGHT + 4);
        assert_eq!(
            features("字").hashes.len(),
            1,
            "a lone CJK character counts"
        );
        assert!(features(" ,.!? ").is_empty());
    }

    #[test]
    fn case_and_punctuation_do_not_matter() {
        assert_eq!(
            features("Open, the CALCULATOR."),
            features("open the calculator")
        );
    }

    #[test]
    fn dice_and_containment() {
        let a = features("打开计算器，计算 7 乘以 8");
        let b = features("打开计算器算一下 7 乘 8");
        let c = features("删除桌面上的文件");
        assert!(dice(&a, &b) > 0.5, "{}", dice(&a, &b));
        assert!(dice(&a, &c) < 0.1, "{}", dice(&a, &c));
        assert!((dice(&a, &a) - 1.0).abs() < f32::EPSILON);
        let name = features("Open calculator");
        let task = features("please open the calculator and compute 7 times 8");
        assert!((containment(&name, &task) - 1.0).abs() < f32::EPSILON);
        assert!(containment(&task, &name) < 0.5);
        assert_eq!(dice(&Features::default(), &Features::default()), 0.0);
    }

    #[test]
    fn folding_keeps_letters_and_digits() {
        assert_eq!(fold("  Open — the  Calc-App!"), "open the calc app");
        assert_eq!(fold("打开 计算器"), "打开 计算器");
    }
}
