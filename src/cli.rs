//! Command-line definitions.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::report::{Format, ReportFormat};

/// Keeps LLM serving docs honest: compares the serve commands docs show with the
/// ones benchmark recipes run, after the engine's own parsing and resolution.
///
/// Exit codes: 0 no MAJOR drift, 1 MAJOR drift found, 2 usage or input error.
#[derive(Debug, Parser)]
#[command(name = "recipe-drift", version, about, long_about = None)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
    /// Raise or lower a budget of the static bash evaluation (repeatable):
    /// script-kib, nesting, call-depth, steps, loop-turns, value-kib, built-mib,
    /// match-work, arith-operators, seconds. An exceeded budget is an input
    /// error (exit 2) naming it.
    #[arg(long = "bash-budget", value_name = "NAME=N", global = true)]
    pub bash_budget: Vec<String>,
    /// Where files may be read from.
    #[command(flatten)]
    pub files: FilesArgs,
    /// Time limits of the JavaScript sandbox (every command that renders a
    /// generator).
    #[command(flatten)]
    pub js: JsArgs,
    /// The per-file launch budget of extraction.
    #[command(flatten)]
    pub launches: LaunchArgs,
    /// Colour the human and concise output: `auto` (on a terminal, unless
    /// `NO_COLOR` is set), `always` or `never`.
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "WHEN",
        default_value = "auto"
    )]
    pub color: crate::report::color::ColorChoice,
}

/// The per-file launch budget: what one file may yield, whatever its kind.
#[derive(Debug, Clone, clap::Args)]
pub struct LaunchArgs {
    /// The most launches one file may yield (a page's blocks and the commands
    /// its generators print, a script, a command file); more is an input
    /// error at the first launch over it.
    #[arg(long, global = true, value_name = "N",
          default_value_t = crate::extract::MAX_LAUNCHES as u64,
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub max_launches: u64,
    /// The most words (launcher, arguments, environment entries) the launches
    /// of one file may have in all.
    #[arg(long, global = true, value_name = "N",
          default_value_t = crate::extract::MAX_LAUNCH_WORDS as u64,
          value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub max_launch_words: u64,
}

/// The time limits of the JavaScript sandbox.
#[derive(Debug, Clone, clap::Args)]
pub struct JsArgs {
    /// Time one JavaScript evaluation of a generator may take, in milliseconds
    /// (1 to 3,600,000).
    #[arg(long, global = true, value_name = "MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..=MAX_TIME_LIMIT_MS))]
    pub js_time_limit: u64,
    /// Time all the JavaScript of one file may take together (loading,
    /// rendering, every click of --all-selections), in milliseconds (1 to
    /// 3,600,000) [default: 20000; with --all-selections, --time-limit + 10 s;
    /// for the docs pages `check` and `lint-docs` explore, 130000].
    #[arg(long, global = true, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=MAX_TIME_LIMIT_MS))]
    pub js_total_time_limit: Option<u64>,
}

/// The confined file layer: the roots reads stay inside, and the file size cap.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FilesArgs {
    /// Read local files only inside this folder (repeatable), instead of the
    /// repository (git top level, else folder) of the config or of the files
    /// named on the command line.
    #[arg(long = "root", id = "confine_root", value_name = "DIR", global = true)]
    pub root: Vec<PathBuf>,
    /// The largest local file read, in bytes; a larger one is an error.
    #[arg(long, value_name = "BYTES", global = true, default_value_t = crate::files::DEFAULT_MAX_FILE_BYTES)]
    pub max_file_bytes: u64,
}

/// The largest value the JavaScript time limits take, in milliseconds (an
/// hour): larger values are a usage error rather than an overflow.
pub const MAX_TIME_LIMIT_MS: u64 = 3_600_000;

/// Context flags shared by commands that resolve launches.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ContextArgs {
    /// Engine version (PEP 440), overriding the one from a docker image tag.
    #[arg(long, value_name = "V")]
    pub engine_version: Option<String>,
    /// Hardware SKU (mi355x, b200, ...); also gives the platform.
    #[arg(long, value_name = "SKU")]
    pub hardware: Option<String>,
    /// Platform: cuda, rocm or cpu.
    #[arg(long, value_name = "P")]
    pub platform: Option<String>,
}

