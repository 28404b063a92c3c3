//! Secrets: private keys, cloud credentials and `.env` files, which an agent must not read
//! or print, by the Read and Grep tools or by a shell command. The list is the `[guard]
//! secrets` globs: `~/` stands for any home, a pattern not starting with `/` matches in
//! any folder, and a pattern starting with `!` exempts what it matches.

use std::sync::OnceLock;

use super::finding::{Finding, operands};
use super::problem::PatternProblem;
use super::shell::SimpleCommand;
use crate::base::glob::LazyGlobs;

/// The default `[guard] secrets`.
pub const DEFAULT_SECRETS: &[&str] = &[
    "~/.ssh/id_*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "~/.aws/credentials",
    "~/.config/gcloud/**",
    "~/.azure/**",
    "~/.kube/config",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.npmrc",
    "~/.pypirc",
    "~/.git-credentials",
    "~/.gnupg/**",
    "~/.config/gh/hosts.yml",
    "~/.vault-token",
    "~/.pgpass",
    ".env",
    ".env.*",
    "!*.pub",
    "!*.example",
    "!*.sample",
    "!*.template",
];

/// Programs that read the files they are given and can print or send them on.
const READERS: &[&str] = &[
    "cat", "tac", "less", "more", "most", "head", "tail", "bat", "batcat", "nl", "cp", "scp",
    "rsync", "sftp", "base64", "base32", "basenc", "xxd", "od", "hexdump", "hd", "strings", "grep",
    "egrep", "fgrep", "rg", "ag", "ack", "awk", "gawk", "mawk", "nawk", "sed", "cut", "sort",
    "uniq", "paste", "column", "diff", "cmp", "comm", "vim", "vi", "nvim", "nano", "emacs", "view",
    "source", ".", "tar", "zip", "7z", "gzip", "bzip2", "xz", "zstd", "gpg", "openssl", "jq", "yq",
    "dd", "split", "iconv", "fold", "fmt", "pr", "expand", "rev", "curl", "wget", "http", "https",
    "xh", "nc", "ncat", "socat", "envsubst", "pbcopy", "xclip", "xsel", "git",
];

/// The `[guard] secrets`, compiled the first time a path has to be checked: most calls
/// (`ls`, `cargo test`, an Edit) never need them.
pub(super) struct Secrets<'a> {
    patterns: &'a [String],
    built: OnceLock<Built<'a>>,
}

struct Built<'a> {
    include: LazyGlobs<'static>,
    exclude: LazyGlobs<'static>,
    /// `include`'s patterns as the user wrote them, for messages.
    written: Vec<&'a str>,
}

impl<'a> Secrets<'a> {
    pub(super) fn new(patterns: &'a [String]) -> Secrets<'a> {
        Secrets {
            patterns,
            built: OnceLock::new(),
        }
    }

    fn built(&self) -> &Built<'a> {
        self.built.get_or_init(|| {
            let mut include = Vec::new();
            let mut exclude = Vec::new();
            let mut written = Vec::new();
            for pattern in self.patterns {
                if let Some(rest) = pattern.strip_prefix('!') {
                    exclude.push(glob_for_any_folder(rest));
                } else {
                    include.push(glob_for_any_folder(pattern));
                    written.push(pattern.as_str());
                }
            }
            Built {
                include: LazyGlobs::new(include, true),
                exclude: LazyGlobs::new(exclude, true),
                written,
            }
        })
    }

    /// Bad globs met so far: `secrets` patterns, then exemptions.
    pub(super) fn problems(&self, problems: &mut Vec<PatternProblem>) {
        if let Some(built) = self.built.get() {
            PatternProblem::collect("secrets", &built.include, problems);
            PatternProblem::collect("secrets (exemption)", &built.exclude, problems);
        }
    }

