//! How a doctor report is shown: one line per fix and check, or `--json`.

use super::{Report, Status, plural};
use serde_json::{Value, json};

/// The human report: `fixed`/`ok`/`warn`/`FAIL`, the check's name, its message; the
/// settings in force when asked; a summary line.
pub fn human(report: &Report, show_settings: bool) -> String {
    let mut lines = Vec::new();
    for f in &report.fixes {
        let label = if f.done { "fixed" } else { "FAIL" };
        lines.push(format!("{label:<5}  {:<12}  {}", f.check, f.action));
    }
    for c in &report.checks {
        lines.push(format!(
            "{:<5}  {:<12}  {}",
            c.status.label(),
            c.name,
            c.message
        ));
    }
    if show_settings {
        lines.push(String::new());
        lines.push(format!(
            "# settings in force (defaults included), from {}",
            report.config_path
        ));
        lines.push(settings_toml(&report.settings).trim_end().to_string());
        lines.push(String::new());
    }
    let (problems, warnings) = (report.count(Status::Fail), report.count(Status::Warn));
    lines.push(format!(
        "nagger doctor: {} problem{}, {} warning{}",
        problems,
        plural(problems),
        warnings,
        plural(warnings)
    ));
    lines.join("\n")
}

/// The `--json` report (the settings in force always included).
pub fn json(report: &Report) -> Value {
    let problems = report.count(Status::Fail);
    json!({
        "ok": problems == 0,
        "problems": problems,
        "warnings": report.count(Status::Warn),
        "database": report.db_path,
        "config": report.config_path,
        "settings": report.settings,
        "fixed": report.fixes.iter().map(|f| json!({"check": f.check, "action": f.action, "done": f.done})).collect::<Vec<_>>(),
        "checks": report.checks.iter().map(|c| json!({"check": c.name, "status": c.status.json(), "message": c.message})).collect::<Vec<_>>(),
    })
}

/// The settings in force as TOML, defaults included (entries without a value left out).
fn settings_toml(settings: &serde_json::Value) -> String {
    fn without_nulls(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => serde_json::Value::Object(
                m.iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), without_nulls(v)))
                    .collect(),
            ),
            serde_json::Value::Array(a) => {
                serde_json::Value::Array(a.iter().map(without_nulls).collect())
            }
            other => other.clone(),
        }
    }
    toml::to_string(&without_nulls(settings))
        .unwrap_or_else(|e| format!("(cannot be shown as TOML: {e})\n"))
}