/// Where remote files come from: the cache, offline mode, extra hosts.
#[derive(Debug, Clone, clap::Args)]
pub struct RemoteArgs {
    /// Where fetched remote files are cached (default: the platform cache
    /// folder, such as ~/.cache/recipe-drift).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Read remote files from the cache only; one missing from it is an error
    /// (exit 2) naming its URL.
    #[arg(long)]
    pub offline: bool,
    /// Also allow remote files from this host (`host` or `host:port`; plain
    /// http only for hosts listed so). A config's `allow-hosts:` adds to these.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Do not read checkpoint facts (config.json, hf_quant_config.json) from
    /// the Hugging Face Hub ($HF_ENDPOINT, $HF_TOKEN) or local model folders:
    /// settings that follow the checkpoint (`auto`) stay unknown unless the
    /// config's `checkpoints:` states the facts.
    #[arg(long)]
    pub no_checkpoint_facts: bool,
    /// The most checkpoints (model, revision) whose facts one run reads from
    /// the Hub or model folders; past it their settings stay unknown.
    #[arg(long, value_name = "N", default_value_t = crate::checkpoint::MAX_CHECKPOINTS)]
    pub max_checkpoints: usize,
}

/// Output formats of `discover`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiscoverFormat {
    /// A ready-to-paste `links:` YAML with comments.
    Yaml,
    /// Versioned JSON.
    Json,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare the serve command of a docs file with the one of a recipe file.
    Compare(CompareArgs),
    /// Print the launches found in a file.
    Extract(ExtractArgs),
    /// Print what an engine release (SGLang or vLLM) parses and resolves for an argv.
    Resolve(ResolveArgs),
    /// Check every link of a config file.
    Check(CheckArgs),
    /// Write the checkpoint facts a `check` run reads from the Hub (and those
    /// of the models named) into the lock file, which later runs read first.
    Lock(LockArgs),
    /// Find links to upstream recipes in an InferenceX checkout and propose `links:`.
    Discover(DiscoverArgs),
    /// Explain a key: its class, option strings and defaults per release, and rules.
    Explain(ExplainArgs),
    /// Print the JSON Schema of the config file (.recipe-drift.yaml), for
    /// editors and validators.
    ConfigSchema,
    /// Lint cookbook generators: run every reachable state through the engine
    /// release and report broken states, refused commands and dead options.
    LintDocs(LintDocsArgs),
    /// Print a shell completion script (bash, elvish, fish, powershell, zsh)
    /// on standard output, for example `recipe-drift completions bash >
    /// ~/.local/share/bash-completion/completions/recipe-drift`.
    Completions(CompletionsArgs),
    /// Print the man page (roff) on standard output: recipe-drift's, or one
    /// command's (`recipe-drift man check | man -l -`).
    Man(ManArgs),
    /// Internal: the sandboxed JavaScript worker process (requests on stdin,
    /// answers on stdout).
    #[command(name = "__js-worker", hide = true)]
    JsWorker,
}

