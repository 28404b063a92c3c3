//! The ground floor: vocabulary shared by every other floor. Imports nothing of nagger's.

pub mod decision;
pub mod event;
pub mod mode;
pub mod output;
pub mod paths;
pub mod rule_kind;
pub mod table;
pub mod text;
