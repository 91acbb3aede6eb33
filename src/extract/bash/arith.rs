//! Arithmetic (`$((...))`, `((...))`, `let`, subscripts), evaluated
//! statically with 64-bit integers over known values, and what it assigns.

use brush_parser::ast::{
    ArithmeticExpr, ArithmeticTarget, BinaryOperator, UnaryAssignmentOperator, UnaryOperator,
};
use brush_parser::word::Parameter;

use super::State;
use super::budget;
use super::budget::fixed::MAX_VAR_EXPR_DEPTH;
use super::expand::{Val, expand_string, nounset, unset_reason};

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
pub(super) fn subscript_effects(st: &mut State, p: &Parameter) -> Result<(), String> {
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

pub(super) fn constant_index(name: &str, index: &str) -> Result<usize, String> {
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
