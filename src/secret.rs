//! Secrets and terminal safety of everything recipe-drift prints.
//!
//! One mechanism for secrets: values are *collected* where text enters the
//! run (every [`crate::span::Source`] is scanned when it is made) and where a
//! command line is recognised (`crate::launch::detect_launcher` sees the
//! expanded words), and *masked* in the one place output leaves the process
//! ([`sanitize`], called by `main.rs` for standard output and errors and by
//! the job summary writer). A value is a secret when it follows an option
//! whose name says so (`--api-key`, `--hf-token`, `--password`, ...) or is
//! assigned to an environment variable named `*_TOKEN`, `*_KEY`, `*_SECRET`,
//! `*_PASSWORD` (and the like). Every format and every error message is
//! masked the same way, because masking happens after rendering.
//!
//! [`sanitize`] also escapes control characters (ESC, CR, OSC sequences, C1
//! controls, bidirectional overrides) as `\uXXXX`, which is valid inside a
//! JSON string and inert on a terminal.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

mod multiline;

/// The character a masked secret is written with, once per character of the
/// secret (so carets under a masked source line stay aligned).
pub const MASK: char = '*';

/// Secret values shorter than this are not masked: masking every `1`, `EMPTY`
/// or `dummy` (the placeholders of local servers) in the output would garble
/// it, and such a value protects nothing.
pub const MIN_SECRET_LEN: usize = 8;

/// The secret values seen so far in this run.
static SECRETS: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Bumped whenever the set of secrets changes: the masking matcher built
/// from an older set is rebuilt.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Bumped whenever a secret value or a secret span is first recorded: a
/// run that wrote reports while this changed writes them again
/// ([`noted`]).
static NOTED: AtomicU64 = AtomicU64::new(0);

/// How many times a secret value or span was first recorded in this
/// process: equal before and after some work when the work read no secret
/// that was not known already.
pub fn noted() -> u64 {
    NOTED.load(Ordering::SeqCst)
}

/// The byte ranges of secret words as they are written in their sources, by
/// source label: what a source excerpt masks whatever the spelling
/// (`sk\-x`, `sk-"a"b`, `$'\x41'`, a tab in quotes) of the parsed value.
static SPANS: Mutex<BTreeMap<String, BTreeSet<(usize, usize)>>> = Mutex::new(BTreeMap::new());

/// Name segments (split at `-` and `_`) that mark a value as a secret.
const SEGMENTS: &[&str] = &[
    "token",
    "password",
    "passwd",
    "secret",
    "credential",
    "credentials",
    "apikey",
    "bearer",
];

/// Whether a name (`api-key`, `hf_token`, `OPENAI_API_KEY`) names a secret:
/// its last segment is a secret word, or it ends in `api key` / `private key`
/// / `access key` / `secret key`. Whole segments, and the last one only: what a
/// name ends with says what it holds, so `--max-tokens`, `--tokenizer` and
/// `SGLANG_SIMULATE_ACC_TOKEN_MODE` (a mode) are not secrets.
fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let segs: Vec<&str> = lower
        .split(['-', '_', '.'])
        .filter(|s| !s.is_empty())
        .collect();
    match segs.as_slice() {
        [.., last] if SEGMENTS.contains(last) => true,
        [.., before, "key"] => matches!(*before, "api" | "private" | "access" | "secret"),
        _ => false,
    }
}

/// Whether a parsed destination (`api_key`, `hf_token`) holds a secret: the
/// parser resolves abbreviations (`--api-k`) and spellings, so a value is
/// recognised by where it lands, not only by how its option was written.
pub fn is_secret_dest(dest: &str) -> bool {
    is_secret_name(dest)
}

/// Whether an option (`--api-key`, `--hf-token`, `-api_key`) takes a secret.
pub fn is_secret_option(option: &str) -> bool {
    option.starts_with('-') && is_secret_name(option.trim_start_matches('-'))
}

/// Whether an environment variable (`HF_TOKEN`, `OPENAI_API_KEY`,
/// `DB_PASSWORD`, `WANDB_KEY`) holds a secret: a secret name, or an
/// upper-case one ending in `_KEY`.
pub fn is_secret_env(name: &str) -> bool {
    is_secret_name(name)
        || (name.len() > 4 && name.ends_with("_KEY") && name == name.to_ascii_uppercase())
}

/// Records a secret value (quotes around it dropped); short values and
/// references to variables (`$KEY`) are not recorded.
pub fn note(value: &str) {
    // `${NAME:=value}` reads as a YAML-like `NAME: =value` to the text scan.
    let v = value
        .trim()
        .trim_start_matches('=')
        .trim_matches(['"', '\'']);
    if v.chars().count() < MIN_SECRET_LEN || v.starts_with(['$', '-']) {
        return;
    }
    if let Ok(mut s) = SECRETS.lock()
        && s.insert(v.to_string())
    {
        GENERATION.fetch_add(1, Ordering::SeqCst);
        NOTED.fetch_add(1, Ordering::SeqCst);
    }
}

/// The userinfo of a URL written in a text (`https://USER:PASSWORD@host/`):
/// byte offsets of its start (after `//`), of the `:` before the password
/// (if any) and of the `@` that ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserInfo {
    /// The first byte of the userinfo (right after `//`).
    pub start: usize,
    /// The first `:` inside it, before the password.
    pub colon: Option<usize>,
    /// The `@` that ends it (the last one of the authority).
    pub at: usize,
}

