//! Remote sources, against a loopback HTTP server started by each test (never
//! the real network): URL and `github:` sides, the cache and ETag revalidation,
//! `--offline`, retries, the size cap, the allow-list, and an InferenceX root
//! served remotely that is read file by file.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use common::http::{Resp, Server, ok, status};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(repo().join(rel)).unwrap()
}

/// Runs recipe-drift with the test-only bases pointing at `server` and short
/// retry delays: (exit code, stdout, stderr).
fn run(server: &Server, envs: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::cargo_bin("recipe-drift").unwrap();
    cmd.current_dir(repo())
        .env_remove("GITHUB_TOKEN")
        .env("RECIPE_DRIFT_GITHUB_RAW_BASE", server.base())
        .env("RECIPE_DRIFT_GITHUB_API_BASE", server.base())
        .env("RECIPE_DRIFT_RETRY_DELAY_MS", "1")
        .args(args)
        // Configs cannot allow the loopback test server (a config file may
        // allow public DNS names only): the user allows it here.
        .args(if args.first() == Some(&"check") {
            &["--allow-host", "127.0.0.1"][..]
        } else {
            &[]
        })
        // The configs live in a scratch folder and name the crate's fixtures:
        // both are roots of the confined file layer.
        .arg("--root")
        .arg(repo())
        .arg("--root")
        .arg(std::env::temp_dir());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        err,
    )
}

/// A config linking a remote docs page with the local demo recipe.
fn url_config(dir: &Path, docs: &str) -> PathBuf {
    let recipe = repo().join("fixtures/demo/qwen35-mi355x-recipe.sh");
    let path = dir.join("recipe-drift.yaml");
    std::fs::write(
        &path,
        format!(
            "links:\n  - name: remote page\n    docs:\n      file: {docs}\n    recipe:\n      file: {}\n",
            recipe.display()
        ),
    )
    .unwrap();
    path
}

fn cache_arg(dir: &tempfile::TempDir) -> String {
    dir.path().join("cache").display().to_string()
}

/// The demo's cookbook page, with an ETag.
fn page_server() -> Server {
    Server::start(|req, _| {
        if req.path != "/docs/qwen35.md" {
            return status(404);
        }
        if req.header("if-none-match") == Some("\"v1\"") {
            return status(304);
        }
        let mut r = ok(fixture("fixtures/demo/qwen35-mi355x-cookbook.md"));
        r.headers.push(("ETag".into(), "\"v1\"".into()));
        r
    })
}

#[test]
fn a_link_side_from_a_url_is_compared_end_to_end() {
    let server = page_server();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}/docs/qwen35.md", server.base());
    let config = url_config(dir.path(), &url);
    let cache = cache_arg(&dir);
    let (code, out, err) = run(
        &server,
        &[("GITHUB_TOKEN", "sekrit")],
        &[
            "check",
            "--config",
            config.to_str().unwrap(),
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("{url}:18:1")), "{out}");
    assert!(out.contains("hicache_io_backend differs"), "{out}");
    // The token goes to GitHub hosts only.
    assert!(server.requests()[0].header("authorization").is_none());

    // `compare` takes URLs too, with --allow-host.
    let recipe = "fixtures/demo/qwen35-mi355x-recipe.sh";
    let (code, out, err) = run(
        &server,
        &[],
        &[
            "compare",
            &url,
            recipe,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("{url}:18:1")), "{out}");
}

