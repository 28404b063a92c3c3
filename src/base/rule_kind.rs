//! The kinds of rule, as the database, `stats` and the hook log name them.

use serde::Serialize;

/// A kind of rule, as the database, `stats` and the hook log name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    File,
    Command,
    Tool,
    Guard,
    Recovery,
    #[serde(rename = "after_edit")]
    AfterEdit,
}

impl RuleKind {
    /// The name recorded in `rule_hits.rule_kind` and the hook log.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::File => "file",
            RuleKind::Command => "command",
            RuleKind::Tool => "tool",
            RuleKind::Guard => "guard",
            RuleKind::Recovery => "recovery",
            RuleKind::AfterEdit => "after_edit",
        }
    }

    /// The config table its rules are written in, as problems name it.
    pub fn table(self) -> &'static str {
        match self {
            RuleKind::File => "rules.file",
            RuleKind::Command => "rules.command",
            RuleKind::Tool => "rules.tool",
            RuleKind::Guard => "guard",
            RuleKind::Recovery => "rules.recovery",
            RuleKind::AfterEdit => "rules.after_edit",
        }
    }
}
