//! Bash's named-descriptor redirections (`exec {fd}>>log`, `{fd}<file`,
//! `{fd}>&-`), which the parser reads as a `{NAME}` word followed by a
//! redirection: they are redirections (the file is written by the
//! redirection itself), and NAME gets the descriptor number bash picks.

use brush_parser::ast;

use super::Interp;
use super::expand::Val;

impl Interp<'_> {
    /// Whether `w` is the `{NAME}` of a named-descriptor redirection; if so,
    /// NAME is set to an unknown descriptor number (a close, `{NAME}>&-`,
    /// reads NAME instead, as bash does).
    pub(super) fn named_fd_word(&mut self, w: &ast::Word, at: usize) -> bool {
        let Some((name, rest)) = self.named_fd(w) else {
            return false;
        };
        if !(rest.starts_with(">&-") || rest.starts_with("<&-")) {
            let line = self.source.line_col(at).line;
            self.st.set_scalar(
                &name,
                Val::Unknown(format!(
                    "${name} is the descriptor number bash picks for the `{{{name}}}` redirection on line {line}, which is not knowable"
                )),
            );
        }
        true
    }

    /// The NAME of a `{NAME}` word written right before a redirection
    /// operator, with the text from there.
    fn named_fd(&self, w: &ast::Word) -> Option<(String, String)> {
        let name = w.value.strip_prefix('{')?.strip_suffix('}')?;
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let end = self.byte(&w.loc.as_ref()?.end);
        let rest = self.source.text.get(end..)?;
        let next = rest.chars().next()?;
        (valid && matches!(next, '>' | '<'))
            .then(|| (name.to_string(), rest.chars().take(3).collect()))
    }
}