#[test]
fn the_cache_is_revalidated_with_the_etag() {
    let server = page_server();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}/docs/qwen35.md", server.base());
    let config = url_config(dir.path(), &url);
    let cache = cache_arg(&dir);
    let args = [
        "check",
        "--config",
        config.to_str().unwrap(),
        "--cache-dir",
        &cache,
    ];
    let (code1, out1, _) = run(&server, &[], &args);
    let (code2, out2, err2) = run(&server, &[], &args);
    assert_eq!((code1, code2), (1, 1), "{err2}");
    assert_eq!(out1, out2);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].header("if-none-match"), None);
    assert_eq!(reqs[1].header("if-none-match"), Some("\"v1\""));
    // The cache holds the body and its metadata (URL and ETag).
    let metas: Vec<String> = std::fs::read_dir(dir.path().join("cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".meta.json"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert_eq!(metas.len(), 1);
    assert!(
        metas[0].contains(&url) && metas[0].contains("v1"),
        "{}",
        metas[0]
    );
}

#[test]
fn offline_uses_the_cache_and_names_what_is_missing() {
    let server = page_server();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}/docs/qwen35.md", server.base());
    let config = url_config(dir.path(), &url);
    let cache = cache_arg(&dir);
    let online = [
        "check",
        "--config",
        config.to_str().unwrap(),
        "--cache-dir",
        &cache,
    ];
    let (code, online_out, _) = run(&server, &[], &online);
    assert_eq!(code, 1);
    let mut offline = online.to_vec();
    offline.push("--offline");
    let (code, out, err) = run(&server, &[], &offline);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, online_out);
    assert_eq!(server.requests().len(), 1, "offline made a request");

    // A cold cache: exit 2, naming the URL.
    let cold = dir.path().join("cold").display().to_string();
    let (code, out, err) = run(
        &server,
        &[],
        &[
            "check",
            "--config",
            config.to_str().unwrap(),
            "--cache-dir",
            &cold,
            "--offline",
        ],
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains(&url) && out.contains("--offline: not in the cache"),
        "{out}"
    );
    assert!(out.contains("remote page"), "{out}");
    assert_eq!(server.requests().len(), 1);
    let recipe = "fixtures/demo/qwen35-mi355x-recipe.sh";
    let (code, _, err) = run(
        &server,
        &[],
        &[
            "compare",
            &url,
            recipe,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cold,
            "--offline",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains(&url) && err.contains("not in the cache"),
        "{err}"
    );
}