/// The arguments of `recipe-drift compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Docs side: a Markdown/MDX page, a cookbook generator (.jsx) or a command
    /// file; or a remote file (https://... or github:OWNER/REPO@REF:PATH).
    pub docs: PathBuf,
    /// Recipe side: a command file, a bash script or a Markdown/MDX page; or a
    /// remote file.
    pub recipe: PathBuf,
    /// The config whose `policy:`, `allow-hosts:` and `checkpoints:` apply
    /// (its links are not run). Default: `$RECIPE_DRIFT_CONFIG`, else the
    /// config `check` would find (.recipe-drift.yaml here or in a parent
    /// folder of the repository).
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Read no config file: default policy, no config hosts or checkpoints.
    #[arg(long)]
    pub no_config: bool,
    /// Ignore the inline suppressions (`recipe-drift: ignore[KEY] REASON`
    /// comments) of both files: report every divergence.
    #[arg(long)]
    pub no_waivers: bool,
    /// Which launch of the docs file (1-based) when it has several.
    #[arg(long, value_name = "N")]
    pub docs_launch: Option<usize>,
    /// Which launch of the recipe file (1-based) when it has several.
    #[arg(long, value_name = "N")]
    pub recipe_launch: Option<usize>,
    /// Shell variable visible to both files while extracting (K=V).
    #[arg(long, value_name = "K=V")]
    pub env: Vec<String>,
    /// Docs-side generator option to click (KEY=VALUE).
    #[arg(long, value_name = "K=V")]
    pub select: Vec<String>,
    /// The docs root that `/src/...` imports resolve against.
    #[arg(long, value_name = "DIR")]
    pub docs_root: Option<PathBuf>,
    /// Engine version, hardware and platform.
    #[command(flatten)]
    pub context: ContextArgs,
    /// Remote files: cache, offline mode, hosts.
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// How a MAJOR value one side writes is judged against a value the other
    /// side cannot decide: `missing` (an error, the default) or `warning`
    /// (wins over the config's `policy: {unknown: ...}`).
    #[arg(long, value_enum, value_name = "RULE")]
    pub unknown: Option<crate::policy::UnknownRule>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: ReportFormat,
    /// What fails the run (exit 1): `error` findings (MAJOR drift, the
    /// default), also `warning` ones (undecidable MAJOR values), or `never`.
    /// Input errors exit 2 whatever this says.
    #[arg(long, value_enum, value_name = "LEVEL", default_value = "error")]
    pub fail_on: crate::report::FailOn,
    /// Exit 0 even when findings would fail the run (`--fail-on never`).
    #[arg(long, conflicts_with = "fail_on")]
    pub exit_zero: bool,
    /// Print the findings only (human, concise, github): each finding no
    /// waiver or suppression silences, each command that would not start,
    /// each link that could not be compared and each expired waiver; no link
    /// headers, side lines, normalized diffs, remarks on the inputs, waived
    /// findings, unused waivers, skipped links or summary line, so a run
    /// without findings prints nothing. The exit code is the same; json,
    /// sarif and markdown are printed whole.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print each equivalence (a key written differently that resolves
    /// alike) and the reason of each key unknown on both sides, in `human`
    /// output; by default each link counts and names them in one line each.
    /// The other formats print them as they always do.
    #[arg(long, conflicts_with = "quiet")]
    pub show_equivalent: bool,
}

