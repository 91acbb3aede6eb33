//! `broken-continuation`: a generated command whose `\` continuation sits
//! inside a `#` comment, so bash ends the command at the comment and runs the
//! next line on its own. The launch is read as bash runs it (the extractor
//! records the defect); this rule reports it on the generator's line.

use super::{Context, Generator, Hit, Rule, at_state, locate};

/// A `#` comment that swallows the command's continuation.
pub struct BrokenContinuation;

impl Rule for BrokenContinuation {
    fn kind(&self) -> &'static str {
        crate::launch::BROKEN_CONTINUATION
    }

    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        for s in &g.states {
            for c in s.printed.iter().flatten().flat_map(|p| &p.launches) {
                for d in c.launch.defects.iter().filter(|d| d.kind == self.kind()) {
                    // The comment as printed, placed on the generator line
                    // that writes it when it is written literally.
                    let comment = d
                        .span
                        .source()
                        .text()
                        .get(d.span.start..d.span.end)
                        .unwrap_or("")
                        .trim_end()
                        .trim_end_matches('\\')
                        .trim();
                    out.push(at_state(
                        self.kind(),
                        g,
                        s,
                        locate::text(cx.bundle, comment).unwrap_or_else(|| g.at.clone()),
                        format!("`{comment}`: {}", d.message),
                    ));
                }
            }
        }
    }
}
