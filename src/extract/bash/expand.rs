//! Word expansion, arithmetic and tests, evaluated statically over known values.
//!
//! A value is either known text or unknown with a reason; nothing is executed.

use brush_parser::ast::{
    ArithmeticExpr, ArithmeticTarget, BinaryOperator, UnaryAssignmentOperator, UnaryOperator,
};
use brush_parser::word::{
    Parameter, ParameterExpr, ParameterTestType, SpecialParameter, SubstringMatchKind, WordPiece,
    WordPieceWithSource,
};

use super::budget;
use super::budget::fixed::MAX_VAR_EXPR_DEPTH;
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
    let exp = expand_word(st, raw, true)?;
    if let Some(r) = first_unknown(&exp) {
        return Ok(Val::Unknown(r));
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
    Ok(Val::Known(out))
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
    let pieces = super::word_parser::parse(raw)?;
    let mut exp = Expansion::default();
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
        WordPiece::ParameterExpansion(pe) => parameter(st, pe, quoted, no_split, exp)?,
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
fn scalar(st: &State, p: &Parameter) -> Option<Val> {
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
fn nounset(st: &mut State, p: &Parameter, certain: bool) {
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

fn unset_reason(name: &str) -> String {
    format!("${name} is not set by the script or its env (give it with --env {name}=...)")
}

fn parameter(
    st: &mut State,
    pe: &ParameterExpr,
    quoted: bool,
    no_split: bool,
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
            if is_all(parameter) && !concatenated(parameter) && no_split {
                // "$@" / "${A[@]}" where words are not split (assignments,
                // `case`, `[[ ]]`): the elements joined with spaces.
                if let Some(vals) = lookup(st, parameter) {
                    let joined = match vals.iter().find(|v| matches!(v, Val::Unknown(_))) {
                        Some(u) => u.clone(),
                        None => {
                            Val::Known(vals.iter().map(|v| v.text()).collect::<Vec<_>>().join(" "))
                        }
                    };
                    emit(exp, joined);
                }
                return Ok(());
            }
            if is_all(parameter) && !concatenated(parameter) && quoted {
                // "${A[@]}": one field per element.
                if let Some(vals) = lookup(st, parameter) {
                    let spans = spans_of(st, parameter);
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
                                // Placed where the element was written (its
                                // text there names what it came from).
                                push_unknown(exp, r, i > 0);
                                if let Some(c) = exp.chunks.last_mut() {
                                    c.span = spans.get(i).copied().flatten();
                                }
                            }
                        }
                    }
                }
                return Ok(());
            }
            if is_all(parameter)
                && split
                && let Some(vals) = lookup(st, parameter)
                && !vals.iter().any(|v| matches!(v, Val::Unknown(_)))
                && st.ifs().is_ok_and(|ifs| !ifs.is_empty())
            {
                // Unquoted $* / $@ / ${A[*]}: bash joins the elements with the
                // first character of $IFS, then splits (so with a comma in
                // $IFS an empty element is an empty word).
                let joined = vals.iter().map(|v| v.text()).collect::<Vec<_>>();
                push(exp, joined.join(&st.ifs_join()), true);
                return Ok(());
            }
            if is_all(parameter) && split {
                if let Some(vals) = lookup(st, parameter) {
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
                    match v.iter().find_map(|x| match x {
                        Val::Unknown(r) if r.ends_with(HOLE) => Some(r.clone()),
                        _ => None,
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
            let v = scalar(st, parameter).unwrap_or(Val::Known(String::new()));
            let (Val::Known(t), Val::Known(p)) = (&v, &pat) else {
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
            match glob::remove_pattern(t, p, suffix, largest, opts) {
                Ok(v) => emit(exp, Val::Known(v)),
                Err(r) if budget::tripped().is_some() => return Err(r),
                Err(r) => mark_unknown(exp, r),
            }
        }
        ParameterExpr::ReplaceSubstring {
            parameter,
            pattern,
            replacement,
            match_kind,
            ..
        } => {
            let pat = expand_pattern(st, pattern)?;
            let rep = sub(st, replacement)?;
            let v = scalar(st, parameter).unwrap_or(Val::Known(String::new()));
            let (Val::Known(t), Val::Known(p), Val::Known(r)) = (&v, &pat, &rep) else {
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
            let out = if opts.nocase || p.chars().any(glob::is_special) {
                glob::replace(t, p, r, kind, opts)
            } else {
                literal_replace(t, p, r, kind)
            };
            match out {
                Ok(v) => emit(exp, Val::Known(v)),
                Err(r) if budget::tripped().is_some() => return Err(r),
                Err(r) => mark_unknown(exp, r),
            }
        }
        _ => mark_unknown(exp, "this parameter expansion form is not evaluated".into()),
    }
    Ok(())
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

/// Evaluates `$((...))` / `((...))` text: `$` references are expanded first, then
/// the expression is parsed by brush and evaluated with 64-bit integers.
/// When the expression is not knowable, what it assigns is unknown from
/// there ([`unknown_assignments`]).
pub fn arith_text(st: &mut State, text: &str) -> Result<i64, String> {
    let r = arith_value(st, text);
    if let Err(r) = &r
        && !r.starts_with("cannot parse")
        && budget::tripped().is_none()
    {
        unknown_assignments(st, text, r);
    }
    r
}

/// [`arith_text`] without the effects of an expression that is not knowable.
fn arith_value(st: &mut State, text: &str) -> Result<i64, String> {
    let pre = if text.contains(['$', '`']) {
        match expand_string(st, &format!("\"{}\"", text.replace('"', "\\\"")))? {
            Val::Known(t) => t,
            Val::Unknown(r) => return Err(r),
        }
    } else {
        text.to_string()
    };
    // The parser and the evaluator recurse once per operator.
    budget::arith_operators(&pre)?;
    let expr = brush_parser::arithmetic::parse(pre.trim())
        .map_err(|e| format!("cannot parse arithmetic {text:?}: {e}"))?;
    arith(st, &expr, 0)
}

fn var_int(st: &mut State, name: &str, depth: u32) -> Result<i64, String> {
    match st.read(name).and_then(|v| v.into_iter().next()) {
        // Unset is 0 in bash, but a variable the script does not set may come
        // from the environment unless the environment is complete.
        None if !st.complete_env && st.get(name).is_none() => {
            nounset(st, &Parameter::Named(name.to_string()), false);
            Err(unset_reason(name))
        }
        None => {
            // Under `set -u` an unset variable in arithmetic ends the script.
            if st.get(name).is_none() {
                nounset(st, &Parameter::Named(name.to_string()), true);
            }
            Ok(0)
        }
        Some(Val::Unknown(r)) => Err(r),
        Some(Val::Known(t)) => text_int(st, name, &t, depth),
    }
}

/// A variable's (or element's) text used in arithmetic: bash evaluates it as
/// an expression itself (`010` is 8, `1+2` is 3, a name is that variable's
/// value), recursively up to a depth budget.
fn text_int(st: &mut State, name: &str, t: &str, depth: u32) -> Result<i64, String> {
    let t = t.trim();
    if t.is_empty() {
        return Ok(0);
    }
    // Plain decimal (no leading 0, which makes it octal) needs no parsing.
    let digits = t.strip_prefix('-').unwrap_or(t);
    if !digits.starts_with('0')
        && let Ok(n) = t.parse::<i64>()
    {
        return Ok(n);
    }
    if depth >= MAX_VAR_EXPR_DEPTH {
        return Err(format!("${name} recurses too deeply in arithmetic"));
    }
    // Bash evaluates a variable's text as an expression: each
    // operator costs a step (`A=B+B`, `B=C+C`, ... is exponential).
    budget::arith_operators(t)?;
    budget::steps(budget::operators(t) + 1)?;
    budget::built(t.len())?;
    let e =
        brush_parser::arithmetic::parse(t).map_err(|_| format!("${name}={t:?} is not a number"))?;
    arith(st, &e, depth + 1)
}

/// A constant array index written as a number (`0`, `010` octal, `0x1f`,
/// `2#101`); anything else is not evaluated here.
/// The assignments of a subscript that is not a constant (`${A[T=4]}`),
/// which bash makes as it evaluates the index ([`arith_effects`]).
fn subscript_effects(st: &mut State, p: &Parameter) -> Result<(), String> {
    if let Parameter::NamedWithIndex { name, index } = p
        && constant_index(name, index).is_err()
    {
        arith_effects(st, index)?;
    }
    Ok(())
}

/// The assignments a subscript written in a name (`printf -v 'a[T=4]'`,
/// `read 'a[i++]'`, `[ -v 'a[T=4]' ]`) makes as bash evaluates it.
pub(crate) fn name_subscript_effects(st: &mut State, name: &str) -> Result<(), String> {
    if let Some((_, rest)) = name.split_once('[')
        && let Some(index) = rest.strip_suffix(']')
    {
        arith_effects(st, index)?;
    }
    Ok(())
}

/// Arithmetic text bash evaluates where the evaluator uses no value from
/// it: when it assigns (`T=4`, `i++`, `x+=2`), it is evaluated for those
/// assignments; when that is not possible, what it assigns is unknown. An
/// exceeded budget is an error.
pub(crate) fn arith_effects(st: &mut State, text: &str) -> Result<(), String> {
    if !assigns(text) {
        return Ok(());
    }
    match arith_text(st, text) {
        Err(r) if budget::tripped().is_some() => Err(r),
        _ => Ok(()),
    }
}

/// Whether arithmetic text may assign (`T=4`, `i++`, `x+=2`; not `==`,
/// `!=`, `<=`, `>=`).
fn assigns(text: &str) -> bool {
    text.contains("++")
        || text.contains("--")
        || text.char_indices().any(|(i, c)| {
            c == '='
                && !matches!(text[..i].chars().last(), Some('=' | '!' | '<' | '>'))
                && !text[i + 1..].starts_with('=')
        })
}

/// Arithmetic text as written (`i = $X + 1`, `$N = 1`, a `let` word with
/// its quotes) that was not evaluated (`why`): each variable it assigns is
/// unknown from here. Its expansions stand for a number; when one of them
/// is where a name is assigned (`$N = 1`), the name is not knowable and
/// any variable may have been set ([`State::clobber`]).
pub(crate) fn unknown_assignments(st: &mut State, text: &str, why: &str) {
    if !assigns(text) {
        return;
    }
    // A loop (`x++` of an unknown x) would nest the reason in itself.
    let why = brief(why);
    let text = brief(text);
    let (why, text) = (why.as_str(), text.as_str());
    let plain = expansions_as_numbers(text);
    let mut names = Vec::new();
    if let Ok(e) = brush_parser::arithmetic::parse(plain.trim()) {
        assigned_names(&e, &mut names);
    }
    if names.is_empty() {
        st.clobber(&format!(
            "the arithmetic {text:?}, which assigns to a variable whose name is not knowable ({why})"
        ));
        return;
    }
    for n in names {
        st.set_scalar(
            &n,
            Val::Unknown(format!(
                "${n} is assigned by arithmetic that is not evaluated ({text:?}: {why})"
            )),
        );
    }
}

/// A reason or text cut to [`BRIEF`] bytes (at a character boundary) when
/// it is quoted inside another reason: a loop re-assigning from a value
/// that is not knowable would otherwise nest the reason in itself.
pub(crate) fn brief(why: &str) -> String {
    if why.len() <= BRIEF {
        return why.to_string();
    }
    let mut end = BRIEF;
    while !why.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &why[..end])
}

/// How many bytes of a quoted reason [`brief`] keeps.
const BRIEF: usize = 200;

/// Arithmetic text with each expansion (`$X`, `${..}`, `$(..)`, `$((..))`,
/// backquotes) written as `0` and quotes removed: the shape of the
/// expression, for the names it assigns.
fn expansions_as_numbers(text: &str) -> String {
    let mut out = String::new();
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '"' | '\'' => {}
            '\\' => out.extend(it.next()),
            '`' => {
                for d in it.by_ref() {
                    if d == '`' {
                        break;
                    }
                }
                out.push('0');
            }
            '$' => {
                match it.peek().copied() {
                    Some(open @ ('{' | '(')) => {
                        let close = if open == '{' { '}' } else { ')' };
                        let mut depth = 0usize;
                        for d in it.by_ref() {
                            if d == open {
                                depth += 1;
                            } else if d == close {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                        }
                    }
                    Some(d) if d.is_ascii_alphabetic() || d == '_' => {
                        while it
                            .peek()
                            .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '_')
                        {
                            it.next();
                        }
                    }
                    Some(_) => {
                        it.next();
                    }
                    None => {}
                }
                out.push('0');
            }
            c => out.push(c),
        }
    }
    out
}

/// The variables an arithmetic expression assigns.
fn assigned_names(e: &ArithmeticExpr, out: &mut Vec<String>) {
    let target = |t: &ArithmeticTarget, out: &mut Vec<String>| match t {
        ArithmeticTarget::Variable(n) | ArithmeticTarget::ArrayElement(n, _) => out.push(n.clone()),
    };
    match e {
        ArithmeticExpr::Literal(_) | ArithmeticExpr::Reference(_) => {}
        ArithmeticExpr::UnaryOp(_, x) => assigned_names(x, out),
        ArithmeticExpr::BinaryOp(_, a, b) => {
            assigned_names(a, out);
            assigned_names(b, out);
        }
        ArithmeticExpr::Conditional(c, a, b) => {
            assigned_names(c, out);
            assigned_names(a, out);
            assigned_names(b, out);
        }
        ArithmeticExpr::Assignment(t, x) | ArithmeticExpr::BinaryAssignment(_, t, x) => {
            target(t, out);
            assigned_names(x, out);
        }
        ArithmeticExpr::UnaryAssignment(_, t) => target(t, out),
    }
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

fn constant_index(name: &str, index: &str) -> Result<usize, String> {
    let t = index.trim();
    let literal = !t.is_empty()
        && t.len() <= 80
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '#' | '@' | '_'))
        && t.starts_with(|c: char| c.is_ascii_digit());
    match literal.then(|| brush_parser::arithmetic::parse(t)) {
        Some(Ok(ArithmeticExpr::Literal(n))) if n >= 0 => Ok(n as usize),
        _ => Err(format!(
            "${{{name}[{index}]}}: the index is not a constant non-negative number (not evaluated)"
        )),
    }
}

fn arith(st: &mut State, e: &ArithmeticExpr, depth: u32) -> Result<i64, String> {
    budget::stack(|| arith_inner(st, e, depth))
}

fn arith_inner(st: &mut State, e: &ArithmeticExpr, depth: u32) -> Result<i64, String> {
    Ok(match e {
        ArithmeticExpr::Literal(n) => *n,
        ArithmeticExpr::Reference(ArithmeticTarget::Variable(n)) => var_int(st, n, depth)?,
        ArithmeticExpr::Reference(ArithmeticTarget::ArrayElement(n, i)) => {
            let i = arith(st, i, depth)?;
            if i < 0 {
                return Err(format!("${{{n}[{i}]}}: a negative index is not evaluated"));
            }
            match st.read(n).and_then(|v| v.get(i as usize).cloned()) {
                Some(Val::Known(t)) => text_int(st, n, &t, depth)?,
                Some(Val::Unknown(r)) => return Err(r),
                None => 0,
            }
        }
        ArithmeticExpr::UnaryOp(op, x) => {
            let x = arith(st, x, depth)?;
            match op {
                UnaryOperator::UnaryPlus => x,
                UnaryOperator::UnaryMinus => x.wrapping_neg(),
                UnaryOperator::BitwiseNot => !x,
                UnaryOperator::LogicalNot => (x == 0) as i64,
            }
        }
        ArithmeticExpr::BinaryOp(op, a, b) => {
            let a = arith(st, a, depth)?;
            // && and || short-circuit.
            match op {
                BinaryOperator::LogicalAnd if a == 0 => return Ok(0),
                BinaryOperator::LogicalOr if a != 0 => return Ok(1),
                _ => {}
            }
            let b = arith(st, b, depth)?;
            binop(op, a, b)?
        }
        ArithmeticExpr::Conditional(c, a, b) => {
            if arith(st, c, depth)? != 0 {
                arith(st, a, depth)?
            } else {
                arith(st, b, depth)?
            }
        }
        ArithmeticExpr::Assignment(ArithmeticTarget::Variable(n), x) => {
            let v = arith(st, x, depth)?;
            st.set_scalar(n, Val::Known(v.to_string()));
            v
        }
        ArithmeticExpr::BinaryAssignment(op, ArithmeticTarget::Variable(n), x) => {
            let cur = var_int(st, n, depth)?;
            let v = binop(op, cur, arith(st, x, depth)?)?;
            st.set_scalar(n, Val::Known(v.to_string()));
            v
        }
        ArithmeticExpr::UnaryAssignment(op, ArithmeticTarget::Variable(n)) => {
            let cur = var_int(st, n, depth)?;
            let (new, ret) = match op {
                UnaryAssignmentOperator::PrefixIncrement => {
                    (cur.wrapping_add(1), cur.wrapping_add(1))
                }
                UnaryAssignmentOperator::PrefixDecrement => {
                    (cur.wrapping_sub(1), cur.wrapping_sub(1))
                }
                UnaryAssignmentOperator::PostfixIncrement => (cur.wrapping_add(1), cur),
                UnaryAssignmentOperator::PostfixDecrement => (cur.wrapping_sub(1), cur),
            };
            st.set_scalar(n, Val::Known(new.to_string()));
            ret
        }
        _ => return Err("assignment to an array element in arithmetic is not evaluated".into()),
    })
}

fn binop(op: &BinaryOperator, a: i64, b: i64) -> Result<i64, String> {
    Ok(match op {
        BinaryOperator::Power => {
            if b < 0 {
                return Err("exponent less than 0".into());
            }
            a.wrapping_pow(b as u32)
        }
        BinaryOperator::Multiply => a.wrapping_mul(b),
        BinaryOperator::Divide | BinaryOperator::Modulo if b == 0 => {
            return Err("division by 0 in arithmetic".into());
        }
        BinaryOperator::Divide => a.wrapping_div(b),
        BinaryOperator::Modulo => a.wrapping_rem(b),
        BinaryOperator::Comma => b,
        BinaryOperator::Add => a.wrapping_add(b),
        BinaryOperator::Subtract => a.wrapping_sub(b),
        BinaryOperator::ShiftLeft => a.wrapping_shl(b as u32),
        BinaryOperator::ShiftRight => a.wrapping_shr(b as u32),
        BinaryOperator::LessThan => (a < b) as i64,
        BinaryOperator::LessThanOrEqualTo => (a <= b) as i64,
        BinaryOperator::GreaterThan => (a > b) as i64,
        BinaryOperator::GreaterThanOrEqualTo => (a >= b) as i64,
        BinaryOperator::Equals => (a == b) as i64,
        BinaryOperator::NotEquals => (a != b) as i64,
        BinaryOperator::BitwiseAnd => a & b,
        BinaryOperator::BitwiseXor => a ^ b,
        BinaryOperator::BitwiseOr => a | b,
        BinaryOperator::LogicalAnd => (a != 0 && b != 0) as i64,
        BinaryOperator::LogicalOr => (a != 0 || b != 0) as i64,
    })
}
