//! The demo's player: runs `nagger hook` as Claude Code does ([`Call`] in, [`Reply`]
//! out), prints each step and keeps the checks.

use super::fixtures::Session;
use serde_json::Value;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Barrier;
use std::time::Instant;

/// One `nagger hook` run: what was sent, what came back, how long it took.
#[derive(Debug, Clone)]
pub struct Reply {
    pub step: usize,
    pub event: String,
    pub who: String,
    pub what: String,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub ms: f64,
    json: Option<Value>,
}

impl Reply {
    /// deny | ask | block | context | pass, or how the process failed.
    pub fn decision(&self) -> String {
        if self.code != Some(0) {
            return format!("exit {:?}", self.code);
        }
        let Some(v) = &self.json else {
            return if self.stdout.trim().is_empty() {
                "pass".into()
            } else {
                "not json".into()
            };
        };
        let specific = &v["hookSpecificOutput"];
        if let Some(d) = specific["permissionDecision"].as_str() {
            d.to_string()
        } else if v["decision"] == "block" {
            "block".into()
        } else if specific["additionalContext"].is_string() {
            "context".into()
        } else {
            "other".into()
        }
    }

    /// The reason of a decision, else the additional context, else "".
    pub fn text(&self) -> &str {
        let Some(v) = &self.json else { return "" };
        let specific = &v["hookSpecificOutput"];
        specific["permissionDecisionReason"]
            .as_str()
            .or_else(|| v["reason"].as_str())
            .or_else(|| specific["additionalContext"].as_str())
            .unwrap_or("")
    }

    pub fn context(&self) -> &str {
        self.json
            .as_ref()
            .and_then(|v| v["hookSpecificOutput"]["additionalContext"].as_str())
            .unwrap_or("")
    }
}

/// A hook run to make: the event's input and how to label it.
pub struct Call {
    pub who: String,
    pub what: String,
    pub input: Value,
}

impl Call {
    pub fn new(who: impl Into<String>, what: impl Into<String>, input: Value) -> Call {
        Call {
            who: who.into(),
            what: what.into(),
            input,
        }
    }
}

/// Runs hooks as Claude Code does and prints what happens.
pub struct Player {
    exe: PathBuf,
    pub root: PathBuf,
    pub session: Session,
    steps: usize,
    pub(super) checks: usize,
    pub(super) failures: Vec<String>,
    color: bool,
    /// The reader of the demo's output went away: the demo ends as a command whose
    /// pipe closed does.
    pub(super) output_lost: bool,
}

impl Player {
    pub(super) fn new(exe: &Path, base: &Path) -> Player {
        let root = base.join("shop");
        // Where Claude Code keeps a project's transcripts: ~/.claude/projects/<slug>/.
        let slug = root.display().to_string().replace(['/', '\\', '.'], "-");
        let session_id = "5b0c7e2a-3f41-4d8e-9c6a-1e2f3a4b5c6d";
        let transcript = base
            .join(".claude/projects")
            .join(slug)
            .join(format!("{session_id}.jsonl"));
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Player {
            exe: exe.to_path_buf(),
            session: Session {
                id: session_id.to_string(),
                transcript,
                cwd: root.clone(),
            },
            root,
            steps: 0,
            checks: 0,
            failures: Vec::new(),
            color,
            output_lost: false,
        }
    }

