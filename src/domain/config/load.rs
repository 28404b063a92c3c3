//! Loading the config file: bounded reads, strict and lenient parses, and the problems
//! found, located.

use super::error::{ConfigError, Problem};
use super::sift::Sift;
use super::types::Config;
use std::path::{Path, PathBuf};

/// The config in force, and what was wrong with the file if anything. A problem never
/// switches off more than the entry it is in: the rest of the file applies.
#[derive(Debug, Clone, Default)]
pub struct LoadedConfig {
    pub config: Config,
    pub path: PathBuf,
    pub present: bool,
    pub errors: Vec<ConfigError>,
}

/// How much of the config to check when loading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validation {
    /// Syntax, types and values; patterns are compiled only when first used (and
    /// reported then). What the hook path pays for.
    Quick,
    /// Also compiles every glob and regex: for `doctor` and `check`.
    Full,
}

impl LoadedConfig {
    /// Reads `path` with quick validation. A missing file gives the defaults; a file with
    /// mistakes everything in it that is right, plus its problems.
    pub fn load(path: &Path) -> LoadedConfig {
        LoadedConfig::load_with(path, Validation::Quick)
    }

    /// Reads `path` and checks every pattern in it too.
    pub fn load_full(path: &Path) -> LoadedConfig {
        LoadedConfig::load_with(path, Validation::Full)
    }

    fn load_with(path: &Path, validation: Validation) -> LoadedConfig {
        match read_bounded(path) {
            Ok(text) => {
                let (config, errors) = parse_lenient(&text, path, validation);
                LoadedConfig {
                    config,
                    path: path.to_path_buf(),
                    present: true,
                    errors,
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => LoadedConfig {
                config: Config::default(),
                path: path.to_path_buf(),
                present: false,
                errors: Vec::new(),
            },
            Err(e) => LoadedConfig {
                config: Config::default(),
                path: path.to_path_buf(),
                present: true,
                errors: vec![ConfigError {
                    file: path.to_path_buf(),
                    line: None,
                    key: None,
                    message: format!("cannot be read ({e}); running on the defaults"),
                    problem: Problem::Unreadable,
                    may_weaken: true,
                }],
            },
        }
    }

    /// One line for a hook's stderr when the file has problems: the first, and how many
    /// more there are.
    pub fn warning(&self) -> Option<String> {
        let first = self.errors.first()?;
        let more = self.errors.len() - 1;
        Some(if more > 0 {
            format!("config: {first} (and {more} more; run `nagger doctor`)")
        } else {
            format!("config: {first}")
        })
    }
}

/// Largest config file nagger reads: a longer one is unreadable, and nagger runs on
/// its defaults.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The config text, opened without blocking (a FIFO or a device in its place is not
/// read) and at most [`MAX_CONFIG_BYTES`].
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let file = crate::base::files::open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} KiB", MAX_CONFIG_BYTES / 1024),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not valid UTF-8"))
}

/// Parses and fully validates config text; `file` only labels errors. Strict: any
/// problem is an error (the lenient reading is [`parse_lenient`]).
pub fn parse(text: &str, file: &Path) -> Result<Config, Vec<ConfigError>> {
    let (config, errors) = parse_lenient(text, file, Validation::Full);
    if errors.is_empty() {
        Ok(config)
    } else {
        Err(errors)
    }
}

/// Reads config text keeping everything that is right: an unknown key is ignored, a bad
/// value leaves its setting on the default (or its list item or rule out), a bad pattern
/// never matches. Returns the config in force and every problem, located.
///
/// A file without mistakes costs one TOML parse; only a file with some is parsed again,
/// with positions, and sifted entry by entry.
pub fn parse_lenient(
    text: &str,
    file: &Path,
    validation: Validation,
) -> (Config, Vec<ConfigError>) {
    let mut sift = Sift {
        text,
        file,
        errors: Vec::new(),
    };
    let mut config = match toml::from_str::<Config>(text) {
        Ok(config) => config,
        Err(_) => sift.whole_file(),
    };
    sift.check_values(&mut config);
    sift.repair_rule_names(&mut config);
    if validation == Validation::Full {
        sift.check_patterns(&config);
    }
    (config, sift.errors)
}
