//! `nagger man`: the manual pages in roff. nagger(1) and one page per command are
//! rendered from the command line's own definition (so they say what `--help` says);
//! nagger-config(5) describes the config file, with the commented template `install`
//! writes. One page printed, or all written into a man folder with `--dir`.

use super::error::{CommandError, CommandResult};
use crate::base::output::Output;
use crate::domain::config::TEMPLATE;
use crate::edge::cli::{Cli, ManArgs};
use clap::CommandFactory as _;
use std::fmt::Write as _;
use std::path::PathBuf;

/// One manual page: its file name (`nagger-check.1`), its section and its roff text.
struct Page {
    file: String,
    section: &'static str,
    roff: String,
}

impl Page {
    /// The name `nagger man PAGE` takes: `check`, `task-add`, `config`; `nagger` for the
    /// top page.
    fn short_name(&self) -> &str {
        let stem = self
            .file
            .rsplit_once('.')
            .map_or(self.file.as_str(), |(s, _)| s);
        stem.strip_prefix("nagger-").unwrap_or(stem)
    }
}

pub fn run(args: &ManArgs, out: &mut Output) -> CommandResult {
    let pages = pages()?;
    if let Some(dir) = &args.dir {
        for page in &pages {
            let folder = dir.join(format!("man{}", page.section));
            std::fs::create_dir_all(&folder).map_err(|e| {
                CommandError::Internal(anyhow::anyhow!("cannot create {}: {e}", folder.display()))
            })?;
            let path: PathBuf = folder.join(&page.file);
            std::fs::write(&path, &page.roff).map_err(|e| {
                CommandError::Internal(anyhow::anyhow!("cannot write {}: {e}", path.display()))
            })?;
            out.line(&path.display().to_string())?;
        }
        return Ok(());
    }
    let wanted = args.page.as_deref().unwrap_or("nagger").replace(' ', "-");
    let wanted = wanted.strip_prefix("nagger-").unwrap_or(&wanted);
    match pages.iter().find(|p| p.short_name() == wanted) {
        Some(page) => Ok(out.line(page.roff.trim_end())?),
        None => Err(CommandError::Usage(format!(
            "no manual page `{wanted}`; the pages: {}",
            pages
                .iter()
                .map(Page::short_name)
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Every page: nagger(1), each command's (sub-commands' too), nagger-config(5).
fn pages() -> Result<Vec<Page>, CommandError> {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let mut pages = Vec::new();
    collect(&cli, &mut pages)?;
    pages.push(Page {
        file: "nagger-config.5".into(),
        section: "5",
        roff: config_page(),
    });
    Ok(pages)
}

fn collect(cmd: &clap::Command, pages: &mut Vec<Page>) -> Result<(), CommandError> {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut roff = Vec::new();
    man.render(&mut roff).map_err(anyhow::Error::from)?;
    pages.push(Page {
        file: man.get_filename(),
        section: "1",
        roff: String::from_utf8_lossy(&roff).into_owned(),
    });
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect(sub, pages)?;
    }
    Ok(())
}

/// What each table of the config holds, in the order of the template.
const SECTIONS: [(&str, &str); 8] = [
    (
        "session",
        "The main agent's conventions: shown on its first tool call of a session (`first_time`), \
         again after a compaction or after the context grew by `token_threshold` tokens \
         (`repeated`); `delivery` \"deny\" refuses the call with them as the reason, \"context\" \
         adds them without refusing.",
    ),
    (
        "roles",
        "A subagent's conventions, by role: `roles.<role>`, else `roles.<agent_type>`, else \
         `roles.default`; `enabled = false` silences a role or type, `delivery` overrides the \
         session's.",
    ),
    (
        "role_resolution",
        "How a raw role (the prompt's [ROLE:x] tag, else the team name, else the agent type) \
         becomes a role: `aliases` exact, then the longest of `prefixes`, then a trailing -N \
         dropped.",
    ),
    (
        "rules",
        "The user's rules. [[rules.file]] (globs on the path), [[rules.command]] (globs on each \
         simple command) and [[rules.tool]] (a regex on the tool name, regexes on its input) \
         are checked at PreToolUse with a `severity`: \"deny\" refuses every time, \"block\" once \
         per session (again after token growth or a compaction), \"ask\" asks the user, \"warn\" \
         shows the message. [[rules.recovery]] gives a hint after a failed call, \
         [[rules.after_edit]] checks the text an edit added; `builtin_recovery` switches the \
         built-in hints. A rule without `patterns` (or `added`) never fires: doctor says so.",
    ),
    (
        "guard",
        "The built-in guard against destructive commands: `enabled`, `allow` (exemptions), \
         `deny` (more refusals), `secrets` (paths never read), `shell_tools` (tools whose \
         `command` is a shell line). Weakening it waits for `nagger trust`.",
    ),
    (
        "context",
        "Shared context between subagents: sizes of the digest and of one entry, how far back \
         a transcript is read, how long finished sessions are kept, which categories each \
         type receives (`filters`) and stores (`categories`).",
    ),
    (
        "compress",
        "Compressed subagent reports: the `marker` a final message must hold, which types must \
         (`types`) and which use the reviewer format, and their line limits.",
    ),
    (
        "log",
        "`retention_days`: how long hook runs, history and shared context are kept.",
    ),
];

/// Text for a roff page: backslashes escaped, and no line starting as a request.
fn roff_text(text: &str) -> String {
    text.lines()
        .map(|line| {
            let line = line.replace('\\', "\\e");
            if line.starts_with('.') || line.starts_with('\'') {
                format!("\\&{line}")
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// nagger-config(5).
fn config_page() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let mut page = format!(
        ".TH NAGGER-CONFIG 5 \"\" \"nagger {version}\" \"File Formats\"\n\
         .SH NAME\n\
         nagger-config \\- the configuration of nagger, .claude\\-nagger/config.toml\n\
         .SH SYNOPSIS\n\
         \\fI<project>\\fR/.claude\\-nagger/config.toml\n\
         .SH DESCRIPTION\n"
    );
    page.push_str(&roff_text(
        "A TOML file read by every nagger hook run and command. Every key is optional and the \
         defaults are built in; `nagger install` writes the commented template below when the \
         file is missing. Commit it.",
    ));
    page.push_str("\n.PP\n");
    page.push_str(&roff_text(
        "A mistake switches off only what it is in: an unknown key is ignored (named with its \
         full path and the key it resembles), a bad value keeps its default or leaves its list \
         item or rule out, a bad pattern never matches. A hook says so on stderr; `nagger \
         doctor` lists every problem with its line and fails on those that may take away a \
         refusal; `nagger check` gives no \"passes\" answer while such a problem stands.",
    ));
    page.push_str("\n.PP\n");
    page.push_str(&roff_text(
        "A change that weakens safety (the guard off, an exemption added, a deny, block or ask \
         rule removed or softened) takes effect only once confirmed with `nagger trust` in a \
         terminal; until then the settings last trusted (.claude-nagger/trusted.json) stay in \
         force.",
    ));
    page.push_str("\n.SH TABLES\n");
    for (table, what) in SECTIONS {
        let _ = write!(page, ".TP\n\\fB[{table}]\\fR\n{}\n", roff_text(what));
    }
    page.push_str(".SH THE TEMPLATE\nEvery key, with its default and a comment.\n.PP\n.nf\n");
    page.push_str(&roff_text(TEMPLATE));
    page.push_str(
        "\n.fi\n.SH FILES\n\
         .TP\n.claude\\-nagger/config.toml\nthis file\n\
         .TP\n.claude\\-nagger/trusted.json\nthe safety settings last confirmed with nagger trust\n\
         .TP\n.claude\\-nagger/state.db\nthe state database\n\
         .SH SEE ALSO\n\
         \\fBnagger\\fR(1), \\fBnagger\\-doctor\\fR(1), \\fBnagger\\-check\\fR(1), \\fBnagger\\-trust\\fR(1), \\fBnagger\\-install\\fR(1)\n",
    );
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_the_top_page_names_is_generated() {
        let pages = pages().unwrap();
        let files: Vec<&str> = pages.iter().map(|p| p.file.as_str()).collect();
        let top = &pages[0];
        assert_eq!(top.file, "nagger.1");
        // Every reference a page makes to nagger's own pages, as roff writes them
        // (`nagger\-task\-add(1)`, `\fBnagger\-config\fR(5)`), is a page generated.
        let reference = regex::Regex::new(r"nagger((?:\\-[a-z]+)+)(?:\\f[BRI])?\((\d)\)").unwrap();
        let mut seen = 0;
        for page in &pages {
            for found in reference.captures_iter(&page.roff) {
                let file = format!("nagger{}.{}", found[1].replace("\\-", "-"), &found[2]);
                assert!(files.contains(&file.as_str()), "{} names {file}", page.file);
                seen += 1;
            }
        }
        assert!(seen > 20, "the pages name each other: {seen}");
        for command in ["check", "doctor", "hook", "task-add", "ui", "man"] {
            assert!(
                files.contains(&format!("nagger-{command}.1").as_str()),
                "{files:?}"
            );
        }
        assert!(files.contains(&"nagger-config.5"));
    }

    #[test]
    fn the_config_page_names_every_table_and_holds_the_template() {
        let page = config_page();
        let tables = crate::domain::config::Config::default().effective();
        let tables = tables.as_object().unwrap();
        assert_eq!(tables.len(), SECTIONS.len());
        for key in tables.keys() {
            assert!(page.contains(&format!("\\fB[{key}]\\fR")), "{key}");
        }
        assert!(page.contains("builtin_recovery = true"));
        assert!(
            !page
                .lines()
                .any(|l| l.starts_with("[[") && l.contains('\\'))
        );
    }
}
