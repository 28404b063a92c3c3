//! Claude Code's `permission_mode`, as the hook input spells it. The only place where a
//! mode's name is written down: everything else matches on the variants.

use std::fmt;

/// Claude Code's `permission_mode`. A mode nagger does not know is kept as it came, in
/// [`PermissionMode::Other`], and treated like [`PermissionMode::Default`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PermissionMode {
    #[default]
    Default,
    Plan,
    AcceptEdits,
    Auto,
    DontAsk,
    BypassPermissions,
    /// A mode this version of nagger does not know, spelled as Claude Code sent it.
    Other(String),
}

impl PermissionMode {
    /// Every mode nagger knows, in the order `nagger check --mode` lists them.
    pub const KNOWN: [PermissionMode; 6] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::Auto,
        PermissionMode::DontAsk,
        PermissionMode::BypassPermissions,
    ];

    /// The mode as Claude Code spells it: `default`, `plan`, `acceptEdits`, `auto`,
    /// `dontAsk`, `bypassPermissions`, or an unknown mode as it came.
    pub fn as_str(&self) -> &str {
        match self {
            PermissionMode::Other(mode) => mode,
            known => known.known_name().unwrap_or_default(),
        }
    }

    /// The name of a mode nagger knows; None for [`PermissionMode::Other`].
    pub const fn known_name(&self) -> Option<&'static str> {
        Some(match self {
            PermissionMode::Default => "default",
            PermissionMode::Plan => "plan",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Auto => "auto",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::Other(_) => return None,
        })
    }
}

impl From<&str> for PermissionMode {
    fn from(mode: &str) -> Self {
        PermissionMode::KNOWN
            .into_iter()
            .find(|known| known.as_str() == mode)
            .unwrap_or_else(|| PermissionMode::Other(mode.to_owned()))
    }
}

impl std::str::FromStr for PermissionMode {
    type Err = std::convert::Infallible;

    fn from_str(mode: &str) -> Result<Self, Self::Err> {
        Ok(mode.into())
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_modes_parse_from_hook_input() {
        assert_eq!(PermissionMode::from("dontAsk"), PermissionMode::DontAsk);
        assert_eq!(
            "bypassPermissions".parse(),
            Ok(PermissionMode::BypassPermissions)
        );
        assert_eq!(
            PermissionMode::from("acceptEdits"),
            PermissionMode::AcceptEdits
        );
        assert_eq!(PermissionMode::from("auto"), PermissionMode::Auto);
        assert_eq!(PermissionMode::from("plan"), PermissionMode::Plan);
        assert_eq!(PermissionMode::from("default"), PermissionMode::Default);
        assert_eq!(
            PermissionMode::from("yolo"),
            PermissionMode::Other("yolo".into())
        );
    }

    #[test]
    fn every_mode_is_written_back_as_it_was_read() {
        for mode in [
            "default",
            "plan",
            "acceptEdits",
            "auto",
            "dontAsk",
            "bypassPermissions",
            "yolo",
            "",
        ] {
            let parsed = PermissionMode::from(mode);
            assert_eq!(parsed.as_str(), mode);
            assert_eq!(parsed.to_string(), mode);
        }
    }
}
