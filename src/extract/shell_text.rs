//! Shell text that is not a script file: a page's code block, a plain command
//! file, a generator's printed command. There is one shell front end: the
//! text is evaluated by the bash evaluator ([`super::bash::evaluate_text`]),
//! as bash reads it. What a page shows around the commands is framing, which
//! this room takes off (or maps) before the evaluator reads the text, never
//! a second shell:
//!
//! - the container markup of a block's lines (`> ` of a blockquote, a list
//!   item's indentation) and a byte-order mark: blanked;
//! - a `$ ` prompt at the start of a command line; in `console` blocks also
//!   `user@host:~$ ` prompts (either after an environment's name, `(venv) `):
//!   blanked; `> ` continuation prompts: left out of the text bash reads
//!   (inside a quote and on here-document lines when the block has `$ `
//!   prompts), as the container markup is;
//! - in a `console` block that has prompts, a line that is no command and
//!   continues none (the output a transcript shows): blanked;
//! - a diff listing (every line marked `+ `, `- ` or two blanks, one at
//!   least added or removed): its new side, markers blanked and removed
//!   lines blanked (a `\` kept where a continuation runs through them);
//! - a CRLF line ending: the CR is blanked (a `\` before it still continues
//!   the line);
//! - a docs placeholder (`<your-token>`, `<use args below>`) where bash would
//!   read redirections: mapped to an expansion of a variable whose value is
//!   unknown ("a placeholder that the reader fills in"), and the word keeps
//!   its written text.
//!
//! Every change keeps the byte length and the line breaks, so the evaluator
//! reads a window onto the page ([`Source::window`]) and every position it
//! reports is the page's `file:line:col`. The window is named as no file, so
//! the evaluator reads no file (`source x.sh`, `bash x.sh` are code that is
//! not read, and say so).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::bash::expand::Val;
use super::bash::{self, Preset};
use super::shared::{Extracted, launches_only, tally};
use crate::error::Error;
use crate::files::{LineEndings, check_line_endings};
use crate::launch::{Launch, Provenance};
use crate::span::{Origin, Source};

/// The variables a shell text starts with, or leaves for the next block of a
/// page: by name, the value (one element for a scalar), whether it is
/// exported, and where it was written. Shared between the blocks that start
/// with it (a copy is a pointer): a block changes it by [`Changes`].
#[derive(Debug, Default, Clone)]
pub(crate) struct Vars(Arc<BTreeMap<String, Var>>);

/// A variable of [`Vars`]: its value, whether it is exported, where it was
/// written.
type Var = (Vec<Val>, bool, bash::Carried);

/// What a block did to the variables it started with: each name it set
/// (with its value as the block leaves it) or unset.
#[derive(Debug, Default)]
pub(crate) struct Changes(Vec<(String, Option<Var>)>);

impl Vars {
    /// Variables given by the user (`--env`, `env:`): the environment the
    /// text runs in (exported, as a script's env contract is).
    pub(crate) fn given(vars: &BTreeMap<String, String>) -> Vars {
        Vars(Arc::new(
            vars.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        (vec![Val::Known(v.clone())], true, bash::Carried::default()),
                    )
                })
                .collect(),
        ))
    }

    /// The variables after a block's [`Changes`]: the work is the number of
    /// changes (the map is copied only while another block shares it).
    pub(crate) fn apply(&mut self, changes: Changes) {
        if changes.0.is_empty() {
            return;
        }
        let map = Arc::make_mut(&mut self.0);
        for (name, var) in changes.0 {
            match var {
                Some(var) => {
                    map.insert(name, var);
                }
                None => {
                    map.remove(&name);
                }
            }
        }
    }

    /// The variables a text that reads `names` (all: `None`) starts with.
    fn preset(&self, names: Option<&BTreeSet<&str>>) -> Vec<Preset> {
        let preset = |(k, (v, x, c)): (&String, &Var)| (k.clone(), v.clone(), *x, c.clone());
        match names {
            None => self.0.iter().map(preset).collect(),
            Some(names) => names
                .iter()
                .filter_map(|n| self.0.get_key_value(*n))
                .map(preset)
                .collect(),
        }
    }
}

/// Variables bash reads without their name being written: word splitting
/// (`IFS`), `cd` and `~` (`HOME`, `PWD`, `OLDPWD`, `CDPATH`), `getopts`,
/// `read` and `mapfile` defaults, command lookup, the shell's own.
const IMPLICIT_VARS: &[&str] = &[
    "IFS",
    "HOME",
    "PWD",
    "OLDPWD",
    "CDPATH",
    "PATH",
    "OPTIND",
    "OPTARG",
    "OPTERR",
    "REPLY",
    "MAPFILE",
    "BASH_ENV",
    "ENV",
    "GLOBIGNORE",
    "SHELLOPTS",
    "BASHOPTS",
    "POSIXLY_CORRECT",
    "LANG",
    "LC_ALL",
    "LC_COLLATE",
    "LC_CTYPE",
];

/// Commands that read or change variables named by no word of the text: a
/// child shell's or `eval`'s text, a name or arithmetic in a value
/// (`declare -i X=A`: `A` may name another variable), every variable.
const DYNAMIC_COMMANDS: &[&str] = &[
    "source", "eval", "bash", "sh", "zsh", "dash", "ksh", "env", "exec", "declare", "typeset",
    "local", "readonly", "let", "trap", "compgen", "xargs", "parallel", "su",
];

/// Commands that take variable names: dynamic ([`DYNAMIC_COMMANDS`]) when
/// a name is not written as a word (`unset "$X"`, `export -n $X`).
const NAME_COMMANDS: &[&str] = &["export", "unset"];

