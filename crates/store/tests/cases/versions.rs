//! A task's versions (written with every create and update, read newest first), the version a
//! run ran, and the task list's folders and tags.

use deft_store::{
    NewTask, NewTaskRun, Page, RunStart, Store, StoreError, TaskFilter, TaskTrigger, VersionCause,
    VersionStamp,
};
use serde_json::json;

fn task_in(name: &str, folder: &str, tags: &[&str]) -> NewTask {
    NewTask {
        name: name.into(),
        device: "local".into(),
        definition: json!({"name": name, "steps": [{"type": "wait", "seconds": 1}]}).to_string(),
        enabled: true,
        folder: folder.into(),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        notify: Default::default(),
    }
}

fn stamp(author: &str, cause: VersionCause, note: &str) -> VersionStamp {
    VersionStamp {
        author: author.into(),
        cause,
        note: note.into(),
    }
}

const ALL: Page = Page {
    limit: 100,
    offset: 0,
};

fn invalid(err: StoreError, text: &str) {
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    assert_eq!(err.to_string(), text);
}

pub async fn task_versions_on_create_update_and_restore(store: &Store) {
    let created = store
        .create_task(
            &task_in("nightly", "finance", &["Daily"]),
            &stamp("ada", VersionCause::Create, "first"),
        )
        .await
        .unwrap();
    assert_eq!(created.version, 1);
    let mut second = task_in("nightly", "finance/reports", &["Daily", "pdf"]);
    second.definition = json!({"name": "nightly", "steps": []}).to_string();
    let edited = store
        .update_task(
            &created.id,
            &second,
            &stamp("bob", VersionCause::Edit, "two steps"),
        )
        .await
        .unwrap();
    assert_eq!(edited.version, 2);
    assert_eq!(edited.folder, "finance/reports");
    assert_eq!(edited.tags, ["Daily", "pdf"]);
    assert_eq!(store.task(&created.id).await.unwrap(), edited);

    // A restore is an update with version 1's record: version 3, saying so.
    let v1 = store.task_version(&created.id, 1).await.unwrap();
    let back = NewTask {
        name: v1.name.clone(),
        device: v1.device.clone(),
        definition: v1.definition.clone(),
        enabled: v1.enabled,
        folder: v1.folder.clone(),
        tags: v1.tags.clone(),
        notify: edited.notify,
    };
    let restored = store
        .update_task(
            &created.id,
            &back,
            &stamp("ada", VersionCause::Restore, "restored from 1"),
        )
        .await
        .unwrap();
    assert_eq!(restored.version, 3);
    assert_eq!(restored.definition, created.definition);

    let page = store.task_versions(&created.id, ALL).await.unwrap();
    assert_eq!(page.total, 3);
    let seen: Vec<(i64, &str, VersionCause, &str)> = page
        .items
        .iter()
        .map(|v| (v.version, v.author.as_str(), v.cause, v.note.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (3, "ada", VersionCause::Restore, "restored from 1"),
            (2, "bob", VersionCause::Edit, "two steps"),
            (1, "ada", VersionCause::Create, "first"),
        ],
        "newest first"
    );
    let v2 = store.task_version(&created.id, 2).await.unwrap();
    assert_eq!(
        (v2.folder.as_str(), v2.tags.clone(), v2.definition.as_str()),
        (
            "finance/reports",
            vec!["Daily".to_owned(), "pdf".to_owned()],
            second.definition.as_str()
        )
    );
    let second_page = store
        .task_versions(
            &created.id,
            Page {
                limit: 1,
                offset: 1,
            },
        )
        .await
        .unwrap();
    assert_eq!(second_page.items[0].version, 2);

    let err = store.task_version(&created.id, 9).await.unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "task \"nightly\" has no version 9; its versions are 1 to 3"
    );
    let err = store.task_versions("ghost", ALL).await.unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");

    // A deleted task takes its versions along.
    store.delete_task(&created.id).await.unwrap();
    assert!(matches!(
        store.task_version(&created.id, 1).await.unwrap_err(),
        StoreError::NotFound(_)
    ));
}

/// A refused save writes no version.
pub async fn refused_saves_write_no_version(store: &Store) {
    store
        .create_task(&task_in("nightly", "", &[]), &super::created())
        .await
        .unwrap();
    let clash = store
        .create_task(&task_in("other", "", &[]), &super::created())
        .await
        .unwrap();
    store
        .update_task(&clash.id, &task_in("nightly", "", &[]), &super::edited())
        .await
        .unwrap_err();
    assert_eq!(store.task_versions(&clash.id, ALL).await.unwrap().total, 1);
    let blank = VersionStamp::new(" ", VersionCause::Edit);
    invalid(
        store
            .update_task(&clash.id, &task_in("other", "", &[]), &blank)
            .await
            .unwrap_err(),
        "a task version needs an author (the user, \"cli\" or \"api\")",
    );
    assert_eq!(store.task(&clash.id).await.unwrap().version, 1);
}

