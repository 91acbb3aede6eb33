//! Word expansion, evaluated statically over known values (arithmetic is
//! `arith`, case modification `casemod`, indirection `indirect`).
//!
//! A value is either known text or unknown with a reason; nothing is executed.

use brush_parser::word::{
    Parameter, ParameterExpr, ParameterTestType, SpecialParameter, SubstringMatchKind, WordPiece,
    WordPieceWithSource,
};

pub(crate) use super::arith::{
    arith_effects, arith_text, brief, name_subscript_effects, unknown_assignments,
};
use super::arith::{constant_index, subscript_effects};
use super::budget;
use super::glob::{self, Replace};
use super::{State, Status};

/// A value: known text, or unknown with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Val {
    /// Known text.
    Known(String),
    /// Not knowable statically.
    Unknown(String),
}

impl Val {
    /// The text (the written form for unknowns).
    pub fn text(&self) -> &str {
        match self {
            Val::Known(s) => s,
            Val::Unknown(_) => "",
        }
    }
}

/// A byte range in the script.
pub type Range = (usize, usize);

/// One field produced by expanding a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The text after expansion and quote removal.
    pub text: String,
    /// Why the field is not knowable, if it is not.
    pub unknown: Option<String>,
    /// Where its text was written, when it comes whole from one variable's value.
    pub span: Option<Range>,
}

impl Field {
    /// Its value: known text, or unknown with the reason.
    pub fn val(&self) -> Val {
        match &self.unknown {
            Some(r) => Val::Unknown(r.clone()),
            None => Val::Known(self.text.clone()),
        }
    }
}

/// A piece of expanded text, tracking whether it may be split.
#[derive(Debug, Clone)]
struct Chunk {
    text: String,
    splittable: bool,
    /// Separate array elements ("${A[@]}"): each starts a new field.
    break_before: bool,
    /// Where the text was written (a variable's value), if known.
    span: Option<Range>,
    /// Why this piece is not knowable, if it is not.
    unknown: Option<String>,
    /// It was quoted (or escaped): in a pattern, its characters are literal.
    literal: bool,
}

/// The result of expanding one word into chunks.
#[derive(Debug, Default)]
struct Expansion {
    chunks: Vec<Chunk>,
    /// The word had a quoted part: it yields a field even when empty.
    quoted: bool,
    /// How many chunks are counted against the budgets so far.
    counted: usize,
    /// The bytes of text of the counted chunks.
    bytes: usize,
    /// The `${` expansions the word parser did not read (case toggles).
    unread: super::casemod::Unread,
}

impl Expansion {
    /// Counts the chunks added since the last call: their bytes are built,
    /// and the word so far must fit the value budget.
    fn count(&mut self) -> Result<(), String> {
        let new: usize = self.chunks[self.counted..]
            .iter()
            .map(|c| c.text.len())
            .sum();
        self.counted = self.chunks.len();
        self.bytes += new;
        budget::built(new)?;
        budget::value(self.bytes)
    }
}

/// Expands a word into fields (brace expansion, word splitting on unquoted
/// expansions with `$IFS`, `"${A[@]}"` into elements, empty unquoted expansions
/// removed, unquoted glob patterns unknown).
pub fn expand_fields(st: &mut State, raw: &str) -> Result<Vec<Field>, String> {
    let words = super::brace::expand(raw)?;
    if let [one] = words.as_slice()
        && one == raw
    {
        return expand_one(st, raw);
    }
    st.brace_used.add(&words)?;
    let mut out = Vec::new();
    for w in &words {
        out.extend(expand_one(st, w)?);
    }
    Ok(out)
}

fn expand_one(st: &mut State, raw: &str) -> Result<Vec<Field>, String> {
    let exp = expand_word(st, raw, false)?;
    let ifs = st.ifs();
    let noglob = st.noglob;
    let here = st.here.clone();
    let mut fields: Vec<Field> = Vec::new();
    let mut cur = String::new();
    let mut have = exp.quoted;
    // The single chunk a field comes from: None = none yet, Some(None) = several.
    let mut src: Option<Option<Range>> = None;
    let mut unknown: Option<String> = None;
    let finish = |fields: &mut Vec<Field>,
                  cur: &mut String,
                  src: &mut Option<Option<Range>>,
                  unknown: &mut Option<String>| {
        let text = std::mem::take(cur);
        let unknown = unknown.take();
        let span = src.take().flatten();
        // An unknown field shows the text it was written as: where it came
        // whole from an array element, that element's text (naming the
        // variable it was made of, at the line it was written), else the word.
        let written = || {
            span.and_then(|(s, e)| here.as_ref().and_then(|h| h.text.get(s..e)))
                .map(str::to_string)
                .unwrap_or_else(|| raw.to_string())
        };
        fields.push(Field {
            text: if unknown.is_some() && text.is_empty() {
                written()
            } else {
                text
            },
            unknown,
            span,
        });
    };
    let note = |src: &mut Option<Option<Range>>, span: Option<Range>, text: &str| {
        if text.is_empty() {
            return;
        }
        *src = match src {
            None => Some(span),
            Some(_) => Some(None),
        };
    };
    for c in exp.chunks {
        if c.break_before && (have || !cur.is_empty()) {
            finish(&mut fields, &mut cur, &mut src, &mut unknown);
            have = false;
        }
        if let Some(r) = c.unknown {
            unknown.get_or_insert(r);
            have = true;
            if c.span.is_some() {
                note(&mut src, c.span, "?");
            }
            continue;
        }
        if c.splittable {
            let ifs = match &ifs {
                Ok(ifs) => ifs,
                Err(r) if !c.text.is_empty() => {
                    unknown.get_or_insert(r.clone());
                    have = true;
                    continue;
                }
                Err(_) => continue,
            };
            for (piece, sep) in super::fields::ifs_split(&c.text, ifs) {
                match sep {
                    super::fields::Sep::Blank if have || !cur.is_empty() => {
                        finish(&mut fields, &mut cur, &mut src, &mut unknown);
                        have = false;
                    }
                    super::fields::Sep::Hard => {
                        finish(&mut fields, &mut cur, &mut src, &mut unknown);
                        have = false;
                    }
                    _ => {}
                }
                if !noglob && super::fields::is_pattern(piece) {
                    unknown.get_or_insert(super::fields::glob_reason(piece));
                    have = true;
                }
                note(&mut src, c.span, piece);
                cur.push_str(piece);
            }
        } else {
            note(&mut src, c.span, &c.text);
            cur.push_str(&c.text);
            have = true;
        }
    }
    if have || !cur.is_empty() {
        finish(&mut fields, &mut cur, &mut src, &mut unknown);
    }
    // A field costs far more than its text where it is kept (a launch's
    // argument with its provenance): each counts as that much built.
    budget::built(fields.len().saturating_mul(FIELD_BYTES))?;
    Ok(fields)
}

