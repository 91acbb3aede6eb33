//! `$(...)`: command substitution, with the few commands whose output is
//! knowable (`echo`, `printf`, `seq`, `dirname`, `basename`, `cat` of a heredoc).

use std::sync::Arc;

use brush_parser::ast::{self, Command, CommandPrefixOrSuffixItem};

use super::expand::{Val, expand_string};
use super::parse::parse_guarded;
use super::{Interp, State};
use crate::files::LocalFiles;
use crate::span::Source;

/// `$(...)`: the inner commands are evaluated in a subshell whose output is
/// captured; `echo`, `printf`, `seq`, `dirname`, `basename` and `cat` of a heredoc
/// write known text, anything else makes the output unknown.
pub(crate) fn command_substitution(st: &mut State, cmd: &str) -> Option<Val> {
    let source = Arc::new(Source::new(
        crate::span::Origin::Inline("$(...)".into()),
        cmd.to_string(),
    ));
    let program = parse_guarded(&source).ok()?;
    // `cat <<EOF ... EOF`: the heredoc body, expanded unless its tag is quoted.
    if let Some(v) = heredoc_cat(st, &program) {
        return Some(v);
    }
    let mut it = Interp::new(&source, st.clone(), 0, Some(String::new()), &LocalFiles);
    for cc in &program.complete_commands {
        if it.list(cc).is_err() {
            return None;
        }
        if it.stopped {
            break;
        }
    }
    st.subst_status = Some(it.last_status.clone());
    if let Some(r) = it.capture_unknown {
        return Some(Val::Unknown(r));
    }
    let out = it.capture.unwrap_or_default();
    Some(Val::Known(out.trim_end_matches('\n').to_string()))
}

fn heredoc_cat(st: &mut State, program: &ast::Program) -> Option<Val> {
    let [cc] = program.complete_commands.as_slice() else {
        return None;
    };
    let [item] = cc.0.as_slice() else {
        return None;
    };
    if !item.0.additional.is_empty() || item.0.first.seq.len() != 1 {
        return None;
    }
    let Command::Simple(sc) = &item.0.first.seq[0] else {
        return None;
    };
    if sc.word_or_name.as_ref()?.value != "cat" {
        return None;
    }
    for it in sc.suffix.iter().flat_map(|s| s.0.iter()) {
        if let CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::HereDocument(_, h)) = it {
            if !h.requires_expansion {
                return Some(Val::Known(h.doc.value.trim_end_matches('\n').to_string()));
            }
            let body = format!(
                "\"{}\"",
                h.doc.value.replace('\\', "\\\\").replace('"', "\\\"")
            );
            return expand_string(st, &body).ok().map(|v| match v {
                Val::Known(t) => Val::Known(t.trim_end_matches('\n').to_string()),
                u => u,
            });
        }
    }
    None
}

/// `printf FORMAT ARGS...` for `%s`, `%d`, `%f` (with width and precision), `%%`
/// and backslash escapes; the format is reused while arguments remain, as in bash.
pub(super) fn printf(fmt: &str, args: &[String]) -> Option<String> {
    let mut out = String::new();
    let mut i = 0;
    loop {
        let mut chars = fmt.chars().peekable();
        let mut used = 0;
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('\\') => out.push('\\'),
                    Some(o) => {
                        out.push('\\');
                        out.push(o);
                    }
                    None => out.push('\\'),
                },
                '%' => {
                    // %[flags][width][.precision]conversion
                    let mut spec = String::new();
                    while let Some(&c) = chars.peek() {
                        if c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | ' ' | '#') {
                            spec.push(c);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    let conv = chars.next()?;
                    if conv == '%' {
                        out.push('%');
                        continue;
                    }
                    let left = spec.starts_with('-');
                    let zero = spec.trim_start_matches('-').starts_with('0');
                    let body = spec.trim_start_matches(['-', '+', ' ', '#', '0']);
                    let (width, prec) = match body.split_once('.') {
                        Some((w, p)) => (
                            w.parse::<usize>().unwrap_or(0),
                            Some(p.parse::<usize>().unwrap_or(0)),
                        ),
                        None => (body.parse::<usize>().unwrap_or(0), None),
                    };
                    let arg = args.get(i).map(String::as_str);
                    i += 1;
                    used += 1;
                    let text = match conv {
                        's' => {
                            let a = arg.unwrap_or("");
                            match prec {
                                Some(p) => a.chars().take(p).collect(),
                                None => a.to_string(),
                            }
                        }
                        'd' | 'i' => arg.unwrap_or("0").trim().parse::<i64>().ok()?.to_string(),
                        'f' => {
                            let v: f64 = arg.unwrap_or("0").trim().parse().ok()?;
                            format!("{:.*}", prec.unwrap_or(6), v)
                        }
                        _ => return None,
                    };
                    let pad = width.saturating_sub(text.chars().count());
                    if left {
                        out.push_str(&text);
                        out.push_str(&" ".repeat(pad));
                    } else if zero && conv != 's' {
                        out.push_str(&"0".repeat(pad));
                        out.push_str(&text);
                    } else {
                        out.push_str(&" ".repeat(pad));
                        out.push_str(&text);
                    }
                }
                c => out.push(c),
            }
        }
        if used == 0 || i >= args.len() {
            break;
        }
    }
    Some(out)
}

/// `seq [-s SEP] [FIRST [INCR]] LAST` over integers.
pub(super) fn seq(args: &[String]) -> Option<String> {
    let mut sep = "\n".to_string();
    let mut rest: Vec<i64> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "-s" {
            sep = args.get(i + 1)?.clone();
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix("-s") {
            sep = v.to_string();
            i += 1;
            continue;
        }
        rest.push(a.trim().parse().ok()?);
        i += 1;
    }
    let (first, incr, last) = match rest.as_slice() {
        [l] => (1, 1, *l),
        [f, l] => (*f, 1, *l),
        [f, s, l] => (*f, *s, *l),
        _ => return None,
    };
    if incr == 0 || (last - first) / incr > 100_000 {
        return None;
    }
    let mut v = Vec::new();
    let mut x = first;
    while (incr > 0 && x <= last) || (incr < 0 && x >= last) {
        v.push(x.to_string());
        x += incr;
    }
    Some(v.join(&sep) + "\n")
}
