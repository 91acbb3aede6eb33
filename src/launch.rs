//! `Launch`: one server start as it would run, with every word traced to its source.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::source::{Source, Span};

/// The serving engine a launcher starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// SGLang (`sglang serve`, `python -m sglang.launch_server`).
    Sglang,
    /// vLLM (`vllm serve`, `python -m vllm.entrypoints.openai.api_server`).
    Vllm,
}

impl Engine {
    /// The engine's lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Sglang => "sglang",
            Engine::Vllm => "vllm",
        }
    }

    /// Parses an engine name.
    pub fn parse(s: &str) -> Option<Engine> {
        match s {
            "sglang" => Some(Engine::Sglang),
            "vllm" => Some(Engine::Vllm),
            _ => None,
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The platform a server runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    /// NVIDIA GPUs.
    Cuda,
    /// AMD GPUs.
    Rocm,
    /// CPU only.
    Cpu,
}

impl Platform {
    /// The platform's name as written in rules and flags.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Cuda => "cuda",
            Platform::Rocm => "rocm",
            Platform::Cpu => "cpu",
        }
    }

    /// Parses `cuda`, `rocm` or `cpu`.
    pub fn parse(s: &str) -> Option<Platform> {
        match s.to_ascii_lowercase().as_str() {
            "cuda" => Some(Platform::Cuda),
            "rocm" => Some(Platform::Rocm),
            "cpu" => Some(Platform::Cpu),
            _ => None,
        }
    }

    /// The platform of a hardware SKU (`mi355x` -> rocm, `b200` -> cuda, `xeon` -> cpu),
    /// from the table in `hardware.yaml` (see [`crate::hardware::platform_of`]).
    pub fn from_hardware(sku: &str) -> Option<Platform> {
        crate::hardware::platform_of(sku)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a word got its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Provenance {
    /// Written literally in the source.
    Literal,
    /// Expanded from a variable defined in the same text.
    Var {
        /// The variable's name.
        name: String,
    },
    /// Given on recipe-drift's command line (`--env`, `--engine-version`, ...).
    Cli,
    /// Not knowable from the text (an unset variable, a command substitution).
    Unknown {
        /// Why.
        reason: String,
    },
}

/// One word of a launch, with its location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Token {
    /// The word after quote removal and expansion.
    pub text: String,
    /// Where it is written.
    pub span: Span,
    /// How it got its text.
    pub provenance: Provenance,
}

/// An environment variable that reaches the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvVar {
    /// Variable name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// Where it is set.
    pub span: Span,
    /// How its value is known.
    pub provenance: Provenance,
}

/// A value of the context plus where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Known<T> {
    /// The value.
    pub value: T,
    /// Where it came from, in words (`--engine-version`, `image tag at file:3:14`, ...).
    pub from: String,
}

/// What the text says about where the server runs. Unknown stays `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Context {
    /// Hardware SKU (`mi355x`, `b200`, ...).
    pub hardware: Option<Known<String>>,
    /// Platform.
    pub platform: Option<Known<Platform>>,
    /// Engine version (PEP 440 text, for example `0.5.19` or `0.5.15.post1`).
    pub engine_version: Option<Known<String>>,
    /// Container image.
    pub image: Option<Known<String>>,
}

impl Context {
    /// Fills every field that `self` leaves unknown from `other`.
    pub fn fill_from(&mut self, other: &Context) {
        if self.hardware.is_none() {
            self.hardware = other.hardware.clone();
        }
        if self.platform.is_none() {
            self.platform = other.platform.clone();
        }
        if self.engine_version.is_none() {
            self.engine_version = other.engine_version.clone();
        }
        if self.image.is_none() {
            self.image = other.image.clone();
        }
    }
}

/// One server start as it would run.
#[derive(Debug, Clone, Serialize)]
pub struct Launch {
    /// The engine.
    pub engine: Engine,
    /// The launcher words (`sglang serve`, `python3 -m sglang.launch_server`).
    pub launcher: Vec<Token>,
    /// The arguments after the launcher.
    pub argv: Vec<Token>,
    /// Environment that reaches the server, in order of assignment.
    pub env: Vec<EnvVar>,
    /// Hardware, platform, version, image.
    pub context: Context,
    /// The span of the whole command.
    pub span: Span,
    /// The text it was read from, for reports.
    #[serde(skip)]
    pub source: Arc<Source>,
}

impl Launch {
    /// The launcher as one string.
    pub fn launcher_text(&self) -> String {
        self.launcher
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}
