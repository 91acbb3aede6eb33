//! Indirect expansion: `${!R}`, `${!R:-x}`, `${!R%8}`, `${!R^^}`: the value
//! of `R` names the parameter the expansion reads (bash 5.2); `R` unset or
//! not a parameter name is an error in bash, and unknown here.

use brush_parser::word::{Parameter, ParameterExpr, WordPiece};

use super::State;
use super::expand::Val;

/// The parameter and indirection flag of an expansion that has them.
fn parameter_mut(pe: &mut ParameterExpr) -> Option<(&mut Parameter, &mut bool)> {
    match pe {
        ParameterExpr::Parameter {
            parameter,
            indirect,
        }
        | ParameterExpr::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::ParameterLength {
            parameter,
            indirect,
        }
        | ParameterExpr::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::Substring {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::Transform {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => Some((parameter, indirect)),
        _ => None,
    }
}

/// `None`: `pe` is not indirect. Otherwise the same expansion of the
/// parameter that the indirection names, or why that is not knowable.
pub(super) fn resolve(st: &State, pe: &ParameterExpr) -> Option<Result<ParameterExpr, String>> {
    let mut direct = pe.clone();
    let (param, indirect) = parameter_mut(&mut direct)?;
    if !*indirect {
        return None;
    }
    *indirect = false;
    let shown = param.to_string();
    let shown = shown
        .strip_prefix("${")
        .and_then(|s| s.strip_suffix('}'))
        .or_else(|| shown.strip_prefix('$'))
        .unwrap_or(&shown)
        .to_string();
    if let Parameter::Named(n) = &*param
        && st.namerefs.contains_key(n)
    {
        return Some(Err(format!(
            "`${{!{shown}...}}` of a reference (declare -n) is not evaluated"
        )));
    }
    let value = match super::expand::scalar(st, param) {
        Some(Val::Known(v)) => v,
        Some(Val::Unknown(r)) => {
            return Some(Err(format!(
                "`${{!{shown}}}` names the parameter ${shown} holds, which is not knowable: {r}"
            )));
        }
        None => {
            return Some(Err(format!(
                "`${{!{shown}}}`: ${shown} is not set (bash: invalid indirect expansion)"
            )));
        }
    };
    let Some(named) = named_parameter(&value) else {
        return Some(Err(format!(
            "`${{!{shown}}}`: {value:?} is not a parameter name (bash: invalid variable name)"
        )));
    };
    *param = named;
    Some(Ok(direct))
}

/// The parameter `text` names (`Q`, `A[1]`, `2`, `@`), read by the word
/// parser; `None` when it is not one.
fn named_parameter(text: &str) -> Option<Parameter> {
    let word = format!("${{{text}}}");
    if super::casemod::operator_at(&word, 0) != Some(word.len() - 1) {
        return None;
    }
    match super::word_parser::parse(&word).ok()?.as_slice() {
        [one] => match &one.piece {
            WordPiece::ParameterExpansion(ParameterExpr::Parameter {
                parameter,
                indirect: false,
            }) => Some(parameter.clone()),
            _ => None,
        },
        _ => None,
    }
}
