//! `duplicate-flag`: a generated command that gives one option twice with
//! different values (the engine keeps the last).

use super::{Context, Generator, Hit, Rule, at_state, locate};
use crate::launch::Launch;

/// The same option written twice with different values.
pub struct DuplicateFlag;

impl Rule for DuplicateFlag {
    fn kind(&self) -> &'static str {
        "duplicate-flag"
    }

    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>) {
        for s in &g.states {
            for c in s.printed.iter().flatten().flat_map(|p| &p.launches) {
                for (key, written) in duplicates(&c.launch) {
                    // On the line that writes the last one (the one the
                    // engine keeps), when it is written literally.
                    let last = written.last().map(String::as_str).unwrap_or("");
                    out.push(at_state(
                        self.kind(),
                        g,
                        s,
                        locate::text(cx.bundle, last).unwrap_or_else(|| g.at.clone()),
                        format!(
                            "`{key}` is given twice with different values ({}); the engine keeps the last",
                            written.join(", then ")
                        ),
                    ));
                }
            }
        }
    }
}

/// The options of a launch written more than once with different values, by
/// the key the engine resolves each option string to (`--tp` and
/// `--tp-size` are one): the key and each writing (`--tp 2`), in order. An
/// option's value is the part after `=`, else the next word unless it starts
/// with `-`; option strings the engine does not know are left to
/// `startup-error`.
fn duplicates(launch: &Launch) -> Vec<(String, Vec<String>)> {
    let Some(engine) = crate::engine::by_name(launch.engine.name()) else {
        return vec![];
    };
    let words: Vec<&str> = launch.argv.iter().map(|t| t.text.as_str()).collect();
    let mut seen: Vec<(String, Vec<(String, String)>)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        i += 1;
        if !w.starts_with("--") || w == "--" {
            continue;
        }
        let (name, value) = match w.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (w, None),
        };
        let Ok(key) = engine.key(name) else { continue };
        let value = value.unwrap_or_else(|| match words.get(i) {
            Some(next) if !next.starts_with('-') => {
                i += 1;
                (*next).to_string()
            }
            _ => String::new(),
        });
        let shown = if value.is_empty() {
            name.to_string()
        } else {
            format!("{name} {value}")
        };
        match seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, all)) => all.push((value, shown)),
            None => seen.push((key, vec![(value, shown)])),
        }
    }
    seen.into_iter()
        .filter(|(_, all)| all.iter().any(|(v, _)| *v != all[0].0))
        .map(|(k, all)| (k, all.into_iter().map(|(_, s)| s).collect()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::duplicates;
    use crate::launch::{Engine, Launch};

    fn argv(words: &[&str]) -> Launch {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        Launch::inline(Engine::parse("sglang").unwrap(), &words, &[])
    }

    #[test]
    fn one_key_written_twice_with_two_values_is_found_by_its_key() {
        let found = duplicates(&argv(&["--model-path", "m", "--tp", "2", "--tp-size=4"]));
        assert_eq!(
            found,
            vec![(
                "tp_size".to_string(),
                vec!["--tp 2".into(), "--tp-size 4".into()]
            )]
        );
        // The same value twice, flags without values, unknown options: nothing.
        assert!(duplicates(&argv(&["--tp", "2", "--tp", "2"])).is_empty());
        assert!(duplicates(&argv(&["--trust-remote-code", "--trust-remote-code"])).is_empty());
        assert!(duplicates(&argv(&["--bogus", "1", "--bogus", "2"])).is_empty());
    }
}