/// Every URL userinfo in `text`, found as Python's `urllib.parse.urlsplit`
/// finds it (what pip, `huggingface_hub` and `requests` use): the authority
/// starts after `//` (also JSON-escaped, `\/\/` or `\u002f\u002f`) and ends
/// at the next `/` (escaped or not), `?` or `#` (or blank); the userinfo is
/// what comes before its last `@`, the password what follows the userinfo's
/// first `:`. A tab, CR or LF inside it does not end it: `urlsplit` removes
/// them from the URL first (`https://u:ab<TAB>cd@host` has the password
/// `abcd`). `strict` (the final backstop, which runs over a whole report)
/// ends an authority also at those and at every character a URL's userinfo
/// cannot hold unescaped (quotes, `\`, `<`, `>`, controls), so no report's own
/// punctuation is ever inside one. Linear in the text: an authority ends at
/// a `/`, which every later `//` starts with.
pub fn url_userinfos(text: &str, strict: bool) -> Vec<UserInfo> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        let start = match slash(b, i).and_then(|n| Some(i + n + slash(b, i + n)?)) {
            Some(start) => start,
            None => {
                i += 1;
                continue;
            }
        };
        let mut j = start;
        let mut at = None;
        while j < b.len() {
            let c = b[j];
            let ends = match c {
                b'/' | b'?' | b'#' => true,
                b'\\' if slash(b, j).is_some() => true,
                b'\t' | b'\r' | b'\n' if !strict => false,
                c if c.is_ascii_whitespace() || c.is_ascii_control() => true,
                c if strict => !(c.is_ascii_alphanumeric() || b"-._~%!$&*+,;=:@()".contains(&c)),
                _ => false,
            };
            if ends {
                break;
            }
            if c == b'@' {
                at = Some(j);
            }
            j += 1;
        }
        if let Some(at) = at.filter(|&a| a > start) {
            // The userinfo's first `:` (`u:p@x@host`: user `u`, password
            // `p@x`), as `urlsplit` splits it.
            let colon = text[start..at].find(':').map(|k| start + k);
            out.push(UserInfo { start, colon, at });
        }
        i = j.max(i + 1);
    }
    out
}

/// The length of the `/` written at `i` of `b`, as is or JSON-escaped
/// (`\/`, `\u002f`); `None` if none is.
fn slash(b: &[u8], i: usize) -> Option<usize> {
    let rest = b.get(i..)?;
    if rest.starts_with(b"/") {
        Some(1)
    } else if rest.starts_with(b"\\/") {
        Some(2)
    } else if rest.len() >= 6 && rest[..6].eq_ignore_ascii_case(b"\\u002f") {
        Some(6)
    } else {
        None
    }
}

/// Records the credentials written in URLs of a text (see
/// [`url_userinfos`]): every password, whatever the URL's variable or
/// option is called (`PIP_INDEX_URL`, `HF_ENDPOINT`, an argument, a JSON
/// value), and a user name that looks like a credential (a token as the
/// user: `https://ghp_...@github.com`). Percent escapes are read as clients
/// read them (`requests` and `pip` unquote the user and the password): a
/// user whose escapes spell a `:` (`https://u%3ATOKEN@host`) sends what
/// follows it as its password, and each credential is recorded both as
/// written and as decoded, so a text derived from either spelling is masked.
pub fn note_urls(text: &str) {
    for u in url_userinfos(text, false) {
        let (user, password) = match u.colon {
            Some(c) => (&text[u.start..c], Some(&text[c + 1..u.at])),
            None => (&text[u.start..u.at], None),
        };
        if let Some(p) = password {
            note_credential(p);
        }
        // The user as a client sends it: an escaped `:` in it ends the user
        // name and starts a password (`u%3ATOKEN`).
        let (name, after) = match encoded_colon(user) {
            Some((a, b)) => (&user[..a], Some(&user[b..])),
            None => (user, None),
        };
        if let Some(p) = after {
            note_credential(p);
        }
        if credential_like(name) || credential_like(&percent_decode(name)) {
            note_credential(name);
        }
    }
}

/// Records a URL credential as written ([`note_raw`]) and, when it holds
/// percent escapes, as decoded (`p%40ss` is the password `p@ss`).
fn note_credential(written: &str) {
    note_raw(written);
    let decoded = percent_decode(written);
    if decoded != written {
        note_raw(&decoded);
    }
}

/// The byte range of the first percent escape of `s` that spells `:`
/// (`%3A`, `%3a`).
fn encoded_colon(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    (0..b.len().saturating_sub(2))
        .find(|&i| b[i] == b'%' && b[i + 1] == b'3' && b[i + 2].eq_ignore_ascii_case(&b'a'))
        .map(|i| (i, i + 3))
}

/// `s` with its percent escapes (`%XX`) decoded as `urllib.parse.unquote`
/// decodes them: bytes that are no UTF-8 become U+FFFD, a `%` not followed
/// by two hex digits stays as it is.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push(h << 4 | l);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Records a secret as written (no quote trimming: a URL's password is
/// taken whole), and as `urlsplit` reads it when it holds a tab, CR or LF
/// (removed); short ones are not recorded (a URL masks them by place).
fn note_raw(v: &str) {
    if v.contains(['\t', '\r', '\n']) {
        note_raw(&v.replace(['\t', '\r', '\n'], ""));
    }
    if v.chars().count() < MIN_SECRET_LEN {
        return;
    }
    if let Ok(mut s) = SECRETS.lock()
        && s.insert(v.to_string())
    {
        GENERATION.fetch_add(1, Ordering::SeqCst);
        NOTED.fetch_add(1, Ordering::SeqCst);
    }
}

/// The byte ranges of the URL userinfos of `text` ([`url_userinfos`]):
/// masked by where they are, whatever their length, in every value, excerpt
/// and the final backstop.
fn userinfo_ranges(text: &str, strict: bool) -> impl Iterator<Item = (usize, usize)> {
    url_userinfos(text, strict)
        .into_iter()
        .map(|u| (u.start, u.at))
}

/// Records the secrets of a command's words: the word after a secret option,
/// or the value of `--option=value`; `NAME=value` words of secret variables.
pub fn note_words(words: &[&str]) {
    for (i, w) in words.iter().enumerate() {
        note_urls(w);
        note_http_credentials(w, &w.to_ascii_lowercase());
        if let Some((k, v)) = w.split_once('=') {
            if is_secret_option(k) || (!k.starts_with('-') && is_secret_env(k)) {
                note(v);
            }
        } else if is_secret_option(w)
            && let Some(next) = words.get(i + 1)
        {
            note(next);
        }
    }
}

