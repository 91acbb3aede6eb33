//! The declaration builtins: `export`, `declare`, `typeset`, `local`,
//! `readonly`, with their attributes, and operands that come from an
//! expansion (`export "$kv"`, `declare "$X=4"`, `export $(...)`).

use std::sync::Arc;

use brush_parser::ast::{self, AssignmentName, AssignmentValue};

use super::expand::{Val, expand_fields};
use super::{Interp, Status};
use crate::error::Error;

/// Characters that make the text of a quoted list (`declare -a A='(...)'`)
/// more than plain words separated by blanks: bash would expand it again.
const LIST_EXPANDS: &[char] = &[
    '$', '`', '"', '\'', '\\', '*', '?', '[', ']', '{', '}', '~', '(', ')', ';', '&', '|', '<', '>',
];

/// The option letters each declaration builtin accepts (bash 5.2), and
/// whether a `+` word turns attributes off (for `export` and `readonly` a
/// `+x` word is an operand, "not a valid identifier"). Any other letter is
/// an "invalid option": the builtin does nothing and fails.
const OPTION_LETTERS: &[(&str, &str, bool)] = &[
    ("export", "afnpA", false),
    ("readonly", "afnpA", false),
    ("declare", "acfgilnprtuxAFGI", true),
    ("typeset", "acfgilnprtuxAFGI", true),
    ("local", "acfgilnprtuxAFGI", true),
];

/// The options of one declaration builtin, as bash's `internal_getopt` reads
/// them: the leading `-x` / `+x` words, up to `--` or the first operand.
#[derive(Debug, Default)]
struct DeclareOptions {
    /// Letters given with `-`, in order.
    on: String,
    /// Letters given with `+`.
    off: String,
}

impl DeclareOptions {
    /// Reads the options at the front of `operands`: `Ok` with the options
    /// and the index of the first operand, `Err` with an invalid letter.
    fn read(
        builtin: &str,
        operands: &[(ast::Word, Option<ast::Assignment>)],
    ) -> Result<(Self, usize), char> {
        let (letters, plus) = OPTION_LETTERS
            .iter()
            .find(|(b, _, _)| *b == builtin)
            .map(|(_, l, p)| (*l, *p))
            .unwrap_or(("", false));
        let mut o = DeclareOptions::default();
        for (i, (w, a)) in operands.iter().enumerate() {
            let v = w.value.as_str();
            if a.is_some() {
                return Ok((o, i));
            }
            if v == "--" {
                return Ok((o, i + 1));
            }
            let into = match v.chars().next() {
                Some('-') if v.len() > 1 => &mut o.on,
                Some('+') if v.len() > 1 && plus => &mut o.off,
                _ => return Ok((o, i)),
            };
            for c in v[1..].chars() {
                if !letters.contains(c) {
                    return Err(c);
                }
                into.push(c);
            }
        }
        Ok((o, operands.len()))
    }

    fn on(&self, c: char) -> bool {
        self.on.contains(c)
    }
}

/// A prefix assignment's value while its command runs (bash's temporary
/// environment): `TP=8 export TP` keeps it, as bash does.
struct TempBinding {
    name: String,
    value: Arc<Vec<Val>>,
    spans: Option<Arc<Vec<Option<super::expand::Range>>>>,
    assigned: Option<super::expand::Range>,
    written: Option<Arc<crate::span::Source>>,
}