/// The arguments of `recipe-drift extract`.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// A Markdown/MDX page, a cookbook generator (.jsx), a bash script or a command file.
    #[arg(required_unless_present = "inferencex")]
    pub file: Option<PathBuf>,
    /// An InferenceX checkout (or github:OWNER/REPO@REF): expand `--entry` of
    /// its master configs instead.
    #[arg(long, value_name = "ROOT", requires = "entry", conflicts_with = "file")]
    pub inferencex: Option<PathBuf>,
    /// The master-config entry key (with --inferencex).
    #[arg(long, value_name = "KEY")]
    pub entry: Option<String>,
    /// Keep only the matrix points with this search-space field (k=v).
    #[arg(long = "where", value_name = "K=V")]
    pub filter: Vec<String>,
    /// Shell variable visible while extracting (K=V).
    #[arg(long, value_name = "K=V")]
    pub env: Vec<String>,
    /// Generator option to click before reading the command (KEY=VALUE;
    /// applied in the component's option order).
    #[arg(long, value_name = "K=V")]
    pub select: Vec<String>,
    /// Print every selection reachable by clicks, with its command(s); for a
    /// vLLM recipe YAML, every selection the site offers on its hardware.
    #[arg(long, conflicts_with_all = ["select", "inferencex"])]
    pub all_selections: bool,
    /// For a generator (.jsx) or a page that renders one (.mdx): list each
    /// option with its values, its default and whether it is shown only
    /// after clicks, without exploring every state.
    #[arg(long, conflicts_with_all = ["select", "all_selections", "inferencex"])]
    pub options: bool,
    /// With --all-selections on a vLLM recipe YAML: `verified` hardware only
    /// (the recipe's `meta.hardware` marks), or all hardware the site `offered`.
    #[arg(
        long,
        value_name = "SCOPE",
        default_value = "verified",
        requires = "all_selections"
    )]
    pub hardware_scope: String,
    /// The docs root that `/src/...` imports resolve against (default: the
    /// nearest folder above the file holding `src/snippets`).
    #[arg(long, value_name = "DIR")]
    pub docs_root: Option<PathBuf>,
    /// With --all-selections: the most states explored per generator
    /// component (more is an error).
    #[arg(long, value_name = "N", default_value_t = 5_000, requires = "all_selections",
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub max_states: u64,
    /// With --all-selections: the wall time, in seconds, exploring one
    /// generator component may take (more is an error saying how far it got).
    #[arg(long, value_name = "SECS", default_value_t = 120, requires = "all_selections",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub time_limit: u64,
    /// With --all-selections: click every combination of checkboxes (`all`),
    /// or toggle each checkbox alone from every other state (`each`, a quick
    /// pass when independent checkboxes multiply the states).
    #[arg(long, value_name = "MODE", default_value = "all", requires = "all_selections",
          value_parser = ["all", "each"])]
    pub checkboxes: String,
    /// A prop a component file's component is rendered with: NAME=EXPORT
    /// (an export of the same file) or NAME=FILE:EXPORT (of a module file,
    /// resolved like an import). Without it, props are read from the file's
    /// data exports by name.
    #[arg(long, value_name = "NAME=EXPORT")]
    pub prop: Vec<String>,
    /// Never show the exploration's progress (it is shown on stderr only
    /// when stderr is a terminal).
    #[arg(long)]
    pub no_progress: bool,
    /// Remote files: cache, offline mode, hosts.
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
}

/// The arguments of `recipe-drift resolve`.
#[derive(Debug, clap::Args)]
pub struct ResolveArgs {
    /// Engine: a registered engine name (sglang, vllm); both are parsed and resolved.
    #[arg(long)]
    pub engine: String,
    /// Engine version, hardware and platform.
    #[command(flatten)]
    pub context: ContextArgs,
    /// Print exactly what that release's argparse produces: every destination.
    #[arg(long)]
    pub raw: bool,
    /// Remote files (checkpoint facts): cache, offline mode, hosts.
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// The arguments after the launcher (`--tp 2 --model-path X`); put them after `--`.
    #[arg(last = true, allow_hyphen_values = true)]
    pub argv: Vec<String>,
}