#[test]
fn a_server_error_is_retried_then_succeeds() {
    let server = Server::start(|_, seen| {
        if seen == 0 {
            status(500)
        } else {
            ok(fixture("fixtures/demo/qwen35-mi355x-cookbook.md"))
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}/docs/qwen35.md", server.base());
    let recipe = "fixtures/demo/qwen35-mi355x-recipe.sh";
    let cache = cache_arg(&dir);
    let (code, out, err) = run(
        &server,
        &[],
        &[
            "compare",
            &url,
            recipe,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(server.paths().len(), 2);
}

#[test]
fn retries_are_bounded() {
    let server = Server::start(|_, _| status(503));
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}/docs/qwen35.md", server.base());
    let recipe = "fixtures/demo/qwen35-mi355x-recipe.sh";
    let cache = cache_arg(&dir);
    let (code, _, err) = run(
        &server,
        &[],
        &[
            "compare",
            &url,
            recipe,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains(&url) && err.contains("HTTP 503") && err.contains("3 tries"),
        "{err}"
    );
    assert_eq!(server.paths().len(), 3);

    // A 404 is not retried, and says so.
    let server = Server::start(|_, _| status(404));
    let url = format!("{}/docs/gone.md", server.base());
    let (code, _, err) = run(
        &server,
        &[],
        &[
            "compare",
            &url,
            recipe,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains(&url) && err.contains("404"), "{err}");
    assert_eq!(server.paths().len(), 1);
}

#[test]
fn a_body_over_the_size_cap_is_refused() {
    let server = Server::start(|_, _| ok(vec![b'#'; 10 * 1024 * 1024 + 1]));
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}/big.md", server.base());
    let cache = cache_arg(&dir);
    let (code, _, err) = run(
        &server,
        &[],
        &[
            "compare",
            &url,
            &url,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains(&url) && err.contains("size cap"), "{err}");
}

#[test]
fn hosts_outside_the_allow_list_are_refused() {
    let server = page_server();
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_arg(&dir);
    let recipe = "fixtures/demo/qwen35-mi355x-recipe.sh";
    let (code, _, err) = run(
        &server,
        &[],
        &[
            "compare",
            "https://example.com/page.md",
            recipe,
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("https://example.com/page.md")
            && err.contains("host example.com is not allowed")
            && err.contains("allow-hosts"),
        "{err}"
    );
    // An IP address only when the user lists it (plain http, too, only to a
    // host listed explicitly).
    let url = format!("{}/docs/qwen35.md", server.base());
    let (code, _, err) = run(
        &server,
        &[],
        &["compare", &url, recipe, "--cache-dir", &cache],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("is an IP address") && err.contains("--allow-host 127.0.0.1"),
        "{err}"
    );
    assert!(server.paths().is_empty());

    // A redirect to a host not allowed is refused.
    let redirecting = Server::start(|_, _| Resp {
        status: 302,
        headers: vec![("Location".into(), "https://evil.example/x.md".into())],
        body: vec![],
    });
    let url = format!("{}/docs/qwen35.md", redirecting.base());
    let (code, _, err) = run(
        &redirecting,
        &[],
        &[
            "compare",
            &url,
            recipe,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("evil.example") && err.contains("not allowed"),
        "{err}"
    );
}

/// Serves `fixtures/inferencex` as the repository acme/InferenceX at `main`:
/// raw files, and folder listings as GitHub's contents API gives them.
fn inferencex_server() -> Server {
    inferencex_server_of("fixtures/inferencex")
}

/// Serves a fixture checkout as the repository acme/InferenceX at `main`.
fn inferencex_server_of(fixture: &'static str) -> Server {
    Server::start(move |req, _| {
        let root = repo().join(fixture);
        if let Some(rest) = req.path.strip_prefix("/repos/acme/InferenceX/contents/") {
            let (dir, query) = rest.split_once('?').unwrap_or((rest, ""));
            if query != "ref=main" {
                return status(404);
            }
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                return status(404);
            };
            let items: Vec<serde_json::Value> = entries
                .map(|e| e.unwrap())
                .map(|e| {
                    let kind = if e.file_type().unwrap().is_dir() {
                        "dir"
                    } else {
                        "file"
                    };
                    serde_json::json!({"name": e.file_name().to_string_lossy(), "type": kind})
                })
                .collect();
            return ok(serde_json::to_vec(&items).unwrap());
        }
        match req.path.strip_prefix("/acme/InferenceX/main/") {
            Some(rel) => match std::fs::read(root.join(rel)) {
                Ok(body) => ok(body),
                Err(_) => status(404),
            },
            None => status(404),
        }
    })
}

#[test]
fn github_shorthand_maps_to_raw_files_with_the_token() {
    let server = inferencex_server();
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_arg(&dir);
    let file =
        "github:acme/InferenceX@main:benchmarks/single_node/fixed_seq_len/gptoss_fp4_mi300x.sh";
    let (code, out, err) = run(
        &server,
        &[("GITHUB_TOKEN", "sekrit")],
        &[
            "extract",
            file,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    // The script delegates to a sibling (`bash "$(dirname "$0")/..."`), fetched too.
    assert_eq!(
        server.paths(),
        [
            "/acme/InferenceX/main/benchmarks/single_node/fixed_seq_len/gptoss_fp4_mi300x.sh",
            "/acme/InferenceX/main/benchmarks/single_node/fixed_seq_len/gptoss_fp4_mi300x_vllm_inner.sh",
        ]
    );
    assert!(
        out.contains("github:acme/InferenceX@main:benchmarks/single_node/fixed_seq_len/gptoss_fp4_mi300x_vllm_inner.sh:"),
        "{out}"
    );
    for r in server.requests() {
        assert_eq!(r.header("authorization"), Some("Bearer sekrit"));
    }
}

#[test]
fn an_inferencex_root_on_github_fetches_only_what_the_entry_needs() {
    let server = inferencex_server();
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_arg(&dir);
    let config = dir.path().join("recipe-drift.yaml");
    std::fs::write(
        &config,
        format!(
            "links:\n  - name: cookbook vs remote matrix\n    docs:\n      file: {}\n      hardware: mi355x\n    recipe:\n      inferencex: {{root: \"github:acme/InferenceX@main\", entry: qwen3.5-fp4-mi355x-sglang-agentic-mtp, where: {{kv-offloading: dram}}}}\n",
            repo().join("fixtures/demo/qwen35-mi355x-cookbook.md").display()
        ),
    )
    .unwrap();
    let args = [
        "check",
        "--config",
        config.to_str().unwrap(),
        "--cache-dir",
        &cache,
    ];
    let (code, out, err) = run(&server, &[], &args);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("hicache_io_backend differs"), "{out}");
    let script = "benchmarks/single_node/agentic/qwen3.5_fp4_mi355x_sglang_mtp.sh";
    assert!(
        out.contains(&format!("github:acme/InferenceX@main:{script}:")),
        "{out}"
    );
    let mut paths = server.paths();
    paths.sort();
    assert_eq!(
        paths,
        [
            format!("/acme/InferenceX/main/{script}"),
            "/acme/InferenceX/main/configs/amd-master.yaml".to_string(),
            "/repos/acme/InferenceX/contents/configs?ref=main".to_string(),
        ]
    );
    // The same, offline, from the cache alone.
    let mut offline = args.to_vec();
    offline.push("--offline");
    let (code2, out2, err2) = run(&server, &[], &offline);
    assert_eq!(code2, 1, "{err2}");
    assert_eq!(out2, out);
    assert_eq!(server.paths().len(), 3);
}

/// One remote file has one timeout in all, retries included: a server too
/// slow for it is tried once and reported (three full tries took 90 s).
#[test]
fn a_timeout_is_reported_within_one_timeout() {
    let server = Server::start(|_, _| {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        ok("sglang serve --model-path m\n")
    });
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}/cmd.txt", server.base());
    let cache = cache_arg(&dir);
    let (code, _, err) = run(
        &server,
        &[("RECIPE_DRIFT_HTTP_TIMEOUT_MS", "200")],
        &[
            "extract",
            &url,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains(&url)
            && err.contains("timed out")
            && err.contains("gave up after 1 try, within the 200 ms timeout of one remote file"),
        "{err}"
    );
    assert_eq!(server.paths().len(), 1);
}

#[test]
fn a_remote_config_value_that_is_not_a_remote_form_is_an_error() {
    let server = page_server();
    let (code, _, err) = run(&server, &[], &["compare", "github:acme@main:x.md", "y.md"]);
    assert_eq!(code, 2);
    assert!(err.contains("github:OWNER/REPO@REF:PATH"), "{err}");
    assert!(server.paths().is_empty());
}

#[test]
fn a_body_that_trickles_in_is_cut_at_the_request_timeout() {
    // A server that answers at once, then sends its 200-byte body one byte every
    // 100 ms: each read is quick, the whole takes 20 s (and would succeed).
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 200\r\nConnection: close\r\n\r\n",
                );
                for _ in 0..200 {
                    if stream.write_all(b"x").is_err() {
                        return;
                    }
                    let _ = stream.flush();
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
            });
        }
    });
    let url = format!("http://127.0.0.1:{port}/slow.txt");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("recipe-drift")
        .unwrap()
        .env("RECIPE_DRIFT_HTTP_TIMEOUT_MS", "300")
        .env("RECIPE_DRIFT_RETRY_DELAY_MS", "1")
        .args([
            "extract",
            &url,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            dir.path().to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("timed out after 300 ms reading the body"),
        "{err}"
    );
}

#[test]
fn github_refs_cannot_climb_out_of_their_repository() {
    for r in [
        "github:o/r@../../evil/repo/main:x.sh",
        "github:../r@main:x.sh",
        "github:o/..@main:x.sh",
        "github:o/r@main:../../x.sh",
        "github:o/r@a#b:x.md",
        "github:o/r@main:x%2e.md",
    ] {
        let out = Command::cargo_bin("recipe-drift")
            .unwrap()
            .args(["extract", r, "--offline"])
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{r}: {err}");
        assert!(
            err.contains("expected github:OWNER/REPO@REF:PATH"),
            "{r}: {err}"
        );
    }
}

/// The user can allow a host in the environment too (`RECIPE_DRIFT_ALLOW_HOSTS`,
/// like `--allow-host`): the loopback test server is then fetched, by
/// `compare` and by a config's link; a config file alone cannot allow it.
#[test]
fn the_environment_allows_hosts_like_the_flag() {
    let server = page_server();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}/docs/qwen35.md", server.base());
    let cache = cache_arg(&dir);
    let recipe = "fixtures/demo/qwen35-mi355x-recipe.sh";
    let args = ["compare", &url, recipe, "--cache-dir", &cache];
    let (code, _, err) = run(&server, &[], &args);
    assert_eq!(code, 2, "{err}");
    let (code, out, err) = run(
        &server,
        &[("RECIPE_DRIFT_ALLOW_HOSTS", "example.org, 127.0.0.1")],
        &args,
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("{url}:18:1")), "{out}");
    // A config naming the address is refused at the entry.
    let config = dir.path().join("bad.yaml");
    std::fs::write(
        &config,
        format!(
            "allow-hosts: [127.0.0.1]\nlinks:\n  - name: l\n    docs:\n      file: {url}\n    recipe:\n      file: {}\n",
            repo().join(recipe).display()
        ),
    )
    .unwrap();
    let (code, _, err) = run(
        &server,
        &[],
        &[
            "check",
            "--config",
            config.to_str().unwrap(),
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad.yaml:1:15") && err.contains("IP address"),
        "{err}"
    );
}

/// A remote checkout in the older layout: `configs/` is absent (404), the
/// master configs are listed from `.github/configs/`.
#[test]
fn a_remote_inferencex_root_in_the_older_layout() {
    let server = inferencex_server_of("fixtures/inferencex-2026-03");
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_arg(&dir);
    let (code, out, err) = run(
        &server,
        &[],
        &[
            "extract",
            "--inferencex",
            "github:acme/InferenceX@main",
            "--entry",
            "qwen3.5-fp4-mi355x-sglang",
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            &cache,
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("3 points"), "{out}");
    assert!(
        out.contains("github:acme/InferenceX@main:benchmarks/single_node/qwen3.5_fp4_mi355x.sh"),
        "{out}"
    );
    let paths = server.paths();
    assert!(
        paths.contains(&"/repos/acme/InferenceX/contents/.github/configs?ref=main".to_string()),
        "{paths:?}"
    );
}

/// A request on the network shows `fetching URL` on stderr when it is a
/// terminal (a pseudo-terminal from util-linux `script`), and nothing with
/// `--no-progress`, under CI, or when stderr is not a terminal.
#[test]
fn remote_fetches_show_progress_only_on_a_terminal() {
    let server = Server::start(|_, _| {
        std::thread::sleep(std::time::Duration::from_millis(600));
        ok("sglang serve --model-path m --tp 2\n")
    });
    let url = format!("{}/slow/serve.txt", server.base());
    let bin = env!("CARGO_BIN_EXE_recipe-drift");
    let on_tty = |extra: &str, ci: bool| {
        let cache = tempfile::tempdir().unwrap();
        let out = common::on_terminal(
            repo(),
            &format!(
                "{bin} extract {url} --allow-host 127.0.0.1 --cache-dir {} {extra} > /dev/null",
                cache.path().display()
            ),
            ci,
        );
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shown = on_tty("", false);
    assert!(shown.contains(&format!("fetching {url}")), "{shown:?}");
    assert!(!on_tty("--no-progress", false).contains("fetching"));
    assert!(!on_tty("", true).contains("fetching"));
    // Not a terminal: nothing on stderr.
    let cache = tempfile::tempdir().unwrap();
    let (code, _, err) = run(
        &server,
        &[],
        &[
            "extract",
            &url,
            "--allow-host",
            "127.0.0.1",
            "--cache-dir",
            cache.path().to_str().unwrap(),
        ],
    );
    assert_eq!((code, err.as_str()), (0, ""));
}
