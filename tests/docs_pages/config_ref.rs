//! The config reference (`docs/src/config-reference.md`), from the JSON
//! Schema the binary prints (`docs/config.schema.json`, which tests/config.rs
//! keeps equal to `recipe-drift config-schema`): every field of every part of
//! the config, with its type, default and description.

use std::fmt::Write;

use serde_json::{Map, Value};

use super::yaml;

/// A type's name in the reference: a definition's is a link to its section.
fn type_name(schema: &Value, defs: &Map<String, Value>) -> String {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/$defs/");
        return match defs.get(name) {
            Some(d) if d["properties"].is_object() => {
                format!("[{name}](#{})", name.to_lowercase())
            }
            Some(d) => type_name(d, defs),
            None => name.to_string(),
        };
    }
    if let Some(c) = schema.get("const") {
        return format!("`{}`", super::inline(c));
    }
    for alt in ["anyOf", "oneOf"] {
        if let Some(a) = schema[alt].as_array() {
            let names: Vec<String> = a.iter().map(|s| type_name(s, defs)).collect();
            return names.join(" or ");
        }
    }
    if let Some(e) = schema["enum"].as_array() {
        let names: Vec<String> = e
            .iter()
            .map(|v| format!("`{}`", super::inline(v)))
            .collect();
        return names.join(" or ");
    }
    let one = |t: &str| match t {
        "array" => format!("list of {}", type_name(&schema["items"], defs)),
        "object" => match &schema["additionalProperties"] {
            Value::Object(_) => format!(
                "map of string to {}",
                type_name(&schema["additionalProperties"], defs)
            ),
            Value::Bool(true) => "map of string to any value".to_string(),
            _ => "object".to_string(),
        },
        other => other.to_string(),
    };
    match &schema["type"] {
        Value::String(t) => one(t),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(one)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any value".to_string(),
    }
}

/// A cell's text: one line, pipes escaped.
fn cell(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// The table of an object's fields.
fn fields(object: &Value, defs: &Map<String, Value>) -> String {
    let required: Vec<&str> = object["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out =
        String::from("| field | type | default | description |\n| --- | --- | --- | --- |\n");
    for (name, f) in object["properties"].as_object().into_iter().flatten() {
        let default = if required.contains(&name.as_str()) {
            "required".to_string()
        } else {
            match f.get("default") {
                Some(Value::Null) | None => "none".to_string(),
                Some(v) => format!("`{}`", super::inline(v)),
            }
        };
        let _ = writeln!(
            out,
            "| `{name}` | {} | {} | {} |",
            cell(&type_name(f, defs)),
            cell(&default),
            cell(f["description"].as_str().unwrap_or(""))
        );
    }
    out
}

/// The values a definition without fields takes (an enumeration), each
/// with its description.
fn values(def: &Value) -> String {
    let mut out = String::new();
    for v in def["oneOf"].as_array().into_iter().flatten() {
        if let Some(c) = v.get("const") {
            let _ = writeln!(
                out,
                "- `{}`: {}",
                super::inline(c),
                cell(v["description"].as_str().unwrap_or(""))
            );
        }
    }
    out
}

/// Whether a field's schema names the definition `name` (itself, as its
/// items, as a map's values or as one of its alternatives).
fn names_def(schema: &Value, name: &str) -> bool {
    if !schema.is_object() {
        return false;
    }
    let target = format!("#/$defs/{name}");
    schema["$ref"].as_str() == Some(target.as_str())
        || ["items", "additionalProperties"]
            .iter()
            .any(|k| names_def(&schema[*k], name))
        || ["anyOf", "oneOf"].iter().any(|k| {
            schema[*k]
                .as_array()
                .is_some_and(|a| a.iter().any(|s| names_def(s, name)))
        })
}

/// Where the definition `name` is used: `` `field` of [Parent](#parent) ``,
/// or of the file.
fn uses(name: &str, schema: &Value, defs: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    let parents = std::iter::once(("the file".to_string(), schema)).chain(
        defs.iter()
            .map(|(n, d)| (format!("[{n}](#{})", n.to_lowercase()), d)),
    );
    for (parent, object) in parents {
        for (field, f) in object["properties"].as_object().into_iter().flatten() {
            if names_def(f, name) {
                out.push(format!("`{field}` of {parent}"));
            }
        }
    }
    out
}

/// The config reference page.
pub fn page() -> String {
    let schema = yaml("docs/config.schema.json");
    let defs = schema["$defs"].as_object().unwrap();
    let mut out = String::from(
        "# Config reference\n\n<!-- Generated by tests/docs.rs from docs/config.schema.json; do \
         not edit (RECIPE_DRIFT_BLESS=1 cargo test --test docs). -->\n\n\
         Every field of the config file, from the JSON Schema `recipe-drift config-schema` \
         prints (`docs/config.schema.json`). A field with a default may be left out; \"none\" \
         means that leaving it out sets nothing. How the parts work together is in \
         [The config file](config.md).\n\n",
    );
    let _ = writeln!(
        out,
        "## The file\n\n{}\n\n{}",
        cell(schema["description"].as_str().unwrap_or("")),
        fields(&schema, defs)
    );
    for (name, def) in defs {
        let _ = writeln!(
            out,
            "## {name}\n\n{} Used by {}.\n",
            cell(def["description"].as_str().unwrap_or("")),
            uses(name, &schema, defs).join(", ")
        );
        if def["properties"].is_object() {
            out.push_str(&fields(def, defs));
        } else {
            out.push_str(&values(def));
        }
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[test]
fn types_read_as_words() {
    let defs: Map<String, Value> = serde_json::from_value(serde_json::json!({
        "Side": {"type": "object", "properties": {}},
        "Level": {"oneOf": [{"const": "error"}, {"const": "info"}]}
    }))
    .unwrap();
    let t = |s: Value| type_name(&s, &defs);
    assert_eq!(
        t(serde_json::json!({"type": ["string", "null"]})),
        "string or null"
    );
    assert_eq!(
        t(serde_json::json!({"type": "array", "items": {"$ref": "#/$defs/Side"}})),
        "list of [Side](#side)"
    );
    assert_eq!(
        t(serde_json::json!({"$ref": "#/$defs/Level"})),
        "`error` or `info`"
    );
    assert_eq!(
        t(serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}})),
        "map of string to string"
    );
}
