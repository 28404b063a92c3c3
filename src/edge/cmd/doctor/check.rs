//! What doctor's checks and fixes report: a check's [`Status`] and result, the
//! results of a group, what `--fix` did, and the whole [`Report`].

pub(super) const HOUR_MS: i64 = 3_600_000;

/// How a check came out: only `Fail` makes doctor exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    pub(super) fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        }
    }

    pub(super) fn json(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub status: Status,
    pub message: String,
}

/// The results of a group of checks, in the order they were made.
#[derive(Default)]
pub(super) struct Checks(pub(super) Vec<Check>);

impl Checks {
    pub(super) fn push(&mut self, name: &'static str, status: Status, message: impl Into<String>) {
        self.0.push(Check {
            name,
            status,
            message: message.into(),
        });
    }
}

/// What `--fix` did (or failed to do).
pub struct Fix {
    pub check: &'static str,
    pub action: String,
    pub done: bool,
}

/// Everything doctor found (and `--fix` did), ready to be shown.
pub struct Report {
    pub fixes: Vec<Fix>,
    pub checks: Vec<Check>,
    pub db_path: String,
    pub config_path: String,
    /// The settings in force, defaults included.
    pub settings: serde_json::Value,
}

impl Report {
    pub(super) fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
