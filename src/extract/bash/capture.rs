//! `$(...)`: command substitution, with the few commands whose output is
//! knowable (`echo`, `printf`, `seq`, `dirname`, `basename`, `cat` of a heredoc,
//! `pwd` after a `cd`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use brush_parser::ast::{self, Command, CommandPrefixOrSuffixItem};

use super::budget;
use super::expand::{Val, expand_string};
use super::parse::{FailureKind, parse_guarded};
use super::{Interp, State, Status};
use crate::error::Error;
use crate::files::LocalFiles;
use crate::span::Source;

/// `$(...)`: the inner commands are evaluated in a subshell whose output is
/// captured; `echo`, `printf`, `seq`, `dirname`, `basename` and `cat` of a heredoc
/// write known text, anything else makes the output unknown (`None`: not
/// evaluated). An exceeded budget is an error: it ends the evaluation.
///
/// `$?` in the rest of the command's expansions is the substitution's
/// status (bash: `1$(exit 6)$?` is `16`).
pub(crate) fn command_substitution(st: &mut State, cmd: &str) -> Result<Option<Val>, String> {
    st.last = Some(Status::Unknown(format!(
        "$? is the status of $({}), which is not knowable",
        cmd.trim()
    )));
    let _call = budget::enter_call()?;
    let label = match &st.place {
        Some(place) => format!("{place} $(...)"),
        None => "$(...)".to_string(),
    };
    let source = Arc::new(Source::new(
        crate::span::Origin::Inline(label),
        cmd.to_string(),
    ));
    let Some(program) = parsed(&source)? else {
        return Ok(None);
    };
    // `$(<FILE)`: the file's contents, which are not read.
    if let Some(target) = read_only_redirect(&program) {
        return Ok(Some(Val::Unknown(format!(
            "the output of $(<{target}) (the contents of that file) is not read"
        ))));
    }
    // `cat <<EOF ... EOF`: the heredoc body, expanded unless its tag is quoted.
    if let Some(v) = heredoc_cat(st, &program)? {
        st.last = Some(Status::Ok);
        return Ok(Some(v));
    }
    let mut it = Interp::new(&source, st.clone(), 0, Some(String::new()), &LocalFiles);
    for cc in &program.complete_commands {
        let r = it.list(cc);
        if let Some(t) = budget::tripped() {
            return Err(t);
        }
        if r.is_err() {
            st.touched = std::mem::take(&mut it.st.touched);
            carry_out(st, &mut it);
            return Ok(None);
        }
        if it.stopped {
            break;
        }
    }
    // The files the subshell changed stay changed.
    st.touched = std::mem::take(&mut it.st.touched);
    carry_out(st, &mut it);
    st.subst_status = Some(it.last_status.clone());
    // A success the evaluation only assumed is not a known `$?`.
    st.last = Some(match (&it.last_status, &it.assumed) {
        (Status::Ok, Some(what)) => Status::Unknown(format!(
            "the exit status of `{what}` is not knowable (commands are never run)"
        )),
        (s, _) => s.clone(),
    });
    if let Some(r) = it.capture_unknown {
        return Ok(Some(Val::Unknown(r)));
    }
    let out = it.capture.unwrap_or_default();
    budget::value(out.len())?;
    Ok(Some(Val::Known(out.trim_end_matches('\n').to_string())))
}

/// Moves what a `$(...)` text started (launches, unsupported and auxiliary
/// processes, code not read that may start one) into the state of the
/// command it is in, which reports them as its own when it ends.
fn carry_out(st: &mut State, it: &mut Interp) {
    let mut found = std::mem::take(&mut it.out);
    found.settle_unread();
    if let Some(deeper) = it.st.inside.take() {
        found.launches.extend(deeper.launches);
        found.unsupported.extend(deeper.unsupported);
        found.auxiliary.extend(deeper.auxiliary);
    }
    if found.launches.is_empty() && found.unsupported.is_empty() && found.auxiliary.is_empty() {
        return;
    }
    let inside = st.inside.get_or_insert_default();
    inside.launches.extend(found.launches);
    inside.unsupported.extend(found.unsupported);
    inside.auxiliary.extend(found.auxiliary);
}

/// Parsed `$(...)` texts of the evaluation running on this thread: a loop
/// runs the same substitution many times, and a parse costs a thread and
/// about 800 bytes of memory per byte of text. The cache starts empty with
/// each evaluation, so that what one may do does not depend on earlier ones.
#[derive(Default)]
struct Parsed {
    evaluation: u64,
    programs: HashMap<String, Arc<ast::Program>>,
    bytes: usize,
}

