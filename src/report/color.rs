//! Colour for people (`--color auto|always|never`, `NO_COLOR`): applied to
//! the final text AFTER the output filter (`crate::secret::sanitize`), and
//! only to the report's own words at known places (a line's level word, a
//! link's status, the `-->` gutter). Input text is never coloured and can
//! never carry an escape sequence (the filter escaped them all), so colour
//! cannot be forged or broken by what a file holds.

use std::io::IsTerminal;

/// When to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// When standard output is a terminal, `TERM` is not `dumb` and
    /// `NO_COLOR` is not set (the default).
    #[default]
    Auto,
    /// Always (`NO_COLOR` too).
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour standard output.
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
                    && std::io::stdout().is_terminal()
            }
        }
    }
}

const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[1;33m";
const CYAN: &str = "\x1b[1;36m";
const GREEN: &str = "\x1b[1;32m";
const BLUE: &str = "\x1b[1;34m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// Level words at a line's start (after indentation), with their colour.
const LEVELS: &[(&str, &str)] = &[
    ("error", RED),
    ("warning", YELLOW),
    ("note", CYAN),
    ("help", CYAN),
];

/// Link statuses (`link: NAME  [drift]`), with their colour.
const STATUSES: &[(&str, &str)] = &[
    ("[drift]", RED),
    ("[error]", RED),
    ("[unknown]", YELLOW),
    ("[ok]", GREEN),
    ("[skipped]", CYAN),
];

/// Colours the report's own words in `text` (human or concise output that
/// has been through the output filter).
pub fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.split_inclusive('\n') {
        out.push_str(&paint_line(line));
    }
    out
}

fn paint_line(line: &str) -> String {
    let body = line.trim_start_matches(' ');
    let indent = &line[..line.len() - body.len()];
    // `error: ...`, `error[RD001 contradicts] ...`, `  warning: ...`.
    for (word, color) in LEVELS {
        if let Some(rest) = body.strip_prefix(word)
            && (rest.starts_with(':') || rest.starts_with('['))
        {
            let (tag, tail) = match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
                Some((inside, tail)) => (format!("[{inside}]"), tail),
                None => (String::new(), rest),
            };
            return format!("{indent}{color}{word}{tag}{RESET}{tail}");
        }
    }
    // `link: NAME  [status]` (the status is the line's last word).
    if let Some(rest) = body.strip_prefix("link: ") {
        let trimmed = rest.trim_end_matches('\n');
        for (status, color) in STATUSES {
            if let Some(name) = trimmed.strip_suffix(status) {
                let nl = &rest[trimmed.len()..];
                return format!("{indent}{BOLD}link:{RESET} {name}{color}{status}{RESET}{nl}");
            }
        }
    }
    // The location gutter of an excerpt.
    if let Some(rest) = body.strip_prefix("--> ") {
        return format!("{indent}{BLUE}-->{RESET} {rest}");
    }
    // A concise line: `PLACE: level[ID KIND] ...`.
    for (word, color) in LEVELS {
        let needle = format!(": {word}[");
        if let Some(at) = line.find(&needle)
            && let Some(end) = line[at..].find(']')
        {
            let start = at + 2;
            let stop = at + end + 1;
            return format!(
                "{}{color}{}{RESET}{}",
                &line[..start],
                &line[start..stop],
                &line[stop..]
            );
        }
    }
    line.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_reports_words_are_coloured() {
        let text = "link: a [drift]  [drift]\nerror: [contradicts] tp_size differs\n --> d.md:1:2\n  = docs error: x\nf.md:1:1: error[RD001 contradicts] x\nplain line\n";
        let painted = paint(text);
        assert_eq!(
            painted,
            "\x1b[1mlink:\x1b[0m a [drift]  \x1b[1;31m[drift]\x1b[0m\n\x1b[1;31merror\x1b[0m: [contradicts] tp_size differs\n \x1b[1;34m-->\x1b[0m d.md:1:2\n  = docs error: x\nf.md:1:1: \x1b[1;31merror[RD001 contradicts]\x1b[0m x\nplain line\n"
        );
        // Without colour codes it is the same text.
        let stripped = painted
            .replace(RED, "")
            .replace(BOLD, "")
            .replace(BLUE, "")
            .replace(RESET, "");
        assert_eq!(stripped, text);
    }

    #[test]
    fn never_and_always_do_not_look_at_the_terminal() {
        assert!(ColorChoice::Always.enabled());
        assert!(!ColorChoice::Never.enabled());
    }
}
