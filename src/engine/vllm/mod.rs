//! vLLM: per-release schemas (`schemas/*.json`, generated from the real parser
//! by `scripts/vllm_schema.py`) and the argument preprocessing of
//! `FlexibleArgumentParser`.
//!
//! Parsing with the schemas and resolution (rules, canonical keys shared with
//! SGLang) are not built yet: `resolve` of a vLLM launch says so.

pub mod preprocess;
