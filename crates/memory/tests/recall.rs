//! Recall over a real store: Chinese and English tasks find their own kind (character bigrams,
//! words), unrelated entries stay under the threshold, at most two experiences come back, best
//! first; actions come by name or alias; a run's start counts the hits; and the index follows
//! changes made through the store (another server's, too).

#![allow(clippy::unwrap_used)] // test code: an unwrap that fails is a failing test

mod common;

use std::collections::BTreeMap;

use common::world;
use deft_store::{NewAction, NewExperience};
use serde_json::json;

async fn experience(w: &common::World, task: &str, title: &str) -> String {
    w.store
        .create_experience(&NewExperience {
            task: task.into(),
            title: title.into(),
            recipe: format!("recipe for {task}"),
            source_run: None,
        })
        .await
        .unwrap()
        .id
}

async fn action(w: &common::World, name: &str, aliases: &[&str]) -> String {
    w.store
        .create_action(&NewAction {
            name: name.into(),
            aliases: aliases.iter().map(|a| (*a).to_owned()).collect(),
            description: String::new(),
            app: None,
            variables: BTreeMap::new(),
            steps: json!([{"type": "wait", "seconds": 0.01}]),
            source_run: None,
        })
        .await
        .unwrap()
        .id
}

fn ids<T>(found: &[(T, f32)], id: impl Fn(&T) -> &str) -> Vec<String> {
    found.iter().map(|(x, _)| id(x).to_owned()).collect()
}

/// `[id]` as the list `ids` returns.
fn one(id: &str) -> Vec<String> {
    vec![id.to_owned()]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chinese_and_english_tasks_recall_their_kind_best_two_first() {
    let w = world().await;
    let zh_exact = experience(&w, "在计算器里计算 7 乘 8", "计算器乘法").await;
    let zh_near = experience(&w, "在计算器里计算 12 乘 9", "计算器乘法").await;
    let zh_third = experience(&w, "用计算器计算 3 乘 4", "计算器乘法").await;
    let _zh_other = experience(&w, "在文件管理器里重命名报告", "重命名文件").await;
    let en = experience(
        &w,
        "rename the quarterly report in the file manager",
        "Rename a file",
    )
    .await;
    let _en_other = experience(&w, "send an email to the team", "Send mail").await;

    let r = w.memory.recall("在计算器里计算 7 乘 8").await.unwrap();
    let got = ids(&r.experiences, |e| &e.id);
    assert_eq!(got.len(), 2, "top 2 of three similar: {got:?}");
    assert_eq!(got[0], zh_exact, "the best first");
    assert!(got.contains(&zh_near) || got.contains(&zh_third));
    assert!(r.experiences[0].1 > r.experiences[1].1);
    assert!(r.experiences.iter().all(|(_, s)| *s >= 0.3));

    let r = w
        .memory
        .recall("Rename the quarterly report, please")
        .await
        .unwrap();
    assert_eq!(ids(&r.experiences, |e| &e.id), one(&en));

    let r = w.memory.recall("what is the weather today").await.unwrap();
    assert!(r.is_empty(), "nothing similar enough: {:?}", r.experiences);
    assert!(w.memory.recall("  ,.!? ").await.unwrap().is_empty());

    let sections = w
        .memory
        .recall("rename the quarterly report")
        .await
        .unwrap()
        .sections();
    assert_eq!(sections.len(), 1);
    assert!(sections[0].contains("### Rename a file\n(for the task: rename the quarterly report in the file manager)\nrecipe for"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_are_recalled_by_name_or_alias_in_either_language() {
    let w = world().await;
    let calc = action(&w, "Open the calculator", &["打开计算器"]).await;
    let search = action(&w, "Search the web", &["web search", "搜索网页"]).await;
    let _mail = action(&w, "Send an email", &[]).await;
    let r = w
        .memory
        .recall("帮我打开计算器，算一下 3 加 4")
        .await
        .unwrap();
    assert_eq!(ids(&r.actions, |a| &a.id), one(&calc));
    assert_eq!(r.actions[0].1, 1.0, "the alias is in the task");
    let r = w.memory.recall("please open the calculator").await.unwrap();
    assert_eq!(ids(&r.actions, |a| &a.id), [calc]);
    let r = w.memory.recall("do a web search for deft").await.unwrap();
    assert_eq!(ids(&r.actions, |a| &a.id), one(&search));
    let r = w.memory.recall("rename a file").await.unwrap();
    assert!(r.actions.is_empty(), "{:?}", r.actions);
    assert_eq!(
        w.memory
            .find_action("搜索网页")
            .await
            .unwrap()
            .map(|a| a.id),
        Some(search),
        "run_action finds an action by an alias"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_index_follows_the_store() {
    let w = world().await;
    assert!(
        w.memory
            .recall("rename the report")
            .await
            .unwrap()
            .is_empty()
    );
    let before = w.memory.index().await.unwrap();
    // A change through the store (as another server makes it) moves the generation on.
    let id = experience(&w, "rename the report", "Rename").await;
    let after = w.memory.index().await.unwrap();
    assert!(after.generation > before.generation);
    assert_eq!(after.len(), (1, 0));
    let again = w.memory.index().await.unwrap();
    assert!(
        std::sync::Arc::ptr_eq(&after, &again),
        "unchanged: the same index"
    );
    assert_eq!(
        ids(
            &w.memory
                .recall("rename the report")
                .await
                .unwrap()
                .experiences,
            |e| &e.id
        ),
        one(&id)
    );
    w.store.delete_experience(&id).await.unwrap();
    assert!(
        w.memory
            .recall("rename the report")
            .await
            .unwrap()
            .is_empty()
    );
}
