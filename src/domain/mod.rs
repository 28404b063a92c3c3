//! The domain: what nagger decides and composes, with no knowledge of how a hook event
//! arrives or a command is typed.

pub mod compress;
pub mod config;
pub mod context;
pub mod guard;
pub mod identify;
pub mod import;
pub mod roles;
pub mod rules;
pub mod skills;
pub mod trust;
