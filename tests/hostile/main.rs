//! The hostile-input suite (issue 12): inputs an attacker controls, one module
//! per class of failure. Every case runs the real binary in a scratch
//! repository and asserts what the security model (`docs/src/security.md`)
//! promises: the exit code and the error's position, a time and memory budget, nothing read
//! or printed from outside the repository, and byte-identical output across
//! runs. Large inputs are generated here, never committed.

mod adv2;
mod adv3_bash;
mod adv3_leftovers;
mod adv4_env;
mod adv4_eval;
mod adv4_writes;
mod adv7;
mod bash_bounds;
mod bash_semantics;
mod bash_values;
mod confine;
mod cuts;
mod discover;
mod harness;
mod js;
mod js_html;
mod js_tasks;
mod launch_forms;
mod launch_recognition;
mod matrix;
mod open_env;
mod output;
mod page_render;
mod pages;
mod scale;
mod secret_forms;
mod secret_slots;
mod shell_front_end;
mod url_secrets;
mod verdicts;
mod yaml11;
mod yaml_tags;

pub use harness::*;

/// The harness itself: a plain input runs within budget, deterministically.
#[test]
fn harness_plain_input_is_bounded_and_deterministic() {
    let repo = Repo::new();
    repo.write("serve.sh", "sglang serve --model-path m --tp 2\n");
    let o = repo.run_deterministic(&["extract", "serve.sh"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("--tp"), "{}", o.both());
}