/// What one field counts against the built-bytes budget besides its text.
const FIELD_BYTES: usize = 256;

/// The first reason a piece of the expansion is unknown.
fn first_unknown(exp: &Expansion) -> Option<String> {
    exp.chunks.iter().find_map(|c| c.unknown.clone())
}

/// Like [`expand_string`], plus where the value was written when it comes whole
/// from one variable.
pub fn expand_string_spanned(st: &mut State, raw: &str) -> Result<(Val, Option<Range>), String> {
    let exp = expand_word(st, raw, true)?;
    let nonempty: Vec<&Chunk> = exp.chunks.iter().filter(|c| !c.text.is_empty()).collect();
    let span = match nonempty.as_slice() {
        [one] => one.span,
        _ => None,
    };
    let text: String = exp
        .chunks
        .iter()
        .map(|c| c.text.as_str())
        .collect::<Vec<_>>()
        .join("");
    Ok((
        match first_unknown(&exp) {
            Some(r) => Val::Unknown(r),
            None => Val::Known(text),
        },
        span,
    ))
}

/// Expands a word used as a pattern (`case`, `[[ == ]]`, `${V#p}`,
/// `${V/p/r}`) into one string in which the quoted parts are escaped: they
/// match literally, as in bash (`"*"` matches only `*`).
pub fn expand_pattern(st: &mut State, raw: &str) -> Result<Val, String> {
    expand_pattern_quoted(st, raw).map(|(v, _)| v)
}

/// [`expand_pattern`], and whether the word had a quoted part (`""` is an
/// empty pattern, an unquoted empty expansion is none).
fn expand_pattern_quoted(st: &mut State, raw: &str) -> Result<(Val, bool), String> {
    let exp = expand_word(st, raw, true)?;
    if let Some(r) = first_unknown(&exp) {
        return Ok((Val::Unknown(r), exp.quoted));
    }
    let mut out = String::new();
    for c in &exp.chunks {
        if c.literal {
            for ch in c.text.chars() {
                if glob::is_special(ch) {
                    out.push('\\');
                }
                out.push(ch);
            }
        } else {
            out.push_str(&c.text);
        }
    }
    budget::value(out.len())?;
    Ok((Val::Known(out), exp.quoted))
}

/// Expands a word into one string (no splitting): assignments, case words, tests.
pub fn expand_string(st: &mut State, raw: &str) -> Result<Val, String> {
    let exp = expand_word(st, raw, true)?;
    let text: String = exp
        .chunks
        .iter()
        .map(|c| c.text.as_str())
        .collect::<Vec<_>>()
        .join("");
    Ok(match first_unknown(&exp) {
        Some(r) => Val::Unknown(r),
        None => Val::Known(text),
    })
}

fn expand_word(st: &mut State, raw: &str, no_split: bool) -> Result<Expansion, String> {
    if super::expansion_too_deep(raw).is_some() {
        return Err(format!(
            "bash parse budget exceeded: `${{` expansions nested too deeply to parse safely (more than {}: a fixed guard of the parser, not a --bash-budget knob)",
            budget::fixed::MAX_EXPANSION_DEPTH
        ));
    }
    // The word is copied to the word parser each time it is expanded.
    budget::built(raw.len())?;
    let mut pieces = super::word_parser::parse(raw)?;
    let mut exp = Expansion::default();
    if let Some((text, unread)) = super::casemod::unread(raw, &pieces) {
        if !unread.toggles.is_empty() {
            pieces = super::word_parser::parse(&text)?;
        }
        exp.unread = unread;
    }
    for p in &pieces {
        expand_piece(st, p, false, no_split, &mut exp)?;
    }
    Ok(exp)
}

fn push(exp: &mut Expansion, text: String, splittable: bool) {
    exp.chunks.push(Chunk {
        text,
        splittable,
        break_before: false,
        span: None,
        unknown: None,
        literal: false,
    });
}

/// An unknown piece of the word (it stays one piece: never split).
fn mark_unknown(exp: &mut Expansion, reason: String) {
    push_unknown(exp, reason, false);
}