    /// The secrets pattern `path` matches, unless an exemption does.
    pub(super) fn matching(&self, path: &str) -> Option<String> {
        if path.is_empty() || path.len() > 4096 || self.patterns.is_empty() {
            return None;
        }
        let built = self.built();
        let mut candidates = vec![super::paths::normalize(path)];
        // `cat .env*`: the pattern the shell would expand, read as the file it starts with.
        let stem = candidates[0].trim_end_matches(['*', '?']);
        if stem.len() < candidates[0].len() && !stem.is_empty() {
            candidates.push(stem.to_owned());
        }
        let haystack = candidates.join("\n");
        if !built.include.could_match(&haystack) {
            return None;
        }
        let index = built.include.first_index(&candidates)?;
        if built.exclude.any_match(&candidates) {
            return None;
        }
        Some(built.written[index].to_owned())
    }

    /// The first secret a simple command reads, with the pattern it matches.
    pub(super) fn read_by(&self, command: &SimpleCommand, fed: &[String]) -> Option<Finding> {
        let name = command.name();
        let mut paths: Vec<&str> = command.reads_from.iter().map(String::as_str).collect();
        if READERS.contains(&name) {
            let mut read = operands(command.args());
            if matches!(name, "cp" | "scp" | "rsync" | "sftp") {
                read.pop(); // the destination is written, not read
            }
            paths.extend(read);
            paths.extend(fed.iter().map(String::as_str));
            for arg in command.args() {
                if let Some((_, file)) = arg.rsplit_once('@') {
                    paths.push(file.split(';').next().unwrap_or(file));
                }
                if let Some(value) = arg.strip_prefix("if=") {
                    paths.push(value);
                }
                if name == "git"
                    && let Some((_, file)) = arg.split_once(':')
                {
                    paths.push(file); // `git show HEAD:.env`
                }
            }
        }
        paths.into_iter().find_map(|path| {
            let pattern = self.matching(path)?;
            Some(found(path, &pattern))
        })
    }

    /// The secret a Read, Grep or NotebookRead call names, if any.
    pub(super) fn read_by_tool(
        &self,
        tool_name: &str,
        input: &serde_json::Value,
    ) -> Option<Finding> {
        let fields: &[&str] = match tool_name {
            "Read" | "NotebookRead" => &["file_path", "notebook_path"],
            "Grep" => &["path", "glob"],
            _ => return None,
        };
        fields.iter().find_map(|field| {
            let path = input.get(field)?.as_str()?;
            let pattern = self.matching(path)?;
            Some(found(path, &pattern))
        })
    }
}

fn found(path: &str, pattern: &str) -> Finding {
    Finding::deny(
        "guard:secret",
        format!("reads `{path}`, which holds secrets (`[guard] secrets` matches `{pattern}`)"),
        "Ask the user for what you need from it; they can exempt it in `[guard] allow`.",
    )
}

/// `~/x` is any home's `x`; a pattern not starting with `/` or `**` matches in every
/// folder.
fn glob_for_any_folder(pattern: &str) -> String {
    if let Some(rest) = pattern.strip_prefix("~/") {
        format!("**/{rest}")
    } else if pattern.starts_with('/') || pattern.starts_with("**") {
        pattern.to_owned()
    } else {
        format!("**/{pattern}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<String> {
        DEFAULT_SECRETS
            .iter()
            .map(std::string::ToString::to_string)
            .collect()
    }

    #[test]
    fn default_secrets_match_keys_credentials_and_env_files() {
        let list = defaults();
        let secrets = Secrets::new(&list);
        for path in [
            "~/.ssh/id_rsa",
            "/home/alice/.ssh/id_ed25519",
            "$HOME/.aws/credentials",
            "certs/server.pem",
            "tls.key",
            "/root/.config/gcloud/application_default_credentials.json",
            "~/.kube/config",
            ".env",
            "./.env.local",
            "app/.env.production",
            ".env*",
            "~/.netrc",
        ] {
            assert!(secrets.matching(path).is_some(), "{path}");
        }
        for path in [
            "~/.ssh/id_rsa.pub",
            ".env.example",
            ".env.sample",
            ".env.template",
            "src/env.rs",
            "environment.md",
            "~/.ssh/config",
            "README.md",
            ".envrc",
        ] {
            assert_eq!(secrets.matching(path), None, "{path}");
        }
    }

    #[test]
    fn an_empty_list_matches_nothing() {
        let secrets = Secrets::new(&[]);
        assert_eq!(secrets.matching("~/.ssh/id_rsa"), None);
    }
}
