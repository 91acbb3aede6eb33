//! Inline styles that leave an element's text in the page but nothing of it
//! to read: a zero font size, transparent text, a scale of zero, a clip to
//! nothing, a zero height (or width) with the overflow hidden, or a position
//! taken out of the flow and moved off the page by a negative offset.

/// The winning value of each property of a declaration list (the last one,
/// unless an earlier one is `!important`), lower-cased.
fn winners(declarations: &[&str]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String, bool)> = Vec::new();
    for decl in declarations {
        let Some((name, value, important)) = super::declaration(decl) else {
            continue;
        };
        match out.iter_mut().find(|(n, _, _)| *n == name) {
            Some(w) if w.2 && !important => {}
            Some(w) => (w.1, w.2) = (value, important),
            None => out.push((name, value, important)),
        }
    }
    out.into_iter().map(|(n, v, _)| (n, v)).collect()
}

/// A CSS length or percentage as a number with its unit: `0`, `-9999px`,
/// `50%`; `None` for anything else (`calc()`, keywords).
fn length(value: &str) -> Option<(f64, &str)> {
    let end = value
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+')))
        .unwrap_or(value.len());
    let n: f64 = value[..end].parse().ok()?;
    let unit = &value[end..];
    (unit.is_empty() || unit.chars().all(|c| c.is_ascii_alphabetic() || c == '%'))
        .then_some((n, unit))
}

/// Whether a value is a zero length (`0`, `0px`, `0em`, `0%`).
fn zero(value: &str) -> bool {
    length(value).is_some_and(|(n, _)| n == 0.0)
}

/// The arguments of each `NAME(...)` function in a value whose name passes `f`.
fn calls(value: &str, f: impl Fn(&str) -> bool) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find('(') {
        let name = rest[..open]
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .next()
            .unwrap_or("");
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        if f(name) {
            out.push(
                rest[open + 1..open + close]
                    .split([',', ' '])
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .collect(),
            );
        }
        rest = &rest[open + close + 1..];
    }
    out
}

/// Whether the declarations leave nothing of the element to read: the
/// deciding declarations, as written for messages, when they do.
pub(super) fn nothing_to_read(declarations: &[&str]) -> Option<String> {
    let w = winners(declarations);
    let get = |name: &str| w.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    let said = |name: &str, v: &str| format!("`{name}: {v}`");
    if let Some(v) = get("font-size").filter(|v| zero(v)) {
        return Some(format!("{} (no text to read)", said("font-size", v)));
    }
    if let Some(v) = get("color").filter(|v| *v == "transparent") {
        return Some(format!("{} (the text is not painted)", said("color", v)));
    }
    if let Some(v) = get("transform")
        && calls(v, |n| n.starts_with("scale"))
            .iter()
            .any(|args| args.iter().any(|a| zero(a)))
    {
        return Some(format!("{} (scaled to nothing)", said("transform", v)));
    }
    if let Some(v) = get("scale").filter(|v| v.split_whitespace().any(zero)) {
        return Some(format!("{} (scaled to nothing)", said("scale", v)));
    }
    if let Some(v) = get("clip-path")
        && clips_to_nothing(v)
    {
        return Some(format!("{} (clipped to nothing)", said("clip-path", v)));
    }
    let overflow_hidden = ["overflow", "overflow-x", "overflow-y"]
        .iter()
        .filter_map(|p| get(p))
        .any(|v| v.split_whitespace().any(|x| matches!(x, "hidden" | "clip")));
    if overflow_hidden {
        for p in ["height", "max-height", "width", "max-width"] {
            if let Some(v) = get(p).filter(|v| zero(v)) {
                return Some(format!(
                    "{} with its overflow hidden (a box of no size)",
                    said(p, v)
                ));
            }
        }
    }
    if let Some(pos) = get("position").filter(|v| matches!(*v, "absolute" | "fixed")) {
        for p in [
            "left",
            "top",
            "right",
            "bottom",
            "inset-inline-start",
            "inset-block-start",
        ] {
            if let Some(v) = get(p).filter(|v| length(v).is_some_and(|(n, _)| n < 0.0)) {
                return Some(format!(
                    "{} with {} (it may be moved off the page)",
                    said("position", pos),
                    said(p, v)
                ));
            }
        }
    }
    None
}

/// `clip-path: inset(...)` whose insets meet (top + bottom or left + right
/// at 100% or more), or a `circle(0)` / `ellipse(0 ...)`.
fn clips_to_nothing(v: &str) -> bool {
    let insets = calls(v, |n| n == "inset").into_iter().any(|args| {
        let pct: Vec<Option<f64>> = args
            .iter()
            .take_while(|a| *a != &"round")
            .map(|a| match length(a) {
                Some((n, "%")) => Some(n),
                _ => None,
            })
            .collect();
        // CSS's 1-4 value shorthand: top, right, bottom, left.
        let side = |i: usize| -> Option<f64> {
            let k = match (pct.len(), i) {
                (1, _) => 0,
                (2, 0 | 2) | (3, 0) => 0,
                (2, _) | (3, 1 | 3) => 1,
                (3, 2) => 2,
                (4, i) => i,
                _ => return None,
            };
            pct.get(k).copied().flatten()
        };
        let meets = |a: usize, b: usize| match (side(a), side(b)) {
            (Some(x), Some(y)) => x + y >= 100.0,
            _ => false,
        };
        meets(0, 2) || meets(1, 3)
    });
    let shapes = calls(v, |n| n == "circle" || n == "ellipse")
        .into_iter()
        .any(|args| args.first().is_some_and(|a| zero(a)));
    insets || shapes
}

#[cfg(test)]
mod tests {
    use super::nothing_to_read;

    fn decls(s: &str) -> Vec<&str> {
        s.split(';').collect()
    }

    #[test]
    fn styles_that_leave_nothing_to_read_are_found() {
        for style in [
            "font-size:0",
            "font-size: 0px",
            "height:0;overflow:hidden",
            "overflow: hidden; max-height: 0",
            "transform:scale(0)",
            "transform: translateX(2px) scaleY(0)",
            "clip-path:inset(50%)",
            "clip-path: inset(0 50% 0 50%)",
            "clip-path: circle(0)",
            "position:absolute;left:-9999px",
            "color:transparent",
        ] {
            assert!(nothing_to_read(&decls(style)).is_some(), "{style}");
        }
        for style in [
            "font-size: 12px",
            "height: 0",
            "overflow: hidden; height: 10px",
            "transform: scale(1.5)",
            "clip-path: inset(10%)",
            "left: -9999px",
            "position: relative; left: -4px",
            "color: red",
            "font-size: 0; font-size: 14px",
            "font-size: 0 !important; font-size: 14px",
        ] {
            let hides = nothing_to_read(&decls(style)).is_some();
            assert_eq!(hides, style.contains("important"), "{style}");
        }
    }
}
