//! recipe-drift: a deterministic MAJOR-argument linter for LLM serving recipes.
//!
//! Data flows one way: a source text is extracted into `Launch`es, each launch is
//! resolved by its engine into `Resolved` values, two resolved launches are compared
//! under a policy into `Finding`s, and findings are reported.

#![warn(missing_docs)]

pub(crate) mod changed;
pub(crate) mod checkpoint;
pub mod cli;
pub mod commands;
pub mod compare;
pub(crate) mod discover;
pub mod engine;
pub mod error;
pub mod extract;
pub(crate) mod fetch;
pub(crate) mod files;
pub mod finding;
pub mod fix;
pub(crate) mod hardware;
pub mod launch;
pub(crate) mod link;
pub mod lint;
pub(crate) mod manifest;
pub(crate) mod pair;
pub(crate) mod parallel;
pub mod policy;
pub mod pyrepr;
pub(crate) mod report;
pub mod resolved;
pub mod secret;
pub(crate) mod space;
pub mod span;
pub(crate) mod suggest;
pub(crate) mod suppress;
pub(crate) mod waiver;