/// Records the secrets written in a text: `--secret-option VALUE`,
/// `--secret-option=VALUE`, `SECRET_VAR=VALUE`, and `secret-key: VALUE` in
/// YAML or JSON (also `secret-key: !!tag &anchor VALUE`), and a secret key's
/// value written over several lines (`multiline`: block scalars, continued
/// and quoted scalars, flow collections, aliases, environment lists).
pub fn note_text(text: &str) {
    static PATTERNS: OnceLock<Vec<regex::Regex>> = OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        [
            // An option and its value (`=`, spaces, or a line continuation).
            r#"(?:^|[\s"'=(\[])(-{1,2}[A-Za-z][A-Za-z0-9_.-]*)(?:=|(?:[ \t]|\\\r?\n)+)("[^"\n]*"|'[^'\n]*'|[^\s"'\\;|&)]+)"#,
            // An environment assignment.
            r#"\b([A-Za-z_][A-Za-z0-9_]*)=("[^"\n]*"|'[^'\n]*'|[^\s"'\\;|&)]+)"#,
            // A YAML / JSON key and its value, after the value's tag and
            // anchor if any (`!!int`, `!<tag:yaml.org,2002:str>`, `&a`). A
            // value starting with `{` or `[` is a flow collection, whose
            // own keys are matched next (`overrides: {hf_token: VALUE}`).
            r#"["']?([A-Za-z0-9_-]+)["']?[ \t]*:[ \t]*(?:(?:!<[^>\s]*>|[!&][^\s,}\]]*)[ \t]+)*("[^"\n]*"|'[^'\n]*'|[^\s,}\]#{\[][^\s,}\]#]*)"#,
        ]
        .iter()
        .map(|p| regex::Regex::new(p).expect("valid secret pattern"))
        .collect()
    });
    // Credentials in URLs, whatever names them.
    note_urls(text);
    // Cheap test first: most texts name no secret at all.
    let lower = text.to_ascii_lowercase();
    note_http_credentials(text, &lower);
    let names_secret = SEGMENTS.iter().any(|w| lower.contains(w)) || lower.contains("key");
    // Values written over several lines (YAML blocks, continued scalars,
    // flow collections, aliases, environment lists), and URLs folded over
    // lines.
    if names_secret || text.contains("//") {
        multiline::note_multiline(text);
    }
    if !names_secret {
        return;
    }
    for (k, re) in patterns.iter().enumerate() {
        for c in re.captures_iter(text) {
            let name = &c[1];
            let secret = match k {
                0 => is_secret_option(name),
                1 => is_secret_env(name),
                // A YAML / JSON key: a secret name (`api-key`, `hf_token`);
                // not a bare `key:` (waivers and policy entries name keys).
                _ => is_secret_name(name),
            };
            if secret {
                note(&c[2]);
            }
        }
    }
}

/// Records the credentials of HTTP requests written in a text (`lower` is
/// its lower-case copy, for a cheap test): the credentials of an
/// `Authorization` or `Proxy-Authorization` header after its scheme
/// (`Authorization: Bearer TOKEN`, `Basic ...`, `Token ...`), and the
/// password of curl's `-u`/`--user`/`--proxy-user USER:PASSWORD`. What names
/// them is no secret name, so the patterns of [`note_text`] miss them.
fn note_http_credentials(text: &str, lower: &str) {
    static PATTERNS: OnceLock<[regex::Regex; 2]> = OnceLock::new();
    if !lower.contains("authorization") && !lower.contains("curl") {
        return;
    }
    let [header, user] = PATTERNS.get_or_init(|| {
        [
            r#"(?i)\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|digest|apikey|api-key|key|bot|oauth|negotiate)[ \t]+([^\s"'\\,;}]+)"#,
            r#"(?i)\bcurl\b[^\n;|&]*?[ \t](?:-u|--user|-U|--proxy-user)(?:[ \t]+|=)["']?[^\s"':]*:([^\s"']+)"#,
        ]
        .map(|p| regex::Regex::new(p).expect("valid credential pattern"))
    });
    for re in [header, user] {
        for c in re.captures_iter(text) {
            note(&c[1]);
        }
    }
}

/// Records that bytes `start..end` of the source labelled `label` spell a
/// secret: every excerpt of that source masks them ([`mask_excerpt`]),
/// however the value is quoted or escaped there. No length threshold: a
/// piece of a secret is masked too.
pub fn note_span(label: &str, start: usize, end: usize) {
    if start >= end {
        return;
    }
    if let Ok(mut s) = SPANS.lock()
        && s.entry(label.to_string()).or_default().insert((start, end))
    {
        NOTED.fetch_add(1, Ordering::SeqCst);
    }
}

/// Records a secret word written at bytes `start..end` of the source
/// labelled `label` (whose text is `text`): the word as spelled there (after
/// its first `=` when `after_eq`, for `--api-key=VALUE` and `NAME=VALUE`) and,
/// for each variable the word reads (`$A`, `${B}`), the words assigned to that
/// variable in the same text (`A=...`, `export A=...`): a value built from
/// variables is secret in every piece. One scan per source, however many
/// secret words it holds.
pub fn note_written_word(label: &str, text: &str, start: usize, end: usize, after_eq: bool) {
    let Some(word) = text.get(start..end) else {
        return;
    };
    let from = match word.find('=') {
        Some(i) if after_eq => start + i + 1,
        _ => start,
    };
    note_span(label, from, end);
    static REFS: OnceLock<regex::Regex> = OnceLock::new();
    let refs = REFS.get_or_init(|| {
        regex::Regex::new(r"\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*)").expect("valid regex")
    });
    let names: BTreeSet<&str> = refs
        .captures_iter(&text[from..end])
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    if names.is_empty() {
        return;
    }
    let index = assignments(label, text);
    for name in names {
        for &(a, b) in index.get(name).into_iter().flatten() {
            note_span(label, a, b);
            if let Some(v) = text.get(a..b) {
                note(v);
            }
        }
    }
}