pub async fn task_runs_record_the_version_they_ran(store: &Store) {
    let task = store
        .create_task(&task_in("versioned", "", &[]), &super::created())
        .await
        .unwrap();
    store
        .update_task(&task.id, &task_in("versioned", "", &[]), &super::edited())
        .await
        .unwrap();
    let run = |version: Option<i64>, at: i64| NewTaskRun {
        task_id: task.id.clone(),
        trigger: TaskTrigger::Manual,
        schedule_id: None,
        fire_at_ms: None,
        device: None,
        variables: serde_json::Map::new(),
        started_at_ms: at,
        owner: None,
        task_version: version,
    };
    // The runner says which version it read; without it the run takes the task's.
    let RunStart::Started(read) = store.start_task_run(&run(Some(1), 1)).await.unwrap() else {
        panic!("busy");
    };
    assert_eq!(read.task_version, Some(1));
    store
        .finish_task_run(&read.id, deft_store::TaskRunStatus::Ok, None, 2)
        .await
        .unwrap();
    let RunStart::Started(current) = store.start_task_run(&run(None, 3)).await.unwrap() else {
        panic!("busy");
    };
    assert_eq!(current.task_version, Some(2));
    assert_eq!(
        store.task_run(&read.id).await.unwrap().task_version,
        Some(1)
    );
    let draft = store
        .start_draft_run(&deft_store::NewDraftRun {
            name: "draft".into(),
            device: "local".into(),
            variables: serde_json::Map::new(),
            started_at_ms: 4,
            owner: None,
        })
        .await
        .unwrap();
    let RunStart::Started(draft) = draft else {
        panic!("busy");
    };
    assert_eq!(draft.task_version, None, "a try runs no stored version");
}

pub async fn task_list_filters_by_folder_and_tag(store: &Store) {
    for (name, folder, tags) in [
        ("a", "finance", &["Daily"][..]),
        ("b", "finance/nightly", &["daily", "pdf"][..]),
        ("c", "finance_x", &["weekly"][..]),
        ("d", "", &[][..]),
        ("e", "ops/nightly", &["PDF"][..]),
    ] {
        store
            .create_task(&task_in(name, folder, tags), &super::created())
            .await
            .unwrap();
    }
    let names = |filter: TaskFilter| async move {
        let page = store.tasks(&filter, ALL).await.unwrap();
        assert_eq!(page.total as usize, page.items.len());
        page.items
            .into_iter()
            .map(|l| l.task.name)
            .collect::<Vec<_>>()
    };
    let folder = |f: &str| TaskFilter {
        folder: Some(f.into()),
        ..TaskFilter::default()
    };
    let tag = |t: &str| TaskFilter {
        tag: Some(t.into()),
        ..TaskFilter::default()
    };
    assert_eq!(
        names(folder("finance")).await,
        ["a", "b"],
        "subfolders in, finance_x out"
    );
    assert_eq!(names(folder("finance/nightly/")).await, ["b"]);
    assert_eq!(names(folder("ops")).await, ["e"]);
    assert_eq!(names(tag("DAILY")).await, ["a", "b"], "case ignored");
    assert_eq!(names(tag("pdf")).await, ["b", "e"]);
    assert_eq!(
        names(tag("pd")).await,
        Vec::<String>::new(),
        "whole tags only"
    );
    assert_eq!(
        names(TaskFilter {
            folder: Some("finance".into()),
            tag: Some("pdf".into()),
            name_contains: None,
        })
        .await,
        ["b"]
    );
    assert_eq!(names(TaskFilter::default()).await.len(), 5);

    let folders: Vec<(String, u64)> = store
        .task_folders()
        .await
        .unwrap()
        .into_iter()
        .map(|f| (f.folder, f.count))
        .collect();
    assert_eq!(
        folders,
        [
            ("finance".to_owned(), 2),
            ("finance/nightly".to_owned(), 1),
            ("finance_x".to_owned(), 1),
            ("ops".to_owned(), 1),
            ("ops/nightly".to_owned(), 1),
        ]
    );
    let tags: Vec<(String, u64)> = store
        .task_tags()
        .await
        .unwrap()
        .into_iter()
        .map(|t| (t.tag, t.count))
        .collect();
    assert_eq!(
        tags,
        [
            ("Daily".to_owned(), 2),
            ("pdf".to_owned(), 2),
            ("weekly".to_owned(), 1),
        ]
    );
}

