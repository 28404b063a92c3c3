//! What the guard says about a call: every check that fired, each told as the agent and
//! a reader of the log see it.

/// How hard a check pushes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Let the user decide: nagger cannot vouch for the call.
    Ask,
    /// Refuse, every time.
    Deny,
}

/// One check that fired on a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Objection {
    /// The check's name, e.g. `guard:rm-rf`; `guard:deny:<pattern>` for a `[guard] deny`
    /// entry.
    pub check: String,
    pub severity: Severity,
    /// What the agent is told.
    pub message: String,
    /// Why it fired, for `nagger check` and logs.
    pub why: String,
}

/// What the guard says about one call: the checks that fired, each at most once, in the
/// order they were met. Empty when the call passes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    pub objections: Vec<Objection>,
}

impl Verdict {
    /// Whether some check refuses the call.
    pub fn denies(&self) -> bool {
        self.objections.iter().any(|o| o.severity == Severity::Deny)
    }

    /// Whether no check fired.
    pub fn passes(&self) -> bool {
        self.objections.is_empty()
    }
}
