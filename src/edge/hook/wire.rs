//! Hook input and output JSON exactly as Claude Code speaks it. Every input field is
//! optional and unknown fields are ignored (`input.rs` reads them, a wrong type there
//! is a problem of that field alone).

use crate::base::event::HookEvent;
use serde::Serialize;
use serde_json::Value;

/// The hook's stdin. One shape for every event.
#[derive(Debug, Clone, Default)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub hook_event_name: Option<String>,
    pub permission_mode: Option<String>,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub source: Option<String>,
    pub reason: Option<String>,
    pub trigger: Option<String>,
    pub compact_summary: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    pub tool_use_id: Option<String>,
    pub tool_response: Option<Value>,
    pub agent_transcript_path: Option<String>,
    pub stop_hook_active: Option<bool>,
    pub last_assistant_message: Option<String>,
    pub prompt: Option<String>,
    /// PostToolUseFailure: the failure text.
    pub error: Option<String>,
    pub is_interrupt: Option<bool>,
    /// UserPromptExpansion: `slash_command` or `mcp_prompt`.
    pub expansion_type: Option<String>,
    /// UserPromptExpansion and PreSkillShellCommand: the skill or command.
    pub command_name: Option<String>,
    /// UserPromptExpansion: what the user typed after the command's name.
    pub command_args: Option<String>,
    /// UserPromptExpansion and PreSkillShellCommand: where the command comes from.
    pub command_source: Option<String>,
    /// PreSkillShellCommand: who loaded the skill (user, claude, other).
    pub invoked_by: Option<String>,
}

/// Longest id (session, agent, agent type) nagger accepts; Claude Code's are far shorter.
pub const MAX_ID_CHARS: usize = 256;

impl HookInput {
    /// What is wrong with the ids of the input, if anything: an id longer than
    /// [`MAX_ID_CHARS`] or holding control characters is bad input for every event.
    pub fn id_problem(&self) -> Option<String> {
        let ids = [
            ("session_id", &self.session_id),
            ("agent_id", &self.agent_id),
            ("agent_type", &self.agent_type),
        ];
        for (field, value) in ids {
            let Some(value) = value else { continue };
            if value.chars().count() > MAX_ID_CHARS {
                return Some(format!("{field} is longer than {MAX_ID_CHARS} characters"));
            }
            if value.chars().any(char::is_control) {
                return Some(format!("{field} holds control characters"));
            }
        }
        None
    }
}

/// PreToolUse permission decisions nagger makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionDecision {
    Deny,
    Ask,
}

impl PermissionDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionDecision::Deny => "deny",
            PermissionDecision::Ask => "ask",
        }
    }
}

/// What a handler answers. Rendered to at most one JSON object on stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookOutput {
    /// Exit 0, no stdout: no opinion.
    Silent,
    PreToolUse {
        decision: Option<PermissionDecision>,
        reason: Option<String>,
        additional_context: Option<String>,
    },
    /// additionalContext for SessionStart, SubagentStart or UserPromptSubmit.
    Context { event: HookEvent, text: String },
    /// SubagentStop/Stop: keep working, with the reason as feedback. UserPromptSubmit
    /// and UserPromptExpansion: the prompt is refused, with the reason.
    Block { reason: String },
    /// A permission decision for an event other than PreToolUse that takes one
    /// (PreSkillShellCommand).
    Permission {
        event: HookEvent,
        decision: PermissionDecision,
        reason: String,
    },
}

impl HookOutput {
    /// Whether the answer refuses a tool call or a shell line.
    pub fn denies(&self) -> bool {
        matches!(
            self,
            HookOutput::PreToolUse {
                decision: Some(PermissionDecision::Deny),
                ..
            } | HookOutput::Permission {
                decision: PermissionDecision::Deny,
                ..
            }
        )
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SpecificOutput<'a> {
    hook_event_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision: Option<PermissionDecision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_context: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<'a> {
    hook_specific_output: SpecificOutput<'a>,
}

#[derive(Serialize)]
struct BlockOutput<'a> {
    decision: &'static str,
    reason: &'a str,
}

/// Most characters nagger prints on stdout for one event: below Claude Code's 10,000,
/// past which it stores the output in a file and shows the agent only a preview.
pub const MAX_OUTPUT_CHARS: usize = 9_000;

/// Characters `text` takes inside a JSON string, quotes excluded.
fn escaped_chars(text: &str) -> usize {
    serde_json::to_string(text).map_or(text.len() * 6, |s| s.chars().count() - 2)
}

