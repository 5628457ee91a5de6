//! The committed JSON Schema (docs/task.schema.json) is the one the types generate
//! (`DEFT_UPDATE_SCHEMA=1` rewrites it).

use std::path::PathBuf;

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/task.schema.json")
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let generated = deft_tasks::schema::task_schema_text();
    let path = schema_path();
    if std::env::var_os("DEFT_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the schema the step types generate; run `DEFT_UPDATE_SCHEMA=1 cargo test -p deft-tasks --test schema` and commit it",
        path.display()
    );
}