/// Whether an operand without a value names a variable (`NAME`, or an
/// element `NAME[...]`, which declares the array) rather than being "not a
/// valid identifier".
fn valid_name(t: &str) -> bool {
    let base = match t.split_once('[') {
        Some((b, rest)) if rest.ends_with(']') => b,
        Some(_) => return false,
        None => t,
    };
    !base.is_empty()
        && !base.starts_with(|c: char| c.is_ascii_digit())
        && base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Interp<'_> {
    /// `export` / `declare` / `typeset` / `local` / `readonly` with their
    /// options, read as bash reads them (an option a builtin does not have
    /// makes it do nothing and fail; an operand that is not a valid
    /// identifier fails and the others still apply): `-x` exports, `-r`
    /// (and `readonly`) makes readonly, `-n` makes a reference to another
    /// variable (for `export`, takes the export back), `-p` of `declare`
    /// only prints, `-f` names functions. Fails (and changes nothing) for a
    /// readonly variable, as bash does.
    ///
    /// `prefix` are the command's prefix assignments (`TP=8 export TP`):
    /// bash binds them in a temporary environment, and a variable of it
    /// that the builtin gives an attribute (`export NAME`, `readonly NAME`,
    /// `declare -x`/`-r NAME` outside a function) or makes local (`local
    /// NAME` in a function) keeps that value, exported.
    pub(super) fn declare(
        &mut self,
        builtin: &str,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        prefix: &[&ast::Assignment],
    ) -> Result<Status, Error> {
        if builtin == "local" && self.depth == 0 {
            // "can only be used in a function": an error, nothing is set.
            return Ok(Status::Fail);
        }
        let operands = self.declare_operands(builtin, raw)?;
        let Ok((opts, first)) = DeclareOptions::read(builtin, &operands) else {
            // "invalid option": nothing is done.
            return Ok(Status::Fail);
        };
        let temp = self.temp_env(prefix)?;
        let raw: Vec<(&ast::Word, Option<&ast::Assignment>)> = operands[first..]
            .iter()
            .map(|(w, a)| (w, a.as_ref()))
            .collect();
        let family = !matches!(builtin, "export" | "readonly");
        // `-f` / `-F`: the operands are functions (not modelled as exported):
        // no variable changes; an assignment fails.
        if opts.on('f') || opts.on('F') {
            let all_functions = raw
                .iter()
                .all(|(w, a)| a.is_none() && self.st.functions.contains_key(&w.value));
            return Ok(if all_functions {
                Status::Ok
            } else {
                Status::Fail
            });
        }
        // `declare -p NAME`: prints, sets nothing.
        if family && opts.on('p') {
            return Ok(self.declare_print(&raw));
        }
        // `local -`: the `set` options are restored when the function returns.
        if builtin == "local"
            && raw.iter().any(|(w, a)| a.is_none() && w.value == "-")
            && let Some(slot) = self.frame_options.last_mut()
            && slot.is_none()
        {
            *slot = Some(self.st.set_options());
        }
        // `declare +x NAME` / `export -n NAME`: no longer exported.
        let unexport = if family {
            opts.off.contains('x')
        } else {
            builtin == "export" && opts.on('n')
        };
        let export = !unexport && (builtin == "export" || opts.on('x'));
        // `readonly -n`: would take the attribute back, which bash refuses.
        let readonly = (builtin == "readonly" && !opts.on('n')) || (family && opts.on('r'));
        let integer = family && opts.on('i');
        let assoc = opts.on('A');
        let nameref = family && opts.on('n');
        // `declare -u` / `-l` / `-c`: the last one given wins, as in bash.
        let case = if family {
            opts.on.chars().rfind(|c| matches!(c, 'u' | 'l' | 'c'))
        } else {
            None
        };
        // `local`, and `declare` / `typeset` inside a function (without -g),
        // make variables of the function's own.
        let local = !opts.on('g')
            && (builtin == "local" || (matches!(builtin, "declare" | "typeset") && self.depth > 0));
        // Which builtins keep a prefix assignment's value (bash's
        // `set_var_attribute` on a temporary variable).
        let keeps_temp = if family {
            !local && !opts.on('g') && (opts.on('x') || opts.on('r'))
        } else {
            !opts.on('n')
        };
        let mut status = Status::Ok;
        for (w, a) in raw.iter() {
            let name = match a {
                Some(a) => match &a.name {
                    AssignmentName::VariableName(n) => Some(n.clone()),
                    AssignmentName::ArrayElementName(..) => None,
                },
                None if builtin == "local" && w.value == "-" => continue,
                None if !valid_name(&w.value) => {
                    // "not a valid identifier": this operand fails.
                    status = Status::Fail;
                    continue;
                }
                None => Some(w.value.clone()),
            };
            let temp_value = name
                .as_ref()
                .and_then(|n| temp.iter().find(|t| t.name == *n));
            if local
                && let Some(n) = name.clone()
                && !self.st.is_readonly(&n)
                && let Some(frame) = self.frames.last()
                && !frame.iter().any(|(k, _)| *k == n)
            {
                // The value (`local X=$X`) is expanded before X is shadowed.
                let shadowed = self.st.shadow(&n, a.is_some());
                if let Some(frame) = self.frames.last_mut() {
                    frame.push((n, shadowed));
                }
            }
            if integer && let Some(n) = name_of_item(a, w) {
                let n = self.st.resolve(&n).unwrap_or(n);
                self.st.integers.insert(n);
            }
            if let Some(case) = case
                && let Some(n) = name_of_item(a, w)
            {
                let n = self.st.resolve(&n).unwrap_or(n);
                self.st.cases.insert(n, case);
            }
            match a {
                Some(a) if nameref => {
                    let AssignmentName::VariableName(n) = &a.name else {
                        continue;
                    };
                    let target = match &a.value {
                        AssignmentValue::Scalar(v) => self.str_of(v)?,
                        AssignmentValue::Array(_) => continue,
                    };
                    self.st.namerefs.insert(n.clone(), target);
                }
                Some(a) => {
                    // A local made while a prefix assignment of its name
                    // holds is exported (it takes the temporary's attributes).
                    let exported = export || (local && temp_value.is_some());
                    let listed = if family && !assoc {
                        self.quoted_list(a, opts.on('a'))
                    } else {
                        Ok(None)
                    };
                    let listed = match listed {
                        Ok(l) => l,
                        Err(reason) => {
                            if let AssignmentName::VariableName(n) = &a.name
                                && !self.st.is_readonly(n)
                            {
                                let n = self.st.resolve(n).unwrap_or_else(|_| n.clone());
                                self.st
                                    .vars
                                    .insert(n.clone(), Arc::new(vec![Val::Unknown(reason)]));
                                self.st.spans.remove(&n);
                                self.st.note_written(&n);
                            }
                            continue;
                        }
                    };
                    if !self.assign(listed.as_ref().unwrap_or(a), exported)? {
                        status = Status::Fail;
                        continue;
                    }
                    // `declare -A`: keys are strings, not evaluated.
                    if assoc && let AssignmentName::VariableName(n) = &a.name {
                        let n = self.st.resolve(n).unwrap_or_else(|_| n.clone());
                        let v = Val::Unknown(format!(
                            "${n} is an associative array (declare -A), which is not evaluated"
                        ));
                        self.st.vars.insert(n, Arc::new(vec![v]));
                    }
                    if readonly && let AssignmentName::VariableName(n) = &a.name {
                        let n = self.st.resolve(n).unwrap_or_else(|_| n.clone());
                        self.st.readonly.insert(n);
                    }
                }
                None => {
                    let n = self
                        .st
                        .resolve(&w.value)
                        .unwrap_or_else(|_| w.value.clone());
                    if let Some(t) = temp_value
                        && (keeps_temp || local)
                        && !self.st.is_readonly(&n)
                    {
                        self.bind_temp(&n, t);
                        self.st.exported.insert(n.clone());
                    }
                    if export {
                        self.st.exported.insert(n.clone());
                    }
                    if unexport {
                        self.st.exported.remove(&n);
                    }
                    if readonly {
                        self.st.readonly.insert(n);
                    }
                }
            }
        }
        Ok(status)
    }

    /// The values a command's prefix assignments hold while it runs (its
    /// temporary environment), computed as bash does (`TP+=8` appends; a
    /// readonly variable is not assigned) and then taken back: the shell's
    /// variables are as before. Expansion side effects (`${X:=1}`) stay.
    fn temp_env(&mut self, prefix: &[&ast::Assignment]) -> Result<Vec<TempBinding>, Error> {
        let (saved, result) = self.enter_prefix(prefix);
        let mut out = Vec::new();
        for (n, _) in &saved {
            if let Some(value) = self.st.vars.get(n) {
                out.push(TempBinding {
                    name: n.clone(),
                    value: value.clone(),
                    spans: self.st.spans.get(n).cloned(),
                    assigned: self.st.assigned.get(n).copied(),
                    written: self.st.written.get(n).cloned(),
                });
            }
        }
        for (n, s) in saved.into_iter().rev() {
            self.st.restore(n, s);
        }
        result.map(|_| out)
    }

    /// Gives variable `name` (in the scope visible now) a temporary
    /// binding's value and where it was written.
    fn bind_temp(&mut self, name: &str, t: &TempBinding) {
        fn put<T>(map: &mut std::collections::BTreeMap<String, T>, name: &str, v: Option<T>) {
            match v {
                Some(v) => map.insert(name.to_string(), v),
                None => map.remove(name),
            };
        }
        self.st.vars.insert(name.to_string(), t.value.clone());
        put(&mut self.st.spans, name, t.spans.clone());
        put(&mut self.st.assigned, name, t.assigned);
        put(&mut self.st.written, name, t.written.clone());
    }

    /// `declare -p NAME...`: prints; fails for a name that is not set.
    fn declare_print(&self, raw: &[(&ast::Word, Option<&ast::Assignment>)]) -> Status {
        let mut unknown = None;
        for (w, a) in raw {
            if a.is_some() {
                return Status::Fail;
            }
            if self.st.vars.contains_key(&w.value) {
                continue;
            }
            if self.st.complete_env {
                return Status::Fail;
            }
            unknown.get_or_insert_with(|| format!("whether ${} is set is not knowable", w.value));
        }
        match unknown {
            Some(r) => Status::Unknown(r),
            None => Status::Ok,
        }
    }

    /// `declare -a A='(--tp 8)'` (or `declare A=...` on an indexed array):
    /// bash reads a scalar value that is `(...)` as a compound assignment,
    /// the list words expanded again. The assignment to make instead
    /// (`None`: the value is an ordinary scalar), or why the value is not
    /// knowable (text bash would expand again, or a value not knowable).
    fn quoted_list(
        &mut self,
        a: &ast::Assignment,
        array_option: bool,
    ) -> Result<Option<ast::Assignment>, String> {
        let (AssignmentName::VariableName(n), AssignmentValue::Scalar(w)) = (&a.name, &a.value)
        else {
            return Ok(None);
        };
        let target = self.st.resolve(n).unwrap_or_else(|_| n.clone());
        let array_now = self.st.get(&target).is_some_and(|v| v.len() > 1);
        if !(array_option || array_now) {
            return Ok(None);
        }
        // Only values whose expansion has no side effects are expanded here
        // (`assign` may expand them again).
        let v = &w.value;
        if v.contains('`') || v.contains("$(") || (v.contains("${") && v.contains('=')) {
            return Err(format!(
                "${target}: `declare -a {n}=...` with a substitution may be a list (bash reads `(...)` as one), which is not evaluated"
            ));
        }
        self.literal_list(a, n, &w.value)
    }

    /// The compound assignment a quoted `(...)` value makes (see
    /// `quoted_list`), or `None` when the expanded value is not `(...)`.
    fn literal_list(
        &mut self,
        a: &ast::Assignment,
        n: &str,
        written: &str,
    ) -> Result<Option<ast::Assignment>, String> {
        let text = match super::expand::expand_string(&mut self.st, written) {
            Ok(Val::Known(t)) => t,
            Ok(Val::Unknown(r)) => {
                return Err(format!(
                    "${n}: the value of `declare -a` may be a list (...), and is not knowable: {r}"
                ));
            }
            Err(r) => return Err(r),
        };
        let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
            return Ok(None);
        };
        if inner.contains(LIST_EXPANDS) {
            return Err(format!(
                "${n}: the list {text:?} of `declare -a` is expanded again by bash, which is not evaluated"
            ));
        }
        let items = inner
            .split([' ', '\t', '\n'])
            .filter(|t| !t.is_empty())
            .map(|t| {
                (
                    None,
                    ast::Word {
                        value: t.to_string(),
                        loc: None,
                    },
                )
            })
            .collect();
        Ok(Some(ast::Assignment {
            name: a.name.clone(),
            value: AssignmentValue::Array(items),
            append: a.append,
            loc: a.loc.clone(),
        }))
    }

    /// The operands of a declaration builtin as bash sees them: a word the
    /// parser read as `NAME=value` (or a plain name or option) as written;
    /// any other word (`"$X=4"`, `$(grep ... | xargs)`, `SGLANG_$X=1`) is
    /// expanded and split as bash does, and each field becomes a name, an
    /// option or a `NAME=value` whose value is taken literally. A field that
    /// is not knowable may set or export any variable: every variable is
    /// unknown from here on, with the reason. A field that is not a valid
    /// identifier stays a word, which [`Interp::declare`] refuses as bash
    /// does (that operand fails, the others apply).
    #[allow(clippy::type_complexity)]
    fn declare_operands(
        &mut self,
        builtin: &str,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
    ) -> Result<Vec<(ast::Word, Option<ast::Assignment>)>, Error> {
        let mut out = Vec::new();
        let plain = |t: &str| {
            let body = t.strip_prefix(['-', '+']).unwrap_or(t);
            !body.is_empty() && body.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        for (w, a) in raw.iter().skip(1) {
            if a.is_some() || plain(&w.value) || w.value == "--" {
                out.push(((*w).clone(), a.cloned()));
                continue;
            }
            let at = self.word_range(w, 0).0;
            let fields = expand_fields(&mut self.st, &w.value).map_err(|m| self.err(at, m))?;
            for f in fields {
                if let Some(r) = f.unknown {
                    let line = self.source.line_col(at).line;
                    self.st.clobber(&format!(
                        "the `{builtin}` on line {line}, whose operand is not knowable ({r})"
                    ));
                    continue;
                }
                let loc = w.loc.clone();
                let name_end = f.text.find('=').unwrap_or(f.text.len());
                let (name, append) = match f.text[..name_end].strip_suffix('+') {
                    Some(n) => (n, true),
                    None => (&f.text[..name_end], false),
                };
                let valid = !name.is_empty()
                    && !name.starts_with(|c: char| c.is_ascii_digit())
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                let element = name
                    .split_once('[')
                    .filter(|(base, rest)| {
                        rest.ends_with(']')
                            && !base.is_empty()
                            && base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    })
                    .map(|(base, _)| base.to_string());
                if f.text.starts_with(['-', '+']) && name_end == f.text.len() {
                    out.push((ast::Word { value: f.text, loc }, None));
                } else if let Some(base) = element {
                    // `declare "a[1]=x"`: an element, which is not evaluated:
                    // the array is unknown from here.
                    self.st.set_scalar(
                        &base,
                        Val::Unknown(format!(
                            "${base}: `{builtin} {name}=...` sets an element, which is not evaluated"
                        )),
                    );
                } else if !valid || name_end == f.text.len() {
                    // A name, or "not a valid identifier" (`1a=x`, `X+`).
                    out.push((ast::Word { value: f.text, loc }, None));
                } else {
                    let value = &f.text[name_end + 1..];
                    let quoted = format!("'{}'", value.replace('\'', "'\\''"));
                    let Some(loc) = loc else {
                        out.push((
                            ast::Word {
                                value: name.into(),
                                loc: None,
                            },
                            None,
                        ));
                        continue;
                    };
                    let a = ast::Assignment {
                        name: AssignmentName::VariableName(name.to_string()),
                        value: AssignmentValue::Scalar(ast::Word {
                            value: quoted,
                            loc: None,
                        }),
                        append,
                        loc: loc.clone(),
                    };
                    out.push((
                        ast::Word {
                            value: f.text.clone(),
                            loc: Some(loc),
                        },
                        Some(a),
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// The variable a `declare` argument names.
fn name_of_item(a: &Option<&ast::Assignment>, w: &ast::Word) -> Option<String> {
    match a {
        Some(a) => match &a.name {
            AssignmentName::VariableName(n) => Some(n.clone()),
            AssignmentName::ArrayElementName(..) => None,
        },
        None if w.value.starts_with(['-', '+']) => None,
        None => Some(w.value.clone()),
    }
}
