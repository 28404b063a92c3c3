//! A tool call whose input is not shaped as its tool takes it: a shell tool's `command`
//! that is no string, a path that is no string, an input that is no object. What would
//! run, or which file would be written, cannot be read from it, so the guard asks
//! instead of passing it unread.

use crate::base::text::json_kind;
use serde_json::Value;

use super::verdict::{Objection, Severity};

/// The fields of a tool input that name a file or folder.
const PATH_FIELDS: [&str; 3] = ["file_path", "notebook_path", "path"];

/// Tools whose input names the file they write.
const FILE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// The objection to a call whose input the guard cannot read, if it is one.
pub(super) fn unreadable(
    shell_tools: &[String],
    tool_name: &str,
    input: &Value,
) -> Option<Objection> {
    let shell = shell_tools.iter().any(|t| t == tool_name);
    let what = match input {
        Value::Object(fields) => {
            if let Some(command) = fields
                .get("command")
                .filter(|v| shell && !v.is_string() && !v.is_null())
            {
                format!("its `command` is {}, not a string", json_kind(command))
            } else if shell && fields.get("command").is_none_or(Value::is_null) {
                // A shell call runs something: what, it does not say.
                "it gives no `command`".to_owned()
            } else if let Some((field, value)) = PATH_FIELDS.iter().find_map(|f| {
                fields
                    .get(*f)
                    .filter(|v| !v.is_string() && !v.is_null())
                    .map(|v| (f, v))
            }) {
                format!("its `{field}` is {}, not a string", json_kind(value))
            } else {
                return None;
            }
        }
        // A shell call without input runs something nagger cannot read; another tool's
        // absent input writes nothing.
        Value::Null if shell => "it gives no input".to_owned(),
        Value::Null => return None,
        other if shell || FILE_TOOLS.contains(&tool_name) => {
            format!("its input is {}, not an object", json_kind(other))
        }
        _ => return None,
    };
    Some(Objection {
        check: "guard:unreadable-input".to_string(),
        severity: Severity::Ask,
        message: format!(
            "nagger cannot check this {tool_name} call: {what}. Confirm only if you know what it does."
        ),
        why: format!("{tool_name} input not as the tool takes it: {what}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn asks(tool: &str, input: &Value) -> bool {
        unreadable(&["Bash".to_string()], tool, input).is_some_and(|o| o.severity == Severity::Ask)
    }

    #[test]
    fn inputs_not_shaped_as_the_tool_takes_them_are_asked_about() {
        for command in [
            json!(5),
            json!(["rm", "-rf", "/"]),
            json!({"a": "rm -rf /"}),
            json!(true),
        ] {
            assert!(asks("Bash", &json!({ "command": command })), "{command}");
        }
        assert!(asks("Bash", &json!("rm -rf /")));
        assert!(asks("Bash", &json!(["rm -rf /"])));
        assert!(asks(
            "Write",
            &json!({"file_path": [".claude/settings.json"], "content": "{}"})
        ));
        assert!(asks("Edit", &json!({"file_path": 7})));
        assert!(asks("Read", &json!({"file_path": {"p": "/etc/shadow"}})));
        assert!(asks("Write", &json!("x")));
    }

    #[test]
    fn inputs_as_the_tool_takes_them_pass_here() {
        assert!(!asks("Bash", &json!({"command": "ls"})));
        assert!(!asks("Write", &Value::Null));
        // A shell call that says nothing of what it runs is asked about.
        assert!(asks("Bash", &Value::Null));
        assert!(asks("Bash", &json!({})));
        assert!(asks("Bash", &json!({"command": null})));
        assert!(asks("Bash", &json!({"cmd": "rm -rf /"})));
        assert!(!asks(
            "Write",
            &json!({"file_path": "a.txt", "content": "x"})
        ));
        // Tools the guard does not read keep their own shapes.
        assert!(!asks("mcp__db__query", &json!({"command": 5})));
        assert!(!asks("mcp__db__query", &json!(["x"])));
    }
}