/// `text` cut on whole lines so that, escaped as JSON, it takes at most `budget`
/// characters, the note about what was cut included. A first line longer than the whole
/// budget is cut inside.
pub fn fit_text(text: &str, budget: usize) -> String {
    if escaped_chars(text) <= budget {
        return text.to_string();
    }
    let lines: Vec<&str> = text.lines().collect();
    let lines_note = |more: usize| format!("\n… cut by nagger: {more} more lines");
    let mut kept = 0usize;
    let mut used = 0usize;
    for (i, line) in lines.iter().enumerate() {
        // The newline before every line but the first: 2 characters escaped.
        let cost = escaped_chars(line) + if i > 0 { 2 } else { 0 };
        if used + cost + escaped_chars(&lines_note(lines.len() - i - 1)) > budget {
            break;
        }
        used += cost;
        kept = i + 1;
    }
    if kept > 0 {
        let mut out = lines[..kept].join("\n");
        out.push_str(&lines_note(lines.len() - kept));
        return out;
    }
    // One line too long for the budget on its own: keep what fits of it.
    let total = text.chars().count();
    let room = budget.saturating_sub(escaped_chars(&format!(
        "\n… cut by nagger: {total} more characters"
    )));
    let mut cut = String::new();
    let mut used = 0;
    for c in text.chars() {
        let cost = escaped_chars(c.encode_utf8(&mut [0; 4]));
        if used + cost > room {
            break;
        }
        used += cost;
        cut.push(c);
    }
    let more = total - cut.chars().count();
    format!("{cut}\n… cut by nagger: {more} more characters")
}

impl HookOutput {
    /// The stdout JSON, or None for no output; never longer than [`MAX_OUTPUT_CHARS`]
    /// characters, whatever the texts hold (they are cut on whole lines, with a note).
    pub fn to_json(&self) -> Option<String> {
        let json = self.render()?;
        if json.chars().count() <= MAX_OUTPUT_CHARS {
            return Some(json);
        }
        self.fitted(MAX_OUTPUT_CHARS).render()
    }

    /// The texts of the output, in the order they are given room when cut.
    fn texts_mut(&mut self) -> Vec<&mut String> {
        match self {
            HookOutput::Silent => Vec::new(),
            HookOutput::PreToolUse {
                reason,
                additional_context,
                ..
            } => reason
                .iter_mut()
                .chain(additional_context.iter_mut())
                .collect(),
            HookOutput::Context { text, .. } => vec![text],
            HookOutput::Block { reason } | HookOutput::Permission { reason, .. } => vec![reason],
        }
    }

    /// The same output with its texts cut so that the JSON fits in `max` characters.
    fn fitted(&self, max: usize) -> HookOutput {
        let mut out = self.clone();
        let originals: Vec<String> = out.texts_mut().into_iter().map(std::mem::take).collect();
        // What the JSON takes with every text empty.
        let frame = out.render().map_or(0, |json| json.chars().count());
        let mut budget = max.saturating_sub(frame);
        let count = originals.len();
        for (i, (slot, original)) in out.texts_mut().into_iter().zip(&originals).enumerate() {
            // A permission reason gets up to half when context follows it.
            let share = if i + 1 < count { budget / 2 } else { budget };
            let fitted = fit_text(original, share);
            budget = budget.saturating_sub(escaped_chars(&fitted));
            *slot = fitted;
        }
        out
    }

    fn render(&self) -> Option<String> {
        let value = match self {
            HookOutput::Silent => return None,
            HookOutput::PreToolUse {
                decision,
                reason,
                additional_context,
            } => {
                if decision.is_none() && additional_context.is_none() {
                    return None;
                }
                serde_json::to_string(&Envelope {
                    hook_specific_output: SpecificOutput {
                        hook_event_name: HookEvent::PreToolUse.as_str(),
                        permission_decision: *decision,
                        permission_decision_reason: reason.as_deref(),
                        additional_context: additional_context.as_deref(),
                    },
                })
            }
            HookOutput::Context { event, text } => serde_json::to_string(&Envelope {
                hook_specific_output: SpecificOutput {
                    hook_event_name: event.as_str(),
                    permission_decision: None,
                    permission_decision_reason: None,
                    additional_context: Some(text),
                },
            }),
            HookOutput::Block { reason } => serde_json::to_string(&BlockOutput {
                decision: "block",
                reason,
            }),
            HookOutput::Permission {
                event,
                decision,
                reason,
            } => serde_json::to_string(&Envelope {
                hook_specific_output: SpecificOutput {
                    hook_event_name: event.as_str(),
                    permission_decision: Some(*decision),
                    permission_decision_reason: Some(reason),
                    additional_context: None,
                },
            }),
        };
        // Serialising these plain structs cannot fail; stay silent if it ever did.
        value.ok()
    }

