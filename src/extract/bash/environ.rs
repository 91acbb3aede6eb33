//! The environment on the way to a launch: `env K=V` / wrapper / `docker
//! run -e` operands (a value or name that is not knowable stays unknown or
//! opens the environment), env files, what opens it (sudoers, an image's
//! `ENV` lines), and the startup of a child shell (`BASH_ENV`, `sh`).

use brush_parser::ast;

use super::Interp;
use super::expand::{Field, Val};
use crate::error::Error;

/// Builtins and keywords bash has and a POSIX `sh` (dash) does not: under
/// `sh` they may be "not found" (status 127, nothing set) or run as in bash.
pub(super) const BASH_ONLY: &[&str] = &[
    "[[",
    "bind",
    "builtin",
    "caller",
    "compgen",
    "complete",
    "declare",
    "dirs",
    "disown",
    "enable",
    "let",
    "mapfile",
    "popd",
    "pushd",
    "readarray",
    "shopt",
    "source",
    "typeset",
];

/// How the environment changes on the way to the command: `env K=V`, `env -i`,
/// `env -u K`, `sudo` (its `env_reset`, `sudo K=V`), `uv run --env-file F`.
#[derive(Debug, Default)]
pub(super) struct EnvMods {
    /// `env -i` / `env -`, `sudo`: the caller's environment does not reach
    /// the command, except the variables in `keep`.
    pub(super) clear: bool,
    /// With `clear`: the caller's variables that still reach the command
    /// (`sudo`'s keep list and `--preserve-env=A,B`).
    pub(super) keep: Vec<String>,
    /// `env -u NAME`: removed.
    pub(super) unset: Vec<String>,
    /// `env K=V`, in order: a value that is not knowable (`env K="$X"` with
    /// `$X` not knowable) is unknown with the reason, never empty.
    pub(super) set: Vec<(String, Val, (usize, usize))>,
    /// Why variables the command does not set may still reach it with any
    /// value (`docker run`: the image's `ENV` lines; `sudo`: the sudoers
    /// `env_keep` list; an env file or a variable name that is not knowable).
    pub(super) open: Option<String>,
    /// Variables the command gets only when it does not have them already
    /// (`uv run --env-file F`), with where the file is named.
    pub(super) fallback: Vec<(String, Val, (usize, usize))>,
    /// The command's own prefix assignments (`TP=2 bash -c ...`), for a
    /// child shell: they reach its environment before `env K=V`.
    pub(super) prefix: Vec<(String, Val)>,
}

impl EnvMods {
    /// Whether the caller's variable `name` reaches the command.
    pub(super) fn passes(&self, name: &str) -> bool {
        !self.clear || self.keep.iter().any(|k| k == name)
    }
}

/// An operand word of a wrapper (`docker run -e K=V`) and where it is written.
pub(super) type Operand = (Field, (usize, usize));

/// Whether `raw` (a word as written) names the variable `name` literally
/// before its `=` (`K="$X"`, `"K=$X"`, `-eK=$X`, `--env=K=$X`).
fn literal_name(raw: &str, name: &str) -> bool {
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
    // What comes before the name: nothing, a quote, the `=` of `--env=`, or
    // a short option with no expansion (`-e`, `-ite`).
    let before = |b: &str| {
        b.is_empty()
            || b.ends_with(['"', '\'', '='])
            || (b.starts_with('-') && b[1..].chars().all(|c| c.is_ascii_alphabetic()))
    };
    valid
        && raw
            .match_indices(&format!("{name}="))
            .any(|(k, _)| before(&raw[..k]))
}

/// The variables of a dotenv file (`uv run --env-file`, read as the `dotenvy`
/// crate uv uses reads it): `NAME=value` lines, `export` allowed, `#`
/// comments and blank lines skipped; a single-quoted value is literal, a
/// double-quoted or unquoted one is known when it holds no `$` substitution
/// or `\` escape (else unknown, with the reason). A line that is not an
/// assignment is an error at its position, as uv refuses the file.
fn dotenv(source: &std::sync::Arc<crate::span::Source>) -> Result<Vec<(String, Val)>, Error> {
    let mut out = Vec::new();
    let mut offset = 0;
    for raw in source.text.split_inclusive('\n') {
        let at = offset;
        offset += raw.len();
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").map_or(line, str::trim_start);
        let bad = || Error::Input {
            span: source.span(at, at),
            message: "not a `NAME=value` line of a dotenv file".into(),
        };
        let (name, value) = line.split_once('=').ok_or_else(bad)?;
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            return Err(bad());
        }
        let value = value.trim_start();
        let unmodelled = |why: &str| {
            Val::Unknown(format!(
                "{name} in {} is {why}, which recipe-drift does not model",
                source.origin.label()
            ))
        };
        let v = if let Some(rest) = value.strip_prefix('\'') {
            match rest.split_once('\'') {
                Some((v, _)) => Val::Known(v.to_string()),
                None => unmodelled("a quoted value over several lines"),
            }
        } else if let Some(rest) = value.strip_prefix('"') {
            match rest.split_once('"') {
                Some((v, _)) if !v.contains(['$', '\\']) => Val::Known(v.to_string()),
                Some(_) => unmodelled("a value with substitutions or escapes"),
                None => unmodelled("a quoted value over several lines"),
            }
        } else {
            let v = match value.find(" #") {
                Some(i) => &value[..i],
                None => value,
            }
            .trim_end();
            if v.contains(['$', '\\', '"', '\'']) {
                unmodelled("a value with substitutions or escapes")
            } else {
                Val::Known(v.to_string())
            }
        };
        out.push((name.to_string(), v));
    }
    Ok(out)
}

