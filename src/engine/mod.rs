//! Engines: one folder per engine with its bundled schemas and rules, plus the
//! shared argparse re-implementation and rule evaluator.

pub mod argparse;
pub mod rules;
pub mod sglang;
pub mod types;
pub mod vllm;