fn push_unknown(exp: &mut Expansion, reason: String, break_before: bool) {
    exp.chunks.push(Chunk {
        text: String::new(),
        splittable: false,
        break_before,
        span: None,
        unknown: Some(reason),
        literal: false,
    });
}

fn expand_piece(
    st: &mut State,
    p: &WordPieceWithSource,
    quoted: bool,
    no_split: bool,
    exp: &mut Expansion,
) -> Result<(), String> {
    let before = exp.chunks.len();
    budget::stack(|| expand_piece_inner(st, p, quoted, no_split, exp))?;
    if quoted
        || matches!(
            p.piece,
            WordPiece::SingleQuotedText(_)
                | WordPiece::AnsiCQuotedText(_)
                | WordPiece::EscapeSequence(_)
        )
    {
        for c in &mut exp.chunks[before..] {
            c.literal = true;
        }
    }
    exp.count()
}

fn expand_piece_inner(
    st: &mut State,
    p: &WordPieceWithSource,
    quoted: bool,
    no_split: bool,
    exp: &mut Expansion,
) -> Result<(), String> {
    match &p.piece {
        WordPiece::Text(t) => {
            if let Some((_, text)) = exp
                .unread
                .others
                .iter()
                .find(|(at, _)| *at == p.start_index)
            {
                let reason = super::casemod::unread_reason(text);
                mark_unknown(exp, reason);
            }
            push(exp, t.clone(), false);
            if !quoted && !no_split && !st.noglob && super::fields::is_pattern(t) {
                mark_unknown(exp, super::fields::glob_reason(t));
            }
        }
        WordPiece::SingleQuotedText(t) => {
            exp.quoted = true;
            push(exp, t.clone(), false);
        }
        WordPiece::AnsiCQuotedText(t) => {
            exp.quoted = true;
            match super::escapes::decode(t, super::escapes::Mode::AnsiC) {
                Ok((text, _)) => push(exp, text, false),
                Err(r) => mark_unknown(exp, r),
            }
        }
        WordPiece::EscapeSequence(e) => {
            exp.quoted = true;
            let c = e.strip_prefix('\\').unwrap_or(e);
            if quoted && !matches!(c, "$" | "`" | "\"" | "\\" | "\n") {
                push(exp, e.clone(), false);
            } else if c != "\n" {
                push(exp, c.to_string(), false);
            }
        }
        WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
            // "${A[@]}" alone yields one word per element, and none for an empty array.
            let only_elements = inner.len() == 1
                && matches!(
                    &inner[0].piece,
                    WordPiece::ParameterExpansion(ParameterExpr::Parameter { parameter, .. })
                        if is_all(parameter) && !concatenated(parameter)
                );
            if !only_elements {
                exp.quoted = true;
            }
            for q in inner {
                expand_piece(st, q, true, no_split, exp)?;
            }
        }
        WordPiece::TildeExpansion(_) => {
            mark_unknown(exp, "`~` (the home directory) is not knowable".into());
            push(exp, "~".into(), false);
        }
        WordPiece::CommandSubstitution(cmd) | WordPiece::BackquotedCommandSubstitution(cmd) => {
            match super::command_substitution(st, cmd)? {
                Some(Val::Known(t)) => push(exp, t, !quoted && !no_split),
                Some(Val::Unknown(r)) => mark_unknown(exp, r),
                None => mark_unknown(
                    exp,
                    format!(
                        "the output of $({}) is not knowable (commands are never run)",
                        cmd.trim()
                    ),
                ),
            }
        }
        WordPiece::ArithmeticExpression(e) => match arith_text(st, &e.value) {
            Ok(n) => push(exp, n.to_string(), !quoted && !no_split),
            // An exceeded budget ends the evaluation; anything else is unknown.
            Err(r) if budget::tripped().is_some() => return Err(r),
            Err(r) => mark_unknown(exp, r),
        },
        WordPiece::ParameterExpansion(pe) => {
            let toggle = exp.unread.toggles.contains(&p.start_index);
            match super::indirect::resolve(st, pe) {
                None => parameter(st, pe, quoted, no_split, toggle, exp)?,
                Some(Ok(direct)) => parameter(st, &direct, quoted, no_split, toggle, exp)?,
                Some(Err(r)) => mark_unknown(exp, r),
            }
        }
    }
    Ok(())
}

/// What marks an index of an array that is not set while a later one is
/// (arrays are kept dense): the array's length is then not knowable.
const HOLE: &str = "is not set while a later index is (sparse arrays are not evaluated)";

/// The unknown value standing at index `i` of sparse array `name`.
pub fn sparse_hole(name: &str, i: usize) -> String {
    format!("${{{name}[{i}]}} {HOLE}")
}

/// Looks a parameter up: `None` when unset.
fn lookup(st: &State, p: &Parameter) -> Option<Vec<Val>> {
    // `${BASH_SOURCE[0]}`: the file whose code runs now, as it was named.
    match p {
        Parameter::Named(n) | Parameter::NamedWithIndex { name: n, .. }
            if n == "BASH_SOURCE" && st.get(n).is_none() =>
        {
            let file = st.file.clone().unwrap_or_else(|| st.script.clone());
            return match p {
                Parameter::NamedWithIndex { index, .. } if index.trim() != "0" => {
                    Some(vec![Val::Unknown(format!(
                        "${{BASH_SOURCE[{index}]}} (a caller's file) is not evaluated"
                    ))])
                }
                _ => Some(vec![Val::Known(file)]),
            };
        }
        _ => {}
    }
    if let Parameter::Named(n)
    | Parameter::NamedWithIndex { name: n, .. }
    | Parameter::NamedWithAllIndices { name: n, .. } = p
        && n == "FUNCNAME"
        && !st.funcname_unset
    {
        return funcname(st, p);
    }
    // An unknown value read from a variable names the variable and where it
    // was set (`$MEM (set at a.sh:1:1 from $TOTAL_CPU_DRAM_GB, which is not
    // set ...)`), once: the innermost variable that holds it.
    if let Parameter::Named(n)
    | Parameter::NamedWithIndex { name: n, .. }
    | Parameter::NamedWithAllIndices { name: n, .. } = p
    {
        return plain_lookup(st, p).map(|vals| {
            vals.into_iter()
                .map(|v| match v {
                    Val::Unknown(r) => Val::Unknown(with_origin(st, n, r)),
                    known => known,
                })
                .collect()
        });
    }
    plain_lookup(st, p)
}

