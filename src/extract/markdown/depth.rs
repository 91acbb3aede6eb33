//! The container nesting budget: how deep the blockquotes and list items a
//! line opens may nest before the page is refused.
//!
//! The Markdown reader matches every open container again on each line, so
//! a line that opens hundreds of thousands of them (`>>>>...`, `- - - ...`,
//! written without line breaks) costs time quadratic in the depth: minutes
//! for a page well under the file size cap. A line of markers alone (empty
//! blockquotes, `>>>>...`) is read in linear time and is not refused. No
//! real page comes near the budget.

use crate::error::Error;
use crate::span::Source;

/// The most containers (blockquotes, list items) one line may open.
pub(crate) const MAX_CONTAINER_DEPTH: usize = 10_000;

/// An error at the first line whose leading container markers (`>`, `-`,
/// `*`, `+` and `1.` / `1)` list markers, blanks between) nest deeper than
/// [`MAX_CONTAINER_DEPTH`]. Linear in the page.
pub(crate) fn check(source: &Source) -> Result<(), Error> {
    let text = &source.text;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let b = line.as_bytes();
        let blank = |i: usize| matches!(b.get(i), Some(b' ' | b'\t'));
        let (mut i, mut depth) = (0, 0usize);
        // Where the first marker past the budget is.
        let mut over: Option<usize> = None;
        loop {
            while blank(i) {
                i += 1;
            }
            let Some(&c) = b.get(i) else { break };
            let next = match c {
                b'>' => i + 1,
                b'-' | b'*' | b'+' if blank(i + 1) => i + 2,
                b'0'..=b'9' => {
                    let digits = b[i..].iter().take_while(|d| d.is_ascii_digit()).count();
                    let j = i + digits;
                    if digits <= 9 && matches!(b.get(j), Some(b'.' | b')')) && blank(j + 1) {
                        j + 2
                    } else {
                        break;
                    }
                }
                _ => break,
            };
            depth += 1;
            if depth > MAX_CONTAINER_DEPTH && over.is_none() {
                over = Some(i);
            }
            i = next;
        }
        let markers_only = line[i.min(line.len())..].trim().is_empty();
        if let Some(at) = over
            && !markers_only
        {
            return Err(Error::input(
                source.span(offset + at, offset + at + 1),
                format!(
                    "this line opens more than {MAX_CONTAINER_DEPTH} nested blockquotes or list items before its text, past the budget that keeps reading a page fast"
                ),
            ));
        }
        offset += line.len();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Origin;

    fn page(text: String) -> Source {
        Source::new(Origin::Inline("p.md".into()), text)
    }

    #[test]
    fn deep_lines_are_refused_shallow_ones_read() {
        let at_budget = "> ".repeat(MAX_CONTAINER_DEPTH) + "x\n";
        assert!(check(&page(at_budget)).is_ok());
        let markers_only = format!("{}\n", ">".repeat(MAX_CONTAINER_DEPTH * 2));
        assert!(check(&page(markers_only)).is_ok());
        let over = format!("ok\n{}x\n", ">".repeat(MAX_CONTAINER_DEPTH + 1));
        let e = check(&page(over)).unwrap_err().to_string();
        assert!(e.contains("nested blockquotes"), "{e}");
        let list = "- 1. ".repeat(MAX_CONTAINER_DEPTH / 2 + 1) + "x\n";
        assert!(check(&page(list)).is_err());
        assert!(check(&page("1234567890. x\n".into())).is_ok());
    }
}
