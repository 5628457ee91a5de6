//! Recall at a run's start over a big library: 10,000 experiences and 10,000 actions (Chinese
//! and English task texts) in a SQLite file; the recall index's build, then recall p50 / p95 /
//! worst over a few hundred tasks (the store's generation check, the index, reading the hits'
//! rows), the hit counting beside it, and the index's size. The issue's target: ≤ 5 ms p50.
//! Prints, asserts nothing.
//!
//!     cargo bench -p deft-memory --bench recall

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // a benchmark's set-up failing is its failure

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use deft_memory::{Memory, MemoryConfig};
use deft_store::{NewAction, NewExperience, Store};
use serde_json::json;

const EXPERIENCES: usize = 10_000;
const ACTIONS: usize = 10_000;
const QUERIES: usize = 400;

const APPS_EN: &[&str] = &[
    "calculator",
    "text editor",
    "file manager",
    "browser",
    "mail client",
    "spreadsheet",
    "terminal",
    "music player",
    "calendar",
    "image viewer",
    "settings",
    "chat app",
];
const VERBS_EN: &[&str] = &[
    "open",
    "rename",
    "search for",
    "compute",
    "send",
    "export",
    "sort",
    "delete",
    "copy",
    "print",
    "share",
    "save",
];
const APPS_ZH: &[&str] = &[
    "计算器",
    "文本编辑器",
    "文件管理器",
    "浏览器",
    "邮件",
    "表格",
    "终端",
    "音乐",
    "日历",
    "相册",
    "设置",
    "微信",
];
const VERBS_ZH: &[&str] = &[
    "打开",
    "重命名",
    "搜索",
    "计算",
    "发送",
    "导出",
    "排序",
    "删除",
    "复制",
    "打印",
    "分享",
    "保存",
];
const THINGS: &[&str] = &[
    "the quarterly report",
    "7 × 8",
    "the invoice 2024-117",
    "photos from Suzhou",
    "the notes",
    "a reminder for Monday",
    "the team list",
    "the backup folder",
    "today's orders",
    "the draft",
];

/// The `i`th task text: Chinese for odd `i`, English for even.
fn task(i: usize) -> String {
    let thing = THINGS[i % THINGS.len()];
    if i % 2 == 1 {
        let (v, a) = (
            VERBS_ZH[i / 3 % VERBS_ZH.len()],
            APPS_ZH[i / 7 % APPS_ZH.len()],
        );
        format!("在{a}里{v}{thing}（第 {i} 号）")
    } else {
        let (v, a) = (
            VERBS_EN[i / 3 % VERBS_EN.len()],
            APPS_EN[i / 7 % APPS_EN.len()],
        );
        format!("{v} {thing} in the {a} (case {i})")
    }
}

async fn fill(store: &Store) -> Duration {
    let started = Instant::now();
    for i in 0..EXPERIENCES {
        store
            .create_experience(&NewExperience {
                task: task(i),
                title: format!("Recipe {i}"),
                recipe: format!("Open the app, find the control by its name, do it. ({i})"),
                source_run: None,
            })
            .await
            .unwrap();
    }
    for i in 0..ACTIONS {
        let (v, a) = (
            VERBS_EN[i % VERBS_EN.len()],
            APPS_EN[i / 12 % APPS_EN.len()],
        );
        store
            .create_action(&NewAction {
                name: format!("{v} in the {a} #{i}"),
                aliases: vec![format!("{}{} {i}", VERBS_ZH[i % 12], APPS_ZH[i / 12 % 12])],
                description: String::new(),
                app: None,
                variables: BTreeMap::new(),
                steps: json!([{"type": "wait", "seconds": 0.1}]),
                source_run: None,
            })
            .await
            .unwrap();
    }
    started.elapsed()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), None).await.unwrap();
        let filled = fill(&store).await;
        println!(
            "filled {EXPERIENCES} experiences and {ACTIONS} actions in {:.1} s",
            filled.as_secs_f64()
        );
        let memory = Memory::new(store.clone(), MemoryConfig::default());
        let started = Instant::now();
        let ex = store.experience_keys().await.unwrap();
        let ac = store.action_keys().await.unwrap();
        let read = started.elapsed();
        let started = Instant::now();
        let built = deft_memory::RecallIndex::build(0, &ex, &ac);
        println!(
            "reading the recall keys: {:.1} ms; building the index from them: {:.1} ms ({:?} entries)",
            ms(read),
            ms(started.elapsed()),
            built.len()
        );
        let started = Instant::now();
        let index = memory.index().await.unwrap();
        println!(
            "recall index built in {:.1} ms ({} experiences, {} actions)",
            ms(started.elapsed()),
            index.len().0,
            index.len().1
        );

        // One more experience (what a distilled run adds): the next recall rebuilds the index.
        let mut rebuilds = Vec::new();
        for i in 0..5 {
            store
                .create_experience(&NewExperience {
                    task: format!("one more task {i}"),
                    title: "t".into(),
                    recipe: "r".into(),
                    source_run: None,
                })
                .await
                .unwrap();
            let t = Instant::now();
            memory.recall("one more task").await.unwrap();
            rebuilds.push(t.elapsed());
        }
        rebuilds.sort();
        println!(
            "the first recall after a change (rebuilds the index): median {:.1} ms",
            ms(rebuilds[2])
        );

        let mut recall = Vec::with_capacity(QUERIES);
        let mut hits = Vec::with_capacity(QUERIES);
        let (mut found_ex, mut found_ac) = (0, 0);
        for q in 0..QUERIES {
            // Tasks like stored ones, and some like none.
            let goal = if q % 4 == 3 {
                format!("what is the weather like on day {q}")
            } else {
                task(q * 37 % EXPERIENCES)
            };
            let t = Instant::now();
            let r = memory.recall(&goal).await.unwrap();
            recall.push(t.elapsed());
            found_ex += r.experiences.len();
            found_ac += r.actions.len();
            let t = Instant::now();
            memory.count_hits(&r).await.unwrap();
            hits.push(t.elapsed());
        }
        recall.sort();
        hits.sort();
        let pct = |v: &[Duration], p: usize| ms(v[(v.len() * p / 100).min(v.len() - 1)]);
        println!(
            "recall over {QUERIES} tasks: p50 {:.3} ms, p95 {:.3} ms, worst {:.3} ms (target ≤ 5 ms p50); {:.2} experiences and {:.2} actions recalled per task",
            pct(&recall, 50),
            pct(&recall, 95),
            ms(recall[recall.len() - 1]),
            found_ex as f64 / QUERIES as f64,
            found_ac as f64 / QUERIES as f64,
        );
        println!(
            "counting the hits: p50 {:.3} ms, p95 {:.3} ms",
            pct(&hits, 50),
            pct(&hits, 95)
        );
        store.close().await;
    });
}
