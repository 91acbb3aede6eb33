//! `dead-option`: an option whose every value prints the same commands.

use std::collections::BTreeMap;

use super::{Context, Generator, Hit, Rule, locate};

/// An option that changes nothing a reader copies.
pub struct DeadOption;

impl Rule for DeadOption {
    fn kind(&self) -> &'static str {
        "dead-option"
    }

    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        let mut keys: Vec<&str> = Vec::new();
        for s in &g.states {
            for (k, _) in &s.view.selection {
                if !keys.contains(&k.as_str()) {
                    keys.push(k);
                }
            }
        }
        for key in keys {
            if let Some(values) = dead(g, key) {
                out.push(Hit {
                    kind: self.kind(),
                    at: locate::option(cx.bundle, key).unwrap_or_else(|| g.at.clone()),
                    generator: g.name.clone(),
                    message: format!(
                        "option `{key}` changes nothing: every value ({}) prints the same commands",
                        values.join(", ")
                    ),
                    states: vec![],
                });
            }
        }
    }
}

/// The rest of a state's selection (every option but one).
type Rest<'a> = Vec<(&'a str, &'a str)>;

/// A state's value of the option and its printed commands.
type Member<'a> = (&'a str, &'a Vec<String>);

/// The values of `key` when it is dead: the states that show it, grouped by
/// the rest of their selection, print the same commands within each group,
/// and some group holds two of its values. `None` otherwise.
fn dead(g: &Generator, key: &str) -> Option<Vec<String>> {
    // Rest of the selection -> (value, commands) of each state showing `key`.
    let mut groups: BTreeMap<Rest<'_>, Vec<Member<'_>>> = BTreeMap::new();
    let mut values: Vec<String> = Vec::new();
    for s in &g.states {
        let Some((_, value)) = s.view.selection.iter().find(|(k, _)| k == key) else {
            continue;
        };
        if !values.contains(value) {
            values.push(value.clone());
        }
        let rest: Rest<'_> = s
            .view
            .selection
            .iter()
            .filter(|(k, _)| k != key)
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        groups
            .entry(rest)
            .or_default()
            .push((value.as_str(), &s.view.commands));
    }
    let mut compared = false;
    for members in groups.values() {
        let first = members[0].1;
        if members.iter().any(|(_, c)| *c != first) {
            return None;
        }
        compared |= members.iter().any(|(v, _)| *v != members[0].0);
    }
    (compared && values.len() > 1).then_some(values)
}
