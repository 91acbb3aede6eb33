//! `[ ... ]`, `test ...` and the predicates of `[[ ... ]]` over expanded values.

use brush_parser::ast::{BinaryPredicate, UnaryPredicate};

use super::expand::Val;
use super::{Status, status_of};

pub(super) fn unary_test(pred: &UnaryPredicate, v: &Val) -> Status {
    let Val::Known(t) = v else {
        let Val::Unknown(r) = v else { unreachable!() };
        return Status::Unknown(r.clone());
    };
    match pred {
        UnaryPredicate::StringHasZeroLength => status_of(t.is_empty()),
        UnaryPredicate::StringHasNonZeroLength => status_of(!t.is_empty()),
        other => Status::Unknown(format!("the test {other:?} on {t:?} needs the file system")),
    }
}

pub(super) fn binary_test(pred: &BinaryPredicate, l: &Val, r: &Val) -> Status {
    let (Val::Known(a), Val::Known(b)) = (l, r) else {
        let reason = match (l, r) {
            (Val::Unknown(x), _) | (_, Val::Unknown(x)) => x.clone(),
            _ => unreachable!(),
        };
        return Status::Unknown(reason);
    };
    let num = |s: &str| s.trim().parse::<i64>().ok();
    match pred {
        // Patterns are matched by the caller, which knows the shell options.
        BinaryPredicate::StringExactlyMatchesPattern => status_of(a == b),
        BinaryPredicate::StringDoesNotExactlyMatchPattern => status_of(a != b),
        BinaryPredicate::StringExactlyMatchesString => status_of(a == b),
        BinaryPredicate::StringDoesNotExactlyMatchString => status_of(a != b),
        BinaryPredicate::StringContainsSubstring => status_of(a.contains(b.as_str())),
        BinaryPredicate::LeftSortsBeforeRight => status_of(a < b),
        BinaryPredicate::LeftSortsAfterRight => status_of(a > b),
        BinaryPredicate::ArithmeticEqualTo
        | BinaryPredicate::ArithmeticNotEqualTo
        | BinaryPredicate::ArithmeticLessThan
        | BinaryPredicate::ArithmeticLessThanOrEqualTo
        | BinaryPredicate::ArithmeticGreaterThan
        | BinaryPredicate::ArithmeticGreaterThanOrEqualTo => match (num(a), num(b)) {
            (Some(x), Some(y)) => status_of(match pred {
                BinaryPredicate::ArithmeticEqualTo => x == y,
                BinaryPredicate::ArithmeticNotEqualTo => x != y,
                BinaryPredicate::ArithmeticLessThan => x < y,
                BinaryPredicate::ArithmeticLessThanOrEqualTo => x <= y,
                BinaryPredicate::ArithmeticGreaterThan => x > y,
                _ => x >= y,
            }),
            _ => Status::Unknown(format!("{a:?} or {b:?} is not an integer")),
        },
        BinaryPredicate::StringMatchesRegex => match regex::Regex::new(b) {
            Ok(re) => status_of(re.is_match(a)),
            Err(_) => Status::Unknown(format!("the regular expression {b:?} is not supported")),
        },
        _ => Status::Unknown("file tests need the file system".into()),
    }
}

/// `[ ... ]` / `test ...` over expanded arguments.
pub(super) fn test_args(args: &[Val]) -> Status {
    let k = |v: &Val| match v {
        Val::Known(t) => Some(t.clone()),
        Val::Unknown(_) => None,
    };
    let unknown = || {
        args.iter()
            .find_map(|v| match v {
                Val::Unknown(r) => Some(r.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "this test is not evaluated".into())
    };
    // -a / -o split, lowest precedence first.
    if let Some(i) = args.iter().position(|a| a == &Val::Known("-o".into())) {
        return match (test_args(&args[..i]), test_args(&args[i + 1..])) {
            (Status::Ok, _) | (_, Status::Ok) => Status::Ok,
            (Status::Fail, Status::Fail) => Status::Fail,
            (Status::Unknown(r), _) | (_, Status::Unknown(r)) => Status::Unknown(r),
        };
    }
    if let Some(i) = args.iter().position(|a| a == &Val::Known("-a".into())) {
        return match (test_args(&args[..i]), test_args(&args[i + 1..])) {
            (Status::Fail, _) | (_, Status::Fail) => Status::Fail,
            (Status::Ok, Status::Ok) => Status::Ok,
            (Status::Unknown(r), _) | (_, Status::Unknown(r)) => Status::Unknown(r),
        };
    }
    if args.first() == Some(&Val::Known("!".into())) {
        return match test_args(&args[1..]) {
            Status::Ok => Status::Fail,
            Status::Fail => Status::Ok,
            u => u,
        };
    }
    match args {
        [] => Status::Fail,
        [a] => match k(a) {
            Some(t) => status_of(!t.is_empty()),
            None => Status::Unknown(unknown()),
        },
        [op, a] => match (k(op).as_deref(), k(a)) {
            (Some("-z"), Some(t)) => status_of(t.is_empty()),
            (Some("-n"), Some(t)) => status_of(!t.is_empty()),
            (Some(_), Some(_)) => Status::Unknown("file tests need the file system".into()),
            _ => Status::Unknown(unknown()),
        },
        [a, op, b] => {
            let (Some(a), Some(op), Some(b)) = (k(a), k(op), k(b)) else {
                return Status::Unknown(unknown());
            };
            let num = |s: &str| s.trim().parse::<i64>().ok();
            match op.as_str() {
                "=" | "==" => status_of(a == b),
                "!=" => status_of(a != b),
                "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => match (num(&a), num(&b)) {
                    (Some(x), Some(y)) => status_of(match op.as_str() {
                        "-eq" => x == y,
                        "-ne" => x != y,
                        "-lt" => x < y,
                        "-le" => x <= y,
                        "-gt" => x > y,
                        _ => x >= y,
                    }),
                    _ => Status::Unknown(format!("{a:?} or {b:?} is not an integer")),
                },
                _ => Status::Unknown(format!("the test operator {op} is not evaluated")),
            }
        }
        _ => Status::Unknown("this test is not evaluated".into()),
    }
}
