//! Python's `str()` and `repr()` of the values PyYAML reads from a recipe:
//! srtctl writes a flag's value with `str(value)`, so a float is its shortest
//! repr (`0.9`, `1e-05`, `1e+16`), a boolean in a list is `True`, a mapping is
//! `{'key': 'value'}`.

use crate::extract::yaml_tree::{Node, Val};

/// `str(value)`.
pub(super) fn str_of(n: &Node) -> String {
    match &n.val {
        Val::Str(s) => s.clone(),
        _ => repr(n),
    }
}

/// `repr(value)`.
pub(super) fn repr(n: &Node) -> String {
    match &n.val {
        Val::Null => "None".into(),
        Val::Bool(true) => "True".into(),
        Val::Bool(false) => "False".into(),
        Val::Int(i) => i.to_string(),
        Val::Float(f) => float_repr(*f),
        Val::Str(s) => str_repr(s),
        Val::Seq(items) => {
            let inner: Vec<String> = items.iter().map(repr).collect();
            format!("[{}]", inner.join(", "))
        }
        Val::Map(entries) => {
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, _, v)| format!("{}: {}", str_repr(k), repr(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

use crate::pyrepr::float_repr;
use crate::pyrepr::str_repr;
