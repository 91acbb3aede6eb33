//! The rules on hand-built generators: the rules that wait for explorer data
//! run as soon as it is there, and the view-only rules' edge cases.

use super::*;
use crate::finding::kinds;

#[test]
fn every_rule_has_a_lint_row_and_every_lint_row_a_rule() {
    for r in RULES {
        assert!(kind_info(r.kind()).is_some(), "{}: no row", r.kind());
    }
    for k in kinds().iter().filter(|k| k.lint.is_some()) {
        assert!(
            RULES.iter().any(|r| r.kind() == k.name),
            "{}: no rule",
            k.name
        );
    }
}

fn bundle() -> Bundle {
    Bundle {
        file: "gen.jsx".into(),
        code: String::new(),
        targets: vec![],
        files: vec![],
        modules: vec![],
        page_blocks: vec![],
    }
}

fn view(sel: &[(&str, &str)], command: &str, path: &[&str]) -> View {
    View {
        target: 0,
        selection: sel
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        commands: vec![command.to_string()],
        path: path.iter().map(|v| (0, v.to_string())).collect(),
        clicked: vec![],
        controls: vec![],
        copied: vec![],
        page_blocks: vec![],
    }
}

fn state(v: View, controls: Option<Vec<Control>>) -> State {
    State {
        printed: vec![Ok(Printed::default())],
        view: v,
        controls,
    }
}

fn generator(states: Vec<State>, crashes: Option<Vec<Crash>>) -> Generator {
    Generator {
        name: "Gen".into(),
        at: Span::of_path(Path::new("gen.jsx")),
        states,
        crashes,
    }
}

fn item(value: &str, disabled: bool, reason: &str) -> Item {
    Item {
        value: value.into(),
        label: value.to_uppercase(),
        disabled,
        reason: reason.into(),
    }
}

fn kinds_of(lint: &FileLint) -> Vec<(&'static str, String)> {
    lint.findings
        .iter()
        .map(|f| (f.kind, generator_of(f).1.to_string()))
        .collect()
}

/// A lint finding's generator fields: its rule's message and its states.
fn generator_of(f: &Finding) -> (&[String], &str) {
    match &f.about {
        About::Generator { states, detail, .. } => (states, detail),
        other => panic!("a lint finding is about a generator, not {other:?}"),
    }
}

#[test]
fn with_controls_and_crash_paths_the_waiting_rules_run() {
    let quant = |selected: &str, reason: &str| Control {
        key: "quantization".into(),
        items: vec![item("fp8", false, ""), item("fp4", true, reason)],
        selected: Some(selected.into()),
    };
    let g = generator(
        vec![
            state(
                view(&[("hardware", "b200"), ("quantization", "fp8")], "x", &[]),
                Some(vec![quant("fp8", "needs B200")]),
            ),
            // FP4 stays selected after the hardware click.
            state(
                view(
                    &[("hardware", "h100"), ("quantization", "fp4")],
                    "x",
                    &["fp4", "h100"],
                ),
                Some(vec![quant("fp4", "")]),
            ),
        ],
        Some(vec![Crash {
            clicks: vec![("hardware".into(), "h100".into())],
            click: "mi300x".into(),
            error: "TypeError: cannot read property 'small' of undefined".into(),
            at: None,
        }]),
    );
    let lint = run_rules("gen.jsx", &bundle(), &[g]);
    assert!(lint.not_checked.is_empty(), "{:?}", lint.not_checked);
    let found = kinds_of(&lint);
    assert!(found.contains(&(
        "disabled-selected",
        "`quantization=fp4` stays selected after the click on `h100` while it is disabled".into()
    )));
    assert!(found.contains(&(
        "disabled-no-reason",
        "`quantization=fp4` is disabled with no reason given".into()
    )));
    assert!(
        found.contains(&(
            "generator-crash",
            "clicking `mi300x` in the state hardware=h100 throws: TypeError: cannot read property 'small' of undefined"
                .into()
        ))
    );
    // A disabled item with a reason, not selected, is no finding.
    assert_eq!(
        found
            .iter()
            .filter(|(k, _)| *k == "disabled-no-reason" || *k == "disabled-selected")
            .count(),
        2,
        "{found:?}"
    );
}

#[test]
fn without_explorer_data_the_waiting_rules_are_not_checked() {
    let g = generator(vec![state(view(&[("a", "1")], "x", &[]), None)], None);
    let lint = run_rules("gen.jsx", &bundle(), &[g]);
    let waiting: Vec<&str> = lint.not_checked.iter().map(|n| n.kind).collect();
    assert_eq!(
        waiting,
        ["generator-crash", "disabled-selected", "disabled-no-reason"]
    );
}

#[test]
fn a_dead_option_needs_two_values_and_the_same_commands_everywhere() {
    let states = |cmds: [&str; 4]| {
        vec![
            state(view(&[("model", "a"), ("x", "on")], cmds[0], &[]), None),
            state(view(&[("model", "a"), ("x", "off")], cmds[1], &[]), None),
            state(view(&[("model", "b"), ("x", "on")], cmds[2], &[]), None),
            state(view(&[("model", "b"), ("x", "off")], cmds[3], &[]), None),
        ]
    };
    let dead = |g: Generator| {
        run_rules("gen.jsx", &bundle(), &[g])
            .findings
            .into_iter()
            .filter(|f| f.kind == "dead-option")
            .map(|f| generator_of(&f).1.to_string())
            .collect::<Vec<_>>()
    };
    // `x` changes nothing under either model; `model` does.
    assert_eq!(
        dead(generator(states(["A", "A", "B", "B"]), None)),
        ["option `x` changes nothing: every value (on, off) prints the same commands"]
    );
    // `x` matters for model b only: not dead.
    assert!(dead(generator(states(["A", "A", "B", "C"]), None)).is_empty());
    // One value seen: nothing to compare.
    let one = vec![
        state(view(&[("x", "on")], "A", &[]), None),
        state(view(&[("x", "on"), ("y", "1")], "A", &[]), None),
    ];
    assert!(dead(generator(one, None)).is_empty());
}

#[test]
fn a_finding_in_many_states_is_one_finding_listing_them() {
    let g = generator(
        vec![
            state(view(&[("a", "1")], "# not here", &[]), None),
            state(view(&[("a", "2")], "# not here", &[]), None),
        ],
        None,
    );
    let lint = run_rules("gen.jsx", &bundle(), &[g]);
    let no_command: Vec<&Finding> = lint
        .findings
        .iter()
        .filter(|f| f.kind == "no-command")
        .collect();
    assert_eq!(no_command.len(), 1);
    assert_eq!(generator_of(no_command[0]).0, ["a=1", "a=2"]);
    assert!(no_command[0].message.plain().starts_with("<Gen />: "));
    assert_eq!(no_command[0].id(), "RD008");
}
