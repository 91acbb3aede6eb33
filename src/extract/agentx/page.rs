//! A page that renders AgentX tables: `import { agentx } from "<module>"`
//! (the binding may be renamed) and a component tag given it as `data`
//! (`<AgentX data={agentx} />`). The page is read through its data modules
//! when every imported component it renders is such a table; a page that
//! renders other generators too is explored as a generator page.

use std::path::{Path, PathBuf};

use super::EXPORT;
use crate::error::Error;
use crate::span::Source;

/// One data module a page renders: the import as written and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageTable {
    /// The module path as the import writes it.
    pub module: String,
    /// The byte offset of the tag that renders it.
    pub at: usize,
}

/// The ESM imports of a page: (imported name, local name, module, offset).
fn imports(text: &str) -> Vec<(String, String, String, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("import")
            && rest.starts_with(|c: char| c.is_whitespace() || c == '{')
            && let (Some(open), Some(close)) = (rest.find('{'), rest.find('}'))
            && open < close
            && let Some(from) = rest[close + 1..].trim_start().strip_prefix("from")
        {
            let module = from
                .trim()
                .trim_end_matches(';')
                .trim()
                .trim_matches(|c| c == '"' || c == '\'')
                .to_string();
            for binding in rest[open + 1..close].split(',') {
                let mut words = binding.split_whitespace();
                if let Some(imported) = words.next() {
                    let local = match (words.next(), words.next()) {
                        (Some("as"), Some(l)) => l,
                        _ => imported,
                    };
                    out.push((imported.to_string(), local.to_string(), module.clone(), at));
                }
            }
        }
        at += line.len();
    }
    out
}

/// The component tags of a page: (name, attribute text, offset), for tags
/// whose name is an imported local.
fn tags<'t>(text: &'t str, locals: &[String]) -> Vec<(String, &'t str, usize)> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices('<') {
        let rest = &text[i + 1..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        if name.is_empty() || !locals.contains(&name) {
            continue;
        }
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        out.push((name.clone(), &rest[name.len()..end], i));
    }
    out
}

/// The AgentX tables a page renders, when every imported component it
/// renders is one; `None` otherwise.
pub fn tables(text: &str) -> Option<Vec<PageTable>> {
    let imports = imports(text);
    let data: Vec<&(String, String, String, usize)> =
        imports.iter().filter(|i| i.0 == EXPORT).collect();
    if data.is_empty() {
        return None;
    }
    let locals: Vec<String> = imports
        .iter()
        .filter(|i| i.0 != EXPORT)
        .map(|i| i.1.clone())
        .collect();
    let mut out = Vec::new();
    for (_, attrs, at) in tags(text, &locals) {
        let given = data.iter().find(|d| {
            let compact: String = attrs.chars().filter(|c| !c.is_whitespace()).collect();
            compact.contains(&format!("data={{{}}}", d.1))
        })?;
        out.push(PageTable {
            module: given.2.clone(),
            at,
        });
    }
    (!out.is_empty()).then_some(out)
}

/// The file a page's import names: `/src/...` under the docs root, `./` and
/// `../` beside the page.
pub fn resolve(
    page: &Source,
    file: &Path,
    table: &PageTable,
    docs_root: Option<&Path>,
) -> Result<PathBuf, Error> {
    let at = page.span(table.at, table.at);
    if let Some(rest) = table.module.strip_prefix('/') {
        let root = docs_root
            .map(Path::to_path_buf)
            .or_else(|| crate::extract::jsx::find_docs_root(file))
            .ok_or_else(|| {
                Error::input(
                    at.clone(),
                    format!(
                        "cannot resolve `{}`: no docs root (a folder holding src/snippets) above this file; give one with --docs-root",
                        table.module
                    ),
                )
            })?;
        Ok(root.join(rest))
    } else if table.module.starts_with("./") || table.module.starts_with("../") {
        Ok(file.parent().unwrap_or(Path::new("")).join(&table.module))
    } else {
        Err(Error::input(
            at,
            format!(
                "cannot resolve `{}`: only files of the docs can be imported",
                table.module
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_of_agentx_tables_names_their_modules() {
        let page = "import { AgentX } from \"/src/snippets/_agentx.jsx\";\nimport { agentx as q } from '/src/snippets/agentx/Q/q.jsx';\n\n<AgentX data={ q } />\n";
        let t = tables(page).expect("a table page");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].module, "/src/snippets/agentx/Q/q.jsx");
        assert_eq!(&page[t[0].at..t[0].at + 7], "<AgentX");
    }

    #[test]
    fn a_page_with_another_generator_is_not_one() {
        let page = "import { AgentX } from \"/a.jsx\";\nimport { agentx } from \"/b.jsx\";\nimport { Deployment } from \"/d.jsx\";\n<AgentX data={agentx} />\n<Deployment config={c} />\n";
        assert_eq!(tables(page), None);
        assert_eq!(
            tables("import { Deployment } from \"/d.jsx\";\n<Deployment />\n"),
            None
        );
    }
}
