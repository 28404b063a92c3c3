//! The typed config: every section and its defaults, and what the rest of nagger asks
//! of it.

use crate::domain::guard::GuardConfig;
use crate::domain::rules::RulesConfig;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub session: SessionConfig,
    pub roles: BTreeMap<String, RoleConfig>,
    pub role_resolution: RoleResolution,
    pub rules: RulesConfig,
    pub guard: GuardConfig,
    pub context: ContextConfig,
    pub compress: CompressConfig,
    pub log: LogConfig,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// Refuse the first tool call with the conventions as the reason.
    #[default]
    Deny,
    /// Add the conventions as additionalContext without refusing the call.
    Context,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Message {
    pub title: String,
    pub text: String,
}

impl Message {
    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// "## title\n\ntext", or the text alone.
    pub fn render(&self) -> String {
        let text = self.text.trim_end();
        if self.title.trim().is_empty() {
            text.to_string()
        } else {
            format!("## {}\n{}", self.title.trim(), text)
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionConfig {
    pub enabled: bool,
    pub delivery: Delivery,
    pub token_threshold: u64,
    pub first_time: Message,
    pub repeated: Message,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            enabled: true,
            delivery: Delivery::Deny,
            token_threshold: 50_000,
            first_time: Message::default(),
            repeated: Message::default(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoleConfig {
    pub enabled: bool,
    pub title: String,
    pub text: String,
    /// Overrides `[session].delivery` for this role.
    pub delivery: Option<Delivery>,
}

impl Default for RoleConfig {
    fn default() -> Self {
        RoleConfig {
            enabled: true,
            title: String::new(),
            text: String::new(),
            delivery: None,
        }
    }
}

impl RoleConfig {
    pub fn message(&self) -> Message {
        Message {
            title: self.title.clone(),
            text: self.text.clone(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoleResolution {
    /// agent_type (or tag) prefix -> role; the longest matching prefix wins.
    pub prefixes: BTreeMap<String, String>,
    /// exact name -> role, checked before prefixes.
    pub aliases: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextConfig {
    pub enabled: bool,
    pub max_summary_chars: usize,
    pub max_entry_chars: usize,
    pub max_transcript_lines: usize,
    pub ttl_hours: u64,
    /// Categories each agent type (or role) receives; a type not listed gets all.
    pub filters: BTreeMap<String, Vec<String>>,
    /// agent type (or role) -> category of the results it stores.
    pub categories: BTreeMap<String, String>,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            enabled: true,
            max_summary_chars: 4000,
            max_entry_chars: 1200,
            max_transcript_lines: 500,
            ttl_hours: 24,
            filters: BTreeMap::new(),
            categories: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompressConfig {
    pub enabled: bool,
    pub marker: String,
    /// Agent types (globs) whose stop is checked; "*" = all.
    pub types: Vec<String>,
    pub reviewer_types: Vec<String>,
    pub max_lines: usize,
    pub reviewer_max_lines: usize,
}

impl Default for CompressConfig {
    fn default() -> Self {
        CompressConfig {
            enabled: true,
            marker: "[COMPRESSED]".into(),
            types: vec!["*".into()],
            reviewer_types: vec!["reviewer".into()],
            max_lines: 10,
            reviewer_max_lines: 20,
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    pub retention_days: u64,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig { retention_days: 30 }
    }
}

impl Config {
    /// Every setting in force, defaults included, as JSON (`nagger doctor`).
    pub fn effective(&self) -> serde_json::Value {
        use serde_json::json;
        let pattern_rule = |r: &crate::domain::rules::PatternRule| {
            json!({
                "name": r.name, "patterns": r.patterns, "exclude": r.exclude,
                "severity": r.severity.as_str(), "token_threshold": r.token_threshold,
                "scope": r.scope, "message": r.message,
            })
        };
        let tool_rule = |r: &crate::domain::rules::ToolRule| {
            json!({
                "name": r.name, "tool": r.tool, "input": r.input,
                "severity": r.severity.as_str(), "token_threshold": r.token_threshold,
                "scope": r.scope, "message": r.message,
            })
        };
        json!({
            "session": self.session,
            "roles": self.roles,
            "role_resolution": self.role_resolution,
            "rules": {
                "file": self.rules.file.iter().map(pattern_rule).collect::<Vec<_>>(),
                "command": self.rules.command.iter().map(pattern_rule).collect::<Vec<_>>(),
                "tool": self.rules.tool.iter().map(tool_rule).collect::<Vec<_>>(),
                "recovery": self.rules.recovery.iter().map(|r| json!({
                    "name": r.name, "tool": r.tool, "error": r.error,
                    "token_threshold": r.token_threshold, "scope": r.scope, "message": r.message,
                })).collect::<Vec<_>>(),
                "after_edit": self.rules.after_edit.iter().map(|r| json!({
                    "name": r.name, "patterns": r.patterns, "exclude": r.exclude,
                    "added": r.added, "severity": r.severity,
                    "token_threshold": r.token_threshold, "scope": r.scope, "message": r.message,
                })).collect::<Vec<_>>(),
                "builtin_recovery": self.rules.builtin_recovery,
            },
            "guard": {
                "enabled": self.guard.enabled,
                "allow": self.guard.allow,
                "deny": self.guard.deny,
                "secrets": self.guard.secrets,
                "shell_tools": self.guard.shell_tools,
            },
            "context": self.context,
            "compress": self.compress,
            "log": self.log,
        })
    }

    /// The configured conventions of a subagent: `roles.<role>`, then
    /// `roles.<agent_type>`, then `roles.default`. None when disabled or empty.
    pub fn role_conventions(
        &self,
        role: Option<&str>,
        agent_type: &str,
    ) -> Option<(&str, &RoleConfig)> {
        let candidates = [role, Some(agent_type)];
        for name in candidates.into_iter().flatten() {
            if let Some((key, rc)) = self.roles.get_key_value(name) {
                return (rc.enabled && !rc.text.trim().is_empty()).then_some((key.as_str(), rc));
            }
        }
        self.roles
            .get("default")
            .filter(|rc| rc.enabled && !rc.text.trim().is_empty())
            .map(|rc| ("default", rc))
    }
}