/// The variables a text can read or change, as names written in it (with
/// [`IMPLICIT_VARS`]); `None` (every variable) when it may read one whose
/// name is not written: a launch (whose environment is every exported
/// variable), an expansion other than `$NAME` (`${...}`, `$(...)`, a
/// backquote), arithmetic (a variable's value names another), a `\`
/// continuation (which joins names), a `.` or one of [`DYNAMIC_COMMANDS`].
/// A block that reads only its named variables is evaluated with those, so
/// the work of carrying variables from block to block is what each block
/// names, not every variable of the page for every block.
fn names_read(text: &str) -> Option<BTreeSet<&str>> {
    if may_launch(text)
        || ["((", "$[", "[", "\\", "!"]
            .iter()
            .any(|m| text.contains(m))
    {
        return None;
    }
    let mut names: BTreeSet<&str> = IMPLICIT_VARS.iter().copied().collect();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            if DYNAMIC_COMMANDS.contains(&word) {
                return None;
            }
            if NAME_COMMANDS.contains(&word) {
                let line_end = text[i..]
                    .find(['\n', ';', '&', '|'])
                    .map_or(text.len(), |k| i + k);
                if text[i..line_end].contains(['$', '"', '\'', '-']) {
                    return None;
                }
            }
            names.insert(word);
        } else {
            if b[i] == b'.'
                && (i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'('))
            {
                // `. FILE`
                if b.get(i + 1).is_none_or(|c| matches!(c, b' ' | b'\t')) {
                    return None;
                }
            }
            i += 1;
        }
    }
    Some(names)
}

/// One piece of shell text on a page (or a whole file).
pub(crate) struct Block<'a> {
    /// Its byte range in the page.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// The container markup inside it (page byte ranges, sorted).
    pub(crate) containers: &'a [(usize, usize)],
    /// A `console` / `shell-session` transcript.
    pub(crate) console: bool,
}

/// A placeholder the framing mapped (offsets in the window).
struct Placeholder {
    start: usize,
    end: usize,
    text: String,
}

/// A `\` continuation that a `#` comment swallowed: bash ends the command
/// at the comment (a comment runs to the end of its line, backslash
/// included), and runs the next line, which starts with an option, as a
/// command of its own (offsets in the window).
#[derive(Debug, Clone, Copy)]
struct Cut {
    /// The `#` that ended the command.
    comment: usize,
    /// The first word of the line bash runs on its own.
    orphan: usize,
}

/// The text the evaluator reads, and what the framing found.
struct Framed {
    text: String,
    placeholders: Vec<Placeholder>,
    cuts: Vec<Cut>,
    /// The continuation prompts (`> `) of a console transcript that bash
    /// never read: page byte ranges, sorted, left out of the text it reads
    /// (inside a quote or a here-document, a blank is no separator).
    prompts: Vec<(usize, usize)>,
}

/// Extracts the launches of a whole shell text (a command file, a
/// generator's printed command), with the user's variables.
pub(crate) fn extract_all(
    source: &Arc<Source>,
    vars: &BTreeMap<String, String>,
) -> Result<Extracted, Error> {
    check_line_endings(source, LineEndings::Text)?;
    let block = Block {
        start: 0,
        end: source.text.len(),
        containers: &[],
        console: false,
    };
    Ok(extract_block(source, &block, Vars::given(vars))?.0)
}

/// The launches of a whole shell text; a launch of an engine recipe-drift
/// does not resolve is an input error here.
pub(crate) fn extract(
    source: &Arc<Source>,
    vars: &BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    launches_only(extract_all(source, vars)?)
}

/// Extracts the launches of one block of `page`, starting from `vars`; gives
/// them with what the block did to the variables.
pub(crate) fn extract_block(
    page: &Arc<Source>,
    block: &Block<'_>,
    vars: Vars,
) -> Result<(Extracted, Changes), Error> {
    let framed = frame(page, block);
    let names = name_placeholders(&framed, page, block.start)?;
    let mut text = framed.text.into_bytes();
    for (p, name) in framed.placeholders.iter().zip(&names) {
        text[p.start] = b'$';
        text[p.start + 1..p.end].copy_from_slice(name.as_bytes());
    }
    let flat = String::from_utf8(text).expect("framing writes ASCII over whole characters");
    // The variables the block can read (all, unless it names them all).
    let read = names_read(&flat);
    let mut preset = vars.preset(read.as_ref());
    preset.retain(|(n, _, _, _)| !names.contains(n));
    for (p, name) in framed.placeholders.iter().zip(&names) {
        preset.push((
            name.clone(),
            vec![Val::Unknown(placeholder_reason(&p.text))],
            false,
            bash::Carried::default(),
        ));
    }
    let passed: Vec<String> = preset
        .iter()
        .map(|(n, _, _, _)| n.clone())
        .filter(|n| !names.contains(n))
        .collect();
    // The text bash reads leaves the container markup out (a quoted word
    // continued onto a quoted line gets no blanks from it); every other
    // byte keeps its place.
    let (view, pieces) = without_containers(&flat, block, &framed.prompts);
    let window = Arc::new(page.window(
        Origin::Inline(format!("shell text of {}", page.label())),
        pieces,
        view,
    ));
    // Post-processing reads the flat text: offsets are the page's, less
    // the block's start.
    let flat = Flat {
        text: &flat,
        start: block.start,
    };
    // Text that names no launcher and builds no word at run time cannot
    // start a server: when it is not bash either (a listing of changed
    // flags, a program's output), it is no command, not an input error.
    if !may_launch(&window.text) && !bash::is_bash(&window)? {
        return Ok((Extracted::default(), Changes::default()));
    }
    let e = bash::evaluate_text(&window, preset)?;
    let mut found = Extracted::default();
    for mut launch in e.launches {
        launch.source = page.clone();
        place_start(&mut launch, &flat, page);
        keep_placeholders(&mut launch, &framed.placeholders, block.start, page);
        for cut in &framed.cuts {
            if cuts_launch(&flat, &launch, cut) {
                launch.defects.push(broken_continuation(&flat, page, *cut));
            }
        }
        tally(&launch)?;
        found.launches.push(launch);
    }
    found.unsupported = e.unsupported;
    found
        .unsupported
        .extend(e.auxiliary.iter().map(ToString::to_string));
    // What the block changed: the variables it leaves that differ from
    // the ones it started with, and the ones it was given and unset.
    let mut changes = Vec::new();
    let mut left: BTreeSet<String> = BTreeSet::new();
    for (n, v, x, c) in e.vars {
        if names.contains(&n) {
            continue;
        }
        let var = (v, x, c);
        if vars.0.get(&n) != Some(&var) {
            changes.push((n.clone(), Some(var)));
        }
        left.insert(n);
    }
    for n in passed {
        if !left.contains(&n) {
            changes.push((n, None));
        }
    }
    Ok((found, Changes(changes)))
}

