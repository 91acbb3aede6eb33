//! `startup-error` and `no-effect` on generated commands: what the engine
//! release makes of each launch a state prints.

use super::no_command::placeholder_in;
use super::{Context, Generator, Hit, Rule, at_state, locate};
use crate::span::Span;

/// The text a span covers in its source.
fn spanned(span: &Span) -> &str {
    span.source().text().get(span.start..span.end).unwrap_or("")
}
use crate::finding::STARTUP_ERROR;

/// The finding's words for a parser's refusal: its message without the
/// advice meant for `check`'s links, the release it used when none was
/// given, and the fill-in placeholders (`<node-rank>`) a shell reads as
/// redirections, which is what the parser saw.
fn refusal(engine: &str, message: &str, text: &str) -> String {
    let (message, newest) = match message.split_once("; no engine version was given") {
        Some((m, _)) => (
            m,
            "; no release was given, so the newest bundled one was used (give --engine-version)",
        ),
        None => (message, ""),
    };
    let fill_ins = fill_ins(text);
    let shell = if fill_ins.is_empty() {
        String::new()
    } else {
        format!(
            " (a shell reads the fill-in placeholder{} {} as redirection{}, and so does recipe-drift)",
            if fill_ins.len() == 1 { "" } else { "s" },
            fill_ins.join(", "),
            if fill_ins.len() == 1 { "" } else { "s" },
        )
    };
    format!("the {engine} parser refuses the command{shell}: {message}{newest}")
}

/// The `<word>` fill-in placeholders of a command text, each once, in order.
fn fill_ins(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let Some(end) = rest.find('>') else { break };
        let word = &rest[..end];
        if word.starts_with(|c: char| c.is_ascii_alphabetic())
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            let shown = format!("`<{word}>`");
            if !out.contains(&shown) {
                out.push(shown);
            }
        }
    }
    out
}

/// A command the release would refuse: its parser's error, or a startup check
/// (a rule of `rules.yaml`) that fails.
pub struct StartupError;

impl Rule for StartupError {
    fn kind(&self) -> &'static str {
        STARTUP_ERROR
    }

    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        for s in &g.states {
            for c in s.printed.iter().flatten().flat_map(|p| &p.launches) {
                let engine = c.launch.engine.name();
                match &c.resolved {
                    // Placeholder text is `no-command`'s finding; the refusal
                    // it causes says nothing more.
                    Err(_) if placeholder_in(&c.launch.source.text).is_some() => {}
                    // Placed on the generator's line that writes the word
                    // the parser refused, when it is written literally.
                    Err(e) => out.push(at_state(
                        self.kind(),
                        g,
                        s,
                        e.span()
                            .and_then(|sp| locate::text(cx.bundle, spanned(sp)))
                            .unwrap_or_else(|| g.at.clone()),
                        refusal(engine, e.message(), &c.launch.source.text),
                    )),
                    Ok(r) => {
                        for e in &r.startup_errors {
                            out.push(at_state(
                                self.kind(),
                                g,
                                s,
                                g.at.clone(),
                                format!(
                                    "{engine} {} would not start: {} (rule {})",
                                    r.version, e.message, e.rule
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// A generated command that may run a release newer than every bundled one
/// (it asks for one, or runs a `latest` image), and each word the newest
/// bundled release does not know, set aside rather than refused.
pub struct NewerRelease;

impl Rule for NewerRelease {
    fn kind(&self) -> &'static str {
        crate::finding::NEWER_RELEASE
    }

    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        for s in &g.states {
            for c in s.printed.iter().flatten().flat_map(|p| &p.launches) {
                let Ok(r) = &c.resolved else { continue };
                for n in &r.newer {
                    let at = n
                        .words
                        .as_deref()
                        .and_then(|w| locate::text(cx.bundle, w))
                        .unwrap_or_else(|| g.at.clone());
                    out.push(at_state(self.kind(), g, s, at, n.sentence.clone()));
                }
            }
        }
    }
}

/// A setting the release does not read (an env var that is gone).
pub struct NoEffect;

impl Rule for NoEffect {
    fn kind(&self) -> &'static str {
        "no-effect"
    }

    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        for s in &g.states {
            for c in s.printed.iter().flatten().flat_map(|p| &p.launches) {
                let Ok(r) = &c.resolved else { continue };
                for e in &r.no_effect {
                    let why = &e.why;
                    let written = e.written.as_deref().unwrap_or(&e.key);
                    let name = written.split('=').next().unwrap_or(written);
                    out.push(at_state(
                        self.kind(),
                        g,
                        s,
                        locate::text(cx.bundle, name).unwrap_or_else(|| g.at.clone()),
                        format!(
                            "`{written}` has no effect in {} {}: {why}",
                            c.launch.engine.name(),
                            r.version
                        ),
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{fill_ins, refusal};

    #[test]
    fn a_refusal_names_the_fill_ins_and_the_release_used() {
        assert_eq!(
            fill_ins("--node-rank <node-rank> --dist-init-addr <head-node-ip>:20000 a<b c>"),
            vec!["`<node-rank>`".to_string(), "`<head-node-ip>`".to_string()]
        );
        let m = refusal(
            "sglang",
            "sglang 0.5.23: argument --node-rank: expected one argument; no engine version was given, so the newest bundled release 0.5.23 was used: give --engine-version, or engine-version: on a config link",
            "sglang serve --node-rank <node-rank>",
        );
        assert_eq!(
            m,
            "the sglang parser refuses the command (a shell reads the fill-in placeholder `<node-rank>` as redirection, and so does recipe-drift): sglang 0.5.23: argument --node-rank: expected one argument; no release was given, so the newest bundled one was used (give --engine-version)"
        );
    }
}
