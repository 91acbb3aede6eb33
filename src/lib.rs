//! recipe-drift: a deterministic MAJOR-argument linter for LLM serving recipes.
//!
//! Data flows one way: a source text is extracted into `Launch`es, each launch is
//! resolved by its engine into `Resolved` values, two resolved launches are compared
//! under a policy into `Finding`s, and findings are reported.

#![warn(missing_docs)]

pub mod changed;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod discover;
pub mod engine;
pub mod error;
pub mod extract;
pub mod fetch;
pub mod files;
pub mod hardware;
pub mod launch;
pub mod link;
pub mod manifest;
pub mod policy;
pub mod report;
pub mod resolved;
pub mod span;
pub mod waiver;
