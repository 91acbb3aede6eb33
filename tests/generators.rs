//! CLI tests for cookbook generators: rendering, clicking, pages, the sandbox's
//! limits and bad input.

mod common;

use common::{argv_of, assert_input_error, run};

const QWEN: &str = "fixtures/cookbook/src/snippets/autoregressive/qwen35-deployment.jsx";
const QWEN_PAGE: &str = "fixtures/cookbook/cookbook/autoregressive/Qwen/Qwen3.5.mdx";

#[test]
fn the_initial_state_renders_without_clicks() {
    let (code, out, err) = run(&["extract", QWEN, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let argv = argv_of(&out, 0);
    assert!(
        argv.windows(2)
            .any(|w| w == ["--model-path", "Qwen/Qwen3.5-397B-A17B-FP8"]),
        "{argv:?}"
    );
    assert!(!argv.iter().any(|a| a.starts_with("--hicache")), "{argv:?}");
}

#[test]
fn clicking_the_mi355x_hicache_selection_prints_direct_io() {
    let (code, out, err) = run(&[
        "extract",
        QWEN,
        "--select",
        "model=397b-a17b",
        "--select",
        "hardware=mi355x",
        "--select",
        "quantization=fp4",
        "--select",
        "speculative=enabled",
        "--select",
        "kvOffload=hicache",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let argv = argv_of(&out, 0);
    for pair in [
        ["--model-path", "amd/Qwen3.5-397B-A17B-MXFP4"],
        ["--hicache-io-backend", "direct"],
        ["--hicache-mem-layout", "page_first_direct"],
        ["--speculative-algorithm", "EAGLE"],
    ] {
        assert!(argv.windows(2).any(|w| w == pair), "{pair:?} in {argv:?}");
    }
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let env: Vec<&str> = v["launches"][0]["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(env.contains(&"SGLANG_USE_AITER"), "{env:?}");
    assert_eq!(v["launches"][0]["context"]["hardware"]["value"], "mi355x");
}

#[test]
fn the_order_of_select_flags_does_not_matter() {
    let a = run(&[
        "extract",
        QWEN,
        "--select",
        "hardware=mi355x",
        "--select",
        "kvOffload=hicache",
    ]);
    let b = run(&[
        "extract",
        QWEN,
        "--select",
        "kvOffload=hicache",
        "--select",
        "hardware=mi355x",
    ]);
    assert_eq!(a.0, 0, "{}", a.2);
    assert_eq!(a, b);
}

#[test]
fn a_disabled_value_is_refused_with_the_reason() {
    assert_input_error(
        &[
            "extract",
            QWEN,
            "--select",
            "hardware=h200",
            "--select",
            "quantization=fp4",
        ],
        "qwen35-deployment.jsx:1:14",
        &[
            "`quantization=fp4` is disabled in this state",
            "fp4 (disabled: FP4 needs B200 (NVFP4) or MI355X (MXFP4))",
        ],
    );
}

#[test]
fn an_unknown_value_lists_the_values() {
    assert_input_error(
        &["extract", QWEN, "--select", "hardware=tpu"],
        "qwen35-deployment.jsx:1:14",
        &[
            "`hardware=tpu` is not a value",
            "values: b200, h200, mi300x, mi355x",
        ],
    );
}

#[test]
fn an_unknown_option_lists_the_options() {
    assert_input_error(
        &["extract", QWEN, "--select", "color=red"],
        "qwen35-deployment.jsx:1:14",
        &[
            "has no option `color`",
            "model, hardware, quantization, speculative, kvOffload",
        ],
    );
}

#[test]
fn select_is_refused_for_files_without_generators() {
    let (code, _, err) = run(&[
        "extract",
        "fixtures/demo/qwen35-mi355x-recipe.sh",
        "--select",
        "a=b",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--select applies to generators"), "{err}");
}

#[test]
fn a_page_renders_its_generator_and_reads_its_static_blocks() {
    let (code, out, err) = run(&["extract", QWEN_PAGE, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let launches = v["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 2, "{out}");
    // Page order: the component's tag comes before the static block.
    let first = launches[0]["span"]["file"].as_str().unwrap();
    assert!(
        first.contains("Qwen3.5.mdx [<Qwen35Deployment />"),
        "{first}"
    );
    assert_eq!(
        launches[1]["span"]["file"].as_str().unwrap(),
        "fixtures/cookbook/cookbook/autoregressive/Qwen/Qwen3.5.mdx"
    );
}

#[test]
fn a_page_with_a_shared_engine_and_config_module_renders() {
    let (code, out, err) = run(&[
        "extract",
        "fixtures/cookbook/cookbook/autoregressive/DeepSeek/DeepSeek-R1.mdx",
        "--all-selections",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("<Deployment /> at fixtures/cookbook/cookbook/autoregressive/DeepSeek/DeepSeek-R1.mdx:19:1: 8 reachable selections"), "{out}");
}

#[test]
fn all_selections_human() {
    let (code, out, err) = run(&[
        "extract",
        "fixtures/cookbook/cookbook/agentx/Qwen/Qwen3.5.mdx",
        "--all-selections",
    ]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("agentx_all_selections_human", out);
}

#[test]
fn all_selections_json() {
    let (code, out, err) = run(&[
        "extract",
        "fixtures/cookbook/cookbook/agentx/Qwen/Qwen3.5.mdx",
        "--all-selections",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("agentx_all_selections_json", out);
}

#[test]
fn all_selections_counts_match_real_react() {
    // State counts of every fixture as real React 18 reaches them (the
    // differential test checks the states themselves when node is present).
    for (file, n) in [
        (
            "fixtures/cookbook/src/snippets/autoregressive/qwen35-deployment.jsx",
            56,
        ),
        (
            "fixtures/cookbook/src/snippets/autoregressive/deepseek-v3-deployment.jsx",
            64,
        ),
        (
            "fixtures/cookbook/src/snippets/autoregressive/glm-5-deployment.jsx",
            24,
        ),
        (
            "fixtures/cookbook/src/snippets/autoregressive/kimi-k2-deployment.jsx",
            14,
        ),
        (
            "fixtures/cookbook/src/snippets/autoregressive/llama31-deployment.jsx",
            18,
        ),
        (
            "fixtures/cookbook/cookbook/autoregressive/Qwen/Qwen3-Next.mdx",
            9,
        ),
    ] {
        let (code, out, err) = run(&["extract", file, "--all-selections", "--format", "json"]);
        assert_eq!(code, 0, "{file}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["components"][0]["states"].as_array().unwrap().len(),
            n,
            "{file}"
        );
    }
}

#[test]
fn the_sandbox_stops_an_infinite_loop() {
    assert_input_error(
        &[
            "extract",
            "fixtures/bad/jsx/infinite-loop.jsx",
            "--js-time-limit",
            "300",
        ],
        "fixtures/bad/jsx/infinite-loop.jsx:2:14",
        &["rendering <Spin />: JavaScript did not finish within the time limit (300 ms)"],
    );
}

#[test]
fn the_sandbox_stops_an_allocation_bomb() {
    assert_input_error(
        &["extract", "fixtures/bad/jsx/allocation-bomb.jsx"],
        "fixtures/bad/jsx/allocation-bomb.jsx:2:14",
        &["JavaScript exceeded the memory limit (256 MiB)"],
    );
}

#[test]
fn the_sandbox_stops_deep_recursion() {
    assert_input_error(
        &["extract", "fixtures/bad/jsx/deep-recursion.jsx"],
        "fixtures/bad/jsx/deep-recursion.jsx:4:14",
        &["JavaScript exceeded the stack limit"],
    );
}

#[test]
fn jsx_syntax_errors_point_at_the_source() {
    assert_input_error(
        &["extract", "fixtures/bad/jsx/syntax-error.jsx"],
        "fixtures/bad/jsx/syntax-error.jsx:7:1",
        &["JSX syntax error"],
    );
}

#[test]
fn a_throwing_render_is_an_input_error() {
    assert_input_error(
        &["extract", "fixtures/bad/jsx/throws.jsx"],
        "fixtures/bad/jsx/throws.jsx:4:14",
        &[
            "rendering <Throws />: JavaScript error: TypeError: cannot read property 'id' of undefined",
        ],
    );
}

#[test]
fn a_module_without_a_component_is_an_input_error() {
    assert_input_error(
        &["extract", "fixtures/bad/jsx/no-component.jsx"],
        "fixtures/bad/jsx/no-component.jsx:1:1",
        &["exports no component"],
    );
}

#[test]
fn the_sandbox_has_no_io() {
    // Nothing in the sandbox can reach files, processes or the network.
    let (code, out, err) = run(&[
        "extract",
        "fixtures/bad/jsx/probe-io.jsx",
        "--all-selections",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("none-of-them"), "{out}");
}

#[test]
fn an_import_that_does_not_resolve_is_an_input_error() {
    assert_input_error(
        &["extract", "fixtures/bad/jsx/bad-import.mdx"],
        "fixtures/bad/jsx/bad-import.mdx:3:1",
        &["cannot resolve `/src/snippets/missing.jsx`"],
    );
}

#[test]
fn an_import_of_a_name_not_exported_is_an_input_error() {
    assert_input_error(
        &["extract", "fixtures/bad/jsx/wrong-name.mdx"],
        "fixtures/bad/jsx/wrong-name.mdx:3:1",
        &["`Missing` is not exported by", "it exports: Spin"],
    );
}

#[test]
fn on_a_page_with_two_generators_each_takes_the_options_it_has() {
    const PAGE: &str = "fixtures/cookbook/cookbook/autoregressive/Meta/Llama-and-Qwen.mdx";
    let (code, out, err) = run(&[
        "extract",
        PAGE,
        "--select",
        "hardware=h200",
        "--select",
        "modelSize=70b",
        "--select",
        "kvOffload=hicache",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let llama = argv_of(&out, 0);
    let qwen = argv_of(&out, 1);
    assert!(
        llama
            .iter()
            .any(|a| a == "meta-llama/Llama-3.1-70B-Instruct"),
        "{llama:?}"
    );
    assert!(
        qwen.iter().any(|a| a == "--enable-hierarchical-cache"),
        "{qwen:?}"
    );
    assert_input_error(
        &["extract", PAGE, "--select", "colour=red"],
        "Llama-and-Qwen.mdx:1:1",
        &[
            "no component of this page has an option `colour`",
            "modelSize, hardware, quantization, model",
        ],
    );
}

#[test]
fn a_text_option_is_typed_into() {
    let (code, out, err) = run(&[
        "extract",
        "fixtures/cookbook/src/snippets/autoregressive/glm-5-deployment.jsx",
        "--select",
        "servedName=my-glm",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let argv = argv_of(&out, 0);
    assert!(
        argv.windows(2)
            .any(|w| w == ["--served-model-name", "my-glm"]),
        "{argv:?}"
    );
    // `export PORT=30000` before the launcher feeds the escaped `${PORT}`.
    assert!(
        argv.windows(2).any(|w| w == ["--port", "30000"]),
        "{argv:?}"
    );
}

#[test]
fn updates_that_never_settle_are_an_input_error() {
    assert_input_error(
        &["extract", "fixtures/bad/jsx/effect-loop.jsx"],
        "fixtures/bad/jsx/effect-loop.jsx:2:14",
        &["updates did not settle after 50 renders"],
    );
}

const GLM_DISAGG: &str = "fixtures/cookbook/src/snippets/autoregressive/glm-disagg-deployment.jsx";

#[test]
fn a_checkbox_without_a_name_is_named_by_its_label_and_can_be_selected() {
    let (code, out, err) = run(&[
        "extract",
        GLM_DISAGG,
        "--select",
        "Metrics=true",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let argv = argv_of(&out, 0);
    assert!(argv.iter().any(|a| a == "--enable-metrics"), "{argv:?}");
    let (_, out, _) = run(&["extract", GLM_DISAGG, "--all-selections"]);
    assert!(
        out.contains(
            "selection 1: hardware=h200, variant=fp8, Speculative decoding=false, Metrics=false"
        ),
        "{out}"
    );
}

#[test]
fn buttons_are_clicked_like_a_reader_would() {
    // The Router button's state prints the router; without clicking buttons
    // it is never reached.
    let (_, out, err) = run(&[
        "extract",
        GLM_DISAGG,
        "--all-selections",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let states = v["components"][0]["states"].as_array().unwrap();
    let router = states
        .iter()
        .find(|s| {
            s["commands"][0]
                .as_str()
                .unwrap()
                .contains("sglang_router.launch_router")
        })
        .expect("a state reached through the Router button");
    assert_eq!(router["clicks"], serde_json::json!([[8, "click"]]));
}

#[test]
fn a_click_path_that_throws_is_reported_and_every_good_state_kept() {
    let (code, out, err) = run(&["extract", GLM_DISAGG, "--all-selections"]);
    assert_eq!(code, 1, "a crash path is a docs defect: {err}");
    assert!(out.contains(": 40 reachable selections"), "{out}");
    assert!(
        out.contains("crash 1: <GlmDisaggDeployment /> throws on clicking control #4 (fp4) in selection hardware=mi355x, variant=fp8"),
        "{out}"
    );
    assert!(
        out.contains("clicks from the initial state: #2=mi355x #4=fp4"),
        "{out}"
    );
    let (code, out, _) = run(&[
        "extract",
        GLM_DISAGG,
        "--all-selections",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let crashes = v["components"][0]["crashes"].as_array().unwrap();
    assert_eq!(
        crashes[0]["clicks"],
        serde_json::json!([[2, "mi355x"], [4, "fp4"]])
    );
    assert!(
        crashes[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("TypeError")
    );
}

#[test]
fn checkboxes_each_toggles_each_checkbox_alone() {
    let (_, all, _) = run(&["extract", GLM_DISAGG, "--all-selections"]);
    let (_, each, _) = run(&[
        "extract",
        GLM_DISAGG,
        "--all-selections",
        "--checkboxes",
        "each",
    ]);
    assert!(
        all.contains("Speculative decoding=true, Metrics=true"),
        "{all}"
    );
    assert!(
        !each.contains("Speculative decoding=true, Metrics=true"),
        "{each}"
    );
    assert!(
        each.contains("Speculative decoding=true, Metrics=false"),
        "{each}"
    );
    assert!(
        each.contains("Speculative decoding=false, Metrics=true"),
        "{each}"
    );
}

#[test]
fn an_unchanged_generator_is_read_back_from_the_cache_folder() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gen.jsx");
    let cache = dir.path().join("cache");
    let original = std::fs::read_to_string("fixtures/lint/src/snippets/clean.jsx").unwrap();
    std::fs::write(&file, &original).unwrap();
    let args = |f: &std::path::Path| {
        vec![
            "extract".to_string(),
            f.display().to_string(),
            "--all-selections".into(),
            "--cache-dir".into(),
            cache.display().to_string(),
        ]
    };
    let run_on = |f: &std::path::Path| {
        let a = args(f);
        run(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (code, first, err) = run_on(&file);
    assert_eq!(code, 0, "{err}");
    assert!(first.contains("sglang serve"), "{first}");
    // One entry, keyed by the bundle: edit what it says the states print.
    let entries: Vec<_> = std::fs::read_dir(cache.join("jsx-graphs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let kept = std::fs::read_to_string(&entries[0]).unwrap();
    assert!(kept.contains("sglang serve"));
    std::fs::write(
        &entries[0],
        kept.replace("sglang serve", "sglang serve --read-back"),
    )
    .unwrap();
    // The same generator: read back, not explored.
    let (code, again, err) = run_on(&file);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        again,
        first.replace("sglang serve", "sglang serve --read-back")
    );
    // A changed generator (a comment is enough): explored again.
    std::fs::write(&file, format!("{original}\n// changed\n")).unwrap();
    let (code, changed, err) = run_on(&file);
    assert_eq!(code, 0, "{err}");
    assert_eq!(changed, first);
}

#[test]
fn a_crash_path_names_the_generators_own_line_and_column() {
    // The TP table has no MI300X row: line 61 reads `TP[hardware][model]`
    // (QuickJS places the throw at the `[model]` read). Both the crash list
    // of --all-selections and lint-docs' RD007 name the file's own position,
    // not the transformed bundle's.
    const CRASH: &str = "fixtures/lint/src/snippets/crash.jsx";
    let (code, out, err) = run(&["extract", CRASH, "--all-selections"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("  thrown at fixtures/lint/src/snippets/crash.jsx:61:29\n"),
        "{out}"
    );
    let (code, out, err) = run(&["lint-docs", "--format", "concise", CRASH]);
    assert_eq!(code, 1, "{err}");
    let rd007: Vec<&str> = out.lines().filter(|l| l.contains("RD007")).collect();
    assert_eq!(rd007.len(), 2, "{out}");
    for l in rd007 {
        assert!(
            l.starts_with(
                "fixtures/lint/src/snippets/crash.jsx:61:29: error[RD007 generator-crash]"
            ),
            "{out}"
        );
    }
}

#[test]
fn a_limit_hit_on_a_click_path_is_an_error_not_a_crash_path() {
    // The memory limit raises a catchable error inside QuickJS; the explorer
    // catches a click's errors, but the engine's flag makes it the limit's.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bomb.jsx");
    std::fs::write(
        &file,
        "export const Gen = () => {\n  const [big, setBig] = useState(false);\n  const junk = big ? 'x'.repeat(2 ** 29) : '';\n  return <div><input type=\"checkbox\" name=\"big\" checked={big} onChange={() => setBig(!big)} /><pre>{'sglang serve --model-path m' + junk.slice(0, 0)}</pre></div>;\n};\n",
    )
    .unwrap();
    let (code, out, err) = run(&["extract", file.to_str().unwrap(), "--all-selections"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("memory limit"), "{err}");
    assert!(!out.contains("crash"), "{out}");
}

#[test]
fn a_component_reads_its_props_from_the_data_export_of_the_same_name() {
    let (code, out, err) = run(&[
        "extract",
        "fixtures/cookbook/src/snippets/autoregressive/recipe-table.jsx",
        "--select",
        "hardware=b200",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let argv = argv_of(&out, 0);
    assert!(argv.iter().any(|a| a == "zai-org/GLM-4.6-FP8"), "{argv:?}");
}

#[test]
fn prop_names_the_export_a_prop_is_read_from() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("data.jsx"),
        "export const ROWS = [{ command: 'sglang serve --model-path other --tp 4' }];\n",
    )
    .unwrap();
    let file = dir.path().join("t.jsx");
    std::fs::write(
        &file,
        "export const TABLE = [{ command: 'sglang serve --model-path m --tp 2' }];\nexport const T = ({ rows, isDark }) => <pre>{rows[0].command}</pre>;\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    // Two props, one data export of another name: no convention applies, and
    // the error says which props are missing.
    let (code, _, err) = run(&["extract", f]);
    assert_eq!(code, 2);
    assert!(
        err.contains("takes props it was not given (rows, isDark)"),
        "{err}"
    );
    assert!(err.contains("--prop NAME=EXPORT"), "{err}");
    let (code, out, err) = run(&["extract", f, "--prop", "rows=TABLE", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(argv_of(&out, 0).iter().any(|a| a == "m"));
    let (code, out, err) = run(&[
        "extract",
        f,
        "--prop",
        "rows=./data.jsx:ROWS",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(argv_of(&out, 0).iter().any(|a| a == "other"));
    let (code, _, err) = run(&["extract", f, "--prop", "rows=NOPE"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("exports no `NOPE`; its exports are: TABLE, T"),
        "{err}"
    );
}

#[test]
fn an_exploration_can_show_each_states_controls() {
    use recipe_drift::extract::jsx;
    jsx::set_worker_program(env!("CARGO_BIN_EXE_recipe-drift").into());
    let opts = jsx::Explore {
        controls: true,
        ..jsx::Explore::default()
    };
    let (_, found) = jsx::explore_file_with(
        std::path::Path::new(
            "fixtures/cookbook/src/snippets/autoregressive/nemotron-large-deployment.jsx",
        ),
        None,
        &[],
        jsx::Limits {
            total: std::time::Duration::from_secs(600),
            ..jsx::Limits::default()
        },
        opts,
    )
    .unwrap();
    let first = &found[0].views[0];
    let hw = first.controls.iter().find(|c| c.key == "hardware").unwrap();
    assert_eq!(hw.kind, "radio");
    let h100 = hw.items.iter().find(|i| i.value == "h100").unwrap();
    assert!(h100.disabled);
    assert_eq!(h100.reason, "Ultra does not fit on one H100 node");
    assert_eq!(h100.label, "H100");
    assert!(
        hw.items
            .iter()
            .find(|i| i.value == "b200")
            .unwrap()
            .selected
    );
    assert!(found[0].crashes.is_empty());
}

#[test]
fn the_time_budget_of_all_selections_cuts_with_the_same_message_every_run() {
    // A click counter with a costly render: every click is a new state; 200
    // renders of millions of loop turns never fit in one second, so the
    // exploration's own time budget ends it (not the click depth).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("slow.jsx");
    std::fs::write(
        &file,
        "export const Gen = () => {\n  const [n, setN] = useState(0);\n  let s = 0;\n  for (let i = 0; i < 3000000; i++) { s += i % 7; }\n  return <div><input type=\"checkbox\" name=\"more\" checked={n % 2 === 1} onChange={() => setN(n + 1)} /><pre>{'sglang serve --model-path m --tp ' + (n + s * 0)}</pre></div>;\n};\n",
    )
    .unwrap();
    let args = [
        "extract",
        file.to_str().unwrap(),
        "--all-selections",
        "--time-limit",
        "1",
    ];
    let (code, _, err) = run(&args);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("was still being explored after 1 s, the time budget of --all-selections"),
        "{err}"
    );
    // How far a machine got is not printed (issue 24, class 8): it differs
    // from run to run.
    assert!(
        !err.contains("states found") && err.contains("--time-limit SECS"),
        "{err}"
    );
    let (code2, _, err2) = run(&args);
    assert_eq!((code, &err), (code2, &err2));
}

/// Browser events are built as a browser builds them: an effect that announces
/// the selection with `window.dispatchEvent(new CustomEvent(..))` (the
/// cookbook's shared deployment engine does) renders, and an `Event`'s fields
/// are a browser's; dispatching runs no listener (window is inert).
#[test]
fn an_effect_that_dispatches_a_custom_event_renders() {
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let jsx = dir.path().join("events-deployment.jsx");
    std::fs::write(
        &jsx,
        r#"export const EventsDeployment = () => {
  const [tp, setTp] = useState(4);
  useEffect(() => {
    const e = new CustomEvent('sglang-deploy-sel', { detail: { tp } });
    const plain = new Event('x', { cancelable: true });
    plain.preventDefault();
    if (e.detail.tp !== tp || e.type !== 'sglang-deploy-sel' || !(e instanceof Event) || !plain.defaultPrevented) {
      throw new Error('not a browser event');
    }
    window.dispatchEvent(e);
  }, [tp]);
  return <pre>{`sglang serve --model-path org/m --tp ${tp}`}</pre>;
};
"#,
    )
    .unwrap();
    let (code, out, err) = run(&["extract", jsx.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(argv_of(&out, 0), ["--model-path", "org/m", "--tp", "4"]);
}

/// Effects that touch the page outside React's tree (issue 23: the cookbook's
/// playground injects a `<style>` into `document.head`): elements from
/// `document.createElement` take the properties, classes, style, attributes
/// and children a page sets and read them back; before the sandbox had a DOM,
/// `document.createElement` gave undefined and the mount threw a TypeError
/// (exit 2).
#[test]
fn effects_that_build_page_elements_render() {
    let (code, out, err) = run(&[
        "extract",
        "fixtures/explorer/dom-effects.jsx",
        "--all-selections",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("broken") && !out.contains("TypeError"),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let states = v["components"][0]["states"]
        .as_array()
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(states.len(), 8, "{out}");
    let first: Vec<&str> = states
        .iter()
        .map(|s| s["commands"][0].as_str().unwrap())
        .collect();
    assert!(
        first
            .iter()
            .any(|c| c.ends_with("--tp 8 --served-model-name probe-H100")),
        "{first:?}"
    );
    assert!(
        first
            .iter()
            .any(|c| c.ends_with("--tp 4 --served-model-name probe-B200")),
        "{first:?}"
    );
}

/// The document holds nothing a page made, so every state is the same world:
/// an element appended to `document.head` is not found by `getElementById`
/// or `querySelector`, writes to `<html>` and `<body>` are dropped, and a
/// `<script src>` never loads (its `onload` never runs).
#[test]
fn the_document_holds_nothing_a_page_made() {
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let jsx = dir.path().join("document-deployment.jsx");
    std::fs::write(
        &jsx,
        r#"export const DocumentDeployment = () => {
  const [seen, setSeen] = useState('none');
  useEffect(() => {
    const s = document.createElement('script');
    s.src = 'https://example.com/loader.js';
    s.id = 'loader';
    s.onload = () => setSeen('loaded');
    document.head.appendChild(s);
    document.documentElement.classList.add('dark');
    document.body.style.overflow = 'hidden';
    const found = [
      document.getElementById('loader'),
      document.querySelector('#loader'),
      document.head.childNodes.length,
      document.documentElement.classList.contains('dark'),
      document.body.style.overflow,
      s.src,
      s.parentNode,
    ];
    setSeen(JSON.stringify(found).replace(/[^a-z0-9]+/g, '-'));
  }, []);
  return <pre>{`sglang serve --model-path org/m --served-model-name ${seen}`}</pre>;
};
"#,
    )
    .unwrap();
    let (code, out, err) = run(&["extract", jsx.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        argv_of(&out, 0),
        [
            "--model-path",
            "org/m",
            "--served-model-name",
            "-null-null-0-false-https-example-com-loader-js-null-"
        ]
    );
}

/// Cards that select through their label's onClick, with hidden radios that
/// have no name or value (the shape of the cookbook's shared `_deployment.jsx`
/// engine): a group title element, then labels whose onClick sets the state
/// (a disabled card's does nothing but `preventDefault`).
const CARDS: &str = r#"export const Cards = () => {
  const dims = [
    { key: 'hw', title: 'AMD', items: [{ id: 'mi300x', label: 'MI300X', sub: '192GB' }, { id: 'mi355x', label: 'MI355X', sub: '288GB' }] },
    { key: 'q', title: 'Quantization', items: [{ id: 'fp8', label: 'FP8' }, { id: 'fp4', label: 'FP4' }, { id: 'int4', label: 'INT4' }] },
  ];
  const [sel, setSel] = useState({ hw: 'mi300x', q: 'fp8' });
  const enabled = (d, id) => !(d.key === 'q' && id === 'int4' && sel.hw === 'mi300x');
  return (
    <div>
      {dims.map((d) => (
        <div key={d.key}>
          <div>{d.title}</div>
          <div>
            {d.items.map((it) => (
              <label key={it.id} title={enabled(d, it.id) ? '' : 'Not supported for current selection'}
                onClick={(e) => { if (!enabled(d, it.id)) { e.preventDefault(); return; } setSel({ ...sel, [d.key]: it.id }); }}>
                <input type="radio" checked={sel[d.key] === it.id} disabled={!enabled(d, it.id)} readOnly style={{ display: 'none' }} />
                <span>{it.label}</span>
                {it.sub && <small>{it.sub}</small>}
              </label>
            ))}
          </div>
        </div>
      ))}
      <pre>{`sglang serve --model-path org/Model-${sel.q.toUpperCase()} --tp ${sel.hw === 'mi355x' ? 4 : 8}`}</pre>
    </div>
  );
};
"#;

/// Writes the cards fixture into a fresh folder: (folder, file).
fn cards() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cards.jsx");
    std::fs::write(&file, CARDS).unwrap();
    let file = file.to_str().unwrap().to_string();
    (dir, file)
}

/// Each selection names the group by its title and the pick by its label, as
/// a reader reads them.
#[test]
fn unnamed_radios_are_named_by_their_group_title_and_label() {
    let (dir, file) = cards();
    let (code, out, err) = run(&[
        "--root",
        dir.path().to_str().unwrap(),
        "extract",
        &file,
        "--all-selections",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let states = doc["components"][0]["states"].as_array().unwrap();
    // Each quantization on each model: INT4 on MI300X too (its card is
    // disabled there, but INT4 picked on MI355X stays picked after MI300X).
    assert_eq!(states.len(), 6, "{out}");
    assert_eq!(
        states[0]["selection"],
        serde_json::json!({"AMD": "MI300X 192GB", "Quantization": "FP8"})
    );
    assert!(
        states.iter().any(|s| s["selection"]
            == serde_json::json!({"AMD": "MI355X 288GB", "Quantization": "FP4"})
            && s["commands"][0] == "sglang serve --model-path org/Model-FP4 --tp 4"),
        "{out}"
    );
}

/// `--select` names such radios as `--all-selections` prints them (the group's
/// title, the card's label) and picks one by clicking its card, as the explorer
/// does.
#[test]
fn select_picks_unnamed_radios_by_their_group_title_and_label() {
    let (dir, file) = cards();
    let root = dir.path().to_str().unwrap();
    let (code, out, err) = run(&[
        "--root",
        root,
        "extract",
        &file,
        "--select",
        "AMD=MI355X 288GB",
        "--select",
        "Quantization=INT4",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        argv_of(&out, 0),
        ["--model-path", "org/Model-INT4", "--tp", "4"]
    );
    // A label that is not one, a name that is not one, a disabled card: each
    // an input error listing what there is.
    assert_input_error(
        &[
            "--root",
            root,
            "extract",
            &file,
            "--select",
            "Quantization=FP16",
        ],
        "cards.jsx",
        &["`Quantization=FP16` is not a value", "FP8, FP4"],
    );
    assert_input_error(
        &["--root", root, "extract", &file, "--select", "AMD=MI355X"],
        "cards.jsx",
        &["`AMD=MI355X` is not a value", "MI300X 192GB, MI355X 288GB"],
    );
    assert_input_error(
        &["--root", root, "extract", &file, "--select", "Quant=FP4"],
        "cards.jsx",
        &["no option `Quant`", "AMD, Quantization"],
    );
    assert_input_error(
        &[
            "--root",
            root,
            "extract",
            &file,
            "--select",
            "Quantization=INT4",
        ],
        "cards.jsx",
        &[
            "`Quantization=INT4` is disabled",
            "INT4 (disabled: Not supported for current selection)",
        ],
    );
}

/// A control a config cannot name by key is named as a reader names it: a
/// `<select>` without a name by its label's own text (or `@N`, its position
/// among the options), a chip (a button without a name) by its text with the
/// value `click`; the error for an unknown name says so.
#[test]
fn select_names_a_control_by_its_label_position_or_chip_text() {
    const CHIPS: &str = "fixtures/verdicts/chips/chips-deployment.jsx";
    let words = |select: &[&str]| -> Vec<String> {
        let mut args = vec!["extract", CHIPS, "--format", "json"];
        for s in select {
            args.push("--select");
            args.push(s);
        }
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        argv_of(&out, 0)
    };
    let tail = |w: Vec<String>| w[w.len() - 4..].join(" ");
    assert_eq!(tail(words(&[])), "--tp 4 --moe-a2a-backend deepep");
    assert_eq!(
        tail(words(&["Tensor parallel=8", "MegaMoE=click"])),
        "--tp 8 --moe-a2a-backend megamoe"
    );
    assert_eq!(tail(words(&["@1=8"])), "--tp 8 --moe-a2a-backend deepep");
    assert_input_error(
        &["extract", CHIPS, "--select", "MegaMoE=on"],
        "fixtures/verdicts/chips/chips-deployment.jsx:5:14",
        &[
            "has no option `MegaMoE`",
            "its options are: Tensor parallel",
            "a button or chip by its text, with the value `click`",
        ],
    );
}

/// A playground in the cookbook's shape (fixtures/verdicts/playground, ours):
/// knobs are <select>s without a name or a label, a slider is a range input,
/// and two cards each hold an `Enable` chip, stacked the other way on a
/// phone. Each control is named as a reader names it (the text before it;
/// a chip by its text and its card's title), the slider is moved, and the
/// same state in another browser is found by what a reader clicks, not by
/// the control's position: the command depends on no browser property, so
/// every state is read (it was "depends on the reader's browser" when the
/// unnamed selects shared one empty key, and when the two chips shared a
/// label).
#[test]
fn a_playground_names_its_controls_as_a_reader_does_in_every_browser() {
    const PLAYGROUND: &str = "fixtures/verdicts/playground/playground-deployment.jsx";
    let (code, out, err) = run(&["extract", PLAYGROUND, "--all-selections"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("48 reachable selections"), "{out}");
    for label in [
        "selection 1: TP=0, EP=0, Draft tokens=1\n",
        "TP=1, EP=1, Draft tokens=3\n",
        "(after clicking Enable (HiCache))",
        "(after clicking Enable (HiSparse))",
    ] {
        assert!(out.contains(label), "{label} in {out}");
    }
    let (code, out, err) = run(&[
        "extract",
        PLAYGROUND,
        "--select",
        "TP=1",
        "--select",
        "Draft tokens=3",
        "--select",
        "Enable (HiSparse)=click",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let argv = argv_of(&out, 0).join(" ");
    assert!(
        argv.contains("--tp 8 --ep 4 --speculative-num-draft-tokens 3 --enable-hisparse"),
        "{argv}"
    );
    assert!(!argv.contains("--enable-hierarchical-cache"), "{argv}");
}

/// A checkbox with neither a name, an id nor a value is named by its label
/// as a reader reads it: a subtitle in a block box stands apart from the
/// label's text, inline text does not, hidden text is not read.
#[test]
fn a_checkbox_is_named_by_its_label_as_a_reader_reads_it() {
    const PAGE: &str = "fixtures/explorer/checkbox-labels.jsx";
    let (code, out, err) = run(&["extract", PAGE, "--all-selections"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("TP Tensor Parallel=true, EP Expert Parallel=false, Metrics:=false"),
        "{out}"
    );
    let (code, out, err) = run(&[
        "extract",
        PAGE,
        "--select",
        "EP Expert Parallel=true",
        "--select",
        "Metrics:=true",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let argv = argv_of(&out, 0).join(" ");
    assert!(argv.contains("--tp 8 --ep 8 --enable-metrics"), "{argv}");
}