impl Interp<'_> {
    /// A `NAME=value` operand of `env`, a wrapper or `docker run -e`: the
    /// name when it is written literally, and the value, unknown with the
    /// reason when it is not knowable (never empty). A name that is not
    /// knowable opens the command's environment (`mods.open`) instead.
    pub(super) fn assignment_word(
        &self,
        f: &Field,
        range: (usize, usize),
        what: &str,
        mods: &mut EnvMods,
    ) -> Option<(String, Val)> {
        let (n, v) = f.text.split_once('=')?;
        let raw = self.source.text.get(range.0..range.1).unwrap_or("");
        let Some(r) = &f.unknown else {
            return Some((n.to_string(), Val::Known(v.to_string())));
        };
        if literal_name(raw, n) {
            return Some((
                n.to_string(),
                Val::Unknown(format!(
                    "`{what}` sets {n} to a value that is not knowable: {r}"
                )),
            ));
        }
        mods.open.get_or_insert_with(|| {
            format!("`{what}` setting a variable whose name is not knowable ({r})")
        });
        None
    }

    /// A bash-only builtin or keyword ([`BASH_ONLY`]) in a script run by
    /// `sh`: what it does is not knowable (dash has no such command). Every
    /// variable it could set is unknown from here on, and so is its status.
    pub(super) fn bash_only(&mut self, name: &str, at: usize) -> Option<super::Status> {
        let why = self.st.sh.clone()?;
        if !BASH_ONLY.contains(&name) {
            return None;
        }
        let what = match name {
            "[[" => format!("`[[` under {why}"),
            _ => format!(
                "`{name}` on line {} under {why}",
                self.source.line_col(at).line
            ),
        };
        if name != "[[" {
            self.st.clobber(&what);
        }
        Some(super::Status::Unknown(format!(
            "{what}: it may not exist there"
        )))
    }

    /// The environment of a shell run in a container (`docker run -e K=V
    /// img bash -c ...`): its `-e` variables (`-e K` passes the host's `K`),
    /// open for the image's `ENV` lines (`why`).
    pub(super) fn container_mods(
        &self,
        vars: Vec<Operand>,
        why: String,
        host: &EnvMods,
    ) -> EnvMods {
        let mut m = EnvMods {
            clear: true,
            open: Some(why),
            ..EnvMods::default()
        };
        for (item, range) in vars {
            let (k, v) = if item.text.contains('=') {
                match self.assignment_word(&item, range, "docker run -e", &mut m) {
                    Some(kv) => kv,
                    None => continue,
                }
            } else if item.unknown.is_some() {
                continue;
            } else {
                let k = item.text.clone();
                let v = host
                    .set
                    .iter()
                    .rev()
                    .find(|(n, _, _)| *n == k)
                    .map(|(_, v, _)| v.clone())
                    .or_else(|| {
                        (host.passes(&k) && self.st.exported.contains(&k))
                            .then(|| self.exported_value(&k))
                            .flatten()
                    })
                    .unwrap_or_else(|| {
                        Val::Unknown(format!(
                            "`-e {k}` passes the host's {k}, which the script does not export (give it with --env {k}=...)"
                        ))
                    });
                (k, v)
            };
            m.set.retain(|(n, _, _)| *n != k);
            m.set.push((k, v, range));
        }
        m
    }

    /// Sources the startup file of a child bash (its `BASH_ENV`) before its
    /// script, as `source FILE` would: read through the confined layer; a
    /// file that is not read opens what follows, naming it.
    pub(super) fn source_startup(&mut self, path: &str) -> Result<(), Error> {
        let word = |value: String| ast::Word { value, loc: None };
        let (cmd, file) = (
            word("source".into()),
            word(format!("'{}'", path.replace('\'', "'\\''"))),
        );
        self.source_file(&[(&cmd, None), (&file, None)], 0)?;
        Ok(())
    }

    /// `docker run --env-file FILE`: its `NAME=value` and `NAME` lines (`#`
    /// comments and blank lines skipped), read through the confined layer.
    pub(super) fn docker_env_file(&self, target: &str, at: usize) -> Result<Vec<String>, Error> {
        let source = self.read_script(&format!("--env-file {target}"), target, at)?;
        Ok(source
            .text
            .lines()
            .map(|l| l.trim_start())
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect())
    }

    /// How a wrapper of the table changes the environment on the way to its
    /// command (`src/launchers.yaml`): `sudo`'s reset and keep list (unless
    /// `-E` / `--preserve-env[=A,B]`), its `NAME=value` words, and `uv run
    /// --env-file F` (or `UV_ENV_FILE`) read through the confined layer.
    pub(super) fn wrapper_env(
        &mut self,
        w: &crate::launch::Wrapper,
        used: &crate::launch::WrapperUse,
        fields: &[(Field, (usize, usize), Option<String>)],
        mods: &mut EnvMods,
    ) -> Result<(), Error> {
        if let Some(why) = &w.opens_env {
            mods.open
                .get_or_insert_with(|| format!("`{}` with {why}", w.name));
        }
        if let Some(reset) = &w.resets_env {
            let all = used
                .options
                .iter()
                .any(|(_, o, v)| v.is_none() && reset.preserve_all.contains(o));
            if !all {
                let mut keep = reset.keep.clone();
                for (_, o, v) in &used.options {
                    if reset.preserve_list.as_ref() == Some(o)
                        && let Some(v) = v
                    {
                        keep.extend(v.split(',').filter(|x| !x.is_empty()).map(String::from));
                    }
                }
                if mods.clear {
                    mods.keep.retain(|k| keep.contains(k));
                } else {
                    mods.clear = true;
                    mods.keep = keep;
                }
                let kept = mods.keep.clone();
                mods.set.retain(|(k, _, _)| kept.contains(k));
                mods.fallback.retain(|(k, _, _)| kept.contains(k));
            }
        }
        for &k in &used.assignments {
            let (f, range, _) = &fields[k];
            if let Some((n, v)) = self.assignment_word(f, *range, w.name.as_str(), mods) {
                mods.set.retain(|(x, _, _)| *x != n);
                mods.fallback.retain(|(x, _, _)| *x != n);
                mods.set.push((n, v, *range));
            }
        }
        let off = w
            .no_env_file_option
            .as_ref()
            .is_some_and(|o| used.options.iter().any(|(_, x, _)| x == o));
        if off || (w.env_file_options.is_empty() && w.env_file_var.is_none()) {
            return Ok(());
        }
        // Each env file named, with the field that names it.
        let mut files: Vec<(String, usize)> = Vec::new();
        for (k, o, v) in &used.options {
            if !w.env_file_options.contains(o) || v.is_none() {
                continue;
            }
            let at = if fields[*k].0.text == *o { k + 1 } else { *k };
            files.push((v.clone().unwrap_or_default(), at));
        }
        let mut named_by_var = None;
        if files.is_empty()
            && let Some(var) = &w.env_file_var
        {
            let set = mods.set.iter().rev().find(|(k, _, _)| k == var);
            let value = match set {
                Some((_, v, _)) => Some(v.clone()),
                None if mods.passes(var) && self.st.exported.contains(var) => {
                    self.st.get(var).and_then(|v| v.into_iter().next())
                }
                None => None,
            };
            match value {
                Some(Val::Known(path)) if !path.is_empty() => named_by_var = Some(path),
                Some(Val::Unknown(r)) => {
                    return Err(self.err(
                        fields[0].1.0,
                        format!("cannot know the env file `{}` reads ({var}): {r}", w.name),
                    ));
                }
                _ => {}
            }
        }
        let mut read: Vec<(String, (usize, usize))> = files
            .into_iter()
            .map(|(f, k)| {
                let (field, range, _) = &fields[k.min(fields.len() - 1)];
                match &field.unknown {
                    Some(r) => Err(self.err(
                        range.0,
                        format!("cannot know the env file `{}` reads: {r}", w.name),
                    )),
                    None => Ok((f, *range)),
                }
            })
            .collect::<Result<_, _>>()?;
        if let Some(path) = named_by_var {
            read.push((path, fields[0].1));
        }
        // The command's own variables win, then the later file.
        for (file, range) in read.into_iter().rev() {
            let source =
                self.read_script(&format!("{} --env-file {file}", w.name), &file, range.0)?;
            for (name, value) in dotenv(&source)? {
                if !mods.fallback.iter().any(|(k, _, _)| *k == name) {
                    mods.fallback.push((name, value, range));
                }
            }
        }
        Ok(())
    }
}
