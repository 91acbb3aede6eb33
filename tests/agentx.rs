//! AgentX tables as a docs side: a page that renders `<AgentX data={agentx} />`
//! is read through its data module (every cell, point, KV tier and router),
//! each worker a launch with its role; zero-config `check` pairs each cell
//! with the InferenceX entry it names, role to role.

mod common;

use common::run;
use serde_json::Value;

const DOCS: &str = "fixtures/agentx/docs";
const PAGE: &str = "fixtures/agentx/docs/cookbook/Demo/Demo.mdx";
const IX: &str = "fixtures/agentx/inferencex";
const ENTRY: &str = "demo-fp8-gb300-dynamo-sglang-agentic-disagg";

fn json(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = run(args);
    let doc = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, doc)
}

fn selection(v: &Value, key: &str) -> String {
    v["selection"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p[0] == key)
        .map(|p| p[1].as_str().unwrap().to_string())
        .unwrap_or_default()
}

#[test]
fn every_state_of_the_page_has_its_workers_with_their_roles_and_entry() {
    let (code, doc) = json(&["extract", "--all-selections", "--format", "json", PAGE]);
    assert_eq!(code, 0, "{doc:#}");
    let states = doc["selections"].as_array().unwrap();
    // Cell 1: 2 points x 2 KV tiers x 2 routers; cell 2: 1 state.
    assert_eq!(states.len(), 9, "{doc:#}");
    for s in &states[..8] {
        assert_eq!(s["entry"], ENTRY);
        let roles: Vec<&str> = s["launches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["role"].as_str().unwrap())
            .collect();
        // etcd, the frontend and the router start no engine.
        assert_eq!(roles, ["prefill", "decode"], "{s:#}");
    }
    let agg = &states[8];
    assert_eq!(agg["launches"][0]["role"], "aggregated");
    assert_eq!(agg["entry"], "demo-fp8-gb300-dynamo-sglang-agentic-agg");
}

#[test]
fn a_from_block_with_a_diff_is_the_submitted_block_changed_and_a_later_point_patched() {
    let (_, doc) = json(&["extract", "--all-selections", "--format", "json", PAGE]);
    let states = doc["selections"].as_array().unwrap();
    let find = |conc: &str, router: &str| {
        states
            .iter()
            .find(|s| {
                selection(s, "concurrency") == conc
                    && selection(s, "router") == router
                    && selection(s, "kv") == "hicache"
            })
            .unwrap_or_else(|| panic!("c{conc} {router}"))
    };
    let argv = |s: &Value, i: usize| -> Vec<String> {
        serde_json::from_value(s["launches"][i]["argv"].clone()).unwrap()
    };
    let sglang = find("4", "sglang");
    let prefill = argv(sglang, 0);
    // The SGLang router's prefill worker: Dynamo's block with `--request-plane`
    // deleted and `--port 30001` added, lead flags first.
    assert!(
        !prefill.contains(&"--request-plane".to_string()),
        "{prefill:?}"
    );
    let at = prefill.iter().position(|w| w == "--port").expect("--port");
    assert_eq!(prefill[at + 1], "30001");
    assert!(
        at < prefill
            .iter()
            .position(|w| w == "--disaggregation-mode")
            .unwrap()
    );
    // Its environment comes from the shared `envs` entry.
    let env = sglang["launches"][0]["env"].to_string();
    assert!(env.contains("SGLANG_TIMEOUT_KEEP_ALIVE"), "{env}");
    // The second point patches the prefill worker of the SGLang router only.
    let later = argv(find("8", "sglang"), 0);
    let mem = later
        .iter()
        .position(|w| w == "--mem-fraction-static")
        .unwrap();
    assert_eq!(later[mem + 1], "0.83");
    let dynamo_prefill = argv(find("8", "dynamo"), 0);
    let mem = dynamo_prefill
        .iter()
        .position(|w| w == "--mem-fraction-static")
        .unwrap();
    assert_eq!(dynamo_prefill[mem + 1], "0.8");
}

#[test]
fn check_pairs_each_cell_with_its_entry_role_to_role_and_finds_the_decode_drift() {
    let (code, doc) = json(&[
        "check",
        "--docs-root",
        DOCS,
        "--inferencex",
        IX,
        "--no-checkpoint-facts",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{doc:#}");
    let links = doc["links"].as_array().unwrap();
    // 4 states of the disaggregated cell, each prefill and decode.
    assert_eq!(links.len(), 8, "{doc:#}");
    for l in links {
        assert_eq!(l["pair"]["recipe"]["entry"], ENTRY);
        assert_eq!(l["pair"]["docs"]["entry"], ENTRY);
        let tp_error = l["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["key"] == "tp_size" && f["severity"] == "error");
        match l["pair"]["role"].as_str().unwrap() {
            // The decode worker runs tp 8, the recipe's decode 4: drift in
            // that role only.
            "decode" => assert!(tp_error, "{l:#}"),
            "prefill" => {
                assert!(!tp_error, "{l:#}");
                assert_ne!(l["status"], "drift", "{l:#}");
            }
            other => panic!("role {other}"),
        }
    }
    // The cell whose entry the checkout does not have is coverage; so are
    // the states of a KV tier the page derives (no offload) from the
    // measured one (HiCache), which the entry never ran.
    let coverage = doc["coverage"].as_array().unwrap();
    let derived: Vec<&Value> = coverage
        .iter()
        .filter(|c| {
            c["message"]
                .as_str()
                .unwrap()
                .contains("nearest differs in kv-offload")
        })
        .collect();
    assert_eq!(derived.len(), 4, "{coverage:#?}");
    assert!(
        coverage.iter().any(|c| c["kind"] == "docs-unpaired"
            && c["message"].as_str().unwrap().contains(
                "demo-fp8-gb300-dynamo-sglang-agentic-agg, which the checkout does not have"
            )),
        "{coverage:#?}"
    );
}

#[test]
fn a_data_module_that_is_code_is_an_input_error_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsx");
    std::fs::write(
        &file,
        "// ours\nexport const agentx = {\n \"cells\": [() => 1]\n};\n",
    )
    .unwrap();
    let (code, _, err) = run(&["extract", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.jsx:3:"), "{err}");
}

#[test]
fn a_table_over_the_state_budget_is_cut_and_reported() {
    let (_, doc) = json(&[
        "check",
        "--docs-root",
        DOCS,
        "--inferencex",
        IX,
        "--no-checkpoint-facts",
        "--max-states",
        "4",
        "--format",
        "json",
    ]);
    // The first four states (the first point's two KV tiers by its two
    // routers) are read: the measured tier's two pair, role by role.
    assert_eq!(doc["links"].as_array().unwrap().len(), 4, "{doc:#}");
    let cut = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "state-budget")
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert!(
        cut["message"]
            .as_str()
            .unwrap()
            .contains("the first 4 states"),
        "{cut:#}"
    );
}