/// Whether a text could start a server: it holds a word of the launcher
/// table (`sglang`, `serve`, `vllm`, `python`, a module name, ...), ASCII case
/// ignored, or builds words at run time (`$(`, a backquote, `$'`, `${`,
/// `eval`), which could spell one.
fn may_launch(text: &str) -> bool {
    static WORDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| {
        let mut w: Vec<String> = vec!["python".into(), "eval".into()];
        for l in crate::launch::launchers() {
            match &l.form {
                crate::launch::LauncherForm::Words(ws) => w.extend(ws.iter().cloned()),
                crate::launch::LauncherForm::PythonModule(m)
                | crate::launch::LauncherForm::ModulePrefix(m) => w.push(m.clone()),
            }
        }
        w.iter().map(|x| x.to_ascii_lowercase()).collect()
    });
    let lower = text.to_ascii_lowercase();
    ["$(", "`", "$'", "${"].iter().any(|m| text.contains(m))
        || words.iter().any(|w| lower.contains(w.as_str()))
}

/// A launch starts at its first word, as written: the parser places a word
/// after a `\` continuation at the backslash, so the start moves past
/// blanks and continuations; and it takes in the `NAME=value` prefixes
/// written right before it (on its line or continued lines).
fn place_start(launch: &mut Launch, flat: &Flat<'_>, page: &Source) {
    let base = flat.start;
    let text = flat.text.as_bytes();
    let forward = |mut at: usize| {
        while at < text.len() {
            match text[at] {
                b' ' | b'\t' => at += 1,
                b'\\' if text.get(at + 1) == Some(&b'\n') => at += 2,
                _ => break,
            }
        }
        at
    };
    let backward = |mut at: usize| {
        loop {
            match at.checked_sub(1).map(|i| text[i]) {
                Some(b' ' | b'\t') => at -= 1,
                Some(b'\n') if at >= 2 && text[at - 2] == b'\\' => at -= 2,
                _ => break at,
            }
        }
    };
    let Some(local) = launch.span.start.checked_sub(base) else {
        return;
    };
    if local > text.len() {
        return;
    }
    let mut start = forward(local);
    loop {
        let before = backward(start);
        let prefix = launch.env.iter().find_map(|v| {
            let (s, e) = (
                v.span.start.checked_sub(base)?,
                v.span.end.checked_sub(base)?,
            );
            (e == before && s < before).then(|| forward(s))
        });
        match prefix {
            Some(s) if s < start => start = s,
            _ => break,
        }
    }
    if start != local {
        launch.span = page.span(base + start, launch.span.end.max(base + start));
    }
}

/// Why a placeholder's value is unknown.
fn placeholder_reason(text: &str) -> String {
    crate::launch::placeholder_reason(text)
}

/// The placeholders of a launch keep their written text: a word that is a
/// placeholder reads as it (`<model-path>`), one that holds one reads as
/// written (`--rank=<node-rank>`), and an env value likewise.
fn keep_placeholders(
    launch: &mut Launch,
    placeholders: &[Placeholder],
    start: usize,
    page: &Source,
) {
    if placeholders.is_empty() {
        return;
    }
    let inside = |s: usize, e: usize| {
        placeholders
            .iter()
            .filter(|p| start + p.start >= s && start + p.end <= e)
            .collect::<Vec<_>>()
    };
    let written = |s: usize, e: usize| page.text.get(s..e).unwrap_or("").to_string();
    for t in launch.launcher.iter_mut().chain(launch.argv.iter_mut()) {
        let held = inside(t.span.start, t.span.end);
        if held.is_empty() || !matches!(t.provenance, Provenance::Unknown { .. }) {
            continue;
        }
        t.text = match held.as_slice() {
            [p] if t.text.is_empty() => p.text.clone(),
            _ => written(t.span.start, t.span.end),
        };
    }
    for v in &mut launch.env {
        let held = inside(v.span.start, v.span.end);
        if held.is_empty() || !matches!(v.provenance, Provenance::Unknown { .. }) {
            continue;
        }
        let assignment = written(v.span.start, v.span.end);
        v.value = match (held.as_slice(), assignment.split_once('=')) {
            ([p], _) if v.value.is_empty() => p.text.clone(),
            (_, Some((_, value))) => value.to_string(),
            _ => assignment,
        };
    }
}

