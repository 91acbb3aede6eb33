//! `extract --options`: each generator's options, values and defaults, as
//! text or JSON.

use serde_json::{Value, json};

use super::{Format, v};
use crate::extract::jsx::options::{GeneratorOptions, Shown};

/// Renders the options of a file's generators.
pub fn render(generators: &[GeneratorOptions], format: Format) -> String {
    match format {
        Format::Human => human(generators),
        Format::Json => json_doc(generators),
    }
}

fn human(generators: &[GeneratorOptions]) -> String {
    let mut out = String::new();
    for (i, g) in generators.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let n = g.options.len();
        out.push_str(&format!(
            "<{} /> at {}: {n} option{}\n",
            v(&g.name),
            g.at,
            if n == 1 { "" } else { "s" }
        ));
        for o in &g.options {
            let default = o
                .default
                .as_ref()
                .map(|d| format!(" (default {})", v(d)))
                .unwrap_or_default();
            let shown = match &o.shown {
                Shown::Initially => String::new(),
                Shown::After(when) => format!(" [conditional: shown after {}]", v(when)),
                Shown::HiddenAfter(when) => format!(" [conditional: hidden after {}]", v(when)),
            };
            let values = if o.values.is_empty() {
                "free text".to_string()
            } else {
                o.values
                    .iter()
                    .map(|it| {
                        let mut s = v(&it.value);
                        if !it.label.is_empty() && it.label != it.value {
                            s.push_str(&format!(" \"{}\"", v(&it.label)));
                        }
                        if it.disabled {
                            s.push_str(" (disabled)");
                        }
                        s
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push_str(&format!("  {}{default}{shown}: {values}\n", v(&o.key)));
        }
        if let Some(why) = &g.incomplete {
            out.push_str(&format!(
                "  note: options shown only after clicks may be missing: {}\n",
                v(why)
            ));
        }
    }
    out
}

fn json_doc(generators: &[GeneratorOptions]) -> String {
    let gens: Vec<Value> = generators
        .iter()
        .map(|g| {
            json!({
                "name": g.name,
                "file": &*g.at.file,
                "line": g.at.pos.line,
                "col": g.at.pos.col,
                "options": g.options.iter().map(|o| {
                    let (shown, after, hidden) = match &o.shown {
                        Shown::Initially => ("initially", None, None),
                        Shown::HiddenAfter(w) => ("initially", None, Some(w)),
                        Shown::After(w) => ("after-clicks", Some(w), None),
                    };
                    json!({
                        "key": o.key,
                        "default": o.default,
                        "shown": shown,
                        "shown_after": after,
                        "hidden_after": hidden,
                        "values": o.values.iter().map(|it| json!({
                            "value": it.value,
                            "label": it.label,
                            "disabled": it.disabled,
                        })).collect::<Vec<_>>(),
                    })
                }).collect::<Vec<_>>(),
                "incomplete": g.incomplete,
            })
        })
        .collect();
    let mut doc = json!({"schema_version": 1, "generators": gens});
    super::mask_json(&mut doc);
    let mut s = serde_json::to_string_pretty(&doc).expect("plain JSON");
    s.push('\n');
    s
}