pub async fn task_folders_and_tags_are_validated(store: &Store) {
    let create = |folder: &str, tags: Vec<String>| {
        let mut new = task_in("checked", folder, &[]);
        new.tags = tags;
        async move { store.create_task(&new, &super::created()).await }
    };
    invalid(
        create("finance//nightly", vec![]).await.unwrap_err(),
        "folder \"finance//nightly\" has an empty segment: write it as names joined by single \
         slashes, e.g. \"finance/nightly\"",
    );
    invalid(
        create("a/b/c/d/e/f/g/h/i", vec![]).await.unwrap_err(),
        "folder \"a/b/c/d/e/f/g/h/i\" is 9 levels deep; a folder has at most 8",
    );
    let long = "x".repeat(201);
    invalid(
        create(&long, vec![]).await.unwrap_err(),
        &format!(
            "folder {:?}… is 201 characters long; a folder path has at most 200",
            "x".repeat(40)
        ),
    );
    let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    invalid(
        create("", many).await.unwrap_err(),
        "21 tags given; a task has at most 20",
    );
    invalid(
        create("", vec!["y".repeat(41)]).await.unwrap_err(),
        &format!(
            "tag {:?} is 41 characters long; a tag has at most 40",
            "y".repeat(41)
        ),
    );
    invalid(
        create("", vec!["Daily".into(), "daily ".into()])
            .await
            .unwrap_err(),
        "tags \"Daily\" and \"daily\" are the same tag (case is ignored); keep one",
    );
    invalid(
        create("", vec!["  ".into()]).await.unwrap_err(),
        "a tag is blank: give each tag some text, or leave it out",
    );
    invalid(
        create("", vec!["say \"hi\"".into()]).await.unwrap_err(),
        "tag \"say \\\"hi\\\"\" holds a quote, a backslash, a comma or a control character; \
         use letters, digits, spaces, - _ . : / and the like",
    );
    invalid(
        create("", vec!["a,b".into()]).await.unwrap_err(),
        "tag \"a,b\" holds a quote, a backslash, a comma or a control character; use letters, \
         digits, spaces, - _ . : / and the like",
    );
    assert_eq!(
        store
            .tasks(&TaskFilter::default(), ALL)
            .await
            .unwrap()
            .total,
        0
    );
    // Stored trimmed, slashes at the ends dropped; 8 levels and 20 tags of 40 are fine.
    let deep = "a/b/c/d/e/f/g/h";
    let twenty: Vec<String> = (0..20).map(|i| format!("{i:0>40}")).collect();
    let task = create(&format!("/ {deep} /"), twenty.clone())
        .await
        .unwrap();
    assert_eq!((task.folder.as_str(), task.tags.clone()), (deep, twenty));
    invalid(
        store
            .tasks(
                &TaskFilter {
                    folder: Some("a//b".into()),
                    ..TaskFilter::default()
                },
                ALL,
            )
            .await
            .unwrap_err(),
        "folder \"a//b\" has an empty segment: write it as names joined by single slashes, \
         e.g. \"finance/nightly\"",
    );
}

/// An import stores every task with its schedules, or — when a write fails in the middle —
/// nothing at all.
pub async fn an_import_is_all_or_nothing(store: &Store) {
    use deft_store::{BusyPolicy, ImportTask, MisfirePolicy, NewSchedule, ScheduleKind};
    let schedule = NewSchedule {
        kind: ScheduleKind::Every { seconds: 60 },
        misfire: MisfirePolicy::RunOnce,
        busy: BusyPolicy::Skip,
        enabled: true,
        next_fire_at_ms: Some(1_000),
    };
    let existing = store
        .create_task(&task_in("taken", "", &[]), &super::created())
        .await
        .unwrap();
    store
        .create_schedule(&existing.id, &schedule)
        .await
        .unwrap();
    let item = |name: &str, replaces: Option<String>| ImportTask {
        task: task_in(name, "imported", &["moved"]),
        schedules: vec![schedule.clone()],
        replaces,
    };
    let imported = VersionStamp {
        author: "api".into(),
        cause: VersionCause::Import,
        note: "imported".into(),
    };
    // The third task's name is taken: the store refuses it after writing the first two.
    let err = store
        .import_tasks(
            &[item("one", None), item("two", None), item("taken", None)],
            &imported,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    let all = store.tasks(&TaskFilter::default(), ALL).await.unwrap();
    assert_eq!(all.total, 1, "nothing half-imported");
    assert_eq!(
        store.schedules_of_task(&existing.id).await.unwrap().len(),
        1
    );

    let stored = store
        .import_tasks(
            &[item("one", None), item("taken", Some(existing.id.clone()))],
            &imported,
        )
        .await
        .unwrap();
    assert_eq!(
        stored
            .iter()
            .map(|t| (t.name.as_str(), t.version))
            .collect::<Vec<_>>(),
        [("one", 1), ("taken", 2)]
    );
    assert_eq!(stored[1].id, existing.id, "replaced in place");
    assert_eq!(stored[1].folder, "imported");
    let v2 = store.task_version(&existing.id, 2).await.unwrap();
    assert_eq!(
        (v2.cause, v2.note.as_str()),
        (VersionCause::Import, "imported")
    );
    assert_eq!(
        store.schedules_of_task(&existing.id).await.unwrap().len(),
        1,
        "the document's schedules replace the task's"
    );
    assert_eq!(
        store.schedules_of_task(&stored[0].id).await.unwrap().len(),
        1
    );
}
