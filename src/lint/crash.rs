//! `generator-crash`: click paths on which the generator throws (from the
//! explorer's crash list).

use super::{Context, Generator, Hit, Needs, Rule};

/// A click path that makes the generator's JavaScript throw.
pub struct GeneratorCrash;

impl Rule for GeneratorCrash {
    fn kind(&self) -> &'static str {
        "generator-crash"
    }

    fn needs(&self) -> Needs {
        Needs::Crashes
    }

    fn check(&self, _: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        for c in g.crashes.iter().flatten() {
            let state: Vec<String> = c.clicks.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let path = if c.click.is_empty() {
                "the initial render".to_string()
            } else if state.is_empty() {
                format!("clicking `{}`", c.click)
            } else {
                format!("clicking `{}` in the state {}", c.click, state.join(", "))
            };
            out.push(Hit {
                kind: self.kind(),
                at: c.at.clone().unwrap_or_else(|| g.at.clone()),
                generator: g.name.clone(),
                message: format!("{path} throws: {}", c.error),
                states: vec![],
            });
        }
    }
}