thread_local! {
    static PARSED: RefCell<Parsed> = RefCell::new(Parsed::default());
}

/// Texts kept parsed at most (bytes); past it the cache starts over.
const PARSED_CACHE_BYTES: usize = 1 << 20;

/// What parsing one byte of a `$(...)` text counts against the built-bytes
/// budget.
const PARSE_BYTES_PER_BYTE: usize = 256;

/// The program of a `$(...)` text: `None` when it does not parse; an exceeded
/// budget (of parsing too) is an error.
fn parsed(source: &Arc<Source>) -> Result<Option<Arc<ast::Program>>, String> {
    parsed_placed(source).map_err(|e| plain_message(&e))
}

/// Like [`parsed`], with an exceeded budget placed in the text.
fn parsed_placed(source: &Arc<Source>) -> Result<Option<Arc<ast::Program>>, crate::error::Error> {
    let text = &source.text;
    let evaluation = budget::evaluation();
    let hit = PARSED.with(|c| {
        let mut c = c.borrow_mut();
        if c.evaluation != evaluation {
            *c = Parsed {
                evaluation,
                ..Parsed::default()
            };
        }
        c.programs.get(&**text).cloned()
    });
    if let Some(program) = hit {
        return Ok(Some(program));
    }
    budget::built(text.len().saturating_mul(PARSE_BYTES_PER_BYTE))
        .map_err(|m| crate::error::Error::input(source.span(0, 0), m))?;
    let program = match parse_guarded(source) {
        Ok(p) => Arc::new(p),
        // The limits of parsing are budgets too: they end the evaluation. A
        // syntax error is an output that is not knowable.
        Err(f) if f.kind == FailureKind::Budget => return Err(f.error),
        Err(_) => return Ok(None),
    };
    PARSED.with(|c| {
        let mut c = c.borrow_mut();
        if c.bytes + text.len() > PARSED_CACHE_BYTES {
            c.programs.clear();
            c.bytes = 0;
        }
        if text.len() <= PARSED_CACHE_BYTES {
            c.bytes += text.len();
            c.programs.insert(text.to_string(), program.clone());
        }
    });
    Ok(Some(program))
}

/// The program of a script text run in the shell (`source`, `eval`), parsed
/// once per evaluation (through the same cache as `$(...)`); a syntax error
/// or an exceeded budget is an error placed in the text.
pub(super) fn program_of(source: &Arc<Source>) -> Result<Arc<ast::Program>, crate::error::Error> {
    match parsed_placed(source)? {
        Some(p) => Ok(p),
        // Parsed again for the error's position (only when it fails).
        None => match parse_guarded(source) {
            Ok(p) => Ok(Arc::new(p)),
            Err(f) => Err(f.error),
        },
    }
}

