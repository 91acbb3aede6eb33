//! The declaration builtins: `export`, `declare`, `typeset`, `local`,
//! `readonly`, with their attributes, and operands that come from an
//! expansion (`export "$kv"`, `declare "$X=4"`, `export $(...)`).

use std::sync::Arc;

use brush_parser::ast::{self, AssignmentName, AssignmentValue};

use super::expand::{Val, expand_fields};
use super::{Interp, Status};
use crate::error::Error;

impl Interp<'_> {
    /// `export` / `declare` / `typeset` / `local` / `readonly` with their
    /// attributes: `-x` exports, `-r` (and `readonly`) makes readonly, `-n`
    /// makes a reference to another variable. Fails (and changes nothing) for
    /// a readonly variable, as bash does.
    pub(super) fn declare(
        &mut self,
        builtin: &str,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
    ) -> Result<Status, Error> {
        if builtin == "local" && self.depth == 0 {
            // "can only be used in a function": an error, nothing is set.
            return Ok(Status::Fail);
        }
        let Some(operands) = self.declare_operands(builtin, raw)? else {
            return Ok(Status::Fail);
        };
        let mut items: Vec<(&ast::Word, Option<&ast::Assignment>)> = vec![raw[0]];
        items.extend(operands.iter().map(|(w, a)| (w, a.as_ref())));
        let raw = items.as_slice();
        // `local -`: the `set` options are restored when the function returns.
        if builtin == "local"
            && raw
                .iter()
                .skip(1)
                .any(|(w, a)| a.is_none() && w.value == "-")
            && let Some(slot) = self.frame_options.last_mut()
            && slot.is_none()
        {
            *slot = Some(self.st.set_options());
        }
        let flag = |f: char| {
            raw.iter()
                .skip(1)
                .any(|(w, _)| w.value.starts_with('-') && w.value.contains(f))
        };
        // `declare +x NAME` / `export -n NAME`: no longer exported.
        let unexport = (builtin == "export" && flag('n'))
            || (builtin != "export"
                && raw
                    .iter()
                    .skip(1)
                    .any(|(w, _)| w.value.starts_with('+') && w.value.contains('x')));
        let export = !unexport && (builtin == "export" || flag('x'));
        let readonly = builtin == "readonly" || flag('r');
        let integer = builtin != "export" && builtin != "readonly" && flag('i');
        let assoc = builtin != "export" && builtin != "readonly" && flag('A');
        let nameref = builtin != "export" && flag('n');
        // `declare -u` / `-l` / `-c`: the last one given wins, as in bash.
        let case = if matches!(builtin, "export" | "readonly") {
            None
        } else {
            raw.iter()
                .skip(1)
                .filter(|(w, _)| w.value.starts_with('-'))
                .flat_map(|(w, _)| w.value.chars())
                .rfind(|c| matches!(c, 'u' | 'l' | 'c'))
        };
        // `local`, and `declare` / `typeset` inside a function (without -g),
        // make variables of the function's own.
        let local = builtin == "local"
            || (matches!(builtin, "declare" | "typeset") && self.depth > 0 && !flag('g'));
        let mut status = Status::Ok;
        for (w, a) in raw.iter().skip(1) {
            let name = match a {
                Some(a) => match &a.name {
                    AssignmentName::VariableName(n) => Some(n.clone()),
                    AssignmentName::ArrayElementName(..) => None,
                },
                None if w.value.starts_with(['-', '+']) => None,
                None => Some(w.value.clone()),
            };
            if local
                && let Some(n) = name
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
                    if !self.assign(a, export)? {
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
                None if w.value.starts_with('-') || w.value.starts_with('+') => {}
                None => {
                    let n = self
                        .st
                        .resolve(&w.value)
                        .unwrap_or_else(|_| w.value.clone());
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

    /// The operands of a declaration builtin as bash sees them: a word the
    /// parser read as `NAME=value` (or a plain name or option) as written;
    /// any other word (`"$X=4"`, `$(grep ... | xargs)`, `SGLANG_$X=1`) is
    /// expanded and split as bash does, and each field becomes a name, an
    /// option or a `NAME=value` whose value is taken literally. A field that
    /// is not knowable may set or export any variable: every variable is
    /// unknown from here on, with the reason. `None`: bash refuses an operand
    /// (not a valid identifier) and the builtin fails; what came before it
    /// still applies, as here.
    #[allow(clippy::type_complexity)]
    fn declare_operands(
        &mut self,
        builtin: &str,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
    ) -> Result<Option<Vec<(ast::Word, Option<ast::Assignment>)>>, Error> {
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
                } else if !valid || (append && name_end == f.text.len()) {
                    // "not a valid identifier".
                    self.flush_declare(builtin, raw[0].0, &out)?;
                    return Ok(None);
                } else if name_end == f.text.len() {
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
        Ok(Some(out))
    }

    /// Applies the operands before the one bash refuses (it declares them,
    /// then fails).
    fn flush_declare(
        &mut self,
        builtin: &str,
        head: &ast::Word,
        operands: &[(ast::Word, Option<ast::Assignment>)],
    ) -> Result<(), Error> {
        if operands.is_empty() {
            return Ok(());
        }
        let mut items: Vec<(&ast::Word, Option<&ast::Assignment>)> = vec![(head, None)];
        items.extend(operands.iter().map(|(w, a)| (w, a.as_ref())));
        // Every operand here is a name, an option or an assignment: none is
        // expanded again.
        self.declare(builtin, &items).map(|_| ())
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
