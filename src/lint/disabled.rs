//! `disabled-selected` and `disabled-no-reason`: what the controls of each
//! state show (needs the explorer's per-state controls).

use super::{Context, Generator, Hit, Needs, Rule, at_state, locate};

/// A state whose selection keeps an item that is disabled in it.
pub struct DisabledSelected;

impl Rule for DisabledSelected {
    fn kind(&self) -> &'static str {
        "disabled-selected"
    }

    fn needs(&self) -> Needs {
        Needs::Controls
    }

    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        for s in &g.states {
            for c in s.controls.iter().flatten() {
                let Some(sel) = &c.selected else { continue };
                let Some(item) = c.items.iter().find(|i| &i.value == sel && i.disabled) else {
                    continue;
                };
                let why = if item.reason.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", item.reason)
                };
                let after = match s.view.path.last() {
                    Some((_, v)) => format!(" after the click on `{v}`"),
                    None => String::new(),
                };
                out.push(at_state(
                    self.kind(),
                    g,
                    s,
                    locate::item(cx.bundle, &item.value).unwrap_or_else(|| g.at.clone()),
                    format!(
                        "`{}={}` stays selected{after} while it is disabled{why}",
                        c.key, item.value
                    ),
                ));
            }
        }
    }
}

/// A disabled item that says nothing about why.
pub struct DisabledNoReason;

impl Rule for DisabledNoReason {
    fn kind(&self) -> &'static str {
        "disabled-no-reason"
    }

    fn needs(&self) -> Needs {
        Needs::Controls
    }

    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        for s in &g.states {
            for c in s.controls.iter().flatten() {
                for item in c.items.iter().filter(|i| i.disabled && i.reason.is_empty()) {
                    out.push(at_state(
                        self.kind(),
                        g,
                        s,
                        locate::item(cx.bundle, &item.value).unwrap_or_else(|| g.at.clone()),
                        format!(
                            "`{}={}` is disabled with no reason given",
                            c.key, item.value
                        ),
                    ));
                }
            }
        }
    }
}