/// The message of an error without its position (the caller places it).
fn plain_message(e: &crate::error::Error) -> String {
    match e {
        crate::error::Error::Input { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// `$(<FILE)` (one command of nothing but one `<` redirection): bash
/// substitutes the file's contents. Its target as written.
fn read_only_redirect(program: &ast::Program) -> Option<String> {
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
    if sc.word_or_name.is_some() {
        return None;
    }
    let items: Vec<&CommandPrefixOrSuffixItem> = sc
        .prefix
        .iter()
        .flat_map(|p| p.0.iter())
        .chain(sc.suffix.iter().flat_map(|s| s.0.iter()))
        .collect();
    match items.as_slice() {
        [
            CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::File(
                None | Some(0),
                ast::IoFileRedirectKind::Read,
                target,
            )),
        ] => Some(target.to_string()),
        _ => None,
    }
}

fn heredoc_cat(st: &mut State, program: &ast::Program) -> Result<Option<Val>, String> {
    let [cc] = program.complete_commands.as_slice() else {
        return Ok(None);
    };
    let [item] = cc.0.as_slice() else {
        return Ok(None);
    };
    if !item.0.additional.is_empty() || item.0.first.seq.len() != 1 {
        return Ok(None);
    }
    let Command::Simple(sc) = &item.0.first.seq[0] else {
        return Ok(None);
    };
    if sc.word_or_name.as_ref().map(|w| w.value.as_str()) != Some("cat") {
        return Ok(None);
    }
    for it in sc.suffix.iter().flat_map(|s| s.0.iter()) {
        if let CommandPrefixOrSuffixItem::IoRedirect(ast::IoRedirect::HereDocument(_, h)) = it {
            if !h.requires_expansion {
                return Ok(Some(Val::Known(
                    h.doc.value.trim_end_matches('\n').to_string(),
                )));
            }
            let body = format!(
                "\"{}\"",
                h.doc.value.replace('\\', "\\\\").replace('"', "\\\"")
            );
            return match expand_string(st, &body) {
                Ok(Val::Known(t)) => Ok(Some(Val::Known(t.trim_end_matches('\n').to_string()))),
                Ok(u) => Ok(Some(u)),
                Err(m) if budget::tripped().is_some() => Err(m),
                Err(_) => Ok(None),
            };
        }
    }
    Ok(None)
}

/// `printf FORMAT ARGS...` for `%s`, `%b`, `%c`, `%d`/`%i`/`%u`/`%x`/`%X`/`%o`
/// (numbers read as bash does: `010` octal, `0x10` hex, `'A` a character's
/// code), `%f` (with flags, width and precision), `%%` and backslash escapes;
/// the format is reused while arguments remain, as in bash. `None` where it
/// is not evaluated faithfully (other conversions, a bad number, non-ASCII
/// text padded or cut: bash counts bytes).
pub(super) fn printf(fmt: &str, args: &[String]) -> Option<String> {
    use super::escapes::{self, Mode};
    let mut out = String::new();
    let mut i = 0;
    loop {
        let mut chars = fmt.chars().peekable();
        let mut used = 0;
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    escapes::escape(&mut chars, Mode::Format, &mut out).ok()?;
                }
                '%' => {
                    // %[flags][width][.precision]conversion
                    let mut flags = String::new();
                    while let Some(&c) = chars.peek() {
                        if matches!(c, '-' | '+' | ' ' | '#' | '0') {
                            flags.push(c);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    let mut body = String::new();
                    while let Some(&c) = chars.peek() {
                        if c.is_ascii_digit() || c == '.' {
                            body.push(c);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    let conv = chars.next()?;
                    if conv == '%' {
                        if !flags.is_empty() || !body.is_empty() {
                            // `%5%`: "invalid format character"; bash stops
                            // there, with the output made so far.
                            return Some(out);
                        }
                        out.push('%');
                        continue;
                    }
                    if flags.contains('#') {
                        return None;
                    }
                    let left = flags.contains('-');
                    let zero = flags.contains('0');
                    let (width, prec) = match body.split_once('.') {
                        Some((w, p)) => (
                            w.parse::<usize>().unwrap_or(0),
                            Some(p.parse::<usize>().unwrap_or(0)),
                        ),
                        None => (body.parse::<usize>().unwrap_or(0), None),
                    };
                    budget::value(width).ok()?;
                    if let Some(p) = prec {
                        budget::value(p).ok()?;
                    }
                    let arg = args.get(i).map(String::as_str);
                    i += 1;
                    used += 1;
                    let sign = |n: i64, digits: String| {
                        if n < 0 {
                            digits
                        } else if flags.contains('+') {
                            format!("+{digits}")
                        } else if flags.contains(' ') {
                            format!(" {digits}")
                        } else {
                            digits
                        }
                    };
                    let mut numeric = true;
                    let text = match conv {
                        's' | 'b' | 'c' => {
                            numeric = false;
                            let a = arg.unwrap_or("");
                            let a = match conv {
                                'b' => {
                                    let (t, stop) = escapes::decode(a, Mode::Echo).ok()?;
                                    if stop {
                                        if width > 0 || prec.is_some() {
                                            return None;
                                        }
                                        out.push_str(&t);
                                        return Some(out);
                                    }
                                    t
                                }
                                'c' => a.chars().take(1).collect(),
                                _ => a.to_string(),
                            };
                            if (width > 0 || prec.is_some()) && !a.is_ascii() {
                                return None;
                            }
                            match prec {
                                Some(p) => a.chars().take(p).collect(),
                                None => a,
                            }
                        }
                        'd' | 'i' | 'u' | 'x' | 'X' | 'o' => {
                            let n = printf_int(arg.unwrap_or(""))?;
                            let digits = match conv {
                                'd' | 'i' => n.unsigned_abs().to_string(),
                                'u' => (n as u64).to_string(),
                                'x' => format!("{:x}", n as u64),
                                'X' => format!("{:X}", n as u64),
                                _ => format!("{:o}", n as u64),
                            };
                            let digits = match prec {
                                Some(p) if p > digits.len() => {
                                    "0".repeat(p - digits.len()) + &digits
                                }
                                _ => digits,
                            };
                            if matches!(conv, 'd' | 'i') {
                                sign(n, if n < 0 { format!("-{digits}") } else { digits })
                            } else {
                                digits
                            }
                        }
                        'f' => {
                            let v: f64 = arg.unwrap_or("0").trim().parse().ok()?;
                            let t = format!("{:.*}", prec.unwrap_or(6), v);
                            sign(if v < 0.0 { -1 } else { 0 }, t)
                        }
                        _ => return None,
                    };
                    let pad = width.saturating_sub(text.chars().count());
                    // A width beyond the value budget: the budget trips and
                    // the evaluation ends with it.
                    budget::value(out.len().saturating_add(pad).saturating_add(text.len())).ok()?;
                    if left {
                        out.push_str(&text);
                        out.push_str(&" ".repeat(pad));
                    } else if zero && numeric && (prec.is_none() || conv == 'f') {
                        let (head, digits) = match text.strip_prefix(['-', '+', ' ']) {
                            Some(d) => text.split_at(text.len() - d.len()),
                            None => ("", text.as_str()),
                        };
                        out.push_str(head);
                        out.push_str(&"0".repeat(pad));
                        out.push_str(digits);
                    } else {
                        out.push_str(&" ".repeat(pad));
                        out.push_str(&text);
                    }
                }
                c => out.push(c),
            }
        }
        budget::value(out.len()).ok()?;
        if used == 0 || i >= args.len() {
            break;
        }
    }
    Some(out)
}

/// A `printf` integer argument as bash reads it: blanks around, a sign,
/// `0x` hex, a leading `0` octal, `'C` / `"C` the code of an ASCII character
/// (the code of another depends on the locale: `None`); empty is 0.
fn printf_int(a: &str) -> Option<i64> {
    let t = a.trim_start_matches([' ', '\t', '\n']);
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return match rest.chars().next() {
            None => Some(0),
            Some(c) if c.is_ascii() => Some(c as i64),
            Some(_) => None,
        };
    }
    let t = t.trim_end_matches([' ', '\t', '\n']);
    if t.is_empty() {
        return Some(0);
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        if !body.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        body.parse::<u64>().ok()?
    };
    let v = i64::try_from(v).ok()?;
    Some(if neg { -v } else { v })
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
    if incr == 0 {
        return None;
    }
    let turns = (i128::from(last) - i128::from(first)) / i128::from(incr);
    if turns > budget::fixed::MAX_SEQ {
        return None;
    }
    let digits = first.to_string().len().max(last.to_string().len());
    budget::value((turns.max(0) as usize + 1).saturating_mul(sep.len() + digits)).ok()?;
    let mut v = Vec::new();
    let mut x = i128::from(first);
    while (incr > 0 && x <= i128::from(last)) || (incr < 0 && x >= i128::from(last)) {
        v.push(x.to_string());
        x += i128::from(incr);
    }
    Some(v.join(&sep) + "\n")
}

impl Interp<'_> {
    /// `<(...)` / `>(...)`: the commands run in a subshell beside the command
    /// that names the pipe (when, is not knowable, as for `CMD &`): what they
    /// assign ends with them, the files they change stay changed, and a
    /// text they write is not known to be there.
    pub(super) fn process_substitution(&mut self, sub: &ast::SubshellCommand) -> Result<(), Error> {
        let saved = (self.st.clone(), self.stopped, self.flags());
        let (conditions, flow) = (self.conditions.len(), self.flow.len());
        let (last, assumed) = (self.last_status.clone(), self.assumed.take());
        // Its output goes to the pipe, not to an enclosing `$(...)`.
        let capture = (
            self.capture.replace(String::new()),
            self.capture_unknown.take(),
        );
        self.errexit_ignored += 1;
        let r = self.list(&sub.list);
        self.errexit_ignored -= 1;
        (self.capture, self.capture_unknown) = capture;
        let touched = std::mem::take(&mut self.st.touched);
        (self.st, self.stopped) = (saved.0, saved.1);
        let before = std::mem::replace(&mut self.st.touched, touched);
        self.st.touched.merge(&before);
        [self.breaking, self.continuing, self.returning] = saved.2;
        (self.last_status, self.assumed) = (last, assumed);
        self.conditions.truncate(conditions);
        self.flow.truncate(flow);
        r.map(|_| ())
    }

    /// The process substitutions among a simple command's words.
    pub(super) fn process_substitution_words(
        &mut self,
        sc: &ast::SimpleCommand,
    ) -> Result<(), Error> {
        for it in sc.suffix.iter().flat_map(|s| s.0.iter()) {
            if let CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) = it {
                self.process_substitution(sub)?;
            }
        }
        Ok(())
    }
}