/// The arguments of `recipe-drift check`.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("docs_space").multiple(true).args(["docs_root", "recipes_root"])))]
#[command(group(clap::ArgGroup::new("fixing").args(["diff", "fix"])))]
pub struct CheckArgs {
    /// The config file (default: .recipe-drift.yaml or .github/.recipe-drift.yaml).
    /// Optional with --docs-root and --inferencex: then its policy, waivers,
    /// checkpoints and families apply, and its links run beside the pairs.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Pair every docs deployment under this folder (its Markdown and MDX
    /// pages and the generators they render) with the InferenceX recipe
    /// deployments of the same identity and shape; no config needed.
    #[arg(long, value_name = "DIR", requires = "inferencex")]
    pub docs_root: Option<PathBuf>,
    /// Pair every selection of the vLLM recipes site's recipes in this
    /// vllm-project/recipes checkout (`models/**/*.yaml`, composed as the site
    /// composes them) with the InferenceX recipe deployments of the same
    /// identity and shape; with or without --docs-root.
    #[arg(long, value_name = "DIR", requires = "inferencex")]
    pub recipes_root: Option<PathBuf>,
    /// The InferenceX checkout whose single-node entries are the recipe side
    /// of the pairing (with --docs-root or --recipes-root).
    #[arg(long, value_name = "ROOT", requires = "docs_space")]
    pub inferencex: Option<PathBuf>,
    /// Ignore the config's waivers and the files' inline suppressions:
    /// report every divergence.
    #[arg(long)]
    pub no_waivers: bool,
    /// How a MAJOR value one side writes is judged against a value the other
    /// side cannot decide: `missing` (an error, the default) or `warning`
    /// (wins over the config's `policy: {unknown: ...}`).
    #[arg(long, value_enum, value_name = "RULE")]
    pub unknown: Option<crate::policy::UnknownRule>,
    /// Remote files: cache, offline mode, hosts.
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// Run only the links that depend on the files changed between REV and
    /// the working tree (`git diff --name-only REV`).
    #[arg(long, value_name = "REV", conflicts_with = "files")]
    pub changed_from: Option<String>,
    /// Run only the links that depend on these changed files (paths relative
    /// to the current directory, as pre-commit passes them); with
    /// --docs-root, the docs side is these pages.
    #[arg(value_name = "FILES")]
    pub files: Vec<PathBuf>,
    /// Never show progress (links done of all, on stderr). It is shown only
    /// when stderr is a terminal, and never under CI (`$CI` or
    /// `$GITHUB_ACTIONS` set).
    #[arg(long)]
    pub no_progress: bool,
    /// Compare at most N links of the config, and N pairs of --docs-root;
    /// past it the run stops before comparing, with exit 2. Each compared
    /// link's text waits in the report's temporary file until it is printed.
    #[arg(long, value_name = "N", default_value_t = crate::pair::MAX_PAIRS)]
    pub max_pairs: usize,
    /// With --docs-root: the most states read per generator component. A
    /// generator with more is cut there (the first N states, breadth-first,
    /// the same on every run): those are paired and compared, and the cut is
    /// a warning (`state-budget`).
    #[arg(long, value_name = "N", default_value_t = crate::extract::jsx::MAX_STATES as u64,
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub max_states: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: ReportFormat,
    /// What fails the run (exit 1): `error` findings (MAJOR drift, the
    /// default), also `warning` ones (undecidable MAJOR values), or `never`.
    /// Input errors exit 2 whatever this says.
    #[arg(long, value_enum, value_name = "LEVEL", default_value = "error")]
    pub fail_on: crate::report::FailOn,
    /// Exit 0 even when findings would fail the run (`--fail-on never`).
    #[arg(long, conflicts_with = "fail_on")]
    pub exit_zero: bool,
    /// Print the findings only (human, concise, github): each finding no
    /// waiver or suppression silences, each command that would not start,
    /// each link that could not be compared and each expired waiver; no link
    /// headers, side lines, normalized diffs, remarks on the inputs, waived
    /// findings, unused waivers, skipped links or summary line, so a run
    /// without findings prints nothing. The exit code is the same; json,
    /// sarif and markdown are printed whole.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print each equivalence (a key written differently that resolves
    /// alike) and the reason of each key unknown on both sides, in `human`
    /// output; by default each link counts and names them in one line each.
    /// The other formats print them as they always do.
    #[arg(long, conflicts_with = "quiet")]
    pub show_equivalent: bool,
    /// Print the fixes of the MAJOR contradictions as a unified diff (the
    /// docs value replaced by the recipe's) and write nothing; the exit code
    /// is the check's. A summary of what would be fixed goes to stderr.
    #[arg(long, conflicts_with = "fix")]
    pub diff: bool,
    /// Write the fixes of the MAJOR contradictions into the docs files, then
    /// check again and print what remains (the exit code is the second
    /// check's). Safe fixes only, unless --unsafe-fixes.
    #[arg(long)]
    pub fix: bool,
    /// With --fix or --diff: also apply the unsafe fixes, those that may
    /// change other states or pages (a vLLM recipe YAML value, a value a
    /// resolver rule changes on the recipe side).
    #[arg(long, requires = "fixing")]
    pub unsafe_fixes: bool,
}

