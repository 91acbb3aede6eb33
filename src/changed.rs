//! Only what changed: the files each link of a config depends on, the files
//! changed since a git revision, and which links those changes touch.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::extract;
use crate::manifest::{LinkSpec, SideSpec};

/// Why a link is not run.
pub const UNCHANGED: &str = "none of its files changed";

/// Why a link whose local files did not change is not run, when a side is remote.
pub const REMOTE_UNCHANGED: &str = "none of its local files changed; its remote side is checked when the link runs (run check without FILES or --changed-from)";

/// What a link depends on: files, and folders whose new or changed files count.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Dependencies {
    /// Files (found or not: a file that appears changes what is read).
    pub files: BTreeSet<PathBuf>,
    /// Folders: any changed file under one counts.
    pub dirs: BTreeSet<PathBuf>,
    /// A side is remote (a URL, `github:`): no local change touches it.
    pub remote: bool,
}

impl Dependencies {
    fn file(&mut self, p: &Path) {
        self.files.insert(key(p));
    }

    /// Whether any of `changed` (already keyed) is one of these.
    fn touched_by(&self, changed: &BTreeSet<PathBuf>) -> bool {
        changed
            .iter()
            .any(|c| self.files.contains(c) || self.dirs.iter().any(|d| c.starts_with(d)))
    }
}

/// The files a link's result depends on, or `None` when that cannot be known
/// without running it (a generator whose imports do not resolve, a missing
/// InferenceX entry, ...): such a link always runs, and reports its error.
pub fn link_dependencies(link: &LinkSpec) -> Option<Dependencies> {
    let mut deps = Dependencies::default();
    for side in [&link.docs, &link.recipe] {
        side_dependencies(side, &mut deps)?;
    }
    Some(deps)
}

fn side_dependencies(side: &SideSpec, deps: &mut Dependencies) -> Option<()> {
    let remote = |p: &Path| {
        let t = p.to_string_lossy();
        t.starts_with("https://") || t.starts_with("http://") || t.starts_with("github:")
    };
    if side.file.as_deref().is_some_and(remote)
        || side.inferencex.as_ref().is_some_and(|ix| remote(&ix.root))
    {
        deps.remote = true;
        return Some(());
    }
    if let Some(ix) = &side.inferencex {
        for p in extract::inferencex::dependencies(&ix.root, &ix.entry).ok()? {
            if p.extension().is_some_and(|e| e == "sh") {
                script_dependencies(&p, deps, 0)?;
            } else {
                deps.file(&p);
            }
        }
        // A new master config can hold the entry first (in either layout).
        for d in extract::inferencex::layout::CONFIG_DIRS {
            deps.dirs.insert(key(&ix.root.join(d)));
        }
        return Some(());
    }
    let file = side.file.as_ref()?;
    let ext = file
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "sh" | "bash" => script_dependencies(file, deps, 0)?,
        "jsx" | "mdx" => {
            deps.file(file);
            if ext == "mdx" {
                let text = crate::span::Source::read(file).ok()?;
                if !extract::jsx::page::has_components(&text.text) {
                    return Some(());
                }
            }
            let (at, root) = (file.clone(), side.docs_root.clone());
            let bundle =
                extract::jsx::on_render_thread(move || extract::jsx::bundle(&at, root.as_deref()))
                    .ok()?;
            for f in &bundle.files {
                deps.file(f);
                // A printed `--config FILE` is read beside the page or generator.
                let text = crate::span::Source::read(f).ok()?;
                config_dependencies(&text.text, &[f.as_path(), file.as_path()], deps)?;
            }
        }
        "yaml" | "yml" => {
            deps.file(file);
            taxonomy_dependencies(file, deps);
        }
        _ => {
            deps.file(file);
            if let Ok(text) = crate::span::Source::read(file) {
                config_dependencies(&text.text, &[file.as_path()], deps)?;
            }
        }
    }
    Some(())
}