/// The index of a source's shell assignments, by variable: the byte range of
/// each assigned word (`NAME=WORD`, `NAME+=WORD`, also after `export`,
/// `local`, `declare`, `readonly`). Built once per source label.
fn assignments(label: &str, text: &str) -> Arc<Assignments> {
    if let Some(hit) = ASSIGNMENTS.lock().ok().and_then(|c| c.get(label).cloned()) {
        return hit;
    }
    static ASSIGN: OnceLock<regex::Regex> = OnceLock::new();
    let re = ASSIGN.get_or_init(|| {
        regex::Regex::new(r"(?:^|[\s;&|(`])([A-Za-z_][A-Za-z0-9_]*)\+?=").expect("valid regex")
    });
    let mut index: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for c in re.captures_iter(text) {
        let (Some(name), Some(all)) = (c.get(1), c.get(0)) else {
            continue;
        };
        let start = all.end();
        let end = shell_word_end(text, start);
        if end > start {
            index
                .entry(name.as_str().to_string())
                .or_default()
                .push((start, end));
        }
    }
    let index = Arc::new(index);
    if let Ok(mut c) = ASSIGNMENTS.lock() {
        if c.len() >= ASSIGNMENT_CACHE_CAPACITY {
            c.clear();
        }
        c.insert(label.to_string(), index.clone());
    }
    index
}

/// A source's shell assignments: variable -> byte ranges of assigned words.
type Assignments = BTreeMap<String, Vec<(usize, usize)>>;

/// Assignment indexes kept before the cache is emptied (one per source
/// read in a run; a run reads far fewer).
const ASSIGNMENT_CACHE_CAPACITY: usize = 1_024;

/// The assignment index of each source label seen. A label names one text
/// in a run (as [`SPANS`] assumes too); [`forget`] empties both between runs.
static ASSIGNMENTS: Mutex<BTreeMap<String, Arc<Assignments>>> = Mutex::new(BTreeMap::new());

/// Forgets every secret value and secret span recorded so far, and the
/// assignment indexes. The registry is process-wide and only grows: a
/// program that runs many independent evaluations in one process (a fuzzer,
/// a long-lived embedding) calls this between them so it stays bounded. The
/// CLI runs one evaluation per process and never needs it.
pub fn forget() {
    if let Ok(mut s) = SECRETS.lock() {
        s.clear();
        GENERATION.fetch_add(1, Ordering::SeqCst);
    }
    if let Ok(mut s) = SPANS.lock() {
        s.clear();
    }
    if let Ok(mut c) = ASSIGNMENTS.lock() {
        c.clear();
    }
}

/// Where the shell word starting at byte `start` ends: at unquoted blank,
/// `;`, `&`, `|`, `)`, `<`, `>` or a newline; quotes and backslashes as the
/// shell reads them. Linear in the word.
fn shell_word_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = start;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(b'"') if b == b'\\' => i += 1,
            Some(_) => {}
            None => match b {
                b'\\' => i += 1,
                b'"' | b'\'' => quote = Some(b),
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' | b'<' | b'>' => break,
                _ => {}
            },
        }
        i += 1;
    }
    i.min(bytes.len())
}

/// A command line printed as text (a generator's rendered `<pre>`, a
/// composed recipe command) with its secret words masked where they are
/// written, however they are quoted: the word after a secret option, the
/// value of `--secret-option=VALUE` and of `SECRET_VAR=VALUE`. Each value is
/// also recorded ([`note`]) as the shell reads it, so every other output masks
/// it too. Linear in the text.
pub fn mask_command(text: &str) -> String {
    note_urls(text);
    let bytes = text.as_bytes();
    // Raw words: their byte ranges, split at unquoted blanks and newlines
    // (a backslash-newline is a blank).
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'\\' if matches!(bytes.get(i + 1), Some(b'\n')) => i += 2,
            _ => {
                let end = shell_word_end(text, i).max(i + 1).min(bytes.len());
                words.push((i, end));
                i = end;
            }
        }
    }
    let unquote = |w: &str| -> String {
        let mut out = String::with_capacity(w.len());
        let mut quote: Option<char> = None;
        let mut chars = w.chars();
        while let Some(c) = chars.next() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (None, '"' | '\'') => quote = Some(c),
                (None | Some('"'), '\\') => out.extend(chars.next()),
                (_, c) => out.push(c),
            }
        }
        out
    };
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let (a, b) = words[k];
        let word = unquote(&text[a..b]);
        if let Some((name, value)) = word.split_once('=') {
            if is_secret_option(name) || (!name.starts_with('-') && is_secret_env(name)) {
                note(value);
                let eq = text[a..b].find('=').map_or(a, |e| a + e + 1);
                ranges.push((eq, b));
            }
        } else if is_secret_option(&word)
            && let Some(&(c, d)) = words.get(k + 1)
        {
            note(&unquote(&text[c..d]));
            ranges.push((c, d));
            k += 1;
        }
        k += 1;
    }
    // Credentials in URLs, by place.
    ranges.extend(userinfo_ranges(text, false));
    if ranges.is_empty() {
        return text.to_string();
    }
    let mut out = bytes.to_vec();
    for (a, b) in ranges {
        for x in &mut out[a..b] {
            if *x != b'\n' {
                *x = MASK as u8;
            }
        }
    }
    // Whole words are masked, so no character is cut.
    String::from_utf8(out).unwrap_or_else(|_| MASK.to_string().repeat(text.len()))
}

