//! Placeholder shapes of the rules configuration until the rule engine lands.
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RulesConfig {
    pub file: Vec<toml::Value>,
    pub command: Vec<toml::Value>,
    pub tool: Vec<toml::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GuardConfig {
    pub enabled: bool,
    pub allow: Vec<String>,
    pub deny: Vec<String>,
}
impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            enabled: true,
            allow: vec![],
            deny: vec![],
        }
    }
}
pub type Unused = BTreeMap<String, String>;
impl RulesConfig {
    pub fn validate(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}