/// The files the options of the commands in `text` read: a vLLM `--config
/// FILE` and an `--env-file FILE` (`docker run`, `uv run`), FILE beside the
/// file holding the command (each of `beside`, since a rendered or sourced
/// command is placed in the file that shows it); and the folder a model path
/// names (`--model-path`, `--model`, `vllm serve PATH`), whose `config.json`
/// and `hf_quant_config.json` are checkpoint facts when it is a local folder:
/// beside the file and from the working folder (where the checkpoint layer
/// looks today). `None` when a FILE is not written literally (`--config
/// $CFG`): what the link reads is not knowable without running it, so it
/// always runs. A model path that is not literal (`$MODEL`, an InferenceX
/// entry's model) is not counted: its facts come from the Hub or the config.
fn config_dependencies(text: &str, beside: &[&Path], deps: &mut Dependencies) -> Option<()> {
    let files =
        regex::Regex::new(r#"(?:^|[\s"'(=])--(?:config|env-file)(?:=|[\s\\]+)([^\s;&|)]*)"#)
            .expect("valid regex");
    for c in files.captures_iter(text) {
        let value = c[1].trim_matches(['"', '\'']);
        if value.is_empty() || value.contains(['$', '`', '{', '}']) {
            return None;
        }
        for file in beside {
            let dir = file.parent().unwrap_or(Path::new("."));
            deps.file(&dir.join(value));
        }
    }
    let models = regex::Regex::new(
        r#"(?:^|[\s"'(=])(?:--model-path|--model|vllm\s+serve)(?:=|[\s\\]+)([^\s;&|)]*)"#,
    )
    .expect("valid regex");
    for c in models.captures_iter(text) {
        let value = c[1].trim_matches(['"', '\'']);
        if value.is_empty() || value.starts_with('-') || value.contains(['$', '`', '{', '}']) {
            continue;
        }
        deps.dirs.insert(key(Path::new(value)));
        for file in beside {
            let dir = file.parent().unwrap_or(Path::new("."));
            deps.dirs.insert(key(&dir.join(value)));
        }
    }
    Some(())
}

/// A vLLM recipe reads the nearest `taxonomy.yaml` above it and the
/// `strategies/*.yaml` beside that.
fn taxonomy_dependencies(model: &Path, deps: &mut Dependencies) {
    let start = model.parent().unwrap_or(Path::new("."));
    for dir in crate::files::upward_folders(start) {
        let candidate = dir.join("taxonomy.yaml");
        // One that appears nearer would be read instead.
        deps.file(&candidate);
        if crate::files::is_readable_file(&candidate) {
            deps.dirs.insert(key(&dir.join("strategies")));
            return;
        }
    }
}

/// A script, the scripts it runs with `bash FILE` or reads with `source
/// FILE` / `. FILE` when FILE is written literally (or as `$(dirname "$0")/...`),
/// and the `--config` files of its commands; `None` when a `--config` file is
/// not written literally.
fn script_dependencies(script: &Path, deps: &mut Dependencies, depth: usize) -> Option<()> {
    if !deps.files.insert(key(script)) || depth >= 8 {
        return Some(());
    }
    // Through the confined layer: a script outside the roots is not read
    // (running the link then reports the refusal).
    let Ok(source) = crate::span::Source::read(script) else {
        return Some(());
    };
    config_dependencies(&source.text, &[script], deps)?;
    let text = &source.text;
    let dir = script.parent().unwrap_or(Path::new("."));
    let dir_text = dir.to_string_lossy();
    let dir_text = if dir_text.is_empty() { "." } else { &dir_text };
    let words = regex::Regex::new(
        r#"(?m)(?:^|[;&|(]|\bthen|\bdo|\belse|\bexec)\s*(?:bash|sh|source|\.)\s+([^;&|\n]+)"#,
    )
    .expect("valid regex");
    for c in words.captures_iter(text) {
        let mut target = c[1].replace(['"', '\''], "");
        for here in [
            "$(dirname $0)",
            "$(dirname ${BASH_SOURCE[0]})",
            "${BASH_SOURCE%/*}",
            "$(cd $(dirname $0) && pwd)",
        ] {
            target = target.replace(here, dir_text);
        }
        let target = target.split_whitespace().next().unwrap_or_default();
        if target.contains('$') || target.contains('`') || target.starts_with('-') {
            continue;
        }
        let direct = PathBuf::from(target);
        // As the evaluator does: the path as given, else beside the script.
        for p in [direct.clone(), dir.join(&direct)] {
            if crate::files::is_readable_file(&p) {
                script_dependencies(&p, deps, depth + 1)?;
            } else {
                deps.file(&p);
            }
        }
    }
    Some(())
}

/// Which links to run for a set of changed files: per link, `None` to run it
/// or `Some(reason)` to skip it. A changed config file runs every link.
pub fn select(links: &[LinkSpec], config: &Path, changed: &[PathBuf]) -> Vec<Option<String>> {
    let changed: BTreeSet<PathBuf> = changed.iter().map(|p| key(p)).collect();
    if changed.contains(&key(config)) {
        return vec![None; links.len()];
    }
    links
        .iter()
        .map(|l| match link_dependencies(l) {
            Some(d) if !d.touched_by(&changed) => Some(
                if d.remote {
                    REMOTE_UNCHANGED
                } else {
                    UNCHANGED
                }
                .to_string(),
            ),
            _ => None,
        })
        .collect()
}

/// The docs inputs a pairing run reads when only `changed` files changed:
/// the changed pages among `pages`, or every page when a changed file is a
/// generator or component under the docs root (pages render them) or any
/// file under the InferenceX root (every recipe deployment may have moved).
pub fn pairing_docs(
    docs_root: &Path,
    inferencex: &Path,
    pages: &[PathBuf],
    changed: &[PathBuf],
) -> Vec<PathBuf> {
    let changed: Vec<PathBuf> = changed.iter().map(|p| key(p)).collect();
    let (docs, ix) = (key(docs_root), key(inferencex));
    let everything = changed.iter().any(|c| {
        c.starts_with(&ix)
            || (c.starts_with(&docs)
                && matches!(
                    c.extension().and_then(|e| e.to_str()),
                    Some("jsx" | "js" | "tsx" | "ts")
                ))
    });
    if everything {
        return pages.to_vec();
    }
    pages
        .iter()
        .filter(|p| changed.contains(&key(p)))
        .cloned()
        .collect()
}

/// The recipes of a vLLM recipes checkout to check when `changed` changed:
/// every recipe when the InferenceX checkout or a file of the checkout that
/// is not a recipe (`taxonomy.yaml`, `strategies/`, which every selection is
/// composed with) changed, else the changed recipes.
pub fn pairing_recipes(
    recipes_root: &Path,
    inferencex: &Path,
    recipes: &[PathBuf],
    changed: &[PathBuf],
) -> Vec<PathBuf> {
    let changed: Vec<PathBuf> = changed.iter().map(|p| key(p)).collect();
    let (root, ix) = (key(recipes_root), key(inferencex));
    let keys: Vec<PathBuf> = recipes.iter().map(|p| key(p)).collect();
    let everything = changed
        .iter()
        .any(|c| c.starts_with(&ix) || (c.starts_with(&root) && !keys.contains(c)));
    if everything {
        return recipes.to_vec();
    }
    recipes
        .iter()
        .zip(&keys)
        .filter(|(_, k)| changed.contains(k))
        .map(|(p, _)| p.clone())
        .collect()
}

/// The files of `files` under `root` (as the file system sees both).
pub fn under(root: &Path, files: &[PathBuf]) -> Vec<PathBuf> {
    let root = key(root);
    files
        .iter()
        .filter(|f| key(f).starts_with(&root))
        .cloned()
        .collect()
}

/// The files changed between `rev` and the working tree (`git diff --name-only
/// REV`), plus the untracked ones, run in the config file's folder; paths as
/// the file system sees them.
pub fn git_changed(rev: &str, config: &Path) -> Result<Vec<PathBuf>, Error> {
    if rev.starts_with('-') || rev.is_empty() {
        return Err(Error::usage(format!(
            "--changed-from {rev:?}: a revision cannot be empty or start with `-`"
        )));
    }
    let dir = match config.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let git = |args: &[&str]| -> Result<String, Error> {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&dir)
            .output()
            .map_err(|e| Error::usage(format!("--changed-from: cannot run git: {e}")))?;
        if !out.status.success() {
            let msg = String::from_utf8_lossy(&out.stderr);
            return Err(Error::usage(format!(
                "--changed-from {rev}: `git {}` failed in {}: {}",
                args.join(" "),
                dir.display(),
                msg.trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(top.trim_end_matches(['\n', '\r']));
    // NUL-separated and unquoted, so any file name comes through as written;
    // files git does not track yet (and does not ignore) count as changed too.
    let changed = git(&[
        "-c",
        "core.quotePath=false",
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        rev,
        "--",
    ])?;
    let untracked = git(&[
        "ls-files",
        "-z",
        "--others",
        "--exclude-standard",
        "--full-name",
    ])?;
    let mut out: Vec<PathBuf> = changed
        .split('\0')
        .chain(untracked.split('\0'))
        .filter(|l| !l.is_empty())
        .map(|l| top.join(l))
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// A path as one key: absolute, without `.`/`..`, symlinks resolved where the
/// file (or else its folder) exists.
fn key(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    let abs = crate::manifest::normalize(&abs);
    if let Ok(c) = abs.canonicalize() {
        return c;
    }
    match (abs.parent().map(Path::canonicalize), abs.file_name()) {
        (Some(Ok(dir)), Some(name)) => dir.join(name),
        _ => abs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configs(text: &str) -> Option<Vec<String>> {
        let mut deps = Dependencies::default();
        config_dependencies(text, &[Path::new("/r/docs/run.sh")], &mut deps)?;
        Some(deps.files.iter().map(|p| p.display().to_string()).collect())
    }

    #[test]
    fn config_files_are_read_beside_the_command() {
        assert_eq!(
            configs("vllm serve m --config c.yaml --tp 2\n"),
            Some(vec!["/r/docs/c.yaml".to_string()])
        );
        assert_eq!(
            configs("vllm serve m \\\n  --config=\"sub/c.yml\"\n"),
            Some(vec!["/r/docs/sub/c.yml".to_string()])
        );
        // Other options that start the same way are not it.
        assert_eq!(configs("vllm serve m --config-format auto\n"), Some(vec![]));
        // A path not written literally: not knowable without running the link.
        assert_eq!(configs("vllm serve m --config $CFG\n"), None);
        assert_eq!(configs("vllm serve m --config \"${D}/c.yaml\"\n"), None);
    }

    #[test]
    fn a_change_to_what_every_recipe_is_composed_with_checks_every_recipe() {
        let root = Path::new("/r/recipes");
        let ix = Path::new("/r/ix");
        let all = vec![
            PathBuf::from("/r/recipes/models/a/A.yaml"),
            PathBuf::from("/r/recipes/models/b/B.yaml"),
        ];
        let one = pairing_recipes(
            root,
            ix,
            &all,
            &[PathBuf::from("/r/recipes/models/b/B.yaml")],
        );
        assert_eq!(one, all[1..]);
        for changed in [
            "/r/recipes/taxonomy.yaml",
            "/r/recipes/strategies/tp.yaml",
            "/r/ix/x.sh",
        ] {
            assert_eq!(
                pairing_recipes(root, ix, &all, &[PathBuf::from(changed)]),
                all,
                "{changed}"
            );
        }
        assert!(pairing_recipes(root, ix, &all, &[PathBuf::from("/r/docs/p.md")]).is_empty());
    }
}
