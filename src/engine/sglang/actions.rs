//! SGLang's own argparse actions, plugged into the shared argparse.

use serde_json::Value;

use crate::engine::argparse::{ActionError, CustomAction, OptionSpec};

/// The actions, by the name the schemas give them.
pub(super) const ACTIONS: &[(&str, CustomAction)] = &[("lora_paths", lora_paths_action)];

fn lora_paths_action(_: &OptionSpec, value: Value) -> Result<Value, ActionError> {
    lora_paths(value).map_err(ActionError::Value)
}

/// SGLang `LoRAPathAction`: `name=path`-free strings or `{"lora_name", "lora_path"}` objects.
fn lora_paths(value: Value) -> Result<Value, String> {
    let items = match value {
        Value::Array(a) => a,
        other => vec![other],
    };
    let mut out = Vec::new();
    for v in items {
        let s = v.as_str().unwrap_or_default().trim().to_string();
        if s.starts_with('{') && s.ends_with('}') {
            let obj: Value =
                serde_json::from_str(&s).map_err(|e| format!("invalid LoRA JSON {s:?}: {e}"))?;
            if obj.get("lora_path").is_none() || obj.get("lora_name").is_none() {
                return Err(format!("LoRA JSON {s:?} needs lora_name and lora_path"));
            }
            out.push(obj);
        } else {
            out.push(Value::String(s));
        }
    }
    Ok(Value::Array(out))
}
