//! How a doctor report is shown: one line per fix and check, or `--json`.

use super::check::{Report, Status, plural};
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

#[cfg(test)]
mod tests {
    use super::super::check::{Check, Fix};
    use super::*;

    fn report() -> Report {
        Report {
            fixes: vec![Fix {
                check: "database",
                action: "created /p/state.db".into(),
                done: true,
            }],
            checks: vec![
                Check {
                    name: "database",
                    status: Status::Ok,
                    message: "/p/state.db, 4.0 KiB (wal 0 B)".into(),
                },
                Check {
                    name: "settings",
                    status: Status::Fail,
                    message: "no nagger hook".into(),
                },
                Check {
                    name: "config",
                    status: Status::Warn,
                    message: "no config".into(),
                },
            ],
            db_path: "/p/state.db".into(),
            config_path: "/p/config.toml".into(),
            settings: json!({"log": {"retention_days": 7, "unset": null}}),
        }
    }

    #[test]
    fn the_human_report_is_one_aligned_line_per_fix_and_check() {
        assert_eq!(
            human(&report(), false),
            "fixed  database      created /p/state.db\n\
             ok     database      /p/state.db, 4.0 KiB (wal 0 B)\n\
             FAIL   settings      no nagger hook\n\
             warn   config        no config\n\
             nagger doctor: 1 problem, 1 warning"
        );
    }

    #[test]
    fn the_settings_in_force_are_shown_as_toml_without_empty_entries() {
        let shown = human(&report(), true);
        assert!(
            shown.contains(
                "# settings in force (defaults included), from /p/config.toml\n[log]\nretention_days = 7\n"
            ),
            "{shown}"
        );
        assert!(!shown.contains("unset"), "{shown}");
    }

    #[test]
    fn the_json_report_counts_and_lists_everything() {
        let v = json(&report());
        assert_eq!(v["ok"], false);
        assert_eq!(
            (v["problems"].clone(), v["warnings"].clone()),
            (json!(1), json!(1))
        );
        assert_eq!(
            v["fixed"][0],
            json!({"check": "database", "action": "created /p/state.db", "done": true})
        );
        assert_eq!(
            v["checks"][1],
            json!({"check": "settings", "status": "fail", "message": "no nagger hook"})
        );
        assert_eq!(v["settings"]["log"]["retention_days"], 7);
    }
}
