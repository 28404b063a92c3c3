//! Secrets: private keys, cloud credentials and `.env` files, which an agent must not read
//! or print, by the Read and Grep tools or by a shell command. The list is the `[guard]
//! secrets` globs: `~/` stands for any home, a pattern not starting with `/` matches in
//! any folder, and a pattern starting with `!` exempts what it matches.

use std::sync::OnceLock;

use super::checks::find_names;
use super::finding::{Finding, operands};
use super::paths::wildcard;
use super::problem::PatternProblem;
use super::protect;
use super::shell::{SimpleCommand, has_flag};
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
    "~/.claude/.credentials.json",
    "~/.config/rclone/rclone.conf",
    "~/.m2/settings.xml",
    "~/.gem/credentials",
    "~/.config/hub",
    "~/.local/share/keyrings/**",
    "*.tfstate",
    "~/.config/google-chrome/**/Login Data",
    "~/.config/chromium/**/Login Data",
    "~/.mozilla/firefox/**/logins.json",
    "~/.mozilla/firefox/**/key4.db",
    "vault_pass*",
    ".vault_pass*",
    "*.tfstate.backup",
    "~/.my.cnf",
    "~/.boto",
    "~/.s3cfg",
    "~/.cargo/credentials*",
    "~/.terraform.d/credentials.tfrc.json",
    ".env",
    ".env.*",
    ".secrets",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials.json",
    "service-account*.json",
    "/proc/*/environ",
    "/etc/shadow",
    "/etc/gshadow",
    "~/.config/doctl/config.yaml",
    "~/.fly/config.yml",
    "~/.config/composer/auth.json",
    "~/.composer/auth.json",
    "~/.gradle/gradle.properties",
    "~/.m2/settings-security.xml",
    "~/.kaggle/kaggle.json",
    "~/.config/heroku/**",
    "~/.wrangler/config/**",
    "~/.config/.wrangler/config/**",
    "~/.config/netlify/config.json",
    "~/.netlify/config.json",
    "~/.vercel/auth.json",
    "~/.local/share/com.vercel.cli/auth.json",
    "~/.config/op/**",
    "~/.op/**",
    "~/.databrickscfg",
    "~/.snowsql/config",
    "~/.config/sops/age/keys.txt",
    "~/.password-store/**",
    "~/.config/stripe/config.toml",
    "~/.sentryclirc",
    "~/.circleci/cli.yml",
    "~/.config/configstore/firebase-tools.json",
    "~/.ngrok2/ngrok.yml",
    "~/.config/ngrok/ngrok.yml",
    "~/.oci/config",
    "~/.bluemix/config.json",
    "~/.config/linode-cli",
    "~/.config/hcloud/cli.toml",
    "~/.config/scw/config.yaml",
    "~/.nuget/NuGet/NuGet.Config",
    "~/.local/share/atuin/key",
    "~/.config/atuin/key",
    "~/.config/git/credentials",
    "~/.aws/sso/cache/**",
    "~/.aws/cli/cache/**",
    "~/.config/glab-cli/config.yml",
    "~/.tsh/**",
    "~/.cloudflared/*.json",
    "~/.config/tea/config.yml",
    "~/.jfrog/**",
    "~/.dbt/profiles.yml",
    "~/.yarnrc.yml",
    "~/.bundle/config",
    "~/.config/containers/auth.json",
    "~/.mc/config.json",
    "~/.config/filezilla/sitemanager.xml",
    "~/.config/filezilla/recentservers.xml",
    "~/.msmtprc",
    "~/.config/github-copilot/hosts.json",
    "~/.config/github-copilot/apps.json",
    "~/.codex/auth.json",
    "~/.sbt/.credentials",
    "~/.ivy2/.credentials",
    "~/.terraformrc",
    "~/.talos/config",
    "~/.doppler/**",
    "~/.wakatime.cfg",
    "~/.huggingface/token",
    "~/.cache/huggingface/token",
    "~/.config/gitlab-runner/config.toml",
    "/etc/gitlab/gitlab-secrets.json",
    "/etc/gitlab-runner/config.toml",
    "/etc/ssh/ssh_host_*_key",
    "/etc/ssl/private/**",
    "/var/lib/jenkins/secrets/**",
    "/var/lib/jenkins/credentials.xml",
    "/etc/kubernetes/admin.conf",
    "/etc/rancher/k3s/k3s.yaml",
    "/etc/wireguard/*.conf",
    "/etc/NetworkManager/system-connections/**",
    "/run/containers/*/auth.json",
    "~/.config/google-chrome/**/Cookies",
    "~/.config/chromium/**/Cookies",
    "~/.mozilla/firefox/**/cookies.sqlite",
    "~/Library/Keychains/**",
    "~/Library/Application Support/Google/Chrome/**/Cookies",
    "~/Library/Application Support/Google/Chrome/**/Login Data",
    "~/.bash_history",
    "~/.zsh_history",
    "~/.local/share/fish/fish_history",
    "~/.psql_history",
    "~/.mysql_history",
    "!*.pub",
    "!*.example",
    "!*.sample",
    "!*.template",
];

/// Variables that name a file of credentials: reading what they name reads a secret.
const CREDENTIAL_FILE_VARIABLES: &[&str] = &[
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AZURE_AUTH_LOCATION",
    "AZURE_CLIENT_CERTIFICATE_PATH",
    "KUBECONFIG",
    "NETRC",
    "PGPASSFILE",
    "SOPS_AGE_KEY_FILE",
    "VAULT_TOKEN_FILE",
    "ANSIBLE_VAULT_PASSWORD_FILE",
    "GIT_SSH_KEY",
    "SSH_KEY_PATH",
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
    /// The folder the command being judged runs in, when known: a glob there
    /// (`fixtures/*.json`) is judged by the names it matches on disk.
    here: std::cell::RefCell<Option<std::path::PathBuf>>,
}

struct Built<'a> {
    include: LazyGlobs<'static>,
    exclude: LazyGlobs<'static>,
    /// `include`'s patterns as the user wrote them, for messages.
    written: Vec<&'a str>,
    /// One file each pattern matches (`~/.ssh/id_x`, `x.pem`, `.env`), with its pattern:
    /// a glob on the command line that matches one reads secrets.
    samples: Vec<(String, &'a str)>,
}

