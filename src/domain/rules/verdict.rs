//! Many matches folded into one decision for the hook's answer.

use serde::Serialize;

use super::matching::RuleMatch;
use super::spec::Severity;
use crate::base::decision::Decision;
use crate::base::mode::PermissionMode;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub decision: Decision,
    /// One `[nagger] `-prefixed line per counted match, most severe first.
    pub reason: String,
}

/// The guard's checks of nagger's own files and settings.
const SELF_PROTECTION: &str = "guard:self-protect";

/// Fold matches into one verdict: the most severe decision wins, every message is kept.
/// [`PermissionMode::DontAsk`] lets block/ask/warn through as context (deny stays deny);
/// [`PermissionMode::BypassPermissions`] counts only deny rules and the guard. A question
/// about nagger's own safety (`guard:self-protect…`) that these modes would not put is
/// refused instead: an agent could reach such a mode itself, and nothing it does
/// without being asked may weaken nagger.
pub fn combine(matches: &[RuleMatch], mode: &PermissionMode) -> Option<Verdict> {
    let unasked = matches!(
        mode,
        PermissionMode::BypassPermissions | PermissionMode::DontAsk
    );
    let mut counted: Vec<(Decision, &RuleMatch)> = matches
        .iter()
        .filter_map(|m| {
            let decision = match (mode, m.severity) {
                (_, Severity::Deny) => Decision::Deny,
                (_, Severity::Ask) if unasked && m.name.starts_with(SELF_PROTECTION) => {
                    Decision::Deny
                }
                (PermissionMode::BypassPermissions, _) => return None,
                (PermissionMode::DontAsk, _) => Decision::Context,
                (_, Severity::Block) => Decision::Deny,
                (_, Severity::Ask) => Decision::Ask,
                (_, Severity::Warn) => Decision::Context,
            };
            Some((decision, m))
        })
        .collect();
    counted.sort_by_key(|(_, m)| std::cmp::Reverse(m.severity));
    let decision = counted.iter().map(|(d, _)| *d).max()?;
    let mut lines: Vec<String> = Vec::new();
    for line in counted.iter().map(|(d, m)| {
        if *d == Decision::Deny && m.severity == Severity::Ask {
            format!(
                "[nagger] {} (Refused, not asked: in this permission mode no question is \
                     put, and this one is about nagger's own safety.)",
                m.message.trim().trim_start_matches("[nagger] ")
            )
        } else if m.message.trim().is_empty() {
            format!(
                "[nagger] {} rule \"{}\": {}",
                m.kind.as_str(),
                m.name,
                m.why
            )
        } else {
            format!("[nagger] {}", m.message.trim())
        }
    }) {
        // A rule kept from the trusted settings beside its softer copy in the config
        // says the same once.
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    Some(Verdict {
        decision,
        reason: lines.join("\n"),
    })
}
