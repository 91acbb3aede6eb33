//! Markdown and MDX pages: the serve commands in their fenced code blocks.
//!
//! Blocks labelled `bash`, `sh`, `shell`, `zsh` or `console` are read as shell text;
//! unlabelled blocks are read only when they contain a launcher. `export` lines in a
//! block reach the commands after them in the same block only.

use std::sync::Arc;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use super::command::{ShellState, extract_range};
use super::shared::Extracted;
use super::shared::launches_only;
use crate::error::Error;
use crate::launch::Launch;
use crate::span::Source;

const SHELL_LANGS: &[&str] = &["bash", "sh", "shell", "zsh", "console", "shell-session"];

/// Extracts the launches of every shell code block of a Markdown/MDX page.
///
/// Each block starts from the shell state left by the earlier blocks that start no
/// server (an "Environment" block of `export`s before a "Launch" block); a block
/// that starts a server keeps its own `export`s to itself.
pub fn extract_all(
    source: &Arc<Source>,
    vars: &std::collections::BTreeMap<String, String>,
) -> Result<Extracted, Error> {
    let mut launches = Extracted::default();
    let mut page_state = ShellState::with_vars(vars);
    // Some((read, console)) while inside a code block.
    let mut in_block: Option<(bool, bool)> = None;
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (event, range) in Parser::new(&source.text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let (read, console) = match &kind {
                    CodeBlockKind::Fenced(info) => {
                        let lang = info
                            .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                            .next()
                            .unwrap_or("")
                            .to_ascii_lowercase();
                        let console = matches!(lang.as_str(), "console" | "shell-session");
                        if lang.is_empty() {
                            (None, false)
                        } else {
                            (Some(SHELL_LANGS.contains(&lang.as_str())), console)
                        }
                    }
                    CodeBlockKind::Indented => (Some(false), false),
                };
                let read = read.unwrap_or_else(|| {
                    let text = &source.text[range.clone()];
                    names_a_launcher(text)
                });
                in_block = Some((read, console));
                ranges.clear();
            }
            Event::Text(_) if in_block.is_some() => ranges.push((range.start, range.end)),
            Event::End(TagEnd::CodeBlock) => {
                if let Some((true, console)) = in_block
                    && !ranges.is_empty()
                {
                    let mut state = page_state.clone();
                    // Text events of one block are contiguous lines of the source.
                    let start = ranges[0].0;
                    let end = ranges[ranges.len() - 1].1;
                    let found = extract_range(source, start, end, &mut state, console)?;
                    if found.launches.is_empty() && found.unsupported.is_empty() {
                        page_state = state;
                    }
                    launches.launches.extend(found.launches);
                    launches.unsupported.extend(found.unsupported);
                }
                in_block = None;
            }
            _ => {}
        }
    }
    Ok(launches)
}

/// The launches of every shell code block of a page; a launch of an engine
/// recipe-drift does not resolve is an input error here (see [`extract_all`]).
pub fn extract(
    source: &Arc<Source>,
    vars: &std::collections::BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    launches_only(extract_all(source, vars)?)
}

/// Whether an unlabelled code block starts a server: it contains a launcher of
/// an engine recipe-drift resolves (`vllm serve`, `sglang.launch_server`), or a
/// line of it starts with any launcher of the table (`trtllm-serve ...`), after
/// `VAR=value` prefixes and a `$ ` prompt. Unsupported launchers are matched by
/// line start only, so prose that merely mentions a word like `atom` is not shell.
fn names_a_launcher(text: &str) -> bool {
    use crate::launch::{LauncherForm, Starts, detect_launcher, launchers};
    let contained = launchers().iter().any(|l| {
        matches!(l.starts, Starts::Engine(_))
            && match &l.form {
                LauncherForm::Words(w) => text.contains(&w.join(" ")),
                LauncherForm::PythonModule(m) => text.contains(m.as_str()),
                LauncherForm::ModulePrefix(p) => text.contains(p.as_str()),
            }
    });
    contained
        || text.lines().any(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("$ ").unwrap_or(line);
            let words: Vec<&str> = line
                .split_whitespace()
                .skip_while(|w| w.contains('=') && !w.starts_with('-'))
                .take(3)
                .collect();
            detect_launcher(&words, false).is_some()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Origin;

    fn launches(text: &str) -> Vec<Launch> {
        let src = Arc::new(Source::new(Origin::Inline("page".into()), text.to_string()));
        extract(&src, &Default::default()).unwrap()
    }

    #[test]
    fn labelled_unlabelled_and_other_languages() {
        let page = "\
# Page

```python
# a Python block that mentions sglang serve is not shell
print('sglang serve --tp 2')
```

```
sglang serve --model-path a/b --tp 2
```

```console
$ python3 -m sglang.launch_server --model-path a/b \\
    --tp 4
INFO: server started
```

```yaml
cmd: vllm serve x
```
";
        let l = launches(page);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].argv[3].text, "2");
        assert_eq!(l[0].span.pos.line, 9);
        assert_eq!(l[1].argv.last().unwrap().text, "4");
        assert_eq!(l[1].argv.last().unwrap().span.pos.line, 14);
    }

    #[test]
    fn exports_stay_in_their_block() {
        let page = "```bash\nexport SGLANG_USE_AITER=1\nsglang serve --tp 1\n```\n\n```bash\nsglang serve --tp 2\n```\n";
        let l = launches(page);
        assert_eq!(l[0].env.len(), 1);
        assert!(l[1].env.is_empty());
    }

    #[test]
    fn mdx_with_jsx_around_blocks() {
        let page = "import { X } from '/src/snippets/x.jsx'\n\n<X />\n\n<Tabs>\n<Tab title=\"AMD\">\n\n```bash\nsglang serve --model-path a/b\n```\n\n</Tab>\n</Tabs>\n";
        let l = launches(page);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].span.pos.line, 9);
    }
}
