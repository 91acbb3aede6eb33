//! The front door of extraction: [`trait Extractor`](Extractor), one impl per
//! input kind (in [`super::kinds`]), and the static list that picks the first
//! extractor accepting a source. This is the only place an input's kind is
//! decided.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::kinds;
use super::shared::{self, Extracted};
use super::{jsx, vllm_recipes};
use crate::error::Error;
use crate::files::{Files, Location};
use crate::span::Source;

/// How to read a source beyond its text: variables, and for generators the
/// selection to click and where the docs root is.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Shell variables set before the text runs.
    pub vars: BTreeMap<String, String>,
    /// Generator selections (`key=value`), applied in the component's order.
    pub select: Vec<(String, String)>,
    /// The docs root that `/src/...` imports resolve against.
    pub docs_root: Option<PathBuf>,
    /// The limits generators are rendered under.
    pub limits: jsx::Limits,
    /// For [`selections`] of a vLLM recipe: `verified` (the default) or
    /// `offered` hardware.
    pub hardware_scope: Option<String>,
    /// For [`selections`] of a generator: how its states are explored.
    pub explore: jsx::Explore,
    /// Props a component file's components are rendered with (`--prop`).
    pub props: Vec<(String, String)>,
}

/// Every selection of a source ([`selections`], `extract --all-selections`).
#[derive(Debug)]
pub enum Selections {
    /// Every reachable state of every generator of a file, per target.
    States {
        /// The generators' bundle.
        bundle: jsx::Bundle,
        /// The reachable states, one list per target.
        views: Vec<Vec<jsx::View>>,
        /// The click paths on which a generator throws, one list per target.
        crashes: Vec<Vec<jsx::Crash>>,
    },
    /// Every selection of a vLLM recipe, each with the command the site composes.
    Recipe(Vec<vllm_recipes::Composed>),
    /// Every state of the AgentX tables of a data module or a page.
    Agentx(Vec<super::agentx::State>),
}

/// A source to extract from: where it is, the file layer that reads it, and
/// its text once read (read at most once, whoever asks first).
pub struct Input<'a> {
    at: Location,
    files: &'a dyn Files,
    read: RefCell<Option<Result<Arc<Source>, Error>>>,
}

impl<'a> Input<'a> {
    /// A source at `at`, read through `files`.
    pub fn new(at: Location, files: &'a dyn Files) -> Self {
        Input {
            at,
            files,
            read: RefCell::new(None),
        }
    }

    /// Where the source is.
    pub fn at(&self) -> &Location {
        &self.at
    }

    /// The file layer the source (and the files it refers to) is read through.
    pub fn files(&self) -> &dyn Files {
        self.files
    }

    /// The path on disk, or `None` for a remote source.
    pub fn local_path(&self) -> Option<&Path> {
        match &self.at {
            Location::Path(p) => Some(p),
            Location::Remote(_) => None,
        }
    }

    /// The file name's extension, lowercased (empty when there is none).
    pub fn extension(&self) -> String {
        self.at
            .kind_path()
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default()
    }

    /// The source's text; a read error is returned once (asking again reads again).
    pub fn source(&self) -> Result<Arc<Source>, Error> {
        let mut slot = self.read.borrow_mut();
        match slot.take() {
            Some(Ok(s)) => {
                *slot = Some(Ok(s.clone()));
                Ok(s)
            }
            Some(Err(e)) => Err(e),
            None => {
                let read = self.files.read(&self.at);
                if let Ok(s) = &read {
                    *slot = Some(Ok(s.clone()));
                }
                read
            }
        }
    }

    /// The source's text for a look at its content (an extractor's `accepts`);
    /// `None` when it cannot be read, keeping the error for [`Input::source`].
    pub fn peek(&self) -> Option<Arc<Source>> {
        let mut slot = self.read.borrow_mut();
        let read = slot.get_or_insert_with(|| self.files.read(&self.at));
        read.as_ref().ok().cloned()
    }
}

/// One input kind: which sources it reads and how it extracts their launches.
pub trait Extractor: Sync {
    /// A short, stable name of the kind (`command`, `markdown`, `bash`,
    /// `generator`, `generator-page`, `vllm-recipe`).
    fn name(&self) -> &'static str;

