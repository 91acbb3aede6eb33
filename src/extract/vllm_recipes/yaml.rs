//! The recipes' YAML as the site's js-yaml reads it: the spanned tree of
//! [`crate::extract::yaml_tree`] (YAML 1.2 core booleans, mapping keys as
//! JavaScript strings, document order kept) and JavaScript's view of its
//! values (numbers are doubles, truthiness, `String(value)`).

use crate::error::Error;
use crate::extract::yaml_tree::{self, Options, Place};
pub(super) use crate::extract::yaml_tree::{Node, Val};
use crate::span::Source;

/// The most entries one mapping of a recipe may hold: keys are looked up by
/// a scan (document order matters), so this bounds every lookup. Real
/// recipes have tens.
pub const MAX_MAP_ENTRIES: usize = 1024;

/// Parses a YAML text into a spanned tree; syntax errors are `file:line:col`.
pub(super) fn parse_yaml(source: &Source) -> Result<Node, Error> {
    let options = Options {
        // js-yaml's default schema is YAML 1.2 core: `yes`/`on` are strings.
        schema: yaml_tree::Schema::Core12,
        place: Place::Defined,
        max_map_entries: Some((MAX_MAP_ENTRIES, "a recipe's mappings")),
        inner_key_name: None,
        key_name: Node::scalar_string,
    };
    yaml_tree::parse(source, &options)
}

/// JavaScript's view of a recipe's values (js-yaml reads every number as a double).
impl Node {
    /// A number as a double.
    pub(super) fn as_num(&self) -> Option<f64> {
        match self.val {
            Val::Int(n) => Some(n as f64),
            Val::Float(n) => Some(n),
            _ => None,
        }
    }

    /// JavaScript truthiness.
    pub(super) fn truthy(&self) -> bool {
        match &self.val {
            Val::Null => false,
            Val::Bool(b) => *b,
            Val::Int(n) => *n != 0,
            Val::Float(n) => *n != 0.0 && !n.is_nan(),
            Val::Str(s) => !s.is_empty(),
            Val::Seq(_) | Val::Map(_) => true,
        }
    }

    /// `String(value)` for a scalar; `None` for sequences and mappings.
    pub(super) fn scalar_string(&self) -> Option<String> {
        match &self.val {
            Val::Null => Some("null".into()),
            Val::Bool(b) => Some(b.to_string()),
            Val::Int(_) | Val::Float(_) => self.as_num().map(js_num),
            Val::Str(s) => Some(s.clone()),
            Val::Seq(_) | Val::Map(_) => None,
        }
    }

    /// `String(value)` for a truthy scalar (`a || b` chains on strings).
    pub(super) fn truthy_string(&self) -> Option<String> {
        if self.truthy() {
            self.scalar_string()
        } else {
            None
        }
    }

    /// The strings of a sequence of strings (other items are skipped).
    pub(super) fn str_list(&self) -> Vec<String> {
        self.items()
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect()
    }
}

/// `String(n)` for a JavaScript number (integers without a fraction).
pub(super) fn js_num(n: f64) -> String {
    if n.is_finite() && n == n.trunc() && n.abs() < 1e21 {
        format!("{}", n as i64)
    } else if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        format!("{n}")
    }
}
