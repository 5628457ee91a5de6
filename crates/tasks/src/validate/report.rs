//! What the validator answers: every [`Issue`] (errors and warnings, each at its path), as
//! text for a person ([`Report`]'s `Display`) and as JSON for the API (`Serialize`).

use std::fmt;

use serde::Serialize;
use serde::ser::SerializeStruct;

/// One problem, at the path of the JSON value it is about (`steps[3].then[0].selector`; `""`
/// for the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Issue {
    /// Where: field names and list indexes from the top of the file.
    pub path: String,
    /// What is wrong and what to write instead.
    pub message: String,
    /// For malformed JSON: the line (from 1) where parsing stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// For malformed JSON: the column (from 1) where parsing stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Issue {
    /// An issue at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Issue {
            path: path.into(),
            message: message.into(),
            line: None,
            column: None,
        }
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Every error (the task is refused) and warning (valid, but suspect) the validator found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// What makes the task invalid, in document order.
    pub errors: Vec<Issue>,
    /// What is valid but likely a mistake, in document order.
    pub warnings: Vec<Issue>,
}

impl Report {
    /// No errors (warnings allowed).
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

impl Serialize for Report {
    /// `{"valid": bool, "errors": [{path, message}], "warnings": [{path, message}]}`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Report", 3)?;
        st.serialize_field("valid", &self.is_valid())?;
        st.serialize_field("errors", &self.errors)?;
        st.serialize_field("warnings", &self.warnings)?;
        st.end()
    }
}

impl schemars::JsonSchema for Report {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ValidationReport".into()
    }

    /// What `Serialize` writes: the verdict and both lists.
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let issues = generator.subschema_for::<Vec<Issue>>();
        schemars::json_schema!({
            "description": "The validator's report: valid when there is no error.",
            "type": "object",
            "properties": {
                "valid": {"type": "boolean"},
                "errors": issues,
                "warnings": issues,
            },
            "required": ["valid", "errors", "warnings"],
        })
    }
}

impl fmt::Display for Report {
    /// One line per issue (`error: path: message`, `warning: …`), then a count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.errors {
            writeln!(f, "error: {e}")?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        f.write_str(&crate::texts::report_summary(
            self.errors.len(),
            self.warnings.len(),
        ))
    }
}

impl std::error::Error for Report {}

/// The validator's answer: the typed value when there are no errors, and the report either
/// way.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation<T> {
    /// The task (or steps), when valid.
    pub value: Option<T>,
    /// Errors and warnings.
    pub report: Report,
}

impl<T> Validation<T> {
    /// The value and the warnings, or the report with the errors.
    pub fn into_result(self) -> Result<(T, Report), Report> {
        match self.value {
            Some(v) if self.report.is_valid() => Ok((v, self.report)),
            _ => Err(self.report),
        }
    }
}

impl<T> Serialize for Validation<T> {
    /// As [`Report`] (the API answers a validation with it).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.report.serialize(s)
    }
}

impl<T> fmt::Display for Validation<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.report.fmt(f)
    }
}