/// `FUNCNAME` (bash keeps it; assigning it does nothing): the functions
/// running, innermost first, with a `source` for each sourced file between
/// them and `main` at the bottom in a script file; unset outside any
/// function. Where the bottom is not knowable (a page's text), so are the
/// whole array and its length, while each index above it is known.
fn funcname(st: &State, p: &Parameter) -> Option<Vec<Val>> {
    if !st.funcname.iter().any(|(_, function)| *function) {
        return None;
    }
    let mut frames: Vec<Val> = st
        .funcname
        .iter()
        .rev()
        .map(|(n, _)| Val::Known(n.clone()))
        .collect();
    let bottom = "whether bash ends FUNCNAME with `main` depends on how the text is run (a script file: it does; pasted into a shell or `bash -c`: it does not)";
    if st.main_frame == Some(true) {
        frames.push(Val::Known("main".into()));
    }
    match p {
        Parameter::NamedWithIndex { name, index } => match constant_index(name, index) {
            Ok(i) if i < frames.len() => Some(vec![frames[i].clone()]),
            Ok(i) if i == frames.len() && st.main_frame.is_none() => {
                Some(vec![Val::Unknown(bottom.into())])
            }
            Ok(_) => None,
            Err(r) => Some(vec![Val::Unknown(r)]),
        },
        Parameter::NamedWithAllIndices { .. } if st.main_frame.is_none() => {
            Some(vec![Val::Unknown(bottom.into())])
        }
        Parameter::NamedWithAllIndices { .. } => Some(frames),
        _ => Some(vec![frames[0].clone()]),
    }
}

/// `reason` of an unknown value read from `name`, with where `name` was set
/// (unless the reason already names its variable's origin, or an array hole).
fn with_origin(st: &State, name: &str, reason: String) -> String {
    if reason.ends_with(HOLE) || has_origin(&reason) {
        return reason;
    }
    let Some(at) = st.origin_of(name) else {
        return reason;
    };
    // `$X is not set ...` reads on as `from $X, which is not set ...`.
    match reason
        .strip_prefix('$')
        .and_then(|r| r.split_once(" is "))
        .filter(|(v, _)| v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        Some((v, rest)) => format!("${name} (set at {at} from ${v}, which is {rest})"),
        None => format!("${name} (set at {at}): {reason}"),
    }
}

/// Whether a reason already starts with a variable's origin (`$X (set at`).
fn has_origin(reason: &str) -> bool {
    reason
        .strip_prefix('$')
        .and_then(|r| r.split_once(' '))
        .is_some_and(|(_, rest)| rest.starts_with("(set at "))
}

/// Looks a parameter up as it is stored: `None` when unset.
fn plain_lookup(st: &State, p: &Parameter) -> Option<Vec<Val>> {
    match p {
        Parameter::Named(n) => st.read(n),
        Parameter::NamedWithIndex { name, index } => {
            let arr = st.read(name)?;
            match constant_index(name, index).or_else(|e| variable_index(st, index).ok_or(e)) {
                // A variable whose whole value is unknown: so is each index.
                Ok(_) if matches!(arr.as_slice(), [Val::Unknown(_)]) => Some(arr),
                Ok(i) => arr.get(i).cloned().map(|v| vec![v]),
                Err(r) => Some(vec![Val::Unknown(r)]),
            }
        }
        Parameter::NamedWithAllIndices { name, .. } => st.read(name),
        Parameter::Positional(0) => Some(vec![Val::Known(st.script.clone())]),
        Parameter::Positional(i) => super::fields::positional(st, *i as usize),
        Parameter::Special(SpecialParameter::AllPositionalParameters { .. }) => {
            Some(st.positional.clone())
        }
        Parameter::Special(SpecialParameter::PositionalParameterCount) => {
            Some(vec![super::fields::positional_count(st)])
        }
        Parameter::Special(SpecialParameter::ShellName) => {
            Some(vec![Val::Known(st.script.clone())])
        }
        // `$?`: 0 after a command known to succeed; a failure's code (1,
        // 2, 127, ...) is not modelled.
        Parameter::Special(SpecialParameter::LastExitStatus) => Some(vec![match &st.last {
            Some(Status::Ok) => Val::Known("0".into()),
            Some(Status::Fail) => Val::Unknown(
                "$? is the code of a failed command, which is not modelled (only a success's 0 is)"
                    .into(),
            ),
            Some(Status::Unknown(r)) => Val::Unknown(format!("$? is not knowable: {r}")),
            None => Val::Unknown("$? is not knowable here".into()),
        }]),
        Parameter::Special(s) => Some(vec![Val::Unknown(format!(
            "the special parameter {s} is not knowable"
        ))]),
    }
}