/// Masks the secret spans ([`note_span`]) of the source labelled `label` in
/// `text`, its excerpt starting at byte `offset`, and every piece of a
/// recorded secret value found in it ([`secret_ranges`]). Each masked byte
/// becomes one [`MASK`], so byte offsets into the excerpt (annotations) stay
/// valid.
pub fn mask_excerpt<'a>(label: &str, offset: usize, text: &'a str) -> Cow<'a, str> {
    let end = offset + text.len();
    let mut ranges: Vec<(usize, usize)> = match SPANS.lock() {
        Ok(s) => match s.get(label) {
            Some(r) => r
                .iter()
                .filter(|(a, b)| *a < end && *b > offset)
                .map(|(a, b)| ((*a).max(offset) - offset, (*b).min(end) - offset))
                .collect(),
            None => Vec::new(),
        },
        Err(_) => return Cow::Owned(MASK.to_string().repeat(text.len())),
    };
    ranges.extend(secret_ranges(text));
    if ranges.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    for (mut a, mut b) in ranges {
        // Whole characters: a range is widened to the characters it touches,
        // so what is left is valid UTF-8 of the same length.
        while !text.is_char_boundary(a) {
            a -= 1;
        }
        while !text.is_char_boundary(b) {
            b += 1;
        }
        for x in &mut bytes[a..b] {
            // A newline inside a span (a continued word) stays a newline.
            if *x != b'\n' {
                *x = MASK as u8;
            }
        }
    }
    Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| MASK.to_string().repeat(text.len())))
}

/// A value taken from an input, as a text format (human, Markdown, GitHub)
/// prints it: secrets masked ([`mask_value`]) and then every control
/// character escaped as `\uXXXX`, newline, carriage return and tab included,
/// so a value is always one line of the report and cannot start a line of
/// its own (a workflow command, a forged summary). Called where a value is
/// rendered, BEFORE the format escapes it (`%25`, `\|`, shell quoting), so
/// no format's escaping hides a secret from the masker.
pub fn value(text: &str) -> String {
    escape_value_controls(&mask_value(text))
}

/// A value taken from an input, masked: every recorded secret, and every run
/// of at least [`MIN_SECRET_LEN`] characters that is also a piece of a
/// recorded secret holding a letter and a digit (ASCII case ignored:
/// `${HF_TOKEN#hf_}`, `${HF_TOKEN^^}`),
/// becomes as many [`MASK`]s. JSON output masks its input strings with this
/// before serializing them (serde escapes controls there). Linear in the text.
pub fn mask_value(text: &str) -> String {
    let ranges = secret_ranges(text);
    if ranges.is_empty() {
        return text.to_string();
    }
    let mut hit = vec![false; text.len()];
    for (a, b) in ranges {
        for h in &mut hit[a..b] {
            *h = true;
        }
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        out.push(if hit[i..i + c.len_utf8()].iter().any(|h| *h) {
            MASK
        } else {
            c
        });
    }
    out
}

/// Masks [`mask_value`]'s way the string values of a JSON tree built from
/// inputs, except those under the keys in `vocabulary` (the report's own
/// words: a status, a kind). Object keys are never changed, so the document
/// keeps its shape and always parses.
pub fn mask_json(v: &mut serde_json::Value, vocabulary: &[&str]) {
    match v {
        serde_json::Value::String(s) => {
            let m = mask_value(s);
            if m != *s {
                *s = m;
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| mask_json(x, vocabulary)),
        serde_json::Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if !(vocabulary.contains(&k.as_str()) && x.is_string()) {
                    mask_json(x, vocabulary);
                }
            }
        }
        _ => {}
    }
}

/// Secrets longer than this are masked whole only, not by their pieces (a
/// real credential is far shorter; the piece table stays small).
const MAX_PIECED_SECRET: usize = 4096;

/// What [`secret_ranges`] matches with, built once per set of secrets.
struct Matcher {
    /// The [`GENERATION`] of the secrets it was built from.
    generation: u64,
    /// Whole secrets, as written.
    whole: Option<aho_corasick::AhoCorasick>,
    /// Hashes of every window of [`MIN_SECRET_LEN`] characters (ASCII
    /// lower-cased) of every secret up to [`MAX_PIECED_SECRET`] characters.
    pieces: std::collections::HashSet<u64>,
}

/// A hash of a window of characters, ASCII case folded. A collision masks a
/// few characters too many, never too few.
fn window_hash(chars: &[char]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for c in chars {
        h ^= c.to_ascii_lowercase() as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn matcher() -> Option<Arc<Matcher>> {
    static CACHE: Mutex<Option<Arc<Matcher>>> = Mutex::new(None);
    let secrets = SECRETS.lock().ok()?;
    if secrets.is_empty() {
        return None;
    }
    let mut cache = CACHE.lock().ok()?;
    if let Some(m) = cache
        .as_ref()
        .filter(|m| m.generation == GENERATION.load(Ordering::SeqCst))
    {
        return Some(m.clone());
    }
    let whole = aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .build(secrets.iter())
        .ok();
    let mut pieces = std::collections::HashSet::new();
    for s in secrets.iter() {
        let chars: Vec<char> = s.chars().collect();
        // Pieces of credential-like secrets only (a letter and a digit): a
        // placeholder such as `your_hf_token` would mask option names.
        let credential =
            chars.iter().any(|c| c.is_alphabetic()) && chars.iter().any(|c| c.is_ascii_digit());
        if credential && chars.len() <= MAX_PIECED_SECRET {
            for w in chars.windows(MIN_SECRET_LEN) {
                pieces.insert(window_hash(w));
            }
        }
    }
    let m = Arc::new(Matcher {
        generation: GENERATION.load(Ordering::SeqCst),
        whole,
        pieces,
    });
    *cache = Some(m.clone());
    Some(m)
}

/// The byte ranges of `text` that hold a recorded secret or a piece of one:
/// every whole secret, and every window of [`MIN_SECRET_LEN`] characters
/// that is also a window of a secret, so any run of that many characters or
/// more that a value shares with a secret (a prefix or suffix stripped, a
/// substitution, a slice) is covered. Linear in the text.
pub fn secret_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = userinfo_ranges(text, false).collect();
    let Some(m) = matcher() else {
        return out;
    };
    match &m.whole {
        Some(ac) => out.extend(ac.find_iter(text).map(|x| (x.start(), x.end()))),
        // Too many secrets for an automaton: mask the whole text.
        None => return vec![(0, text.len())],
    }
    if !m.pieces.is_empty() {
        let idx: Vec<(usize, char)> = text.char_indices().collect();
        let chars: Vec<char> = idx.iter().map(|(_, c)| *c).collect();
        for (i, w) in chars.windows(MIN_SECRET_LEN).enumerate() {
            if m.pieces.contains(&window_hash(w)) {
                let end = idx.get(i + MIN_SECRET_LEN).map_or(text.len(), |(b, _)| *b);
                out.push((idx[i].0, end));
            }
        }
    }
    out
}

/// Masks recorded secrets and escapes control characters: the backstop all
/// output goes through where it leaves the process, after the formats have
/// masked each value where they render it ([`value`], [`mask_json`]). It
/// never changes the report's own structure: it masks only a secret that
/// looks like a credential (at least [`MIN_SECRET_LEN`] characters of
/// letters, digits and `-_./+~`, with a letter and a digit), and only where it
/// stands as a whole word (not after `\` or `%`, which would cut an escape),
/// so no quote, colon, comma, line or escape of any format is ever changed.
pub fn sanitize(text: &str) -> String {
    escape_controls(&mask(text))
}

/// Whether a character can be part of a credential-like word.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '+' | '~')
}

