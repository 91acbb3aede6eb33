//! Shell forms of page blocks and command files that are not commands:
//! heredocs and here-strings (the command's stdin), docs placeholders
//! (`<your-token>`) and a `\` continuation a `#` comment swallowed, read by
//! the plain lexer.

use std::sync::Arc;

use super::{Lexer, ShellState, Word};
use crate::error::Error;
use crate::span::Source;

/// Programs that run a heredoc's body as code.
const INTERPRETERS: &[&str] = &[
    "bash", "sh", "zsh", "dash", "ksh", "fish", "eval", "source", ".", "exec", "env", "sudo",
    "xargs", "perl", "ruby", "node", "docker", "kubectl", "ssh", "srun",
];

impl Lexer<'_> {
    /// A here-string (`<<< word`: the word is stdin, not an argument) or a
    /// heredoc (`<<EOF`, `<<-'EOF'`): its body, after the line's end, is the
    /// command's stdin and is skipped there. A heredoc whose command is a
    /// shell or an interpreter, or is piped on (`cat <<EOF | bash`), would
    /// run its body: that is not evaluated here (exit 2), since a serve
    /// command inside it would be missed.
    pub(super) fn heredoc(&mut self, words: &[Word], vars: &ShellState) -> Result<(), Error> {
        let at = self.pos;
        if self.text[self.pos..].starts_with("<<<") {
            for _ in 0..3 {
                self.bump();
            }
            self.skip_blanks();
            if matches!(self.peek(), None | Some('\n' | ';' | '&' | '|')) {
                return Err(self.error(at, "a here-string with no word"));
            }
            self.word(vars, false)?;
            return Ok(());
        }
        self.bump();
        self.bump();
        let dash = self.peek() == Some('-');
        if dash {
            self.bump();
        }
        self.skip_blanks();
        let mut delimiter = String::new();
        while let Some(c) = self.peek() {
            if c.is_whitespace() || ";&|<>()".contains(c) {
                break;
            }
            self.bump();
            if !matches!(c, '\'' | '"' | '\\') {
                delimiter.push(c);
            }
        }
        if delimiter.is_empty() {
            return Err(self.error(at, "a heredoc with no delimiter"));
        }
        let program = words
            .iter()
            .find(|w| w.assignment.is_none())
            .map(|w| w.text.rsplit('/').next().unwrap_or(&w.text).to_string());
        let line_rest = self.text[self.pos..].split('\n').next().unwrap_or("");
        let runs_body = match &program {
            None => true,
            Some(p) => INTERPRETERS.contains(&p.as_str()) || p.starts_with("python"),
        };
        if runs_body || line_rest.contains('|') {
            return Err(self.error(
                at,
                "a heredoc that a shell or an interpreter may run (its command, or a pipe after it) is not evaluated by plain-command extraction",
            ));
        }
        self.heredocs.push((delimiter, dash));
        Ok(())
    }

    /// Past the bodies of the heredocs met on the line just ended: each ends
    /// at a line that is its delimiter (tabs before it stripped for `<<-`),
    /// or at the text's end (bash warns and accepts).
    pub(super) fn skip_heredoc_bodies(&mut self) {
        for (delimiter, dash) in std::mem::take(&mut self.heredocs) {
            while self.peek().is_some() {
                let mut line = String::new();
                while let Some(c) = self.bump() {
                    if c == '\n' {
                        break;
                    }
                    line.push(c);
                }
                let line = line.strip_suffix('\r').unwrap_or(&line);
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

    /// The length of a docs placeholder at the cursor (`<your-token>`,
    /// `<use args below>`): `<`, text with no quote, `$`, backquote, `<`,
    /// `>`, `;`, `&` or `|` on the line, and `>`. Bash would read it as
    /// redirections; a reader fills it in. Without blanks inside, the `>`
    /// ends a word (a blank, the line's end or `;&|)` follows); with blanks
    /// inside, the line's end or `;&|)` must follow, where bash would fail
    /// (`<in.txt >out.txt` and `<a b> c` stay redirections).
    pub(super) fn placeholder_len(&self) -> Option<usize> {
        let rest = self.text[self.pos..].strip_prefix('<')?;
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
            ends_line || matches!(after, Some(' ' | '\t'))
        };
        ok.then_some(close + 2)
    }
}

/// A `\` continuation that a `#` comment swallowed: bash ends the command at
/// the comment (a comment runs to the end of its line, backslash included),
/// and runs the next line, which starts with an option, as a command of its
/// own (one that fails: no program is named `--tp`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Cut {
    /// The `#` that ended the command.
    pub(super) comment: usize,
    /// The first word of the line bash runs on its own.
    pub(super) orphan: usize,
}

/// The defect of a command a comment cut off before its continuation.
pub(super) fn broken_continuation(source: &Arc<Source>, cut: Cut) -> crate::launch::Defect {
    let orphan = source.span(cut.orphan, cut.orphan);
    // The comment, to the end of its line.
    let end = source.text[cut.comment..]
        .find('\n')
        .map_or(source.text.len(), |i| cut.comment + i);
    // The first line bash runs on its own, as written (shortened).
    let line_end = source.text[cut.orphan..]
        .find('\n')
        .map_or(source.text.len(), |i| cut.orphan + i);
    let line = source.text[cut.orphan..line_end]
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
        span: source.span(cut.comment, end),
        message: format!(
            "the `\\` at the end of the `#` comment does not continue the command (a comment runs to the end of its line): bash ends the command there and runs `{}` (at {orphan}) as a command of its own, so the server starts without the options from there on",
            crate::secret::value(&shown)
        ),
        related: vec![orphan],
    }
}