    /// `nagger` as Claude Code runs it for this project: CLAUDE_PROJECT_DIR set,
    /// never a database of the caller's (NAGGER_DB is not passed on), and the copy of
    /// the trusted settings kept inside the temporary project.
    fn nagger(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.exe);
        cmd.args(args)
            .env("CLAUDE_PROJECT_DIR", &self.root)
            .env_remove("NAGGER_DB")
            .env("XDG_STATE_HOME", self.root.join(".local/state"))
            .current_dir(&self.root);
        cmd
    }

    /// Runs `nagger <args>` in the project and returns what it printed.
    pub fn command(&self, args: &[&str]) -> anyhow::Result<Output> {
        self.nagger(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", self.exe.display()))
    }

    /// One `nagger hook` process, timed from spawn to exit.
    fn spawn_hook(&self, input: &Value) -> anyhow::Result<(Output, f64)> {
        let started = Instant::now();
        let mut child = self
            .nagger(&["hook"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot start {} hook: {e}", self.exe.display()))?;
        if let Some(mut stdin) = child.stdin.take() {
            // The input is far smaller than a pipe buffer; a hook that exits
            // without reading it is reported through its exit code.
            let _ = stdin.write_all(input.to_string().as_bytes());
        }
        let output = child.wait_with_output()?;
        Ok((output, started.elapsed().as_secs_f64() * 1000.0))
    }

    fn reply(&mut self, call: Call, output: &Output, ms: f64) -> Reply {
        self.steps += 1;
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let json = serde_json::from_str(stdout.trim()).ok();
        Reply {
            step: self.steps,
            event: call.input["hook_event_name"]
                .as_str()
                .unwrap_or("?")
                .to_string(),
            who: call.who,
            what: call.what,
            code: output.status.code(),
            stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            ms,
            json,
        }
    }

    /// Runs one hook, prints its step and checks it ran cleanly.
    pub fn hook(&mut self, call: Call, lines: usize) -> anyhow::Result<Reply> {
        let (output, ms) = self.spawn_hook(&call.input)?;
        let reply = self.reply(call, &output, ms);
        self.print_reply(&reply, lines);
        self.check_clean(&reply);
        Ok(reply)
    }

    /// Runs hooks at the same moment, one process each, as Claude Code does for
    /// parallel subagents; prints them in the order given.
    pub fn hooks_at_once(&mut self, calls: Vec<Call>, lines: usize) -> anyhow::Result<Vec<Reply>> {
        let barrier = Barrier::new(calls.len());
        let outputs: Vec<anyhow::Result<(Output, f64)>> = std::thread::scope(|s| {
            let handles: Vec<_> = calls
                .iter()
                .map(|call| {
                    let barrier = &barrier;
                    let this = &*self;
                    s.spawn(move || {
                        barrier.wait();
                        this.spawn_hook(&call.input)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(anyhow::anyhow!("hook runner thread panicked")))
                })
                .collect()
        });
        let mut replies = Vec::with_capacity(calls.len());
        for (call, output) in calls.into_iter().zip(outputs) {
            let (output, ms) = output?;
            let reply = self.reply(call, &output, ms);
            self.print_reply(&reply, lines);
            self.check_clean(&reply);
            replies.push(reply);
        }
        Ok(replies)
    }

    /// Every hook must exit 0 and stay quiet on stderr (nagger has nothing to
    /// complain about in a well-formed session).
    fn check_clean(&mut self, reply: &Reply) {
        if reply.code != Some(0) || !reply.stderr.trim().is_empty() {
            self.check(
                false,
                format!(
                    "step {} exited {:?}: {}",
                    reply.step,
                    reply.code,
                    reply.stderr.trim()
                ),
            );
        }
    }

    /// Records and prints one expectation.
    pub fn check(&mut self, ok: bool, what: impl Into<String>) -> bool {
        let what = what.into();
        self.checks += 1;
        let mark = if ok {
            self.paint("32", "✓")
        } else {
            self.paint("31;1", "✗")
        };
        self.say(&format!("       {mark} {what}"));
        if !ok {
            self.failures.push(what);
        }
        ok
    }

    pub fn section(&mut self, n: usize, title: &str, why: &str) {
        let heading = self.paint("1", &format!("{n}. {title}"));
        self.say(&format!("\n{heading}"));
        for line in why.lines() {
            self.say(&format!("   {line}"));
        }
    }

    pub fn note(&mut self, text: &str) {
        for line in text.lines() {
            if line.is_empty() {
                self.say("");
            } else {
                self.say(&format!("       {line}"));
            }
        }
    }

    pub fn say(&mut self, line: &str) {
        if !self.output_lost && crate::base::output::Output::stdout().line(line).is_err() {
            self.output_lost = true;
        }
    }

    /// Text as it is, already made of whole lines (another command's output).
    pub fn say_as_is(&mut self, text: &str) {
        self.say(text.strip_suffix('\n').unwrap_or(text));
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// `  07  PreToolUse    main agent   Read docs/ARCHITECTURE.md      2.1 ms`
    /// then the decision and the first `lines` lines of its text.
    fn print_reply(&mut self, r: &Reply, lines: usize) {
        let head = format!(
            "  {:>2}  {:<13} {:<19} {}",
            r.step,
            r.event,
            r.who,
            cut(&r.what, 42)
        );
        let ms = format!("{:.1} ms", r.ms);
        let pad = (88 - ms.len()).saturating_sub(head.chars().count()).max(2);
        self.say(&format!("{head}{:pad$}{ms}", ""));
        let decision = r.decision();
        let color = match decision.as_str() {
            "deny" => "31",
            "ask" | "block" => "33",
            "context" => "36",
            "pass" => "2",
            _ => "31;1",
        };
        let word = self.paint(color, &format!("{decision:<7}"));
        let text = r.text();
        // Blank lines and `---` rules carry nothing in an excerpt.
        let mut shown = text
            .lines()
            .filter(|l| !l.trim().is_empty() && l.trim() != "---");
        let first = shown.next().unwrap_or("");
        let head = if decision == "pass" && text.is_empty() {
            "(no output)".to_string()
        } else {
            cut_unless_path(first, 96)
        };
        self.say(&format!("      → {word} {head}"));
        let rest: Vec<&str> = shown.collect();
        for line in rest.iter().take(lines.saturating_sub(1)) {
            self.say(&format!("                {}", cut_unless_path(line, 96)));
        }
        if rest.len() >= lines && lines > 0 {
            let more = rest.len() + 1 - lines;
            self.say(&format!(
                "                … {more} more line{}",
                if more == 1 { "" } else { "s" }
            ));
        }
    }
}

/// Like [`cut`], but a line that names a file or folder is shown whole: a cut path
/// names nothing.
pub fn cut_unless_path(s: &str, max: usize) -> String {
    if s.split_whitespace().any(|w| w.contains('/')) {
        s.trim_end().to_string()
    } else {
        cut(s, max)
    }
}

/// At most `max` characters of one line, with an ellipsis when cut.
pub fn cut(s: &str, max: usize) -> String {
    crate::base::text::cut(s.trim_end(), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_short_lines_and_marks_long_ones() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("abcdefghij", 5), "abcd…");
        assert_eq!(cut("ééééé", 5), "ééééé");
    }
}