/// Whether a secret looks like a credential: the only secrets the
/// final-text backstop ([`sanitize`]) masks.
fn credential_like(s: &str) -> bool {
    s.chars().count() >= MIN_SECRET_LEN
        && s.chars().all(is_word_char)
        && s.chars().any(|c| c.is_ascii_alphabetic())
        && s.chars().any(|c| c.is_ascii_digit())
}

/// The backstop's masking ([`sanitize`]): credential-like secrets standing as
/// whole words, and the userinfo of every URL (`//USER:PASSWORD@`, only
/// characters a userinfo may hold unescaped), each replaced with as many
/// [`MASK`]s. One Aho-Corasick pass: linear in the text and the secrets,
/// however many an input plants.
pub fn mask(text: &str) -> String {
    // URL userinfos (`https://user:TOKEN@host`), by place and whatever their
    // length: the one secret that stands after a `:`.
    let mut ranges: Vec<(usize, usize)> = userinfo_ranges(text, true).collect();
    let secrets: Vec<String> = match SECRETS.lock() {
        Ok(s) => s.iter().filter(|s| credential_like(s)).cloned().collect(),
        Err(_) => return text.to_string(),
    };
    if !secrets.is_empty() {
        let Ok(ac) = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(&secrets)
        else {
            // Too many secrets to build an automaton for: print nothing of the
            // text rather than a secret.
            return "(output withheld: too many secret values to mask)\n".into();
        };
        for m in ac.find_iter(text) {
            let before = text[..m.start()].chars().next_back();
            let after = text[m.end()..].chars().next();
            // A whole percent escape before it (`u%3ATOKEN`, `%2FTOKEN`)
            // ends the word before it: masking cuts no escape there.
            let after_escape = m
                .start()
                .checked_sub(3)
                .and_then(|a| text.get(a..m.start()))
                .is_some_and(|e| {
                    let e = e.as_bytes();
                    e[0] == b'%' && e[1].is_ascii_hexdigit() && e[2].is_ascii_hexdigit()
                });
            let joined_before = !after_escape
                && before.is_some_and(|c| is_word_char(c) || matches!(c, '\\' | '%' | ':'));
            if joined_before || after.is_some_and(is_word_char) {
                continue;
            }
            ranges.push((m.start(), m.end()));
        }
    }
    if ranges.is_empty() {
        return text.to_string();
    }
    ranges.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (a, b) in ranges {
        // Both kinds of range hold ASCII at their ends (a credential-like
        // word; a userinfo after `//` and before `@`): whole characters.
        let a = a.max(last);
        if b <= a {
            continue;
        }
        out.push_str(&text[last..a]);
        out.extend(std::iter::repeat_n(MASK, text[a..b].chars().count()));
        last = b;
    }
    out.push_str(&text[last..]);
    out
}

/// Whether a character must not reach a terminal raw: C0 and C1 controls
/// other than newline and tab, DEL, and the bidirectional overrides and
/// isolates that reorder what a reader sees.
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        // Invisible format characters (Unicode Cf: bidi marks, embeddings,
        // overrides and isolates, zero-width characters, the BOM, tag
        // characters) and the line / paragraph separators: they reorder or
        // hide what a terminal shows.
        || matches!(
            c,
            '\u{00ad}'
                | '\u{061c}'
                | '\u{070f}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{e0001}'
                | '\u{e0020}'..='\u{e007f}'
        )
}

/// Escapes unsafe characters as `\uXXXX`.
pub fn escape_controls(text: &str) -> String {
    escape_with(text, is_unsafe)
}

/// Escapes unsafe characters, newline, carriage return and tab as `\uXXXX`:
/// what an input value may hold in a text format ([`value`]).
fn escape_value_controls(text: &str) -> String {
    escape_with(text, |c| is_unsafe(c) || matches!(c, '\n' | '\r' | '\t'))
}