/// Names for the placeholders: `$` and the name fill the placeholder's bytes
/// exactly; the same text gets the same name, and no name occurs in the text.
fn name_placeholders(framed: &Framed, page: &Source, start: usize) -> Result<Vec<String>, Error> {
    let mut by_text: BTreeMap<&str, String> = BTreeMap::new();
    let mut counter = 0usize;
    let mut names = Vec::new();
    for p in &framed.placeholders {
        let len = p.end - p.start - 1;
        if let Some(n) = by_text.get(p.text.as_str()) {
            names.push(n.clone());
            continue;
        }
        let name = loop {
            let digits = radix36(counter);
            if digits.len() + 1 > len {
                return Err(Error::input(
                    page.span(start + p.start, start + p.end),
                    "too many distinct placeholders this short in one block",
                ));
            }
            counter += 1;
            let mut n = format!("_{digits}");
            while n.len() < len {
                n.push('_');
            }
            if !framed.text.contains(&n) && !names.contains(&n) {
                break n;
            }
        };
        by_text.insert(&p.text, name.clone());
        names.push(name);
    }
    Ok(names)
}

fn radix36(mut n: usize) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[n % 36]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Quoting as it stands at a point of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
    /// `$'...'`.
    Ansi,
}

/// The framing of one block (see the module's comment): the text the
/// evaluator reads, the placeholders found (still as written) and the
/// comments that swallow a continuation.
fn frame(page: &Source, block: &Block<'_>) -> Framed {
    let original = &page.text[block.start..block.end];
    let mut b = original.as_bytes().to_vec();
    for &(s, e) in block.containers {
        let (s, e) = (s.max(block.start), e.min(block.end));
        if s < e {
            b[s - block.start..e - block.start].fill(b' ');
        }
    }
    if block.start == 0 && original.starts_with('\u{feff}') {
        b[..3].fill(b' ');
    }
    for i in 0..b.len() {
        if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
            if i > 0 && b[i - 1] == b'\\' {
                b[i - 1] = b' ';
                b[i] = b'\\';
            } else {
                b[i] = b' ';
            }
        }
    }
    new_side_of_diff(&mut b);
    let has_prompts = block.console
        && line_ranges(&b).any(|(s, e)| {
            prompt_len(&b[blanks_end(&b, s, e)..e], true).is_some_and(|(_, ps1)| ps1)
        });
    let mut placeholders = Vec::new();
    let mut cuts = Vec::new();
    let mut q = Quote::None;
    let mut continued = false;
    let mut has_words = false;
    let mut pending_cut: Option<usize> = None;
    let mut heredocs: Vec<(String, bool)> = Vec::new();
    let mut prompts: Vec<(usize, usize)> = Vec::new();
    // Where a line's text starts: past the container markup at its start.
    let text_start = |ls: usize| {
        block
            .containers
            .iter()
            .find(|&&(s, e)| s == block.start + ls && e > s)
            .map_or(ls, |&(_, e)| (e - block.start).max(ls))
    };
    // Whether the command being read started at a `$ ` prompt: a
    // transcript's command, whose continued lines show the `> ` prompt
    // (PS2) in any shell block, as in a `console` one.
    let mut prompted = false;
    // A continuation prompt of a transcript at `at`, inside a quote or a
    // here-document: left out of the text bash reads (`transcript`: the
    // block or the command is one).
    let ps2 = |b: &mut Vec<u8>,
               at: usize,
               le: usize,
               prompts: &mut Vec<(usize, usize)>,
               transcript: bool| {
        if !transcript || at > le {
            return at;
        }
        match prompt_len(&b[at..le], true) {
            Some((n, false)) => {
                b[at..at + n].fill(b' ');
                prompts.push((block.start + at, block.start + at + n));
                at + n
            }
            _ => at,
        }
    };
    let mut lines = line_ranges(&b).collect::<Vec<_>>().into_iter();
    while let Some((ls, le)) = lines.next() {
        let command_start = q == Quote::None && !continued;
        let mut i = blanks_end(&b, ls, le);
        let transcript = has_prompts || prompted;
        if q != Quote::None {
            i = ps2(&mut b, text_start(ls), le, &mut prompts, transcript);
        } else if command_start || (continued && (block.console || prompted)) {
            match prompt_len(&b[i..le], block.console || (!command_start && prompted)) {
                Some((n, ps1)) if command_start || !ps1 => {
                    b[i..i + n].fill(b' ');
                    // A continued word goes on after the prompt.
                    if command_start {
                        prompted = ps1;
                    } else {
                        prompts.push((block.start + i, block.start + i + n));
                    }
                    i = blanks_end(&b, i + n, le);
                }
                _ if command_start && has_prompts && i < le => {
                    // Output shown after a command: not shell text.
                    b[ls..le].fill(b' ');
                    continued = false;
                    prompted = false;
                    continue;
                }
                _ => {
                    if command_start {
                        prompted = false;
                    }
                }
            }
        }
        if let Some(comment) = pending_cut.take()
            && b.get(i) == Some(&b'-')
            && b.get(i + 1)
                .is_some_and(|c| *c == b'-' || c.is_ascii_alphanumeric())
        {
            cuts.push(Cut { comment, orphan: i });
        }
        if command_start {
            has_words = false;
        }
        continued = false;
        while i < le {
            let c = b[i];
            match q {
                Quote::Single => {
                    if c == b'\'' {
                        q = Quote::None;
                    }
                    i += 1;
                }
                Quote::Ansi | Quote::Double if c == b'\\' => i += 2,
                Quote::Ansi => {
                    if c == b'\'' {
                        q = Quote::None;
                    }
                    i += 1;
                }
                Quote::Double => {
                    if c == b'"' {
                        q = Quote::None;
                    }
                    i += 1;
                }
                Quote::None => match c {
                    b' ' | b'\t' => i += 1,
                    b'\\' => {
                        if i + 1 >= le {
                            continued = true;
                        }
                        has_words = true;
                        i += 2;
                    }
                    b'\'' => {
                        q = Quote::Single;
                        has_words = true;
                        i += 1;
                    }
                    b'"' => {
                        q = Quote::Double;
                        has_words = true;
                        i += 1;
                    }
                    b'$' if b.get(i + 1) == Some(&b'\'') => {
                        q = Quote::Ansi;
                        has_words = true;
                        i += 2;
                    }
                    b'#' if i == ls || b" \t;&|()".contains(&b[i - 1]) => {
                        if has_words && b[..le].ends_with(b"\\") {
                            pending_cut = Some(i);
                        }
                        break;
                    }
                    b';' | b'&' | b'|' => {
                        has_words = false;
                        i += 1;
                    }
                    b'<' if b.get(i + 1) == Some(&b'<') && b.get(i + 2) != Some(&b'<') => {
                        i = heredoc(&b, i + 2, le, &mut heredocs);
                    }
                    b'<' if b.get(i + 1) == Some(&b'<') => i += 3,
                    b'<' => {
                        if let Some(n) = placeholder_len(&original[i..le]) {
                            placeholders.push(Placeholder {
                                start: i,
                                end: i + n,
                                text: original[i..i + n].to_string(),
                            });
                            has_words = true;
                            i += n;
                        } else {
                            i += 1;
                        }
                    }
                    _ => {
                        has_words = true;
                        i += 1;
                    }
                },
            }
        }
        if q != Quote::None {
            continued = false;
        }
        // The bodies of the heredocs met on this line: their command's
        // input, not commands (nothing in them is framing either).
        for (delimiter, dash) in std::mem::take(&mut heredocs) {
            for (s, e) in lines.by_ref() {
                let at = text_start(s);
                let s = ps2(&mut b, at, e, &mut prompts, has_prompts || prompted).max(s);
                let line = &original[s..e];
                let line = line.strip_suffix('\r').unwrap_or(line);
                let line = if dash {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if line == delimiter {
                    break;
                }
            }
        }
    }
    Framed {
        // Only ASCII bytes replaced whole ASCII bytes (containers and the BOM
        // are whole characters).
        text: String::from_utf8(b)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        placeholders,
        cuts,
        prompts,
    }
}