/// Programs that name a secret without revealing what is in it: they list, stat, delete,
/// protect or use a key for what it is for.
const NON_REVEALING: &[&str] = &[
    "ls",
    "stat",
    "test",
    "[",
    "[[",
    "chmod",
    "chown",
    "chgrp",
    "rm",
    "unlink",
    "shred",
    "touch",
    "mkdir",
    "file",
    "wc",
    "du",
    "ssh",
    "ssh-add",
    "ssh-keygen",
    "ssh-copy-id",
    "realpath",
    "readlink",
    "dirname",
    "basename",
    "echo",
    "printf",
    "cd",
    "mv",
    "lsattr",
    "getfacl",
    "setfacl",
    "sha256sum",
    "md5sum",
    "sha1sum",
    "shasum",
    "b2sum",
    "cksum",
    "mkdocs",
    "export",
    "unset",
    "dotenv",
    "direnv",
    "trash",
    "gio",
    "chattr",
    "exists",
    "nagger",
];

/// Options whose value is a file a program reads and sends on or hands to what it runs.
const FILE_OPTIONS: &[&str] = &[
    "--env-file",
    "--post-file",
    "--body-file",
    "--upload-file",
    "--data-binary",
    "--data",
    "--data-raw",
    "--data-urlencode",
    "--form",
    "--from-file",
    "--from-env-file",
    "--attach",
];

/// git's subcommands that print or send what a file holds.
const GIT_READERS: &[&str] = &[
    "show",
    "cat-file",
    "diff",
    "log",
    "blame",
    "annotate",
    "grep",
    "archive",
    "format-patch",
    "add",
    "commit",
    "hash-object",
    "difftool",
    "stash",
];

/// Programs that read whole folders (`tar czf k.tgz ~/.ssh`, `cp -r ~/.aws x`).
fn reads_folders(name: &str, args: &[String]) -> bool {
    match name {
        // Archived (not extracted or listed), into something that is kept.
        "tar" | "bsdtar" | "gtar" => {
            let mode = |letters: &str| {
                args.iter().enumerate().take(4).any(|(k, a)| {
                    let cluster = match a.strip_prefix('-') {
                        Some(long) if long.starts_with('-') => "",
                        Some(short) => short,
                        // `tar czf x.tgz dir`: the first word's letters without a dash.
                        None if k == 0 => a,
                        None => "",
                    };
                    cluster.contains(|c: char| letters.contains(c))
                })
            };
            let long = |words: &[&str]| args.iter().any(|a| words.iter().any(|w| a == w));
            let archives = mode("cru") || long(&["--create", "--append", "--update"]);
            archives
                && !args
                    .iter()
                    .any(|a| a == "/dev/null" || a == "--file=/dev/null")
        }
        "zip" | "7z" | "7za" | "rsync" | "ditto" | "cpio" | "rclone" | "restic" | "borg"
        | "duplicity" | "rdiff-backup" | "base64" => true,
        "cp" | "scp" => {
            has_flag_here(args, 'r') || has_flag_here(args, 'R') || has_flag_here(args, 'a')
        }
        "grep" | "egrep" | "fgrep" => has_flag_here(args, 'r') || has_flag_here(args, 'R'),
        "rg" | "ag" | "ack" => args.iter().any(|a| {
            a == "--hidden" || a == "-uu" || a == "-uuu" || a == "-." || a == "--unrestricted"
        }),
        _ => false,
    }
}

fn has_flag_here(args: &[String], flag: char) -> bool {
    args.iter().take_while(|a| *a != "--").any(|a| {
        a.strip_prefix('-')
            .is_some_and(|f| !f.starts_with('-') && f.contains(flag))
            || (flag == 'r' && a == "--recursive")
            || (flag == 'a' && a == "--archive")
    })
}

/// A concrete file a secrets pattern matches: wildcards filled in.
fn sample(pattern: &str) -> String {
    pattern.replace("**", "x").replace(['*', '?'], "x")
}

/// Whether glob `pattern` matches `path`, part by part; a part not starting with `.` does
/// not match a dot-name, as the shell expands. `shape` is the secrets pattern `path` was
/// made from: a literal part of `pattern` (`id_rsa`) that its part (`id_*`) matches
/// counts too.
fn glob_matches(pattern: &str, path: &str, shape: &str) -> bool {
    let parts = |s: &str| -> Vec<String> {
        s.split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .map(str::to_owned)
            .collect()
    };
    let (p, n, q) = (parts(pattern), parts(path), parts(shape));
    p.len() == n.len()
        && pattern.starts_with('/') == path.starts_with('/')
        && p.iter().zip(&n).enumerate().all(|(k, (p, n))| {
            let literal_fits = !p.contains(['*', '?', '['])
                && q.get(k)
                    .is_some_and(|q| q.contains(['*', '?']) && wildcard(q, p));
            p == n
                || literal_fits
                || ((p.starts_with('.') || !n.starts_with('.')) && wildcard(p, n))
        })
}

/// `$HOME/x`, `${HOME}/x`, the value of `HOME`, and any user's home (`/root/x`,
/// `/home/alice/x`) as `~/x`: secrets are looked for in every home.
fn home_form(path: &str) -> String {
    let path = protect::home_form(path);
    if path.starts_with('~') {
        return path;
    }
    let rest = path.strip_prefix("/root").or_else(|| {
        let user_and_rest = path.strip_prefix("/home/")?;
        Some(user_and_rest.find('/').map_or("", |k| &user_and_rest[k..]))
    });
    match rest {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("~{rest}"),
        _ => path,
    }
}