/// Where each element of a parameter's value was written.
fn spans_of(st: &State, p: &Parameter) -> Vec<Option<Range>> {
    match p {
        Parameter::Named(n) | Parameter::NamedWithAllIndices { name: n, .. } => st.spans_of(n),
        Parameter::NamedWithIndex { name, index } => match constant_index(name, index) {
            Ok(i) => vec![st.spans_of(name).get(i).copied().flatten()],
            Err(_) => vec![],
        },
        _ => vec![],
    }
}

fn is_all(p: &Parameter) -> bool {
    matches!(
        p,
        Parameter::NamedWithAllIndices { .. }
            | Parameter::Special(SpecialParameter::AllPositionalParameters { .. })
    )
}

fn concatenated(p: &Parameter) -> bool {
    matches!(
        p,
        Parameter::NamedWithAllIndices {
            concatenate: true,
            ..
        } | Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate: true })
    )
}

fn name_of(p: &Parameter) -> String {
    match p {
        Parameter::Named(n)
        | Parameter::NamedWithIndex { name: n, .. }
        | Parameter::NamedWithAllIndices { name: n, .. } => n.clone(),
        other => other.to_string(),
    }
}

/// The scalar value of a parameter (arrays join with spaces, index 0 for `$A`).
pub(super) fn scalar(st: &State, p: &Parameter) -> Option<Val> {
    let vals = lookup(st, p)?;
    if let Some(Val::Unknown(r)) = vals.iter().find(|v| matches!(v, Val::Unknown(_))) {
        return Some(Val::Unknown(r.clone()));
    }
    if is_all(p) {
        Some(Val::Known(
            vals.iter()
                .map(|v| v.text())
                .collect::<Vec<_>>()
                .join(&st.ifs_join()),
        ))
    } else {
        Some(vals.into_iter().next().unwrap_or(Val::Known(String::new())))
    }
}

/// `${V-..}` tests "unset"; `${V:-..}` tests "unset or empty". An unknown value
/// counts as set.
fn unset_or_null(cur: &Option<Val>, test: &ParameterTestType) -> bool {
    match (cur, test) {
        (None, _) => true,
        (Some(Val::Known(t)), ParameterTestType::UnsetOrNull) => t.is_empty(),
        (Some(_), _) => false,
    }
}

/// A parameter that is not set was expanded: under `set -u` the script ends
/// there (`certain`: it is known not to be set) or may end there (it may be
/// set in the environment). `$@` and `$*` are exempt, as in bash.
pub(super) fn nounset(st: &mut State, p: &Parameter, certain: bool) {
    if !st.nounset || is_all(p) {
        return;
    }
    let name = name_of(p);
    if certain {
        st.aborted
            .get_or_insert_with(|| format!("${name} is not set (set -u)"));
    } else {
        st.may_abort
            .get_or_insert_with(|| format!("${name} is set in the environment"));
    }
}

pub(super) fn unset_reason(name: &str) -> String {
    format!("${name} is not set by the script or its env (give it with --env {name}=...)")
}

