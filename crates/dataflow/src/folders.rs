//! Where results go (seed 004): `RESULT_HUB/{task_type}/<bucket>/<task file name>`, the bucket
//! read off the result — `judge` for instantiation, `complete` for execution and dataflow; a null
//! result or an unknown value is a fail. Writes are atomic (a temporary file renamed), so an
//! interrupted run never leaves half a result, and a result saved again leaves no copy in another
//! bucket.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::{Config, Mode};
use crate::result::ResultDoc;

/// A result folder of a mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bucket {
    /// `instantiation_pass`: judged doable.
    InstantiationPass,
    /// `instantiation_fail`: judged not doable, or no judgement.
    InstantiationFail,
    /// `execution_pass`: `complete: yes`.
    ExecutionPass,
    /// `execution_fail`: `complete: no`, unknown, missing, or no evaluation.
    ExecutionFail,
    /// `execution_unsure`: `complete: unsure`.
    ExecutionUnsure,
}

/// How a task came out, for counting: the buckets folded to three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A pass bucket.
    Pass,
    /// A fail bucket.
    Fail,
    /// `execution_unsure`.
    Unsure,
}

impl Bucket {
    /// The folder name.
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::InstantiationPass => "instantiation_pass",
            Bucket::InstantiationFail => "instantiation_fail",
            Bucket::ExecutionPass => "execution_pass",
            Bucket::ExecutionFail => "execution_fail",
            Bucket::ExecutionUnsure => "execution_unsure",
        }
    }

    /// The buckets of `mode`, pass first.
    pub fn of_mode(mode: Mode) -> &'static [Bucket] {
        match mode {
            Mode::Instantiation => &[Bucket::InstantiationPass, Bucket::InstantiationFail],
            Mode::Execution | Mode::Dataflow => &[
                Bucket::ExecutionPass,
                Bucket::ExecutionFail,
                Bucket::ExecutionUnsure,
            ],
        }
    }

    /// The pass bucket of `mode` (what reformat reads).
    pub fn pass_of(mode: Mode) -> Bucket {
        Bucket::of_mode(mode)[0]
    }

    /// Pass, fail or unsure.
    pub fn verdict(self) -> Verdict {
        match self {
            Bucket::InstantiationPass | Bucket::ExecutionPass => Verdict::Pass,
            Bucket::InstantiationFail | Bucket::ExecutionFail => Verdict::Fail,
            Bucket::ExecutionUnsure => Verdict::Unsure,
        }
    }

    /// Where `doc` goes in `mode`.
    pub fn of_result(mode: Mode, doc: &ResultDoc) -> Bucket {
        match mode {
            Mode::Instantiation => match doc.judge() {
                Some(true) => Bucket::InstantiationPass,
                _ => Bucket::InstantiationFail,
            },
            Mode::Execution | Mode::Dataflow => {
                match doc
                    .execution_result()
                    .and_then(|r| r.get("complete"))
                    .and_then(Value::as_str)
                {
                    Some("yes") => Bucket::ExecutionPass,
                    Some("unsure") => Bucket::ExecutionUnsure,
                    _ => Bucket::ExecutionFail,
                }
            }
        }
    }
}

/// The result file of the task file `task_file` in `mode`'s `bucket`.
pub fn result_path(config: &Config, mode: Mode, bucket: Bucket, task_file: &Path) -> PathBuf {
    let name = task_file
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    config.result_dir(mode).join(bucket.as_str()).join(name)
}

/// The result `mode` already has for `task_file`, in whichever bucket.
pub fn existing_result(config: &Config, mode: Mode, task_file: &Path) -> Option<(Bucket, PathBuf)> {
    Bucket::of_mode(mode)
        .iter()
        .map(|b| (*b, result_path(config, mode, *b, task_file)))
        .find(|(_, p)| p.is_file())
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Saves `doc` for `task_file` into its bucket of `mode` (pretty JSON, atomically) and removes
/// the task's result from the mode's other buckets. Returns the bucket and the path.
pub fn save(
    config: &Config,
    mode: Mode,
    task_file: &Path,
    doc: &ResultDoc,
) -> std::io::Result<(Bucket, PathBuf)> {
    let bucket = Bucket::of_result(mode, doc);
    let path = result_path(config, mode, bucket, task_file);
    let mut text = serde_json::to_vec_pretty(&doc.value()).map_err(std::io::Error::other)?;
    text.push(b'\n');
    write_atomic(&path, &text)?;
    for other in Bucket::of_mode(mode).iter().filter(|b| **b != bucket) {
        let stale = result_path(config, mode, *other, task_file);
        if stale.is_file() {
            std::fs::remove_file(&stale)?;
        }
    }
    Ok((bucket, path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Task;
    use serde_json::json;

    fn doc() -> ResultDoc {
        ResultDoc::skeleton(&Task {
            name: "t".into(),
            file: "t.json".into(),
            unique_id: "1".into(),
            app: "word".into(),
            task: "x".into(),
            steps: vec![],
            prior: None,
        })
    }

    #[test]
    fn the_bucket_follows_judge_and_complete() {
        let mut d = doc();
        assert_eq!(
            Bucket::of_result(Mode::Instantiation, &d),
            Bucket::InstantiationFail
        );
        d.set_stage_result(
            "instantiation_evaluation",
            json!({"judge": true, "thought": "", "request_type": "None"}),
        );
        assert_eq!(
            Bucket::of_result(Mode::Instantiation, &d),
            Bucket::InstantiationPass
        );
        d.set_stage_result("instantiation_evaluation", json!({"judge": "true"}));
        assert_eq!(
            Bucket::of_result(Mode::Instantiation, &d),
            Bucket::InstantiationFail
        );
        for (complete, bucket) in [
            (json!("yes"), Bucket::ExecutionPass),
            (json!("no"), Bucket::ExecutionFail),
            (json!("unsure"), Bucket::ExecutionUnsure),
            (json!("maybe"), Bucket::ExecutionFail),
            (json!(true), Bucket::ExecutionFail),
        ] {
            d.set_execution_result(json!({"reason": "", "sub_scores": {}, "complete": complete}));
            assert_eq!(Bucket::of_result(Mode::Dataflow, &d), bucket, "{complete}");
        }
        d.set_execution_result(json!({"reason": ""}));
        assert_eq!(
            Bucket::of_result(Mode::Execution, &d),
            Bucket::ExecutionFail
        );
        d.set_execution_result(Value::Null);
        assert_eq!(
            Bucket::of_result(Mode::Execution, &d),
            Bucket::ExecutionFail
        );
    }

    #[test]
    fn saving_again_moves_the_result_between_buckets() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::defaults(dir.path());
        let mut d = doc();
        let (b, p) = save(&c, Mode::Dataflow, Path::new("/tasks/t.json"), &d).unwrap();
        assert_eq!(b, Bucket::ExecutionFail);
        assert_eq!(p, dir.path().join("results/dataflow/execution_fail/t.json"));
        d.set_execution_result(json!({"reason": "", "sub_scores": {}, "complete": "yes"}));
        let (b, p2) = save(&c, Mode::Dataflow, Path::new("t.json"), &d).unwrap();
        assert_eq!(b, Bucket::ExecutionPass);
        assert!(!p.exists() && p2.exists());
        assert_eq!(
            existing_result(&c, Mode::Dataflow, Path::new("t.json")),
            Some((Bucket::ExecutionPass, p2.clone()))
        );
        assert_eq!(
            existing_result(&c, Mode::Execution, Path::new("t.json")),
            None
        );
        let leftovers: Vec<_> = std::fs::read_dir(p2.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left");
    }
}