impl<'a> Secrets<'a> {
    pub(super) fn new(patterns: &'a [String]) -> Secrets<'a> {
        Secrets {
            patterns,
            built: OnceLock::new(),
            here: std::cell::RefCell::new(None),
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
            let samples = written
                .iter()
                .map(|p| (sample(p), *p))
                .filter(|(s, _)| !s.is_empty())
                .collect();
            Built {
                include: LazyGlobs::new(include, true),
                exclude: LazyGlobs::new(exclude, true),
                written,
                samples,
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
        // `cat $GOOGLE_APPLICATION_CREDENTIALS`: a variable that names a credentials file.
        let variable = path
            .strip_prefix("${")
            .and_then(|p| p.strip_suffix('}'))
            .or_else(|| path.strip_prefix('$'));
        if let Some(name) = variable
            && CREDENTIAL_FILE_VARIABLES.contains(&name)
        {
            return Some(format!("${name}"));
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

    /// The secrets pattern a glob word matches files of (`~/.ssh/*`, `.e*`).
    fn glob_matching(&self, word: &str) -> Option<String> {
        if !word.contains(['*', '?', '[']) || word.len() > 1024 || self.patterns.is_empty() {
            return None;
        }
        let word = home_form(&super::paths::normalize(word));
        let dir = word.rsplit_once('/').map_or("", |(d, _)| d);
        let last = word.rsplit('/').next().unwrap_or(&word);
        self.built().samples.iter().find_map(|(sample, pattern)| {
            let anchored = sample.starts_with("~/") || sample.starts_with('/');
            // `cat logs/*` reads what is in `logs`, not a secret it might hold; `cat .e*`
            // and `cat ~/.ssh/*` name them.
            if !anchored && matches!(last, "*" | "**" | "*.*") {
                return None;
            }
            let (candidate, shape) = if anchored || dir.is_empty() {
                (sample.clone(), (*pattern).to_owned())
            } else {
                (format!("{dir}/{sample}"), format!("{dir}/{pattern}"))
            };
            if !(glob_matches(&word, &candidate, &shape) && self.matching(&candidate).is_some()) {
                return None;
            }
            // A file that may be anywhere (`credentials.json`, `*.pem`): whether the glob
            // reads one is seen in its folder, when that is small enough to list.
            if !anchored && let Some(names) = self.listed(dir) {
                let reads = names.iter().any(|n| {
                    super::paths::wildcard(last, n) && {
                        let path = if dir.is_empty() {
                            n.clone()
                        } else {
                            format!("{dir}/{n}")
                        };
                        self.matching(&path).is_some()
                    }
                });
                return reads.then(|| (*pattern).to_owned());
            }
            Some((*pattern).to_owned())
        })
    }

    /// Most names of a folder listed to judge a glob in it.
    const MAX_LISTED: usize = 512;

    /// The names in folder `dir` (relative to the command's folder, or absolute), when
    /// the command's folder is known and `dir` holds no more than [`Self::MAX_LISTED`];
    /// empty when it is no folder (the glob matches nothing there).
    fn listed(&self, dir: &str) -> Option<Vec<String>> {
        if dir.contains(['*', '?', '[', '$', '`', '~']) {
            return None;
        }
        let here = self.here.borrow();
        let full = if dir.starts_with('/') {
            std::path::PathBuf::from(dir)
        } else {
            here.as_ref()?.join(dir)
        };
        let Ok(entries) = std::fs::read_dir(&full) else {
            return Some(Vec::new());
        };
        let mut names = Vec::new();
        for entry in entries {
            if names.len() >= Self::MAX_LISTED {
                return None;
            }
            names.push(entry.ok()?.file_name().into_string().ok()?);
        }
        Some(names)
    }

    /// Sets the folder the next commands run in (see [`Secrets::listed`]).
    pub(super) fn set_here(&self, here: Option<std::path::PathBuf>) {
        *self.here.borrow_mut() = here;
    }

    /// The full path of the file `op` (relative to the folder the command runs in) when
    /// it is there, holds something, and git does not keep it as it is: what deleting it
    /// loses cannot be had back.
    fn kept_nowhere_else(&self, op: &str) -> Option<String> {
        if op.contains(['*', '?', '[']) {
            return None;
        }
        let full = self.here.borrow().as_ref()?.join(op);
        let meta = std::fs::symlink_metadata(&full).ok()?;
        if !meta.is_file() || meta.len() == 0 {
            return None;
        }
        let full = std::path::PathBuf::from(super::paths::normalize(&full.to_string_lossy()));
        (!super::protect::unchanged_in_git(&full)).then(|| full.to_string_lossy().into_owned())
    }

    /// [`Self::folder_holding`] for a folder in a home: moving or deleting the root or a
    /// folder of the system is refused by checks of its own.
    fn home_folder_holding(&self, word: &str) -> Option<String> {
        let home = home_form(&super::paths::normalize(word.trim_end_matches('/')));
        if !home.starts_with('~') {
            return None;
        }
        self.folder_holding(word)
    }

    /// The secrets pattern of a file inside folder `word` (`~/.ssh`, `~`, `/root/.aws/`,
    /// `/etc`, `/`).
    fn folder_holding(&self, word: &str) -> Option<String> {
        // The root, however spelled (`/`, `//`, `/.`, `/*`).
        let root = matches!(
            word.trim_end_matches(['/', '*', '.']),
            "" if word.starts_with('/')
        );
        let word = home_form(&super::paths::normalize(word.trim_end_matches('/')));
        let word = word.trim_end_matches("/*").trim_end_matches("/.");
        let word = if root { "" } else { word };
        if word.len() > 1024 {
            return None;
        }
        // `/`, `/home`, `/etc`: a folder of the system holds the secrets kept below it, and
        // the home's when the home is below it.
        if root || word.starts_with('/') {
            let below = |path: &str| word.is_empty() || path.starts_with(&format!("{word}/"));
            let home = crate::base::paths::home_dir();
            let holds_home = home
                .as_deref()
                .and_then(std::path::Path::to_str)
                .is_some_and(|h| h.starts_with('/') && below(h));
            return self.built().samples.iter().find_map(|(sample, pattern)| {
                let holds = if sample.starts_with("~/") {
                    holds_home
                } else {
                    sample.starts_with('/') && below(sample)
                };
                (holds && self.matching(sample).is_some()).then(|| (*pattern).to_owned())
            });
        }
        if !word.starts_with('~') {
            return None;
        }
        self.built().samples.iter().find_map(|(sample, pattern)| {
            let holds = sample.starts_with("~/")
                && (word == "~" || sample.starts_with(&format!("{word}/")));
            (holds && self.matching(sample).is_some()).then(|| (*pattern).to_owned())
        })
    }

    /// A secret `command` reads, by any route but its plain operands: globs, whole folders,
    /// option values, links made to it, `find -exec` readers.
    fn read_by_route(&self, command: &SimpleCommand, fed: &[String]) -> Option<Finding> {
        let name = command.name();
        let args = command.args();
        if NON_REVEALING.contains(&name) {
            return None;
        }
        let mut ops = operands(args);
        if pattern_first(name, args) && !ops.is_empty() {
            ops.remove(0); // the pattern, not a file
        }
        // `cat "$(find . -name .env)"`: a file found by a command naming a secret.
        if READERS.contains(&name) && name != "git" {
            for op in &ops {
                if !(op.contains("$(") || op.contains('`')) {
                    continue;
                }
                let named = op
                    .split(|c: char| c.is_whitespace() || "'\"()|^\\$`;&".contains(c))
                    .filter(|t| !t.is_empty() && !t.starts_with('-'))
                    .find_map(|t| self.matching(t));
                if let Some(pattern) = named {
                    return Some(Finding::ask(
                        "guard:secret",
                        format!(
                            "reads what `{op}` finds, which names secrets (`[guard] secrets` \
                             matches `{pattern}`)"
                        ),
                        "Ask the user for what you need from it.",
                    ));
                }
            }
        }
        if matches!(name, "cp" | "scp" | "rsync" | "sftp") && ops.len() > 1 {
            ops.pop(); // the destination is written, not read
        }
        let used = login_keys(name, args);
        ops.retain(|o| !used.contains(o));
        if READERS.contains(&name) && (name != "git" || git_reads(args)) {
            for op in ops.iter().copied().chain(fed.iter().map(String::as_str)) {
                if let Some(pattern) = self.matching(op).or_else(|| self.glob_matching(op)) {
                    return Some(found(op, &pattern));
                }
            }
            // `find ~/.aws -type f | xargs cat`: what it is fed may be whole folders.
            for op in fed {
                if let Some(pattern) = self.folder_holding(op) {
                    return Some(found(op, &pattern));
                }
            }
        }
        if matches!(name, "docker" | "podman")
            && ops.first().is_some_and(|s| matches!(*s, "run" | "create"))
        {
            for (k, a) in args.iter().enumerate() {
                let value = match a.as_str() {
                    "-v" | "--volume" | "--mount" => args.get(k + 1).map(String::as_str),
                    _ => a
                        .strip_prefix("--volume=")
                        .or_else(|| a.strip_prefix("--mount=")),
                };
                let Some(value) = value else { continue };
                let source = value
                    .split(',')
                    .find_map(|p| p.strip_prefix("source=").or_else(|| p.strip_prefix("src=")))
                    .unwrap_or_else(|| value.split(':').next().unwrap_or(""));
                if let Some(pattern) = self
                    .folder_holding(source)
                    .or_else(|| self.matching(source))
                {
                    return Some(Finding::deny(
                        "guard:secret",
                        format!(
                            "hands `{source}`, which holds secrets (`[guard] secrets` matches \
                             `{pattern}`), to a container"
                        ),
                        "Ask the user for what you need from it.",
                    ));
                }
            }
        }
        let folder_reader = reads_folders(name, args)
            || (name == "find"
                && args
                    .windows(2)
                    .any(|w| w[0].starts_with("-exec") || w[0].starts_with("-ok"))
                && args.windows(2).any(|w| {
                    (w[0].starts_with("-exec") || w[0].starts_with("-ok"))
                        && (READERS.contains(&super::shell::basename(&w[1]))
                            || super::shell::is_shell(super::shell::basename(&w[1])))
                }));
        // `find ~/.ssh -name '*.pub' -exec cat {} \;` reads only what its names let through.
        let find_names = find_names(args);
        let names_secrets = find_names.is_empty()
            || self.built().samples.iter().any(|(sample, _)| {
                let base = sample.rsplit('/').next().unwrap_or(sample);
                find_names.iter().any(|n| *n == base || wildcard(n, base))
            });
        if name == "find"
            && folder_reader
            && let Some((n, pattern)) = find_names.iter().find_map(|n| Some((n, self.matching(n)?)))
        {
            return Some(found(n, &pattern));
        }
        if folder_reader && (name != "find" || names_secrets) {
            let starts: Vec<&str> = if name == "find" {
                super::shell::find_starts(args)
                    .iter()
                    .map(String::as_str)
                    .collect()
            } else {
                ops.clone()
            };
            for op in starts {
                if let Some(pattern) = self.folder_holding(op).or_else(|| self.glob_matching(op)) {
                    return Some(Finding::deny(
                        "guard:secret",
                        format!(
                            "reads the folder `{op}`, which holds secrets (`[guard] secrets` \
                             matches `{pattern}`)"
                        ),
                        "Ask the user for what you need from it; they can exempt it in \
                         `[guard] allow`.",
                    ));
                }
            }
        }
        if matches!(name, "ln" | "link") || (name == "cp" && has_flag_here(args, 's')) {
            // A second name for a secret hides it from every later check.
            let sources = match ops.split_last() {
                Some((_, rest)) if !rest.is_empty() => rest.to_vec(),
                _ => ops.clone(),
            };
            for source in sources {
                if let Some(pattern) = self.matching(source).or_else(|| self.glob_matching(source))
                {
                    return Some(Finding::deny(
                        "guard:secret",
                        format!(
                            "makes a link to `{source}`, which holds secrets (`[guard] secrets` \
                             matches `{pattern}`), so it can be read under another name"
                        ),
                        "Ask the user for what you need from it.",
                    ));
                }
            }
        }
        // `docker run --env-file .env`, `wget --post-file=.env`, `curl -T .env`. Compose
        // reads `--env-file` to fill in its own file, for the services it starts.
        let compose =
            name == "docker-compose" || (name == "docker" && args.iter().any(|a| a == "compose"));
        for (k, arg) in args.iter().enumerate() {
            if compose && arg.starts_with("--env-file") {
                continue;
            }
            let value = FILE_OPTIONS.iter().find_map(|o| {
                if arg == o {
                    args.get(k + 1).map(String::as_str)
                } else {
                    arg.strip_prefix(o).and_then(|r| r.strip_prefix('='))
                }
            });
            let value = value.or_else(|| {
                (matches!(arg.as_str(), "-T" | "-F" | "-d") && name != "git")
                    .then(|| args.get(k + 1).map(String::as_str))
                    .flatten()
            });
            let Some(value) = value else { continue };
            let value = value.rsplit_once('@').map_or(value, |(_, f)| f);
            let value = value.split([';', ',']).next().unwrap_or(value);
            if let Some(pattern) = self.matching(value) {
                return Some(found(value, &pattern));
            }
        }
        if READERS.contains(&name) || name == "git" || compose || name == "find" {
            return None;
        }
        // Any other program given a secret: what it does with it is not known. BuildKit's
        // `--secret id=x,src=.env` is the way to hand one to a build without keeping it.
        let build_secret = |op: &str| {
            name == "docker"
                && op.contains("src=")
                && args
                    .iter()
                    .any(|a| a == "--secret" || a.starts_with("--secret="))
        };
        // Code handed to an interpreter is judged by what it does (`in_code`).
        let code = super::shell::inline_program(&command.argv).unwrap_or_default();
        for op in ops
            .into_iter()
            .filter(|op| !build_secret(op) && (code.is_empty() || !code.contains(*op)))
        {
            let op = op.rsplit_once('=').map_or(op, |(_, v)| v);
            if let Some(pattern) = self.matching(op) {
                return Some(Finding::ask(
                    "guard:secret",
                    format!(
                        "gives `{op}`, which holds secrets (`[guard] secrets` matches \
                         `{pattern}`), to `{name}`, which may print or send it"
                    ),
                    "Ask the user for what you need from it.",
                ));
            }
        }
        None
    }

    /// A secret named in interpreter code that reads files (`open('.env').read()`,
    /// `readFileSync(HOME + '/.ssh/id_rsa')`); code that only asks whether it exists
    /// passes.
    pub(super) fn in_code(&self, code: &str) -> Option<Finding> {
        if self.patterns.is_empty() || code.len() > 256 * 1024 {
            return None;
        }
        let (path, pattern) = super::code::strings(code).into_iter().find_map(|s| {
            let s = s.trim().to_owned();
            let candidates = [s.clone(), format!("~{s}"), home_form(&s)];
            candidates
                .into_iter()
                .find_map(|c| Some((s.clone(), self.matching(&c)?)))
        })?;
        let lower = code.to_ascii_lowercase();
        let reads = [
            "open",
            "read",
            "slurp",
            "file_get_contents",
            "cat ",
            "load",
            "copy",
            "upload",
            "send",
            "post",
            "file.",
            "io.",
            "pipe",
            "popen",
            "system",
            "exec",
            "spawn",
            "<",
            "get_contents",
            "fs.",
        ]
        .iter()
        .any(|w| lower.contains(w));
        let probes = ["exists", "isfile", "is_file", "access(", "stat("]
            .iter()
            .any(|w| lower.contains(w));
        if !reads && probes {
            return None;
        }
        let finding = if reads { Finding::deny } else { Finding::ask };
        Some(finding(
            "guard:secret",
            format!(
                "names `{path}` in code it runs, which holds secrets (`[guard] secrets` \
                 matches `{pattern}`)"
            ),
            "Ask the user for what you need from it; they can exempt it in `[guard] allow`.",
        ))
    }

    /// A secret destroyed: a key or credentials file deleted, shredded or truncated, or a
    /// folder holding them removed.
    /// `base`: the folder the command runs in, when the line `cd`-ed somewhere known.
    pub(super) fn destroyed_by(
        &self,
        command: &SimpleCommand,
        base: Option<&str>,
    ) -> Option<Finding> {
        let name = command.name();
        // Overwritten whole: `> ~/.ssh/id_rsa`, `cp /dev/null ~/.aws/credentials`, `dd
        // of=KEY`, `tee KEY`.
        let args = command.args();
        let mut overwritten: Vec<&str> = command
            .writes_to
            .iter()
            .filter(|w| !command.appends_to.contains(w))
            .map(String::as_str)
            .collect();
        match name {
            "cp" | "mv" | "install" | "ln" | "rsync" => {
                let ops = operands(args);
                if ops.len() >= 2 && !has_flag(args, "t", &["target-directory"]) {
                    overwritten.extend(ops.last().copied());
                }
            }
            "tee" if !has_flag(args, "a", &["append"]) => overwritten.extend(operands(args)),
            "dd" => overwritten.extend(args.iter().filter_map(|a| a.strip_prefix("of="))),
            // A key made at `-f KEY` (an existing one replaced once `y` answers its
            // question), or its passphrase changed or taken off (`-p`). Its other modes
            // read the key: `-y`, `-l`, `-e`, `-F`, `-R`, `-H`, `-Y`.
            "ssh-keygen" => {
                let reads = args.iter().any(|a| {
                    super::shell::short_cluster(a).is_some_and(|c| {
                        c.contains(['y', 'l', 'e', 'i', 'F', 'R', 'H', 'Y', 'L', 'Q', 'D', 'B'])
                    })
                });
                // Only a key that is there is replaced: a new one is made where none was.
                if !reads {
                    overwritten.extend(
                        super::shell::option_values(args, &["-f"], &[])
                            .into_iter()
                            .filter(|k| key_exists(k)),
                    );
                }
            }
            _ => {}
        }
        if let Some(found) = overwritten.into_iter().find_map(|op| {
            if !(op.starts_with('~') || op.starts_with('$') || op.starts_with('/')) {
                return None;
            }
            let pattern = self.matching(op).or_else(|| self.glob_matching(op))?;
            Some(Finding::deny(
                "guard:secret",
                format!(
                    "overwrites `{op}`, which holds secrets (`[guard] secrets` matches \
                     `{pattern}`) that cannot be made again"
                ),
                "Ask the user.",
            ))
        }) {
            return Some(found);
        }
        // Keys deleted from the keyring they live in.
        let keyring = match name {
            "gpg" | "gpg2" => args
                .iter()
                .find(|a| a.starts_with("--delete-secret") || a.starts_with("--delete-key")),
            "security" => args.iter().find(|a| {
                matches!(
                    a.as_str(),
                    "delete-keychain" | "delete-identity" | "delete-certificate"
                ) || a.starts_with("delete-") && a.ends_with("-password")
            }),
            _ => None,
        };
        if let Some(verb) = keyring {
            return Some(Finding::ask(
                "guard:secret",
                format!("deletes keys or passwords from where they are kept (`{name} {verb}`)"),
                "Ask the user.",
            ));
        }
        // `mv ~/.ssh/id_rsa /tmp/`: the key taken from where it is used.
        if name == "mv" {
            let ops = operands(args);
            let sources = if has_flag(args, "t", &["target-directory"]) {
                &ops[..]
            } else {
                ops.split_last().map_or(&[][..], |(_, rest)| rest)
            };
            let into = super::shell::option_values(args, &["-t"], &["--target-directory"]);
            return sources.iter().find_map(|op| {
                if !op.starts_with(['~', '$', '/']) || into.contains(op) {
                    return None;
                }
                let pattern = self
                    .matching(op)
                    .or_else(|| self.glob_matching(op))
                    .or_else(|| self.home_folder_holding(op))?;
                Some(Finding::ask(
                    "guard:secret",
                    format!(
                        "moves `{op}`, which holds secrets (`[guard] secrets` matches \
                         `{pattern}`), away from where it is used"
                    ),
                    "Ask the user.",
                ))
            });
        }
        if !matches!(
            name,
            "rm" | "unlink" | "shred" | "srm" | "truncate" | "trash" | "trash-put"
        ) {
            return None;
        }
        let ops = operands(command.args());
        let recursive = name != "rm"
            || has_flag_here(command.args(), 'r')
            || has_flag_here(command.args(), 'R');
        ops.into_iter().find_map(|op| {
            let given = op;
            let joined = match base {
                Some(dir) if !op.starts_with(['/', '~', '$']) => format!("{dir}/{op}"),
                _ => op.to_owned(),
            };
            let op = joined.as_str();
            let pattern = self
                .matching(op)
                .or_else(|| self.glob_matching(op))
                .or_else(|| recursive.then(|| self.home_folder_holding(op)).flatten())?;
            // A project's `.env` is the project's own to delete when a commit keeps it
            // (or it holds nothing); credentials kept nowhere else are not.
            if !(op.starts_with('~') || op.starts_with('$') || op.starts_with('/')) {
                return self.kept_nowhere_else(given).map(|full| {
                    Finding::ask(
                        "guard:secret",
                        format!(
                            "deletes `{given}` ({full}), which holds secrets (`[guard] secrets` \
                             matches `{pattern}`) that no commit keeps: they are gone for good"
                        ),
                        "Ask the user.",
                    )
                });
            }
            Some(Finding::deny(
                "guard:secret",
                format!(
                    "destroys `{op}`, which holds secrets (`[guard] secrets` matches \
                     `{pattern}`) that cannot be made again"
                ),
                "Ask the user.",
            ))
        })
    }

    /// Commands whose purpose is printing a secret (`gpg --export-secret-keys`,
    /// `aws configure get aws_secret_access_key`, `gh auth token`).
    fn printed_by(command: &SimpleCommand) -> Option<Finding> {
        let name = command.name();
        let args = command.args();
        let has = |w: &str| args.iter().any(|a| a == w);
        let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
        let prints = match name {
            "gpg" | "gpg2" => args.iter().any(|a| a.starts_with("--export-secret")),
            "aws" => {
                (has("configure")
                    && has("get")
                    && lower
                        .iter()
                        .any(|a| a.contains("secret") || a.contains("token")))
                    || (has("configure") && has("export-credentials"))
                    || (has("secretsmanager") && has("get-secret-value"))
                    || (has("ssm")
                        && args.iter().any(|a| a.starts_with("get-parameter"))
                        && has("--with-decryption"))
                    || (has("sts")
                        && args.iter().any(|a| {
                            matches!(
                                a.as_str(),
                                "get-session-token" | "assume-role" | "get-federation-token"
                            )
                        }))
            }
            "gh" | "glab" => {
                has("auth")
                    && (has("token") || has("--show-token") || (name == "glab" && has("-t")))
            }
            // Secrets, keys and tokens of the clouds, printed.
            "gcloud" => {
                (has("auth")
                    && args.iter().any(|a| {
                        matches!(a.as_str(), "print-access-token" | "print-identity-token")
                    }))
                    || (has("secrets") && has("access"))
            }
            "az" => {
                (has("ad") && has("credential") && has("reset"))
                    || (has("keyvault") && has("secret") && has("show"))
                    || (has("account") && has("get-access-token"))
            }
            "secret-tool" => has("lookup"),
            // `ps eww`: every process's environment, with whatever secrets it holds.
            "ps" => args.iter().any(|a| {
                !a.starts_with('-')
                    && a.contains('e')
                    && a.bytes().all(|b| b"aeuxwfjlsvrTmgcnhS".contains(&b))
            }),
            "getent" => args
                .iter()
                .any(|a| matches!(a.as_str(), "shadow" | "gshadow")),
            // `docker exec api env`, `docker inspect -f '{{.Config.Env}}' api`, a
            // container's secrets (`docker exec db cat /run/secrets/x`).
            "docker" | "podman" | "nerdctl" => {
                (has("exec")
                    && (args
                        .iter()
                        .rev()
                        .take(2)
                        .any(|a| matches!(a.as_str(), "env" | "printenv"))
                        || args.iter().any(|a| a.starts_with("/run/secrets"))))
                    || (has("inspect") && args.iter().any(|a| a.contains(".Env")))
            }
            "keyctl" => has("print") || has("pipe") || has("read"),
            "heroku" => {
                args.first().is_some_and(|a| {
                    a == "config" || a.starts_with("config:get") || a == "auth:token"
                }) && !has("--help")
            }
            // Tokens kept in a package manager's or a tool's settings, printed.
            // `composer config [--global] github-oauth.github.com`: the key alone prints it.
            "composer" if has("config") => {
                !has("--unset")
                    && lower.last().is_some_and(|a| {
                        a.contains("oauth") || a.contains("http-basic") || a.contains("bearer")
                    })
            }
            "npm" | "pnpm" | "yarn" | "composer" => {
                (has("config") || has("c"))
                    && (has("get") || has("list") || has("ls") || args.len() == 2)
                    && lower.iter().any(|a| {
                        a.contains("authtoken") || a.contains("_auth") || a.contains("oauth")
                    })
            }
            "git" if has("config") => lower.iter().any(|a| a.ends_with(".extraheader")),
            "netlify" | "vercel" => {
                lower
                    .iter()
                    .any(|a| a.starts_with("env:list") || a.starts_with("env:get"))
                    || (has("env") && (has("ls") || has("pull")) && has("--plain"))
            }
            // Another machine's or container's environment printed.
            "fly" | "flyctl" if has("ssh") => lower
                .iter()
                .any(|a| a.contains("printenv") || a == "env" || a.ends_with(" env")),
            "kubectl" | "oc" if has("exec") => args
                .iter()
                .rev()
                .take(2)
                .any(|a| matches!(a.as_str(), "env" | "printenv")),
            "doppler" => has("secrets") && (has("download") || has("get")),
            "git" => has("credential") && (has("fill") || has("get")),
            "security" if has("dump-keychain") => true,
            "security" => {
                args.iter()
                    .any(|a| a.starts_with("find-") && a.ends_with("password"))
                    && args.iter().any(|a| {
                        super::shell::short_cluster(a).is_some_and(|c| c.contains(['w', 'g']))
                    })
            }
            "op" | "pass" | "gopass" | "bw" | "vault" | "lpass" => {
                matches!(
                    args.first().map(String::as_str),
                    Some("read" | "show" | "get" | "item" | "kv")
                ) || name == "vault" && has("token") && (has("lookup") || has("create"))
                    || name == "vault" && has("print") && has("token")
            }
            // `doctl auth token`, `linode-cli … token`, `hcloud context … --token`: a
            // platform's access token printed.
            "doctl" => has("auth") && has("token"),
            "scw" => has("iam") && has("api-key") && has("get"),
            "kubectl" | "oc" if has("config") && has("view") && has("--raw") => true,
            "kubectl" | "oc" => {
                has("get")
                    && lower.iter().any(|a| a.starts_with("secret"))
                    && lower
                        .iter()
                        .any(|a| a.contains("yaml") || a.contains("json") || a.contains("jsonpath"))
            }
            "printenv" | "env" => args
                .iter()
                .filter(|a| !a.starts_with('-') && !a.contains('='))
                .any(|a| secret_variable(a)),
            _ => false,
        };
        prints.then(|| {
            Finding::deny(
                "guard:secret",
                format!("prints a secret (`{}`)", command.display()),
                "Ask the user for what you need from it.",
            )
        })
    }

    /// The first secret a simple command reads, with the pattern it matches.
    pub(super) fn read_by(&self, command: &SimpleCommand, fed: &[String]) -> Option<Finding> {
        if let Some(found) = Self::printed_by(command) {
            return Some(found);
        }
        if let Some(found) = self.read_by_route(command, fed) {
            return Some(found);
        }
        let name = command.name();
        let mut paths: Vec<&str> = command.reads_from.iter().map(String::as_str).collect();
        if READERS.contains(&name) && (name != "git" || git_reads(command.args())) {
            let mut read = operands(command.args());
            if matches!(name, "cp" | "scp" | "rsync" | "sftp") {
                read.pop(); // the destination is written, not read
            }
            let used = login_keys(name, command.args());
            read.retain(|r| !used.contains(r));
            if pattern_first(name, command.args()) && !read.is_empty() {
                read.remove(0); // grep's pattern, not a file
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
        let field = |f: &str| input.get(f).and_then(serde_json::Value::as_str);
        match tool_name {
            "Read" | "NotebookRead" => {
                let path = field("file_path").or_else(|| field("notebook_path"))?;
                if let Some(pattern) = self.matching(path) {
                    return Some(found(path, &pattern));
                }
                // A link made to a secret (`ln -s ~/.ssh/id_rsa notes.txt`).
                let real = linked(path)?;
                let pattern = self.matching(&real)?;
                Some(found(&format!("{path}` (a link to `{real}"), &pattern))
            }
            "Grep" | "Glob" => {
                let path = field("path").unwrap_or("");
                let glob = field(if tool_name == "Grep" {
                    "glob"
                } else {
                    "pattern"
                })
                .unwrap_or("");
                let joined = match (path, glob) {
                    ("", g) => g.to_owned(),
                    (p, "") => p.to_owned(),
                    (_, g) if g.starts_with('/') || g.starts_with('~') => g.to_owned(),
                    (p, g) => format!("{}/{g}", p.trim_end_matches('/')),
                };
                let folder = joined
                    .split('/')
                    .take_while(|part| !part.contains(['*', '?', '[', '{']))
                    .collect::<Vec<_>>()
                    .join("/");
                let listing =
                    tool_name == "Glob" && !(joined.starts_with('~') || joined.starts_with('/'));
                for candidate in [path, joined.as_str()] {
                    if candidate.is_empty() || listing {
                        continue;
                    }
                    if let Some(pattern) = self.matching(candidate) {
                        return Some(found(candidate, &pattern));
                    }
                }
                // Glob lists names only: it matters in folders that hold keys and
                // credentials; Grep reads what the files hold.
                let holds = [path, folder.as_str()]
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .find_map(|p| Some((p, self.folder_holding(p)?)))
                    .or_else(|| {
                        let anchored = joined.starts_with('~') || joined.starts_with('/');
                        (tool_name == "Grep" || anchored)
                            .then(|| Some((joined.as_str(), self.glob_matching(&joined)?)))
                            .flatten()
                    });
                let (what, pattern) = holds?;
                Some(Finding::deny(
                    "guard:secret",
                    format!(
                        "searches `{what}`, which holds secrets (`[guard] secrets` matches \
                         `{pattern}`)"
                    ),
                    "Ask the user for what you need from it; they can exempt it in \
                     `[guard] allow`.",
                ))
            }
            _ => None,
        }
    }
}

/// Where `path` leads when it is a symbolic link on disk (one lookup, nothing opened).
fn linked(path: &str) -> Option<String> {
    if path.len() > 4096 {
        return None;
    }
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    Some(
        std::fs::canonicalize(path)
            .ok()?
            .to_string_lossy()
            .into_owned(),
    )
}

/// Whether the first operand of `name` is a search pattern rather than a file (`grep
/// .env file`), as when no `-e`/`-f` gives it.
fn pattern_first(name: &str, args: &[String]) -> bool {
    matches!(name, "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack")
        && !args
            .iter()
            .any(|a| a == "-e" || a == "-f" || a.starts_with("--regexp") || a.starts_with("--file"))
}

/// Whether `git <args>` prints or sends what files hold (`git show HEAD:.env`), unlike
/// `git check-ignore .env`.
fn git_reads(args: &[String]) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        i += if matches!(arg.as_str(), "-C" | "-c" | "--git-dir" | "--work-tree") {
            2
        } else {
            1
        };
    }
    args.get(i)
        .is_some_and(|sub| GIT_READERS.contains(&sub.as_str()))
}

fn found(path: &str, pattern: &str) -> Finding {
    Finding {
        // The home's or the system's secrets, named by where they are kept.
        outside: pattern.starts_with(['~', '/']),
        ..Finding::deny(
            "guard:secret",
            format!("reads `{path}`, which holds secrets (`[guard] secrets` matches `{pattern}`)"),
            "Ask the user for what you need from it; they can exempt it in `[guard] allow`.",
        )
    }
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

/// `scp -i KEY`, `rsync -e 'ssh -i KEY'`: option values of a copier over ssh (a key used
/// to log in, a config, a port), which it does not copy out.
fn login_keys<'a>(name: &str, args: &'a [String]) -> Vec<&'a str> {
    // A client's credentials and certificates, used to talk to the host they are for
    // (`curl --netrc-file ~/.netrc`, `--cacert ca.pem`, `--key client.key`), the
    // addresses it fetches (`https://…/gpg.key`) and the files it writes (`-o x.key`):
    // nothing of them is printed or sent on.
    if matches!(name, "curl" | "wget" | "wget2" | "http" | "https" | "xh") {
        let mut used: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .filter(|a| a.contains("://"))
            .collect();
        used.extend(
            args.windows(2)
                .filter(|w| {
                    matches!(
                        w[0].as_str(),
                        "--netrc-file"
                            | "--cacert"
                            | "--capath"
                            | "--cert"
                            | "-E"
                            | "--key"
                            | "--proxy-cacert"
                            | "--proxy-cert"
                            | "--proxy-key"
                            | "--crlfile"
                            | "--ca-certificate"
                            | "--ca-directory"
                            | "--certificate"
                            | "--private-key"
                            | "--verify"
                            // Written, not read.
                            | "-o"
                            | "--output"
                            | "--output-dir"
                            | "-D"
                            | "--dump-header"
                            | "-c"
                            | "--cookie-jar"
                            | "--trace"
                            | "--trace-ascii"
                            | "--etag-save"
                            | "-O"
                            | "--output-document"
                            | "--output-file"
                            | "-P"
                            | "--directory-prefix"
                    )
                })
                .map(|w| w[1].as_str()),
        );
        return used;
    }
    // openssl's files it writes (`-out`, `-keyout`), the certificates it checks against
    // (`-CAfile`) and a certificate or request it reads (`x509 -in`); gpg's keys imported
    // into its keyring or shown (`--import`, `--show-keys`).
    if name == "openssl" {
        let sub = args.first().map_or("", String::as_str);
        return args
            .windows(2)
            .filter(|w| {
                matches!(
                    w[0].as_str(),
                    "-out" | "-keyout" | "-CAfile" | "-CApath" | "-untrusted" | "-certfile"
                ) || (w[0] == "-in" && matches!(sub, "x509" | "verify" | "crl" | "req"))
            })
            .map(|w| w[1].as_str())
            .collect();
    }
    if matches!(name, "gpg" | "gpg2")
        && args.iter().any(|a| {
            matches!(
                a.as_str(),
                "--import" | "--show-keys" | "--dearmor" | "--enarmor"
            )
        })
    {
        return args
            .iter()
            .map(String::as_str)
            .filter(|a| !a.starts_with('-'))
            .collect();
    }
    if !matches!(name, "scp" | "sftp" | "rsync") {
        return Vec::new();
    }
    args.windows(2)
        .filter(|w| {
            matches!(
                w[0].as_str(),
                "-i" | "-F" | "-o" | "-J" | "-S" | "-e" | "--rsh" | "-P" | "-l" | "-c"
            )
        })
        .map(|w| w[1].as_str())
        .collect()
}

/// Names of environment variables that hold secrets, read by their words
/// (`AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, `OPENAI_API_KEY`): not names
/// that only contain such a word (`TOKENIZERS_PARALLELISM`, `MAX_TOKENS`), nor ones
/// naming where a secret is kept (`API_KEY_FILE`, `PASSWORD_STORE_DIR`,
/// `GOOGLE_APPLICATION_CREDENTIALS`).
pub(super) fn secret_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let words: Vec<&str> = upper.split('_').filter(|w| !w.is_empty()).collect();
    let Some(last) = words.last() else {
        return false;
    };
    if matches!(
        *last,
        "FILE"
            | "PATH"
            | "DIR"
            | "URL"
            | "ID"
            | "NAME"
            | "TYPE"
            | "LENGTH"
            | "COUNT"
            | "LIMIT"
            | "TTL"
            | "EXPIRY"
            | "EXPIRES"
            | "HEADER"
            | "PARALLELISM"
            | "CMD"
            | "COMMAND"
            | "HOST"
            | "PORT"
            | "USER"
            | "USERNAME"
            | "REGION"
            | "ENDPOINT"
    ) {
        return false;
    }
    words.iter().any(|w| {
        matches!(
            *w,
            "SECRET" | "TOKEN" | "PASSWORD" | "PASSWD" | "PASS" | "APIKEY" | "PAT" | "PRIVATE"
        )
    }) || words.windows(2).any(|w| {
        matches!(
            (w[0], w[1]),
            (
                "API" | "ACCESS" | "PRIVATE" | "SECRET" | "SIGNING" | "MASTER",
                "KEY"
            )
        )
    })
}

/// Whether a key file named on the command line (`~/.ssh/id_rsa`, `$HOME/…`) is there.
fn key_exists(path: &str) -> bool {
    let home = std::env::var("HOME").unwrap_or_default();
    let full = ["~", "$HOME", "${HOME}"]
        .iter()
        .find_map(|h| path.strip_prefix(h).filter(|r| r.starts_with('/')))
        .map_or_else(|| path.to_owned(), |rest| format!("{home}{rest}"));
    // Unknown (a variable): as if it were there.
    full.contains(['$', '`']) || std::path::Path::new(&full).exists()
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
