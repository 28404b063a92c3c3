//! The ground floor: the vocabulary and the small utilities every other floor shares
//! (hook events, decisions, permission modes, rule kinds, text, numbers, paths, opening
//! a file without blocking, the processes above this one, the shell lines and the frontmatter of a skill's file). Imports nothing of nagger's.

pub mod decision;
pub mod event;
pub mod files;
pub mod frontmatter;
pub mod glob;
pub mod mode;
pub mod num;
pub mod output;
pub mod paths;
pub mod process;
pub mod rule_kind;
pub mod skill_lines;
pub mod table;
pub mod text;