fn escape_with(text: &str, is_unsafe: impl Fn(char) -> bool) -> String {
    if !text.chars().any(&is_unsafe) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            // As JSON spells it: one `\uXXXX` per UTF-16 unit (a surrogate
            // pair above U+FFFF), so JSON output stays valid and exact.
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for o in [
            "--api-key",
            "--hf-token",
            "--password",
            "--ssl-keyfile-password",
            "-api_key",
        ] {
            assert!(is_secret_option(o), "{o}");
        }
        for o in [
            "--tp",
            "--model-path",
            "--max-tokens",
            "--tokenizer",
            "api-key",
            "--ssl-keyfile",
        ] {
            assert!(!is_secret_option(o), "{o}");
        }
        for e in [
            "HF_TOKEN",
            "OPENAI_API_KEY",
            "DB_PASSWORD",
            "AWS_SECRET",
            "TOKEN",
            "WANDB_KEY",
        ] {
            assert!(is_secret_env(e), "{e}");
        }
        assert!(!is_secret_env("SGLANG_USE_AITER"));
        // What a name ends with says what it holds.
        assert!(!is_secret_env("SGLANG_SIMULATE_ACC_TOKEN_MODE"));
        assert!(!is_secret_env("HF_TOKEN_PATH"));
        assert!(!is_secret_option("--token-file"));
        assert!(is_secret_env("AWS_SECRET_ACCESS_KEY"));
        assert!(!is_secret_env("MAX_TOKENS"));
        assert!(!is_secret_env("KEY") && !is_secret_env("key"));
    }

    #[test]
    fn text_values_are_noted_and_masked() {
        note_text("waivers:\n  - {link: l, key: page_size_x, reason: r}\n");
        note_text(
            "sglang serve --api-key s3cr3t-A --tp 2\nexport HF_TOKEN='hf_abcdef'\napi-key: yamlsecret9\n",
        );
        // HTTP credentials: a header's after its scheme, curl's password.
        note_text("curl -H 'Authorization: Bearer b3arerTok9' -u me:curlPassw9 h\n");
        // A secret key first in a nested flow mapping.
        note_text("hf-overrides: {hf_token: fl0wfirst9}\n");
        note_words(&[
            "vllm",
            "serve",
            "--hf-token=tok_12345",
            "--token",
            "spaced_1234",
        ]);
        let out = mask_value(
            "page_size_x a s3cr3t-A b hf_abcdef c yamlsecret9 d tok_12345 e spaced_1234 f fl0wfirst9 g b3arerTok9 h curlPassw9 --tp 2",
        );
        assert_eq!(
            out,
            "page_size_x a ******** b ********* c *********** d ********* e *********** f ********** g ********** h ********** --tp 2"
        );
    }

    /// A YAML value's tag and anchor are not the value: the value after
    /// them is the secret, whatever the tag makes of it.
    #[test]
    fn tagged_yaml_values_are_noted() {
        note_text(
            "hf-token: !!int tagged_tok_1
api-key: &a !<tag:yaml.org,2002:str> tagged_tok_2
{hf_token: !!binary tagged_tok_3}
",
        );
        assert_eq!(
            mask_value("tagged_tok_1 tagged_tok_2 tagged_tok_3 !!binary"),
            "************ ************ ************ !!binary"
        );
    }

    /// Prose and non-secret settings are not taken for secrets: an option
    /// inside a word (`one-token requests`), a mode named `..._TOKEN_MODE`,
    /// and placeholders shorter than [`MIN_SECRET_LEN`].
    #[test]
    fn prose_and_placeholders_are_not_secrets() {
        note_text(
            "# issue this many additional one-token requests; per-token defaults\nSGLANG_SIMULATE_ACC_TOKEN_MODE=real-draft-token\nOPENAI_API_KEY=dummy\n",
        );
        let text = "--max-running-requests default real-draft-token dummy";
        assert_eq!(value(text), text);
    }

    #[test]
    fn written_words_and_the_variables_they_read_are_masked_in_excerpts() {
        let text = "A=sk-ab; B=\"cd ef\"\nrun --api-key \"$A${B}\" --api-k=x\\-yz --tp 2\n";
        let word = text.find("\"$A").unwrap();
        note_written_word("unit.sh", text, word, word + 8, false);
        let eq = text.find("--api-k=").unwrap();
        note_written_word("unit.sh", text, eq, eq + 13, true);
        let masked = mask_excerpt("unit.sh", 0, text);
        assert_eq!(
            masked,
            "A=*****; B=*******\nrun --api-key ******** --api-k=***** --tp 2\n"
        );
        // An excerpt of a line: offsets are the source's.
        let line2 = text.find("run").unwrap();
        assert_eq!(
            mask_excerpt("unit.sh", line2, &text[line2..line2 + 22]),
            "run --api-key ********"
        );
        // Another source is untouched; a multi-byte character is masked whole.
        assert_eq!(mask_excerpt("other.sh", 0, "A=sk-ab"), "A=sk-ab");
        note_span("utf.sh", 1, 2);
        assert_eq!(mask_excerpt("utf.sh", 0, "aéb"), "a**b");
    }

    #[test]
    fn command_text_masks_secret_words_as_written() {
        let text = "vllm serve m --api-key sk-\"Mq\"Rt7vWx9 \\\n  --hf-token='a b c d e f' HF_TOKEN=x\\y12345678 --tp 2";
        assert_eq!(
            mask_command(text),
            "vllm serve m --api-key ************** \\\n  --hf-token=************* HF_TOKEN=*********** --tp 2"
        );
        // The values as the shell reads them are masked everywhere.
        assert_eq!(
            value("sk-MqRt7vWx9 a b c d e f"),
            "************ ***********"
        );
    }

    /// A value derived from a secret (a prefix or suffix stripped, a
    /// substitution, upper-cased) is masked in every piece of at least
    /// [`MIN_SECRET_LEN`] characters it shares with the secret; newlines in
    /// a value are escaped.
    #[test]
    fn values_mask_pieces_of_secrets_and_stay_on_one_line() {
        note("hf_Derived9876543210");
        assert_eq!(
            value("Derived98765 HF_DERIVED9876 x\n::error"),
            "************ ************** x\\u000a::error"
        );
        // Seven characters in common are not a piece.
        assert_eq!(value("Derived"), "Derived");
    }

    /// The backstop never touches the report's own text: only
    /// credential-like secrets, as whole words, not after `\\` or `%`.
    #[test]
    fn the_backstop_masks_whole_credential_words_only() {
        note("::error file");
        note("MAJOR drift");
        note("schema_version\": 1");
        note("u0001abcd1234");
        note("tok9Backstop");
        let text = "::error file=a\n1 with MAJOR drift\n{\"schema_version\": 1, \"a\": \"\\u0001abcd1234\"}\ntok9Backstop %tok9Backstop";
        assert_eq!(
            sanitize(text),
            text.replacen("tok9Backstop", "************", 1)
        );
    }

    /// JSON trees: input strings masked, keys and the report's words kept.
    #[test]
    fn json_trees_mask_values_not_keys_or_vocabulary() {
        note("contradicts-and-more");
        note("jsonSecret42xyz");
        let mut v = serde_json::json!({
            "kind": "contradicts-and-more",
            "jsonSecret42xyz": ["a jsonSecret42xyz b", {"docs": "contradicts-and-more"}],
        });
        mask_json(&mut v, &["kind"]);
        assert_eq!(
            v,
            serde_json::json!({
                "kind": "contradicts-and-more",
                "jsonSecret42xyz": ["a *************** b", {"docs": "********************"}],
            })
        );
    }

    /// A URL's userinfo is a secret wherever it is and whatever names the
    /// URL: found as `urlsplit` finds it, masked by place (any length) in
    /// values, excerpts, commands and the backstop, and its password
    /// recorded so it is masked where it appears alone.
    #[test]
    fn url_userinfo_is_masked_by_place_and_recorded() {
        let t = "PIP_INDEX_URL=https://user:Pw9UrlSecret@host/simple x";
        let u = url_userinfos(t, false);
        assert_eq!(u.len(), 1);
        assert_eq!(&t[u[0].start..u[0].at], "user:Pw9UrlSecret");
        assert_eq!(u[0].colon.map(|c| &t[c + 1..u[0].at]), Some("Pw9UrlSecret"));
        // The last `@` of the authority ends the userinfo; `/`, `?`, `#` end
        // the authority.
        let t = "s3://a:p@ss@h/x@y http://h/p@q?x#y@z";
        let u = url_userinfos(t, false);
        assert_eq!(u.len(), 1);
        assert_eq!(&t[u[0].start..u[0].at], "a:p@ss");
        // A JSON-escaped URL.
        let t = r#"{"u":"https:\/\/me:sh0rt@h\/x"}"#;
        assert_eq!(url_userinfos(t, false).len(), 1);
        assert_eq!(mask_value(t), r#"{"u":"https:\/\/********@h\/x"}"#);
        let t = r#"{"u":"https:\u002f\u002Fme:sh0rt@h\u002fx"}"#;
        assert_eq!(
            mask_value(t),
            r#"{"u":"https:\u002f\u002F********@h\u002fx"}"#
        );
        // `urlsplit` removes a tab, CR or LF before splitting: the password
        // goes on past one (and is recorded without it).
        let t = "https://u:Spl1t\tPassWd@h/ x";
        let u = url_userinfos(t, false);
        assert_eq!(u.len(), 1);
        assert_eq!(&t[u[0].start..u[0].at], "u:Spl1t\tPassWd");
        assert!(url_userinfos(t, true).is_empty());
        note_urls(t);
        assert_eq!(value("Spl1tPassWd"), "***********");
        // Short passwords by place; long ones also alone.
        note_urls("HF_ENDPOINT=https://u:Tok3nInUrl99@hf.example/");
        assert_eq!(
            value("https://u:ab@h Tok3nInUrl99"),
            "https://****@h ************"
        );
        assert_eq!(
            mask_command("vllm serve m --x 'https://u:q1@h/'"),
            "vllm serve m --x 'https://****@h/'"
        );
        // The backstop masks a userinfo after a `:` (which it skips for
        // words), and never a report's punctuation.
        assert_eq!(
            sanitize("a: \"https://u:zz@h\", ::error file=x,line=1::https://h/"),
            "a: \"https://****@h\", ::error file=x,line=1::https://h/"
        );
        assert_eq!(sanitize("\"x//a\",\"b@c\""), "\"x//a\",\"b@c\"");
    }

    /// Percent escapes in a userinfo are read as clients read them: an
    /// escaped `:` in the user starts a password (`u%3ATOKEN` sends
    /// `TOKEN`), and an escaped password is recorded as written and as
    /// decoded, so a text holding the userinfo without its `@` (a model path
    /// cut at its `@revision`) or the decoded credential is masked too.
    #[test]
    fn percent_encoded_userinfo_is_recorded() {
        note_urls("--model-path https://u%3AEnc0dedC0lonTok@h.example");
        note_urls("X=https://u%3aLowerC4seTok9@h/ Y=https://me:p%40ssW0rdEsc9@h/");
        note_urls("Z=//%67hp_Esc4pedUserT0k@h/");
        let m = |s: &str| MASK.to_string().repeat(s.len());
        for (derived, masked) in [
            (
                "path \"https://u%3AEnc0dedC0lonTok\"".to_string(),
                format!("path \"https://u%3A{}\"", m("Enc0dedC0lonTok")),
            ),
            (
                "https://u%3aLowerC4seTok9".into(),
                format!("https://u%3a{}", m("LowerC4seTok9")),
            ),
            (
                "p%40ssW0rdEsc9 p@ssW0rdEsc9".into(),
                format!("{} {}", m("p%40ssW0rdEsc9"), m("p@ssW0rdEsc9")),
            ),
            ("ghp_Esc4pedUserT0k".into(), m("ghp_Esc4pedUserT0k")),
        ] {
            assert_eq!(value(&derived), masked, "{derived}");
        }
        // The backstop masks a recorded credential right after a whole
        // escape (never after a lone `%`, which would cut one).
        assert_eq!(
            sanitize("local path \"https://u%3AEnc0dedC0lonTok\""),
            format!("local path \"https://u%3A{}\"", m("Enc0dedC0lonTok"))
        );
        assert_eq!(percent_decode("a%3Ab%zz%4"), "a:b%zz%4");
    }

    #[test]
    fn controls_are_escaped() {
        assert_eq!(
            escape_controls("a\u{1b}]0;x\u{7}b\r\n\tc\u{202e}"),
            "a\\u001b]0;x\\u0007b\\u000d\n\tc\\u202e"
        );
        // Invisible format characters and separators are escaped too.
        assert_eq!(
            escape_controls("a\u{2028}b\u{061c}c\u{200b}d\u{feff}é"),
            "a\\u2028b\\u061cc\\u200bd\\ufeffé"
        );
        assert_eq!(escape_controls("x\u{e0041}"), "x\\udb40\\udc41");
    }
}
