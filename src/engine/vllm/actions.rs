//! vLLM's own argparse actions, plugged into the shared argparse.

use serde_json::Value;

use crate::engine::argparse::{ActionError, CustomAction, OptionSpec};

/// The actions, by the name the schemas give them (`v1` splits `name=path` at
/// every `=`, as older releases did).
pub(super) const ACTIONS: &[(&str, CustomAction)] = &[
    ("lora_modules_v1", |a, v| {
        lora_modules(a, v, true).map_err(ActionError::Fatal)
    }),
    ("lora_modules_v2", |a, v| {
        lora_modules(a, v, false).map_err(ActionError::Fatal)
    }),
];

/// vLLM `LoRAParserAction`: `name=path` values and JSON objects become
/// `LoRAModulePath` dataclasses (`{"$dataclass", "fields"}`), in order.
fn lora_modules(a: &OptionSpec, value: Value, split_every: bool) -> Result<Value, String> {
    let params = a.extra.get("type_params");
    let class = params
        .and_then(|p| p.get("class"))
        .and_then(Value::as_str)
        .unwrap_or("LoRAModulePath")
        .to_string();
    let fields: Vec<Value> = params
        .and_then(|p| p.get("fields"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let make = |given: serde_json::Map<String, Value>, raw: &str| -> Result<Value, String> {
        let mut out = serde_json::Map::new();
        for k in given.keys() {
            if !fields
                .iter()
                .any(|f| f.get("name").and_then(Value::as_str) == Some(k))
            {
                return Err(format!(
                    "Invalid fields for --lora-modules: {raw} - {class}.__init__() got an unexpected keyword argument '{k}'"
                ));
            }
        }
        for f in &fields {
            let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
            match (given.get(name), f.get("default")) {
                (Some(v), _) => out.insert(name.to_string(), v.clone()),
                (None, Some(d)) => out.insert(name.to_string(), d.clone()),
                (None, None) => {
                    return Err(format!(
                        "Invalid fields for --lora-modules: {raw} - {class}.__init__() missing 1 required positional argument: '{name}'"
                    ));
                }
            };
        }
        Ok(serde_json::json!({"$dataclass": class, "fields": out}))
    };
    let items = match value {
        Value::Array(a) => a,
        other => vec![other],
    };
    let mut out = Vec::new();
    for item in items {
        let Some(s) = item.as_str() else { continue };
        if s.is_empty() {
            continue;
        }
        if s.contains('=') && !s.contains(',') {
            let (name, path) = if split_every {
                let parts: Vec<&str> = s.split('=').collect();
                if parts.len() != 2 {
                    return Err("ValueError: too many values to unpack (expected 2)".into());
                }
                (parts[0], parts[1])
            } else {
                s.split_once('=').expect("has =")
            };
            let mut m = serde_json::Map::new();
            m.insert("name".into(), Value::String(name.into()));
            m.insert("path".into(), Value::String(path.into()));
            out.push(make(m, s)?);
            continue;
        }
        let parsed: Value = serde_json::from_str(s.trim_matches([' ', '\t', '\n', '\r']))
            .map_err(|_| format!("Invalid JSON format for --lora-modules: {s}"))?;
        let Value::Object(m) = parsed else {
            return Err(format!(
                "Invalid fields for --lora-modules: {s} - argument after ** must be a mapping"
            ));
        };
        out.push(make(m, s)?);
    }
    Ok(Value::Array(out))
}