/// A command text as a reader runs it, for telling two texts apart: a diff
/// listing read as its new side ([`new_side_of_diff`]), `\`-newline
/// continuations joined and every run of blanks one space. Two texts that
/// differ only in layout (where a line is broken, a diff view or the plain
/// command) give the same string.
pub(crate) fn as_run(text: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    new_side_of_diff(&mut b);
    let text = String::from_utf8_lossy(&b)
        .replace("\\\r\n", " ")
        .replace("\\\n", " ");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A diff listing (a generator's "changes against the base" view: every
/// line that is not blank marked `+ ` added, `- ` removed or `  ` kept, at
/// least one added or removed) shows the reader the command's new side:
/// the markers are blanked and so is each removed line, but for a `\` at its
/// end when the line kept before it continues (so that continuation joins
/// the next kept line, as if the removed line were not there). Other text is
/// left as it is.
fn new_side_of_diff(b: &mut [u8]) {
    // Per line: its range and its mark (`None` for a blank line).
    let mut marked: Vec<(usize, usize, Option<u8>)> = Vec::new();
    let mut changed = false;
    for (s, e) in line_ranges(b) {
        let line = &b[s..e];
        if line.iter().all(|c| *c == b' ' || *c == b'\t') {
            marked.push((s, e, None));
            continue;
        }
        let mark = match line {
            [m @ (b'+' | b'-')] | [m @ (b'+' | b'-'), b' ', ..] => *m,
            [b' ', b' ', ..] => b' ',
            _ => return,
        };
        changed |= mark != b' ';
        marked.push((s, e, Some(mark)));
    }
    if !changed {
        return;
    }
    let mut kept_continues = false;
    for (s, e, mark) in marked {
        match mark {
            None => kept_continues = false,
            Some(b'-') => {
                b[s..e].fill(b' ');
                if kept_continues {
                    b[e - 1] = b'\\';
                }
            }
            Some(_) => {
                b[s..(s + 2).min(e)].fill(b' ');
                kept_continues = b[e - 1] == b'\\';
            }
        }
    }
}

/// The lines of a text as byte ranges without their `\n`.
fn line_ranges(b: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at > b.len() || (at == b.len() && at > 0 && b[at - 1] == b'\n') {
            return None;
        }
        let end = b[at..]
            .iter()
            .position(|c| *c == b'\n')
            .map_or(b.len(), |i| at + i);
        let r = (at, end);
        at = end + 1;
        Some(r)
    })
}

/// Past the blanks from `i` (not past `end`).
fn blanks_end(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// The length of a prompt at the start of a line, and whether it is a
/// command prompt (PS1) rather than a `> ` continuation prompt: `$ `
/// anywhere; in a console transcript also `> ` (or a bare `>`),
/// `user@host:~/dir$ ` (or `#`), either after an environment's name
/// (`(venv) $ `).
fn prompt_len(rest: &[u8], console: bool) -> Option<(usize, bool)> {
    if rest.starts_with(b"$ ") || rest.starts_with(b"$\t") {
        return Some((2, true));
    }
    if !console {
        return None;
    }
    if rest.starts_with(b"> ") || rest.starts_with(b">\t") {
        return Some((2, false));
    }
    // A `>` with nothing typed after it (the blank of `> ` trimmed).
    if rest == b">" || rest == b">\r" {
        return Some((1, false));
    }
    // A virtualenv or conda environment's name before the prompt:
    // `(venv) $ `, `(base) user@host:~$ `.
    if let Some(after) = rest.strip_prefix(b"(") {
        let close = after.iter().position(|c| *c == b')')?;
        let name = &after[..close];
        if name.is_empty()
            || !name
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || b"._-".contains(c))
            || after.get(close + 1) != Some(&b' ')
        {
            return None;
        }
        let n = close + 3;
        let (m, ps1) = prompt_len(&rest[n..], true)?;
        return ps1.then_some((n + m, true));
    }
    let line = std::str::from_utf8(rest).ok()?;
    let at = line.find('@')?;
    if !line[..at]
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    {
        return None;
    }
    let end = line.find(['$', '#'])?;
    (end > at && line[at..end].contains(':') && line[end + 1..].starts_with(' '))
        .then_some((end + 2, true))
}