    /// The outcome word recorded in hook_log.
    pub fn result(&self) -> &'static str {
        match self {
            HookOutput::PreToolUse {
                decision: Some(d), ..
            }
            | HookOutput::Permission { decision: d, .. } => d.as_str(),
            HookOutput::PreToolUse {
                additional_context: Some(_),
                ..
            }
            | HookOutput::Context { .. } => "context",
            HookOutput::Silent | HookOutput::PreToolUse { .. } => "none",
            HookOutput::Block { .. } => "block",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[test]
    fn deny_output_has_claude_code_shape() {
        let out = HookOutput::PreToolUse {
            decision: Some(PermissionDecision::Deny),
            reason: Some("[nagger] no".into()),
            additional_context: None,
        };
        let v: Value = serde_json::from_str(&out.to_json().unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecisionReason"],
            "[nagger] no"
        );
        assert!(v["hookSpecificOutput"].get("additionalContext").is_none());
    }

    #[test]
    fn block_output_is_decision_block() {
        let out = HookOutput::Block { reason: "r".into() };
        assert_eq!(
            out.to_json().unwrap(),
            r#"{"decision":"block","reason":"r"}"#
        );
        assert_eq!(out.result(), "block");
    }

    #[test]
    fn empty_pre_tool_use_prints_nothing() {
        let out = HookOutput::PreToolUse {
            decision: None,
            reason: None,
            additional_context: None,
        };
        assert_eq!(out.to_json(), None);
    }

    #[test]
    fn long_outputs_are_cut_on_whole_lines_with_a_note() {
        let text: String = (0..2000).fold(String::new(), |mut text, i| {
            let _ = writeln!(text, "line {i} \"quoted\"");
            text
        });
        for out in [
            HookOutput::Context {
                event: HookEvent::SessionStart,
                text: text.clone(),
            },
            HookOutput::Block {
                reason: text.clone(),
            },
            HookOutput::PreToolUse {
                decision: Some(PermissionDecision::Deny),
                reason: Some(text.clone()),
                additional_context: Some(text.clone()),
            },
        ] {
            let json = out.to_json().unwrap();
            assert!(json.chars().count() <= MAX_OUTPUT_CHARS, "{}", json.len());
            assert!(json.chars().count() > MAX_OUTPUT_CHARS - 200);
            let v: Value = serde_json::from_str(&json).unwrap();
            let shown = v["reason"]
                .as_str()
                .or(v["hookSpecificOutput"]["additionalContext"].as_str())
                .unwrap();
            let (kept, note) = shown.rsplit_once('\n').unwrap();
            assert!(note.starts_with("… cut by nagger: "), "{note}");
            assert!(note.ends_with(" more lines"));
            assert!(
                kept.lines()
                    .all(|l| l.starts_with("line ") && l.ends_with('"'))
            );
        }
    }

    #[test]
    fn one_endless_line_or_escapes_still_fit() {
        for text in [
            "x".repeat(50_000),
            "\u{1}".repeat(20_000),
            "é".repeat(30_000),
        ] {
            let out = HookOutput::Block { reason: text };
            let json = out.to_json().unwrap();
            assert!(json.chars().count() <= MAX_OUTPUT_CHARS);
            assert!(json.contains("more characters"));
        }
        let short = HookOutput::Block {
            reason: "a\nb".into(),
        };
        assert_eq!(
            short.to_json().unwrap(),
            r#"{"decision":"block","reason":"a\nb"}"#
        );
    }

    #[test]
    fn ids_too_long_or_with_control_characters_are_bad_input() {
        let ids = |session: &str, agent_id: &str, agent_type: &str| HookInput {
            session_id: Some(session.into()),
            agent_id: Some(agent_id.into()),
            agent_type: Some(agent_type.into()),
            ..HookInput::default()
        };
        assert_eq!(ids("s", "a", "t").id_problem(), None);
        let long = "x".repeat(MAX_ID_CHARS + 1);
        assert!(
            ids(&long, "a", "t")
                .id_problem()
                .unwrap()
                .contains("longer than 256")
        );
        let ok = "é".repeat(MAX_ID_CHARS);
        assert_eq!(ids("s", "a", &ok).id_problem(), None);
        assert!(
            ids("s", "a\nb", "t")
                .id_problem()
                .unwrap()
                .contains("control")
        );
    }
}