/// Expands one parameter expansion (`toggle`: a case modification written
/// with `~`, read as the `^` form).
fn parameter(
    st: &mut State,
    pe: &ParameterExpr,
    quoted: bool,
    no_split: bool,
    toggle: bool,
    exp: &mut Expansion,
) -> Result<(), String> {
    let split = !quoted && !no_split;
    let emit = |exp: &mut Expansion, v: Val| match v {
        Val::Known(t) => push(exp, t, split),
        Val::Unknown(r) => mark_unknown(exp, r),
    };
    // Arithmetic bash evaluates here even where the value is not evaluated
    // (a subscript that is not a constant, a substring's offset and length):
    // its assignments happen.
    match pe {
        ParameterExpr::Substring {
            parameter,
            offset,
            length,
            ..
        } => {
            subscript_effects(st, parameter)?;
            arith_effects(st, &offset.value)?;
            if let Some(l) = length {
                arith_effects(st, &l.value)?;
            }
        }
        ParameterExpr::Parameter { parameter, .. }
        | ParameterExpr::UseDefaultValues { parameter, .. }
        | ParameterExpr::AssignDefaultValues { parameter, .. }
        | ParameterExpr::IndicateErrorIfNullOrUnset { parameter, .. }
        | ParameterExpr::UseAlternativeValue { parameter, .. }
        | ParameterExpr::ParameterLength { parameter, .. }
        | ParameterExpr::RemoveSmallestSuffixPattern { parameter, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { parameter, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { parameter, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { parameter, .. }
        | ParameterExpr::Transform { parameter, .. }
        | ParameterExpr::UppercaseFirstChar { parameter, .. }
        | ParameterExpr::UppercasePattern { parameter, .. }
        | ParameterExpr::LowercaseFirstChar { parameter, .. }
        | ParameterExpr::LowercasePattern { parameter, .. }
        | ParameterExpr::ReplaceSubstring { parameter, .. } => subscript_effects(st, parameter)?,
        _ => {}
    }
    let sub = |st: &mut State, raw: &Option<String>| -> Result<Val, String> {
        match raw {
            Some(r) => expand_string(st, r),
            None => Ok(Val::Known(String::new())),
        }
    };
    match pe {
        ParameterExpr::Parameter {
            parameter,
            indirect: false,
        } => {
            // `"$*"` and `${A[*]}` where words are not split read as a
            // scalar, below; an array that is not set is no words.
            if is_all(parameter) && (split || !concatenated(parameter)) {
                if let Some(vals) = lookup(st, parameter) {
                    let spans = spans_of(st, parameter);
                    emit_elements(st, parameter, vals, &spans, quoted, no_split, exp);
                }
                return Ok(());
            }
            match scalar(st, parameter) {
                Some(Val::Known(t)) => {
                    let span = if is_all(parameter) {
                        None
                    } else {
                        spans_of(st, parameter).first().copied().flatten()
                    };
                    exp.chunks.push(Chunk {
                        text: t,
                        splittable: split,
                        break_before: false,
                        span,
                        unknown: None,
                        literal: false,
                    });
                }
                Some(v) => emit(exp, v),
                None if st.complete_env || matches!(parameter, Parameter::Positional(_)) => {
                    nounset(st, parameter, true);
                }
                None => {
                    nounset(st, parameter, false);
                    mark_unknown(exp, unset_reason(&name_of(parameter)));
                }
            }
        }
        ParameterExpr::UseDefaultValues {
            parameter,
            test_type,
            default_value,
            ..
        }
        | ParameterExpr::AssignDefaultValues {
            parameter,
            test_type,
            default_value,
            ..
        } => {
            let cur = scalar(st, parameter);
            let use_default = unset_or_null(&cur, test_type);
            if use_default {
                let d = sub(st, default_value)?;
                if matches!(pe, ParameterExpr::AssignDefaultValues { .. }) {
                    st.set_scalar(&name_of(parameter), d.clone());
                }
                emit(exp, d);
            } else {
                emit(exp, cur.unwrap());
            }
        }
        ParameterExpr::UseAlternativeValue {
            parameter,
            test_type,
            alternative_value,
            ..
        } => {
            let use_alt = match (scalar(st, parameter), test_type) {
                (None, _) => false,
                (Some(Val::Known(t)), ParameterTestType::UnsetOrNull) => !t.is_empty(),
                (Some(Val::Unknown(r)), _) => {
                    mark_unknown(exp, r);
                    return Ok(());
                }
                (Some(_), _) => true,
            };
            if use_alt {
                let a = sub(st, alternative_value)?;
                emit(exp, a);
            }
        }
        ParameterExpr::IndicateErrorIfNullOrUnset {
            parameter,
            test_type,
            error_message,
            ..
        } => {
            let cur = scalar(st, parameter);
            let fails = unset_or_null(&cur, test_type);
            if fails {
                let m = error_message
                    .clone()
                    .unwrap_or_else(|| "parameter null or not set".into());
                return Err(format!(
                    "${{{}:?{m}}}: the script would stop here ({})",
                    name_of(parameter),
                    unset_reason(&name_of(parameter))
                ));
            }
            emit(exp, cur.unwrap());
        }
        ParameterExpr::ParameterLength { parameter, .. } => {
            if lookup(st, parameter).is_none() {
                let certain = st.complete_env || matches!(parameter, Parameter::Positional(_));
                nounset(st, parameter, certain);
            }
            let v = if is_all(parameter) {
                lookup(st, parameter).map(|v| {
                    // A variable whose whole value is unknown (`[Unknown]`)
                    // has a length that is not knowable either.
                    let whole = match v.as_slice() {
                        [Val::Unknown(r)] => Some(r.clone()),
                        _ => None,
                    };
                    match whole.or_else(|| {
                        v.iter().find_map(|x| match x {
                            Val::Unknown(r) if r.ends_with(HOLE) => Some(r.clone()),
                            _ => None,
                        })
                    }) {
                        Some(r) => Val::Unknown(r),
                        None => Val::Known(v.len().to_string()),
                    }
                })
            } else {
                scalar(st, parameter).map(|v| match v {
                    Val::Known(t) => Val::Known(t.chars().count().to_string()),
                    u => u,
                })
            };
            emit(exp, v.unwrap_or(Val::Known("0".into())));
        }
        ParameterExpr::RemoveSmallestSuffixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter, pattern, ..
        } => {
            let pat = match pattern {
                Some(p) => expand_pattern(st, p)?,
                None => Val::Known(String::new()),
            };
            let Val::Known(p) = pat else {
                mark_unknown(
                    exp,
                    format!(
                        "the pattern removal on ${} depends on an unknown value",
                        name_of(parameter)
                    ),
                );
                return Ok(());
            };
            let largest = matches!(
                pe,
                ParameterExpr::RemoveLargestSuffixPattern { .. }
                    | ParameterExpr::RemoveLargestPrefixPattern { .. }
            );
            let suffix = matches!(
                pe,
                ParameterExpr::RemoveSmallestSuffixPattern { .. }
                    | ParameterExpr::RemoveLargestSuffixPattern { .. }
            );
            let opts = st.pattern_options(false, false);
            each_value(st, parameter, quoted, no_split, exp, &mut |t| {
                glob::remove_pattern(t, &p, suffix, largest, opts)
            })?;
        }
        ParameterExpr::ReplaceSubstring {
            parameter,
            pattern,
            replacement,
            match_kind,
            ..
        } => {
            let pat = expand_pattern(st, pattern)?;
            let (rep, amp) = match replacement {
                Some(r) => expand_replacement(st, r)?,
                None => (Val::Known(String::new()), None),
            };
            let (Val::Known(p), Val::Known(r)) = (&pat, &rep) else {
                mark_unknown(
                    exp,
                    format!(
                        "the substitution on ${} depends on an unknown value",
                        name_of(parameter)
                    ),
                );
                return Ok(());
            };
            let kind = match match_kind {
                SubstringMatchKind::FirstOccurrence => Replace::First,
                SubstringMatchKind::Anywhere => Replace::All,
                SubstringMatchKind::Prefix => Replace::Prefix,
                SubstringMatchKind::Suffix => Replace::Suffix,
            };
            let opts = st.pattern_options(false, true);
            let replace = |t: &str, r: &str| {
                if opts.nocase || p.chars().any(glob::is_special) {
                    glob::replace(t, p, r, kind, opts)
                } else {
                    literal_replace(t, p, r, kind)
                }
            };
            // An unquoted `&` in the replacement (`${TP/4/&8}`) is the
            // matched text in bash 5.2 and later (`patsub_replacement`, on
            // by default) and a literal `&` before: where a match is
            // replaced, the value depends on the reader's bash.
            let amp = amp.filter(|_| !st.shopt_off.contains("patsub_replacement"));
            let shown = name_of(parameter);
            each_value(st, parameter, quoted, no_split, exp, &mut |t| {
                let out = replace(t, r)?;
                if let Some(marked) = &amp
                    && replace(t, marked)? != out
                {
                    return Err(format!(
                        "the `&` in the replacement of ${{{shown}/...}} is the matched text in bash 5.2 and later (patsub_replacement) and a literal `&` in bash 5.1 and earlier: the value depends on the reader's bash"
                    ));
                }
                Ok(out)
            })?;
        }
        ParameterExpr::UppercaseFirstChar {
            parameter, pattern, ..
        }
        | ParameterExpr::UppercasePattern {
            parameter, pattern, ..
        }
        | ParameterExpr::LowercaseFirstChar {
            parameter, pattern, ..
        }
        | ParameterExpr::LowercasePattern {
            parameter, pattern, ..
        } => {
            use super::casemod::CaseOp;
            let upper = matches!(
                pe,
                ParameterExpr::UppercaseFirstChar { .. } | ParameterExpr::UppercasePattern { .. }
            );
            let op = match (toggle, upper) {
                (true, _) => CaseOp::Toggle,
                (false, true) => CaseOp::Upper,
                (false, false) => CaseOp::Lower,
            };
            let all = matches!(
                pe,
                ParameterExpr::UppercasePattern { .. } | ParameterExpr::LowercasePattern { .. }
            );
            case_modification(st, parameter, pattern, (op, all), quoted, no_split, exp)?;
        }
        _ => mark_unknown(exp, "this parameter expansion form is not evaluated".into()),
    }
    Ok(())
}

/// `${X^pat}`, `${X^^pat}`, `${X,pat}`, `${X,,pat}`, `${X~pat}`,
/// `${X~~pat}` (`how`: the change and whether every character or only the
/// first is tested): each element of an array or `$@` on its own. A
/// pattern that is omitted (or expands to nothing, unquoted) matches every
/// character.
fn case_modification(
    st: &mut State,
    parameter: &Parameter,
    pattern: &Option<String>,
    how: (super::casemod::CaseOp, bool),
    quoted: bool,
    no_split: bool,
    exp: &mut Expansion,
) -> Result<(), String> {
    let glob = match pattern {
        None => None,
        Some(raw) => match expand_pattern_quoted(st, raw)? {
            (Val::Known(p), false) if p.is_empty() => None,
            (Val::Known(p), _) => match glob::Glob::new(&p, st.pattern_options(false, false)) {
                Ok(g) => Some(g),
                Err(r) => {
                    mark_unknown(exp, r);
                    return Ok(());
                }
            },
            (Val::Unknown(r), _) => {
                mark_unknown(exp, r);
                return Ok(());
            }
        },
    };
    each_value(st, parameter, quoted, no_split, exp, &mut |t| {
        super::casemod::modify(t, how.0, how.1, glob.as_ref())
    })
}

/// Expands `parameter` with `f` applied to its value (each element of an
/// array or `$@` on its own, as bash does): `f`'s `Err` is an unknown
/// value with that reason (an exceeded budget ends the evaluation). A
/// parameter that is not set is empty where the environment is complete
/// (`set -u` ends the script there), else unknown.
fn each_value(
    st: &mut State,
    parameter: &Parameter,
    quoted: bool,
    no_split: bool,
    exp: &mut Expansion,
    f: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<(), String> {
    let mut one = |v: Val| -> Result<Val, String> {
        let Val::Known(t) = v else { return Ok(v) };
        match f(&t) {
            Ok(t) => Ok(Val::Known(t)),
            Err(r) if budget::tripped().is_some() => Err(r),
            Err(r) => Ok(Val::Unknown(r)),
        }
    };
    if is_all(parameter) {
        if let Some(vals) = lookup(st, parameter) {
            let vals = vals
                .into_iter()
                .map(&mut one)
                .collect::<Result<Vec<_>, _>>()?;
            emit_elements(st, parameter, vals, &[], quoted, no_split, exp);
        }
        return Ok(());
    }
    match scalar(st, parameter) {
        Some(v) => match one(v)? {
            Val::Known(t) => push(exp, t, !quoted && !no_split),
            Val::Unknown(r) => mark_unknown(exp, r),
        },
        None if st.complete_env || matches!(parameter, Parameter::Positional(_)) => {
            nounset(st, parameter, true);
        }
        None => {
            nounset(st, parameter, false);
            mark_unknown(exp, unset_reason(&name_of(parameter)));
        }
    }
    Ok(())
}

/// Expands the replacement of `${V/p/r}`: its text, and (when it has an
/// unquoted `&`, bash 5.2's matched text) the same text with each such `&`
/// written as a character no value holds.
fn expand_replacement(st: &mut State, raw: &str) -> Result<(Val, Option<String>), String> {
    let exp = expand_word(st, raw, true)?;
    if let Some(r) = first_unknown(&exp) {
        return Ok((Val::Unknown(r), None));
    }
    let text: String = exp.chunks.iter().map(|c| c.text.as_str()).collect();
    let amp = exp
        .chunks
        .iter()
        .any(|c| !c.literal && c.text.contains('&'))
        .then(|| {
            exp.chunks
                .iter()
                .map(|c| match c.literal {
                    true => c.text.clone(),
                    false => c.text.replace('&', "\u{0}"),
                })
                .collect()
        });
    Ok((Val::Known(text), amp))
}

/// Emits the elements of `$@`, `$*`, `${A[@]}` or `${A[*]}` (`vals`, written
/// at `spans`) as bash does where the word is not split (joined with
/// spaces), quoted (`"${A[@]}"`: one field per element) or split.
fn emit_elements(
    st: &State,
    parameter: &Parameter,
    vals: Vec<Val>,
    spans: &[Option<Range>],
    quoted: bool,
    no_split: bool,
    exp: &mut Expansion,
) {
    let split = !quoted && !no_split;
    let emit = |exp: &mut Expansion, v: Val| match v {
        Val::Known(t) => push(exp, t, split),
        Val::Unknown(r) => mark_unknown(exp, r),
    };
    if !concatenated(parameter) && no_split {
        // "$@" / "${A[@]}" where words are not split (assignments,
        // `case`, `[[ ]]`): the elements joined with spaces.
        let joined = match vals.iter().find(|v| matches!(v, Val::Unknown(_))) {
            Some(u) => u.clone(),
            None => Val::Known(vals.iter().map(|v| v.text()).collect::<Vec<_>>().join(" ")),
        };
        emit(exp, joined);
        return;
    }
    if !concatenated(parameter) && quoted {
        // "${A[@]}": one field per element.
        for (i, v) in vals.into_iter().enumerate() {
            match v {
                Val::Known(t) => exp.chunks.push(Chunk {
                    text: t,
                    splittable: false,
                    break_before: i > 0,
                    span: spans.get(i).copied().flatten(),
                    unknown: None,
                    literal: false,
                }),
                Val::Unknown(r) => {
                    // Placed where the element was written (its text there
                    // names what it came from).
                    push_unknown(exp, r, i > 0);
                    if let Some(c) = exp.chunks.last_mut() {
                        c.span = spans.get(i).copied().flatten();
                    }
                }
            }
        }
        return;
    }
    if split
        && !vals.iter().any(|v| matches!(v, Val::Unknown(_)))
        && st.ifs().is_ok_and(|ifs| !ifs.is_empty())
    {
        // Unquoted $* / $@ / ${A[*]}: bash joins the elements with the
        // first character of $IFS, then splits (so with a comma in $IFS an
        // empty element is an empty word).
        let joined = vals.iter().map(|v| v.text()).collect::<Vec<_>>();
        push(exp, joined.join(&st.ifs_join()), true);
        return;
    }
    if split {
        for (i, v) in vals.into_iter().enumerate() {
            match v {
                Val::Known(t) => exp.chunks.push(Chunk {
                    text: t,
                    splittable: split,
                    break_before: i > 0 && split,
                    span: None,
                    unknown: None,
                    literal: false,
                }),
                Val::Unknown(r) => push_unknown(exp, r, i > 0 && split),
            }
        }
        return;
    }
    // "$*" / "${A[*]}": the elements joined with the first character of $IFS.
    let joined = match vals.iter().find(|v| matches!(v, Val::Unknown(_))) {
        Some(u) => u.clone(),
        None => Val::Known(
            vals.iter()
                .map(|v| v.text())
                .collect::<Vec<_>>()
                .join(&st.ifs_join()),
        ),
    };
    emit(exp, joined);
}

/// `${V/p/r}` and its forms with a literal pattern, within the value budget.
fn literal_replace(t: &str, p: &str, r: &str, kind: Replace) -> Result<String, String> {
    let out_len = |n: usize| (t.len() - n * p.len()).saturating_add(n.saturating_mul(r.len()));
    Ok(match kind {
        Replace::First if t.contains(p) && !p.is_empty() => {
            budget::value(out_len(1))?;
            t.replacen(p, r, 1)
        }
        Replace::All if !p.is_empty() => {
            budget::value(out_len(t.matches(p).count()))?;
            t.replace(p, r)
        }
        Replace::Prefix => match t.strip_prefix(p) {
            Some(rest) => {
                budget::value(out_len(1))?;
                format!("{r}{rest}")
            }
            None => t.to_string(),
        },
        Replace::Suffix => match t.strip_suffix(p) {
            Some(rest) => {
                budget::value(out_len(1))?;
                format!("{rest}{r}")
            }
            None => t.to_string(),
        },
        _ => t.to_string(),
    })
}

/// An index that is one variable (`$i`, `${i}`, `i`) holding a known
/// non-negative integer: its value (reading it has no side effect).
fn variable_index(st: &State, index: &str) -> Option<usize> {
    let t = index.trim();
    let t = t
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| t.strip_prefix('$'))
        .unwrap_or(t);
    if t.is_empty()
        || t.starts_with(|c: char| c.is_ascii_digit())
        || !t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    match st.read(t)?.first()? {
        Val::Known(v) => v.trim().parse::<usize>().ok(),
        Val::Unknown(_) => None,
    }
}
