//! The confined file layer: every path found inside an input (a link's
//! `file:`, `bash X`, a vLLM `--config`, an MDX import) is read only when it
//! stays inside the repository root; absolute paths, `..` escapes and
//! symlinks leading out are refused with an error naming the path, never its
//! content. Files are read up to a size cap, regular files only.

use crate::*;

/// The refusal every confinement case ends in.
const REFUSED: &[&str] = &["refused to read", "outside the repository root"];

fn config(repo: &Repo, docs: &str, recipe: &str) {
    repo.write(
        ".recipe-drift.yaml",
        format!(
            "links:\n  - name: l\n    docs:\n      file: {docs}\n    recipe:\n      file: {recipe}\n"
        ),
    );
    repo.write("recipe.sh", "sglang serve --model-path m --tp 8\n");
}

#[test]
fn a_link_file_outside_the_root_is_refused_at_the_config() {
    let repo = Repo::new();
    let abs = repo.outside().join("secret.txt");
    let symlinked = {
        repo.symlink("docs/link.md", &abs);
        "docs/link.md".to_string()
    };
    for file in [
        "../outside/secret.txt".to_string(),
        "docs/../../outside/secret.txt".to_string(),
        abs.display().to_string(),
        symlinked,
    ] {
        config(&repo, &file, "recipe.sh");
        for format in ["human", "json", "sarif", "github", "markdown"] {
            let o = repo.run_deterministic(&["check", "--format", format]);
            o.assert_input_error(".recipe-drift.yaml:4:13", REFUSED)
                .assert_no_leak();
            let named = if file.ends_with("link.md") {
                &file[..]
            } else {
                "outside/secret.txt"
            };
            assert!(o.stderr.contains(named), "names the path: {}", o.both());
        }
    }
}

#[test]
fn bash_delegation_outside_the_root_is_refused_at_the_command() {
    let repo = Repo::new();
    let abs = repo.outside().join("secret.sh");
    repo.symlink("helper.sh", &abs);
    repo.symlink("lib", &repo.outside());
    for target in [
        abs.display().to_string(),
        "../outside/secret.sh".to_string(),
        "./helper.sh".to_string(),
        "lib/secret.sh".to_string(),
    ] {
        repo.write("scripts/serve.sh", format!("export X=1\nbash {target}\n"));
        let o = repo.run_deterministic(&["extract", "scripts/serve.sh"]);
        o.assert_input_error("scripts/serve.sh:2:6", REFUSED)
            .assert_no_leak();
    }
    // From the script's own folder, an absolute path is refused the same way.
    repo.write("scripts/serve.sh", format!("bash {}\n", abs.display()));
    let o = run_in(&repo.root().join("scripts"), &["extract", "serve.sh"]);
    o.assert_input_error("serve.sh:1:6", REFUSED)
        .assert_no_leak();
}

#[test]
fn a_symlinked_vllm_config_is_refused_at_its_option() {
    let repo = Repo::new();
    repo.symlink("serve.yaml", &repo.outside().join("secret.txt"));
    repo.write(
        "docs.sh",
        "vllm serve m --config serve.yaml --tensor-parallel-size 2\n",
    );
    repo.write("recipe.sh", "vllm serve m --tensor-parallel-size 2\n");
    let o = repo.run_deterministic(&["compare", "docs.sh", "recipe.sh"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(2), "{}", o.both());
    for w in ["docs.sh:1:23", "--config serve.yaml"]
        .iter()
        .chain(REFUSED)
    {
        assert!(o.both().contains(w), "expected {w:?}: {}", o.both());
    }
}

#[test]
fn an_mdx_import_outside_the_root_is_refused_at_the_import() {
    let repo = Repo::new();
    for (page, from) in [
        ("page.mdx", "../outside/secret.txt"),
        ("sub/page.mdx", "../../outside/secret.txt"),
    ] {
        repo.write(
            page,
            format!("import {{X}} from '{from}'\n\n# Serve\n\n<X />\n"),
        );
        let o = repo.run_deterministic(&["extract", page]);
        o.assert_input_error(&format!("{page}:1:1"), REFUSED)
            .assert_no_leak();
    }
}

#[test]
fn files_named_on_the_command_line_set_the_root() {
    let repo = Repo::new();
    // The user named a file outside the current repository: its folder is the
    // root, so it is read (and a sibling it delegates to, too).
    std::fs::write(repo.outside().join("run.sh"), "bash secret.sh\n").unwrap();
    let run = repo.outside().join("run.sh");
    let o = repo.run_deterministic(&["extract", run.to_str().unwrap()]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    // --root narrows it: the same file is refused, naming the flag's folder.
    let o = repo.run(&["extract", "--root", ".", run.to_str().unwrap()]);
    o.assert_input_error("run.sh:1:1", REFUSED).assert_no_leak();
}

#[test]
fn an_inferencex_root_named_by_the_config_is_a_second_root() {
    let repo = Repo::new();
    repo.write(
        ".recipe-drift.yaml",
        "links:\n  - name: l\n    docs:\n      file: docs.sh\n    recipe:\n      inferencex: {root: ../ix, entry: e}\n",
    );
    repo.write("docs.sh", "sglang serve --model-path m --tp 8\n");
    let ix = repo.root().join("../ix");
    std::fs::create_dir_all(ix.join("configs")).unwrap();
    // Inside the second root: read (the entry is missing: an error about it,
    // not a refusal).
    let o = repo.run(&["check"]);
    o.assert_bounded().assert_no_leak();
    assert!(!o.both().contains("refused"), "{}", o.both());
    // A symlink in it leading out of it is refused.
    std::os::unix::fs::symlink(
        repo.outside().join("secret.txt"),
        ix.join("configs/x-master.yaml"),
    )
    .unwrap();
    let o = repo.run(&["check"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(o.both().contains("refused to read"), "{}", o.both());
}

#[test]
fn a_file_over_the_size_cap_is_an_error_naming_the_cap() {
    let repo = Repo::new();
    let line = "# filler line of a long page\n";
    repo.write(
        "big.md",
        line.repeat((9 << 20) / line.len() + 1), // over the 8 MiB default
    );
    let o = repo.run_deterministic(&["extract", "big.md"]);
    o.assert_input_error(
        "big.md:1:1",
        &["size cap of 8388608 bytes", "--max-file-bytes"],
    );
    repo.write(
        "small.sh",
        format!("sglang serve --model-path m {}\n", "--tp 8 ".repeat(40)),
    );
    let o = repo.run(&["extract", "--max-file-bytes", "100", "small.sh"]);
    o.assert_input_error("small.sh:1:1", &["size cap of 100 bytes"]);
    let o = repo.run(&["extract", "--max-file-bytes", "100000", "small.sh"]);
    assert_eq!(o.code, Some(0), "{}", o.both());
}

#[test]
fn a_fifo_or_device_is_not_read() {
    let repo = Repo::new();
    let fifo = repo.root().join("serve.sh");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // A reader of a FIFO blocks forever: the layer refuses it up front.
    let o = repo.run_deterministic(&["extract", "serve.sh"]);
    o.assert_input_error("serve.sh:1:1", &["not a regular file"]);
}