    /// Whether this extractor reads `input`: by its extension and, where the
    /// extension does not decide, by its text ([`Input::peek`]).
    fn accepts(&self, input: &Input<'_>) -> bool;

    /// The launches of the source, and the launches of engines recipe-drift
    /// does not resolve.
    fn extract(&self, input: &Input<'_>, opts: &Options) -> Result<Extracted, Error>;

    /// The launches of a text already loaded, for kinds that need nothing but
    /// the text (`files` reads what the text refers to, such as the scripts a
    /// bash script runs). Kinds read with the files beside them refuse.
    fn extract_text(
        &self,
        source: &Arc<Source>,
        vars: &BTreeMap<String, String>,
        files: &dyn Files,
    ) -> Result<Extracted, Error> {
        let _ = (vars, files);
        Err(Error::input(
            source.span(0, 0),
            format!("a {} is read from its file, not from text", self.name()),
        ))
    }

    /// Every selection of the source (`extract --all-selections`); kinds
    /// without selections refuse.
    fn selections(&self, input: &Input<'_>, opts: &Options) -> Result<Selections, Error> {
        let _ = opts;
        Err(Error::usage(format!(
            "{}: --all-selections applies to generators (.jsx), pages that render them (.mdx) and vLLM recipe YAMLs, not to a {} file",
            input.at().display(),
            self.name()
        )))
    }
}

/// One selection of a source and the launches a reader sees with it
/// ([`every_selection`]).
#[derive(Debug, Clone)]
pub struct Shown {
    /// The selection (`key=value` in the control order); empty for a page's
    /// static blocks and for kinds without selections.
    pub selection: Vec<(String, String)>,
    /// The component that prints the launches (generators).
    pub component: Option<String>,
    /// The launches.
    pub launches: Vec<crate::launch::Launch>,
    /// The InferenceX entry the selection names as its benchmark (an AgentX
    /// table's cell names its `configKey`); pairing keeps it to that entry.
    pub entry: Option<String>,
    /// Why this selection's printed commands could not be read (the other
    /// selections of the file still are).
    pub error: Option<Error>,
    /// The `--select` pairs that compose this state again, where they can
    /// be given (a vLLM recipe's selection: its feature clicks as made, which
    /// [`Shown::selection`] names by the features that contributed).
    pub reselect: Vec<(String, String)>,
}

impl Shown {
    /// Launches no selection shows (a page's own blocks, a file without
    /// selections).
    pub fn page(launches: Vec<crate::launch::Launch>) -> Shown {
        Shown {
            entry: None,
            selection: Vec::new(),
            component: None,
            launches,
            error: None,
            reselect: Vec::new(),
        }
    }
}

/// A generator whose exploration the state budget cut (with
/// [`jsx::Explore::cut`]): its first `states` states were read, the others
/// were not.
#[derive(Debug, Clone)]
pub struct Cut {
    /// The component's name.
    pub component: String,
    /// Where it is: its tag on the page, or its definition.
    pub at: crate::span::Span,
    /// The states read (the budget, `--max-states`).
    pub states: usize,
}

/// Every selection of a file ([`every_selection`]) and the generators whose
/// exploration the state budget cut.
#[derive(Debug, Clone, Default)]
pub struct Every {
    /// The selections, in page order (a page's static blocks first).
    pub shown: Vec<Shown>,
    /// The generators the state budget cut, in page order.
    pub cuts: Vec<Cut>,
}

/// Every selection of the file at `at` with the launches it shows: a page's
/// static blocks, then every reachable state of its generators (with
/// `opts.explore.cut`, the states before the state budget's cut, and the cut
/// in [`Every::cuts`]); every selection of a vLLM recipe; the launches of any
/// other file as one selection. What pairing reads a docs file as.
pub fn every_selection(at: &Location, opts: &Options, files: &dyn Files) -> Result<Every, Error> {
    let input = Input::new(at.clone(), files);
    let kind = extractor_for(&input);
    match kind.name() {
        "generator" | "generator-page" | "vllm-recipe" | "agentx-data" | "agentx-page" => {
            kinds::every_selection(&input, kind, opts)
        }
        _ => Ok(Every {
            shown: vec![Shown::page(
                shared::per_file(|| kind.extract(&input, opts))?.launches,
            )],
            cuts: Vec::new(),
        }),
    }
}

/// The extractors, in the order they are asked; the last accepts anything.
pub static EXTRACTORS: &[&dyn Extractor] = &[
    &kinds::VllmRecipe,
    &kinds::AgentxData,
    &kinds::Generator,
    &kinds::AgentxPage,
    &kinds::GeneratorPage,
    &kinds::Markdown,
    &kinds::Bash,
    &kinds::Command,
];

/// The first extractor that accepts `input`.
pub fn extractor_for(input: &Input<'_>) -> &'static dyn Extractor {
    EXTRACTORS
        .iter()
        .copied()
        .find(|e| e.accepts(input))
        .unwrap_or(&kinds::Command)
}

/// Extracts the launches (and launches of unsupported engines) of the file at
/// `at`, on disk or remote, read through `files`, within the per-file launch
/// budget ([`shared::MAX_LAUNCHES`], [`shared::MAX_LAUNCH_WORDS`]).
pub fn extract(at: &Location, opts: &Options, files: &dyn Files) -> Result<Extracted, Error> {
    let input = Input::new(at.clone(), files);
    shared::per_file(|| extractor_for(&input).extract(&input, opts))
}

/// Every selection of the file at `at` (a generator's reachable states, a vLLM
/// recipe's selections).
pub fn selections(at: &Location, opts: &Options, files: &dyn Files) -> Result<Selections, Error> {
    let input = Input::new(at.clone(), files);
    extractor_for(&input).selections(&input, opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::LocalFiles;

    fn kind_of(path: &str) -> &'static str {
        let input = Input::new(Location::parse(path).unwrap(), &LocalFiles);
        extractor_for(&input).name()
    }

    #[test]
    fn the_kind_is_picked_by_extension_and_for_mdx_by_content() {
        assert_eq!(kind_of("x/recipe.yaml"), "vllm-recipe");
        assert_eq!(kind_of("x/recipe.YML"), "vllm-recipe");
        assert_eq!(kind_of("x/gen.jsx"), "generator");
        assert_eq!(kind_of("x/gen.js"), "generator");
        assert_eq!(kind_of("x/page.md"), "markdown");
        assert_eq!(kind_of("x/run.sh"), "bash");
        assert_eq!(kind_of("x/run.bash"), "bash");
        assert_eq!(kind_of("x/cmd.txt"), "command");
        assert_eq!(kind_of("x/noext"), "command");
        // An unreadable .mdx is a page; reading it reports the error.
        assert_eq!(kind_of("x/missing.mdx"), "markdown");
        assert_eq!(
            kind_of("fixtures/cookbook/cookbook/autoregressive/Qwen/Qwen3.5.mdx"),
            "generator-page"
        );
        assert_eq!(kind_of("https://example.com/a/page.md"), "markdown");
        assert_eq!(kind_of("github:o/r@main:a/gen.jsx"), "generator");
    }

    /// Remote files from a table, counting the reads.
    struct Table(Vec<(&'static str, &'static str)>, std::cell::Cell<usize>);

    impl Files for Table {
        fn read(&self, at: &Location) -> Result<Arc<Source>, Error> {
            self.1.set(self.1.get() + 1);
            let name = at.display();
            match self.0.iter().find(|(k, _)| *k == name) {
                Some((_, text)) => Ok(Arc::new(Source::new(
                    crate::span::Origin::Url(name),
                    text.to_string(),
                ))),
                None => Err(Error::usage(format!("{name}: not found"))),
            }
        }
        fn is_file(&self, at: &Location) -> Result<bool, Error> {
            Ok(self.0.iter().any(|(k, _)| *k == at.display()))
        }
        fn list(&self, _: &Location) -> Result<Vec<String>, Error> {
            Ok(vec![])
        }
    }

    fn remote(files: &Table, at: &str, select: &[(&str, &str)]) -> Result<Extracted, Error> {
        let opts = Options {
            select: select
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Options::default()
        };
        extract(&Location::parse(at).unwrap(), &opts, files)
    }

    #[test]
    fn remote_sources_take_the_same_door_and_are_read_once() {
        let files = Table(
            vec![
                (
                    "github:o/r@m:a.md",
                    "```bash\nsglang serve --model-path m --tp 2\n```\n",
                ),
                (
                    "github:o/r@m:p.mdx",
                    "import { G } from '/src/g.jsx'\n\n<G />\n",
                ),
                ("github:o/r@m:run.sh", "vllm serve m -tp 4\n"),
            ],
            std::cell::Cell::new(0),
        );
        let page = remote(&files, "github:o/r@m:a.md", &[]).unwrap();
        assert_eq!(page.launches.len(), 1);
        assert_eq!(files.1.get(), 1);
        let script = remote(&files, "github:o/r@m:run.sh", &[]).unwrap();
        assert_eq!(script.launches.len(), 1);
        // A generator page is looked at once and refused; a generator is refused unread.
        let err = remote(&files, "github:o/r@m:p.mdx", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("this page renders a generator"), "{err}");
        assert_eq!(files.1.get(), 3);
        let err = remote(&files, "github:o/r@m:g.jsx", &[])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("a cookbook generator is read with the files beside it"),
            "{err}"
        );
        assert_eq!(files.1.get(), 3);
        // A selection on a page that cannot be read is refused before the read error.
        let err = remote(&files, "github:o/r@m:gone.mdx", &[("a", "b")])
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--select applies to local generators"),
            "{err}"
        );
        assert_eq!(files.1.get(), 4);
    }

    #[test]
    fn a_read_error_is_kept_for_the_extractor() {
        let input = Input::new(Location::parse("x/missing.mdx").unwrap(), &LocalFiles);
        assert!(input.peek().is_none());
        let err = input.source().unwrap_err().to_string();
        assert!(err.starts_with("x/missing.mdx: cannot read file"), "{err}");
    }
}