/// The arguments of `recipe-drift lock`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("lock_docs_space").multiple(true).args(["docs_root", "recipes_root"])))]
pub struct LockArgs {
    /// The config whose links are run as `check` runs them (default: the
    /// one `check` finds).
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Run no config's links: lock only the models named (and the pairs of
    /// `--docs-root`/`--inferencex`).
    #[arg(long)]
    pub no_config: bool,
    /// Also run the pairing of this docs folder with `--inferencex` (as
    /// `check --docs-root DIR --inferencex ROOT` runs it) and lock the
    /// checkpoints its deployments ask for.
    #[arg(long, value_name = "DIR", requires = "inferencex")]
    pub docs_root: Option<PathBuf>,
    /// Also run the pairing of this vllm-project/recipes checkout with
    /// `--inferencex` (`check --recipes-root`).
    #[arg(long, value_name = "DIR", requires = "inferencex")]
    pub recipes_root: Option<PathBuf>,
    /// The InferenceX checkout the docs are paired with (`--docs-root`,
    /// `--recipes-root`).
    #[arg(long, value_name = "ROOT", requires = "lock_docs_space")]
    pub inferencex: Option<PathBuf>,
    /// The lock file to write (default: .recipe-drift.lock.yaml beside the
    /// config, else in the current folder); inside the repository root.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Where fetched remote files are cached.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Read the Hub's files from the cache only.
    #[arg(long)]
    pub offline: bool,
    /// Also allow remote files from this host (`host` or `host:port`).
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// The most checkpoints (model, revision) read in one run.
    #[arg(long, value_name = "N", default_value_t = crate::checkpoint::MAX_CHECKPOINTS)]
    pub max_checkpoints: usize,
    /// Hub models to lock besides the config's (`org/name` or `org/name@rev`).
    #[arg(value_name = "MODEL")]
    pub models: Vec<String>,
}

/// The arguments of `recipe-drift discover`.
#[derive(Debug, clap::Args)]
pub struct DiscoverArgs {
    /// The InferenceX checkout (its scripts, master configs and perf-changelog.yaml).
    pub root: PathBuf,
    /// A local SGLang docs folder (holding `cookbook/` and `src/snippets/`):
    /// propose local pages and read their generators' options.
    #[arg(long, value_name = "DIR")]
    pub docs_root: Option<PathBuf>,
    /// A local vllm-project/recipes checkout: propose local recipe files and
    /// check the hardware against its taxonomy.yaml.
    #[arg(long, value_name = "DIR")]
    pub recipes_root: Option<PathBuf>,
    /// Output format: a `links:` YAML to paste, or JSON.
    #[arg(long, value_enum, default_value = "yaml")]
    pub format: DiscoverFormat,
    /// Propose a link for every reference, also those that `check --docs-root
    /// --inferencex` pairs without one (by default these are listed, not
    /// proposed; a link pins its pair).
    #[arg(long)]
    pub all: bool,
}

/// The arguments of `recipe-drift explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// Canonical keys, destinations, option strings (`--tp`) or `env:NAME`.
    #[arg(required = true, allow_hyphen_values = true)]
    pub keys: Vec<String>,
}

/// The arguments of `recipe-drift lint-docs`.
///
/// Exit codes: 0 no finding, 1 findings, 2 usage or input error.
#[derive(Debug, clap::Args)]
pub struct LintDocsArgs {
    /// Generator files (.jsx) and pages that render generators (.mdx).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The docs root that `/src/...` imports resolve against (default: the
    /// nearest folder above each file holding `src/snippets`).
    #[arg(long, value_name = "DIR")]
    pub docs_root: Option<PathBuf>,
    /// The most states explored per generator component (more is an error).
    #[arg(long, value_name = "N", default_value_t = 5_000,
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub max_states: u64,
    /// Where explored generator states are cached, so that an unchanged
    /// generator is not explored again (default: the platform cache folder,
    /// such as ~/.cache/recipe-drift).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// The engine release the commands are checked against (else the image a
    /// command names, else the newest bundled release), hardware and platform
    /// (else what each state's selection picks).
    #[command(flatten)]
    pub context: ContextArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: ReportFormat,
}

/// The arguments of `recipe-drift completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The arguments of `recipe-drift man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// A command whose page to print (`check`); recipe-drift's own page
    /// (which lists the commands) when omitted.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}
