//! The recipes' YAML as the site's js-yaml reads it: the spanned tree of
//! [`crate::extract::yaml_tree`] (YAML 1.2 core booleans, mapping keys as
//! JavaScript strings, document order kept) and JavaScript's view of its
//! values (numbers are doubles, truthiness, `String(value)`).

use crate::error::Error;
use crate::extract::yaml_tree::{self, Options, Place};
pub(super) use crate::extract::yaml_tree::{Node, Val, js_num};
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