/// A heredoc operator's delimiter (after `<<`, at `i`): recorded with
/// whether it is `<<-`; gives where the word ends.
fn heredoc(b: &[u8], mut i: usize, end: usize, heredocs: &mut Vec<(String, bool)>) -> usize {
    let dash = b.get(i) == Some(&b'-');
    if dash {
        i += 1;
    }
    i = blanks_end(b, i, end);
    let mut delimiter = Vec::new();
    while i < end && !b[i].is_ascii_whitespace() && !b";&|<>()".contains(&b[i]) {
        if !matches!(b[i], b'\'' | b'"' | b'\\') {
            delimiter.push(b[i]);
        }
        i += 1;
    }
    if !delimiter.is_empty() {
        heredocs.push((String::from_utf8_lossy(&delimiter).into_owned(), dash));
    }
    i
}

/// The length of a docs placeholder at the start of `rest` (`<your-token>`,
/// `<use args below>`): `<`, text with no quote, `$`, backquote, `<`, `>`,
/// `;`, `&` or `|` on the line, and `>`. Bash would read it as
/// redirections; a reader fills it in. Without blanks inside, the `>` ends
/// a word (a blank, the line's end or `;&|)` follows) or a part of one (an
/// address's `:`, `/`, `,` or `@` follows: `<node0-ip>:20000`, where bash
/// would write a file named `:20000`); with blanks inside,
/// the line's end or `;&|)` must follow, where bash would fail (`<in.txt
/// >out.txt` and `<a b> c` stay redirections).
fn placeholder_len(rest: &str) -> Option<usize> {
    let rest = rest.strip_prefix('<')?;
    let close = rest.find(|c: char| {
        matches!(
            c,
            '>' | '<' | '\n' | '\'' | '"' | '`' | '$' | ';' | '&' | '|' | '\\'
        )
    })?;
    if !rest[close..].starts_with('>') {
        return None;
    }
    let inner = &rest[..close];
    if inner.trim().is_empty() || inner.starts_with([' ', '\t']) || inner.len() > 120 {
        return None;
    }
    let after = rest[close + 1..].chars().next();
    let ends_line = matches!(after, None | Some('\n' | '\r' | ';' | '&' | '|' | ')'));
    let blanks = inner.contains([' ', '\t']);
    let ok = if blanks {
        ends_line
    } else {
        ends_line || matches!(after, Some(' ' | '\t' | ':' | '/' | ',' | '@'))
    };
    ok.then_some(close + 2)
}

/// The framed text of a block, at its place on the page.
struct Flat<'a> {
    /// Same length as the block: framing blanked, placeholders mapped,
    /// container markup blanked.
    text: &'a str,
    /// The block's start on the page.
    start: usize,
}

/// The text bash reads: the flat text without the container markup, and
/// its pieces (offset in it, offset on the page).
fn without_containers(
    flat: &str,
    block: &Block<'_>,
    prompts: &[(usize, usize)],
) -> (String, Vec<(usize, usize)>) {
    let mut left_out: Vec<(usize, usize)> =
        block.containers.iter().chain(prompts).copied().collect();
    left_out.sort_unstable();
    let mut view = String::with_capacity(flat.len());
    let mut pieces = vec![(0, block.start)];
    let mut at = 0;
    for (s, e) in left_out {
        let (s, e) = (
            s.clamp(block.start, block.end) - block.start,
            e.clamp(block.start, block.end) - block.start,
        );
        if s < at || s >= e {
            continue;
        }
        view.push_str(&flat[at..s]);
        at = e;
        pieces.push((view.len(), block.start + e));
    }
    view.push_str(&flat[at..]);
    (view, pieces)
}

/// Whether a comment cut the launch off: it comes after the launch's last
/// word, with no line break between them that is not a continuation.
fn cuts_launch(flat: &Flat<'_>, launch: &Launch, cut: &Cut) -> bool {
    let end = launch
        .argv
        .last()
        .or(launch.launcher.last())
        .map_or(launch.span.end, |t| t.span.end);
    let Some(end) = end.checked_sub(flat.start) else {
        return false;
    };
    if cut.comment < end || end > flat.text.len() {
        return false;
    }
    !flat.text[end..cut.comment]
        .replace("\\\n", "")
        .contains('\n')
}

