//! `no-command`: states that print error or placeholder text instead of a
//! serve command. The placeholders are data (`placeholders.yaml`).

use std::sync::OnceLock;

use serde::Deserialize;

use super::{Context, Generator, Hit, Rule, at_state, first_line, locate};

/// A state that prints no serve command, or one holding placeholder text.
pub struct NoCommand;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Placeholder {
    text: String,
    #[serde(default)]
    word: bool,
    why: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    placeholders: Vec<Placeholder>,
}

fn placeholders() -> &'static [Placeholder] {
    static TABLE: OnceLock<Vec<Placeholder>> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_saphyr::from_str::<Table>(include_str!("placeholders.yaml"))
            .expect("bundled placeholders.yaml")
            .placeholders
    })
}

/// The first placeholder in a text, if any.
pub(super) fn placeholder_in(text: &str) -> Option<&'static Placeholder> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    placeholders().iter().find(|p| {
        text.match_indices(p.text.as_str()).any(|(i, m)| {
            !p.word
                || (!text[..i].chars().next_back().is_some_and(is_word)
                    && !text[i + m.len()..].chars().next().is_some_and(is_word))
        })
    })
}

impl Rule for NoCommand {
    fn kind(&self) -> &'static str {
        "no-command"
    }

    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        for s in &g.states {
            let mut launches = 0;
            for (text, printed) in s.view.commands.iter().zip(&s.printed) {
                match printed {
                    Ok(p) => launches += p.launches.len() + p.unsupported.len(),
                    Err(e) => out.push(at_state(
                        self.kind(),
                        g,
                        s,
                        g.at.clone(),
                        format!(
                            "prints text that cannot be read as a command ({}): `{}`",
                            e.message(),
                            first_line(text)
                        ),
                    )),
                }
                if let Some(p) = placeholder_in(text) {
                    out.push(at_state(
                        self.kind(),
                        g,
                        s,
                        g.at.clone(),
                        format!("prints `{}` in its command ({})", p.text, p.why),
                    ));
                }
            }
            if launches == 0 && s.printed.iter().all(Result::is_ok) {
                let text = s.view.commands.iter().find(|c| !c.trim().is_empty());
                let shown = match text {
                    Some(c) => format!(": `{}`", first_line(c)),
                    None => " (no command block)".into(),
                };
                // On the line that writes the text printed, when it is
                // written literally.
                let at = text
                    .and_then(|c| c.trim().lines().next())
                    .and_then(|line| locate::text(cx.bundle, line))
                    .unwrap_or_else(|| g.at.clone());
                out.push(at_state(
                    self.kind(),
                    g,
                    s,
                    at,
                    format!("prints no serve command{shown}"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::placeholder_in;

    #[test]
    fn placeholders_match_whole_words_where_the_table_says() {
        assert_eq!(
            placeholder_in("--model-path undefined").map(|p| p.text.as_str()),
            Some("undefined")
        );
        assert!(placeholder_in("--model-path org/undefined_model").is_none());
        assert!(placeholder_in("--tp NaNo").is_none());
        assert!(placeholder_in("--x [object Object]").is_some());
        // A shell variable is printed on purpose.
        assert!(placeholder_in("--port ${PORT}").is_none());
        assert!(placeholder_in("sglang serve --model-path org/m --tp 2").is_none());
    }
}