/// The defect of a command a comment cut off before its continuation.
fn broken_continuation(flat: &Flat<'_>, page: &Source, cut: Cut) -> crate::launch::Defect {
    let text = flat.text;
    let orphan = page.span(flat.start + cut.orphan, flat.start + cut.orphan);
    // The comment, to the end of its line.
    let end = text[cut.comment..]
        .find('\n')
        .map_or(text.len(), |i| cut.comment + i);
    // The first line bash runs on its own, as written (shortened).
    let line_end = text[cut.orphan..]
        .find('\n')
        .map_or(text.len(), |i| cut.orphan + i);
    let line = text[cut.orphan..line_end]
        .trim_end()
        .trim_end_matches('\\')
        .trim_end();
    let shown: String = if line.chars().count() > 60 {
        format!("{}...", line.chars().take(57).collect::<String>())
    } else {
        line.to_string()
    };
    crate::launch::Defect {
        kind: crate::launch::BROKEN_CONTINUATION,
        span: page.span(flat.start + cut.comment, flat.start + end),
        message: format!(
            "the `\\` at the end of the `#` comment does not continue the command (a comment runs to the end of its line): bash ends the command there and runs `{}` (at {orphan}) as a command of its own, so the server starts without the options from there on",
            crate::secret::value(&shown)
        ),
        related: vec![orphan],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::{Context, Platform};

    fn launches(text: &str) -> Vec<Launch> {
        let src = Arc::new(Source::new(Origin::Inline("t".into()), text.to_string()));
        extract(&src, &BTreeMap::new()).unwrap()
    }

    fn argv(l: &Launch) -> Vec<&str> {
        l.argv.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn a_placeholder_in_an_address_is_a_placeholder() {
        let l = launches("sglang serve --dist-init-addr <node0-ip>:20000 --tp 2\n");
        assert_eq!(l.len(), 1);
        assert_eq!(
            argv(&l[0]),
            ["--dist-init-addr", "<node0-ip>:20000", "--tp", "2"]
        );
    }

    #[test]
    fn a_diff_listing_is_read_as_its_new_side() {
        let text = "  sglang serve \\\n-   --tp 8 \\\n-   --mamba-scheduler-strategy x \\\n+   --tp 4 \\\n    --model-path a/b\n-   --port 1\n";
        let l = launches(text);
        assert_eq!(l.len(), 1);
        assert_eq!(argv(&l[0]), ["--tp", "4", "--model-path", "a/b"]);
        // Positions stay the page's.
        assert_eq!(l[0].argv[0].span.pos.line, 4);
        assert_eq!(l[0].argv[0].span.pos.col, 5);
    }

    #[test]
    fn text_with_an_unmarked_line_is_no_diff_listing() {
        // `- x` on its own line is a command named `-` here, as bash reads it.
        let l = launches("sglang serve --tp 8 \\\n+ --tp 4\n");
        assert_eq!(l.len(), 1);
        assert_eq!(argv(&l[0]), ["--tp", "8", "+", "--tp", "4"]);
    }

    #[test]
    fn continuations_comments_and_quotes() {
        let l = launches(
            "# start the server\nsglang serve \\\n  --model-path 'a/b' \\\n  --json-model-override-args '{\"x\": 1}' # trailing\n",
        );
        assert_eq!(l.len(), 1);
        assert_eq!(
            argv(&l[0]),
            [
                "--model-path",
                "a/b",
                "--json-model-override-args",
                "{\"x\": 1}"
            ]
        );
        assert_eq!(l[0].argv[0].span.pos.line, 3);
        assert_eq!(l[0].argv[0].span.pos.col, 3);
    }

    #[test]
    fn env_prefixes_inline_and_on_continued_lines() {
        let l = launches(
            "A=1 \\\nB=\"two words\" \\\nsglang serve --tp 2\nC=3 python3 -m sglang.launch_server --tp 4",
        );
        assert_eq!(l.len(), 2);
        let names: Vec<_> = l[0]
            .env
            .iter()
            .map(|e| (e.name.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(names, [("A", "1"), ("B", "two words")]);
        // The launch starts at its first prefix.
        assert_eq!(l[0].span.pos.line, 1);
        assert_eq!(l[0].span.pos.col, 1);
        assert_eq!(l[1].env[0].name, "C");
        assert_eq!(l[1].launcher_text(), "python3 -m sglang.launch_server");
    }

    #[test]
    fn exports_reach_later_commands_and_plain_assignments_do_not() {
        let l = launches(
            "export SGLANG_USE_AITER=1\nMODEL=a/b\nsglang serve --model-path $MODEL --x ${Y:-7}",
        );
        assert_eq!(l[0].env.len(), 1);
        assert_eq!(l[0].env[0].name, "SGLANG_USE_AITER");
        assert_eq!(argv(&l[0]), ["--model-path", "a/b", "--x", "7"]);
        assert_eq!(
            l[0].argv[1].provenance,
            Provenance::Var {
                name: "MODEL".into()
            }
        );
    }

    fn console(text: &str) -> Vec<Launch> {
        let src = Arc::new(Source::new(Origin::Inline("t".into()), text.to_string()));
        let block = Block {
            start: 0,
            end: text.len(),
            containers: &[],
            console: true,
        };
        let (e, _) = extract_block(&src, &block, Vars::default()).unwrap();
        e.launches
    }

    /// A block that is not a `console` one: `$ ` prompts only.
    fn shell(text: &str) -> Vec<Launch> {
        let src = Arc::new(Source::new(Origin::Inline("t".into()), text.to_string()));
        let block = Block {
            start: 0,
            end: text.len(),
            containers: &[],
            console: false,
        };
        let (e, _) = extract_block(&src, &block, Vars::default()).unwrap();
        e.launches
    }

    #[test]
    fn a_prompted_command_in_a_shell_block_shows_continuation_prompts() {
        let l = shell("$ sglang serve --model-path m \\\n> --tp=4\n");
        assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp=4"]);
        let l = shell("$ A=\"--tp\n> 8\"\n$ sglang serve --model-path m $A\n");
        assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp", "8"]);
        // Without a `$ ` prompt, a `> ` line is bash's: a redirection.
        let l = shell("sglang serve --model-path m \\\n> --tp=4\n");
        assert_eq!(argv(&l[0]), ["--model-path", "m"]);
    }

    #[test]
    fn continuation_prompts_in_quotes_and_heredocs_are_left_out() {
        // Inside a quote the prompt is no blank of the value: `A` is
        // "--tp\n8", as typed; positions stay the page's.
        let l = console("$ export A=\"--tp\n> 8\"\n$ sglang serve --model-path m $A\n");
        assert_eq!(argv(&l[0]), ["--model-path", "m", "--tp", "8"]);
        let l = console("$ T=\"x\n> \"\n$ sglang serve --model-path \"m$T\"\n");
        assert_eq!(argv(&l[0])[1], "mx\n");
        let l =
            console("$ TP=$(cat <<EOF\n> 8\n> EOF\n> )\n$ sglang serve --model-path m --tp $TP\n");
        assert_eq!(argv(&l[0])[3], "8");
        // A word continued with `\` goes on after the prompt.
        let l = console("$ sglang serve --model-path m --t\\\n> p 2\n");
        assert_eq!(argv(&l[0])[2..], ["--tp", "2"]);
        assert_eq!(
            (l[0].argv[3].span.pos.line, l[0].argv[3].span.pos.col),
            (2, 5)
        );
        // Without a `$ ` prompt, a `> ` line in a quote is text.
        let l = console("export A=\"--tp\n> 8\"\nsglang serve --model-path m $A\n");
        assert_eq!(argv(&l[0])[2..], ["--tp", ">", "8"]);
    }

    #[test]
    fn environment_names_before_a_prompt() {
        for text in [
            "(venv) $ sglang serve --model-path m --tp 8\n",
            "(base) me@box:~/x$ sglang serve --model-path m --tp 8\n",
        ] {
            let l = console(text);
            assert_eq!(argv(&l[0])[2..], ["--tp", "8"], "{text}");
        }
    }

    #[test]
    fn prompts_and_several_commands() {
        let l = launches(
            "$ sglang serve --tp 1\n$ vllm serve x/y -tp 2 && echo done; python -m vllm.entrypoints.openai.api_server --model m",
        );
        assert_eq!(l.len(), 3);
        assert_eq!(l[0].argv[0].span.pos.col, 16);
        assert_eq!(l[1].engine, crate::launch::Engine::parse("vllm").unwrap());
        assert_eq!(l[2].engine, crate::launch::Engine::parse("vllm").unwrap());
    }

    #[test]
    fn redirections_and_background_are_not_arguments() {
        let l = launches("sglang serve --tp 2 > /tmp/log 2>&1 &\n");
        assert_eq!(argv(&l[0]), ["--tp", "2"]);
    }

    #[test]
    fn docker_run_wrapper() {
        let l = launches(
            "docker run --rm -it --gpus all -v /d:/d -e X=1 --shm-size 32g lmsysorg/sglang:v0.5.17-cu130 python3 -m sglang.launch_server --tp 8",
        );
        assert_eq!(argv(&l[0]), ["--tp", "8"]);
        assert_eq!(l[0].env[0].name, "X");
        let ctx = &l[0].context;
        assert_eq!(ctx.engine_version.as_ref().unwrap().value, "0.5.17");
        assert_eq!(ctx.platform.as_ref().unwrap().value, Platform::Cuda);
    }

    #[test]
    fn image_tags() {
        let c = Context::from_image("lmsysorg/sglang-rocm:v0.5.19-rocm720-mi35x-20260915", "t");
        assert_eq!(c.engine_version.unwrap().value, "0.5.19");
        assert_eq!(c.platform.unwrap().value, Platform::Rocm);
        let c = Context::from_image("lmsysorg/sglang:v0.5.15.post1-cu129", "t");
        assert_eq!(c.engine_version.unwrap().value, "0.5.15.post1");
        let c = Context::from_image("lmsysorg/sglang:latest", "t");
        assert!(c.engine_version.is_none());
        // A tag pinned by digest is still read (the digest is not the tag).
        let c = Context::from_image(
            "lmsysorg/sglang:v0.5.14-cu130@sha256:5027e95bf6ec536856b1b52a91d1f35ff5c564ab83e8a94758a169ff09bb8df3",
            "t",
        );
        assert_eq!(c.engine_version.unwrap().value, "0.5.14");
        assert_eq!(c.platform.unwrap().value, Platform::Cuda);
        let c = Context::from_image("lmsysorg/sglang@sha256:5027e95bf6ec", "t");
        assert!(c.engine_version.is_none() && c.platform.is_none());
    }

    #[test]
    fn unterminated_quote_is_an_error_at_the_quote() {
        let src = Arc::new(Source::new(
            Origin::Inline("t".into()),
            "sglang serve --x 'abc\n".into(),
        ));
        let e = extract(&src, &BTreeMap::new()).unwrap_err().to_string();
        assert_eq!(e, "<t>:1:18: bash syntax error: unterminated single quote");
    }

    #[test]
    fn wrappers_and_ansi_c_quotes() {
        let l = launches("nohup env A=1 exec python3 -m sglang.launch_server --x $'a\\tb' &");
        assert_eq!(l[0].env[0].name, "A");
        assert_eq!(argv(&l[0]), ["--x", "a\tb"]);
    }

    #[test]
    fn docker_run_passes_host_values_only_through_dash_e() {
        let l = launches(
            "export HOST_ONLY=1 PASSED=2\ndocker run -e PASSED img:v0.5.19-cu129 sglang serve --tp 2",
        );
        let names: Vec<_> = l[0]
            .env
            .iter()
            .map(|e| (e.name.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(names, [("PASSED", "2")]);
    }

    /// The framing keeps every byte where it was: a window read through
    /// the framed text places positions on the page.
    #[test]
    fn framing_keeps_lengths_and_finds_placeholders_outside_quotes_only() {
        let page = Source::new(
            Origin::Inline("p".into()),
            "$ a <x> '<y>' \"<z>\" \\\n> b\nout\n$ c <<EOF\n$ <w>\nEOF\n".into(),
        );
        let block = Block {
            start: 0,
            end: page.text.len(),
            containers: &[],
            console: true,
        };
        let f = frame(&page, &block);
        assert_eq!(f.text.len(), page.text.len());
        assert_eq!(
            f.text,
            "  a <x> '<y>' \"<z>\" \\\n  b\n   \n  c <<EOF\n$ <w>\nEOF\n"
        );
        let found: Vec<&str> = f.placeholders.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(found, ["<x>"]);
    }
}
