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
        for format in ["human", "json", "sarif", "github", "markdown", "concise"] {
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
fn a_git_folder_is_never_read() {
    let repo = Repo::new();
    // A CI checkout keeps its token in .git/config.
    repo.write(
        ".git/config",
        format!("[http]\n\textraheader = AUTHORIZATION: basic {CANARY}\nsglang serve --model-path {CANARY}\n"),
    );
    config(&repo, ".git/config", "recipe.sh");
    let o = repo.run_deterministic(&["check"]);
    o.assert_input_error(
        ".recipe-drift.yaml:4:13",
        &["refused to read", ".git folder"],
    )
    .assert_no_leak();
    repo.write(
        ".git/hooks/run.sh",
        format!("sglang serve --model-path m --api-key {CANARY}\n"),
    );
    repo.write("serve.sh", "bash .git/hooks/run.sh\n");
    let o = repo.run_deterministic(&["extract", "serve.sh"]);
    o.assert_input_error("serve.sh:1:6", &["refused to read", ".git folder"])
        .assert_no_leak();
}

#[test]
fn an_inferencex_root_holding_the_repository_is_refused() {
    let repo = Repo::new();
    repo.write("docs.sh", "sglang serve --model-path m --tp 8\n");
    for root in ["..", "/", "."] {
        repo.write(
            ".recipe-drift.yaml",
            format!("links:\n  - name: l\n    docs:\n      file: docs.sh\n    recipe:\n      inferencex: {{root: \"{root}\", entry: e}}\n"),
        );
        let o = repo.run_deterministic(&["check"]);
        o.assert_bounded().assert_no_leak();
        assert_eq!(o.code, Some(2), "{}", o.both());
        if root != "." {
            assert!(
                o.stderr.contains("holds the repository root"),
                "{}",
                o.both()
            );
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

/// `source FILE` / `. FILE` outside the root is refused like `bash FILE`
/// (existing or not), never read and never taken as a file that is not
/// there.
#[test]
fn source_outside_the_root_is_refused_at_the_command() {
    let repo = Repo::new();
    let abs = repo.outside().join("secret.sh");
    repo.symlink("helper.sh", &abs);
    for target in [
        abs.display().to_string(),
        "../outside/secret.sh".to_string(),
        "../outside/missing.sh".to_string(),
        "./helper.sh".to_string(),
    ] {
        for cmd in ["source", "."] {
            repo.write(
                "scripts/serve.sh",
                format!("export X=1\n{cmd} {target}\nvllm serve org/m\n"),
            );
            let o = repo.run_deterministic(&["extract", "scripts/serve.sh"]);
            o.assert_input_error("scripts/serve.sh:2:1", REFUSED)
                .assert_no_leak();
        }
    }
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

/// A symlink to a MISSING file outside the root is refused exactly like one to
/// an existing file: the output never tells whether something exists outside
/// (a dangling link used to be admitted as "inside, missing").
#[test]
fn a_dangling_symlink_out_of_the_root_is_refused_like_a_live_one() {
    let mut outputs = Vec::new();
    for target in ["secret.txt", "no-such-file.yaml"] {
        let repo = Repo::new();
        repo.symlink("serve.yaml", &repo.outside().join(target));
        repo.write(
            "docs.sh",
            "vllm serve m --config serve.yaml --tensor-parallel-size 2\n",
        );
        repo.write("recipe.sh", "vllm serve m --tensor-parallel-size 2\n");
        let o = repo.run_deterministic(&["compare", "docs.sh", "recipe.sh"]);
        o.assert_bounded().assert_no_leak();
        assert_eq!(o.code, Some(2), "{target}: {}", o.both());
        assert!(
            REFUSED.iter().all(|w| o.both().contains(w)),
            "{target}: {}",
            o.both()
        );
        let top = repo.outside().parent().unwrap().display().to_string();
        outputs.push(o.stderr.replace(&top, "TOP").replace(target, "TARGET"));
    }
    assert_eq!(outputs[0], outputs[1]);
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
    o.assert_input_error("run.sh: ", REFUSED).assert_no_leak();
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
        "big.md: ",
        &["size cap of 8388608 bytes", "--max-file-bytes"],
    );
    repo.write(
        "small.sh",
        format!("sglang serve --model-path m {}\n", "--tp 8 ".repeat(40)),
    );
    let o = repo.run(&["extract", "--max-file-bytes", "100", "small.sh"]);
    o.assert_input_error("small.sh: ", &["size cap of 100 bytes"]);
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
    o.assert_input_error("serve.sh: ", &["not a regular file"]);
}

/// A loopback HTTP server: `route(path)` gives the status, extra headers and
/// body; every request's path and headers are logged.
struct Server {
    port: u16,
    log: std::sync::Arc<std::sync::Mutex<Vec<Request>>>,
}

/// A request's path and its header lines (lower-cased).
type Request = (String, Vec<String>);

type Route = dyn Fn(&str) -> (u16, Vec<String>, Vec<u8>) + Send + Sync;

impl Server {
    fn start(
        route: impl Fn(&str) -> (u16, Vec<String>, Vec<u8>) + Send + Sync + 'static,
    ) -> Server {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (log2, route): (_, std::sync::Arc<Route>) = (log.clone(), std::sync::Arc::new(route));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                let target = line.split_whitespace().nth(1).unwrap_or("/");
                let path = target.split('?').next().unwrap_or("/").to_string();
                let mut headers = Vec::new();
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                        break;
                    }
                    headers.push(h.trim().to_ascii_lowercase());
                }
                log2.lock().unwrap().push((path.clone(), headers));
                let (code, extra, body) = route(&path);
                let mut out = stream;
                let mut head = format!(
                    "HTTP/1.1 {code} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                    body.len()
                );
                for e in extra {
                    head.push_str(&e);
                    head.push_str("\r\n");
                }
                head.push_str("\r\n");
                let _ = out.write_all(head.as_bytes());
                let _ = out.write_all(&body);
            }
        });
        Server { port, log }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

/// The cache file names of a URL (as `fetch.rs` names them).
fn cache_key(url: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(url.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

const SERVE: &str = "sglang serve --model-path m --tp 8\n";

#[test]
fn the_cache_never_writes_or_reads_through_a_planted_symlink() {
    let repo = Repo::new();
    let server = Server::start(|_| (200, vec![], SERVE.as_bytes().to_vec()));
    let url = server.url("/serve.sh");
    let cache = repo.root().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let key = cache_key(&url);
    // Every name the cache uses (or used) for this URL is a symlink to a file
    // outside: the entry to the canary, the temporary names (`.tmpPID`, for
    // the pids the next runs are likely to get) to a victim.
    let victim = repo.outside().join("victim.txt");
    std::fs::write(&victim, "untouched\n").unwrap();
    let meta_outside = repo.outside().join("meta.json");
    std::fs::write(
        &meta_outside,
        format!("{{\"url\": \"{url}\", \"status\": 200}}"),
    )
    .unwrap();
    let link = |name: String, to: &std::path::Path| {
        std::os::unix::fs::symlink(to, cache.join(name)).unwrap()
    };
    link(format!("{key}.body"), &repo.outside().join("secret.txt"));
    link(format!("{key}.meta.json"), &meta_outside);
    let me = std::process::id();
    for pid in me..me + 3000 {
        link(format!("{key}.tmp{pid}"), &victim);
        link(format!("{key}.meta.tmp{pid}"), &victim);
    }
    let meta = cache.join(format!("{key}.meta.json"));
    let args = [
        "extract",
        &url,
        "--allow-host",
        &server.host(),
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    // Offline: the symlinked entry is not read (a miss naming the URL).
    let mut offline = args.to_vec();
    offline.push("--offline");
    let o = repo.run_deterministic(&offline);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(o.stderr.contains("not in the cache"), "{}", o.both());
    // Online: fetched and cached, the symlinks replaced, never followed.
    let o = repo.run(&args);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched\n");
    assert!(std::fs::symlink_metadata(&meta).unwrap().is_file());
    let body = cache.join(format!("{key}.body"));
    assert_eq!(std::fs::read_to_string(body).unwrap(), SERVE);
    // And the cache now serves offline.
    let o = repo.run(&offline);
    assert_eq!(o.code, Some(0), "{}", o.both());
}

#[test]
fn a_cached_body_over_the_size_cap_is_not_read() {
    let repo = Repo::new();
    let url = "http://127.0.0.1:9/serve.sh".to_string();
    let cache = repo.root().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let key = cache_key(&url);
    std::fs::write(
        cache.join(format!("{key}.meta.json")),
        format!("{{\"url\": \"{url}\", \"status\": 200}}"),
    )
    .unwrap();
    // 200 MiB, sparse: reading it whole would blow the memory budget.
    let f = std::fs::File::create(cache.join(format!("{key}.body"))).unwrap();
    f.set_len(200 << 20).unwrap();
    let o = repo.run_deterministic(&[
        "extract",
        &url,
        "--allow-host",
        "127.0.0.1:9",
        "--cache-dir",
        cache.to_str().unwrap(),
        "--offline",
    ]);
    o.assert_bounded();
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(
        o.stderr.contains("size cap of 10485760 bytes"),
        "{}",
        o.both()
    );
    // The body is 200 MiB: reading it whole would pass this bound; reading
    // up to the 10 MiB cap (a few copies of it) and the binary do not.
    assert!(o.max_rss_kib < 160 * 1024, "{}", o.both());
}

#[test]
fn five_redirects_are_followed_without_a_referer_and_a_sixth_is_refused() {
    let repo = Repo::new();
    // /r/N redirects to /r/N-1; /r/0 is the file.
    let server = Server::start(|path| match path.strip_prefix("/r/") {
        Some("0") => (200, vec![], SERVE.as_bytes().to_vec()),
        Some(n) => {
            let n: u32 = n.parse().unwrap();
            (302, vec![format!("Location: /r/{}", n - 1)], vec![])
        }
        None => (404, vec![], vec![]),
    });
    let cache = repo.root().join("cache");
    let run = |n: u32| {
        repo.run(&[
            "extract",
            &server.url(&format!("/r/{n}?secret=1")),
            "--allow-host",
            &server.host(),
            "--cache-dir",
            cache.to_str().unwrap(),
        ])
    };
    let o = run(5);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let log = server.log.lock().unwrap().clone();
    assert_eq!(log.len(), 6, "{log:?}");
    for (path, headers) in &log {
        assert!(
            !headers.iter().any(|h| h.starts_with("referer:")),
            "{path} got a Referer: {headers:?}"
        );
    }
    let o = run(6);
    o.assert_bounded();
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(
        o.stderr.contains("too many redirects (more than 5)"),
        "{}",
        o.both()
    );
}

/// Optional files looked up above or beside an input (a vLLM recipe's
/// `taxonomy.yaml` in any folder above it, its `strategies/` folder) are
/// probed through the confined layer: one outside the root is absent exactly
/// like a missing one, so the output does not tell whether it exists.
#[test]
fn optional_files_outside_the_root_look_missing() {
    let model = include_str!("../../fixtures/vllm-recipes/models/pebble/Pebble-8B-Instruct.yaml");
    let repo = Repo::new();
    repo.write("models/pebble/Pebble-8B-Instruct.yaml", model);
    let run = || {
        repo.run_deterministic(&[
            "extract",
            "models/pebble/Pebble-8B-Instruct.yaml",
            "--select",
            "hardware=h100",
        ])
    };
    let missing = run();
    missing.assert_input_error("Pebble-8B-Instruct.yaml", &["no taxonomy.yaml"]);
    // A taxonomy.yaml in the folder above the root (outside it).
    let above = repo.outside().parent().unwrap().join("taxonomy.yaml");
    std::fs::write(&above, format!("# {CANARY}\nhardware: [\n")).unwrap();
    let planted = run();
    planted.assert_no_leak();
    assert_eq!(
        (planted.code, &planted.stdout, &planted.stderr),
        (missing.code, &missing.stdout, &missing.stderr),
        "an outside taxonomy.yaml changed the outcome: {}",
        planted.both()
    );
    std::fs::remove_file(&above).unwrap();
    // A strategies folder symlinked outside: absent like a missing one.
    repo.write(
        "taxonomy.yaml",
        include_str!("../../fixtures/vllm-recipes/taxonomy.yaml"),
    );
    let without = run();
    without.assert_bounded();
    let outside_dir = repo.outside().join("strategies");
    repo.symlink("strategies", &outside_dir);
    let dangling = run();
    std::fs::create_dir_all(&outside_dir).unwrap();
    std::fs::write(
        outside_dir.join("single_node_tp.yaml"),
        format!("{CANARY}: [\n"),
    )
    .unwrap();
    let existing = run();
    existing.assert_no_leak();
    for o in [&dangling, &existing] {
        assert_eq!(
            (o.code, &o.stdout, &o.stderr),
            (without.code, &without.stdout, &without.stderr),
            "an outside strategies folder changed the outcome: {}",
            o.both()
        );
    }
    // An MDX import of a file outside the root, and the docs root (a folder
    // holding `src/snippets`) looked for above the page: the same outcome
    // whether or not the outside file or folder exists.
    repo.write(
        "page.mdx",
        "import {X} from '../outside/gen.jsx'\n\n# Serve\n\n<X />\n",
    );
    repo.write(
        "docs/page.mdx",
        "import {X} from '/src/snippets/gen.jsx'\n\n# Serve\n\n<X />\n",
    );
    let snippets = repo.outside().parent().unwrap().join("src/snippets");
    let module = "export const X = () => <pre>sglang serve --model-path m</pre>;\n";
    for page in ["page.mdx", "docs/page.mdx"] {
        let absent = repo.run_deterministic(&["extract", page]);
        absent.assert_bounded();
        assert_eq!(absent.code, Some(2), "{}", absent.both());
        std::fs::write(repo.outside().join("gen.jsx"), module).unwrap();
        std::fs::create_dir_all(&snippets).unwrap();
        std::fs::write(snippets.join("gen.jsx"), module).unwrap();
        let present = repo.run_deterministic(&["extract", page]);
        present.assert_no_leak();
        assert_eq!(
            (present.code, &present.stdout, &present.stderr),
            (absent.code, &absent.stdout, &absent.stderr),
            "{page}: an outside file changed the outcome: {}",
            present.both()
        );
        std::fs::remove_file(repo.outside().join("gen.jsx")).unwrap();
        std::fs::remove_dir_all(snippets.parent().unwrap()).unwrap();
    }
}

/// SSRF: a config file (attacker-controlled in a fork's pull request) may
/// allow public DNS names only. Loopback, link-local (cloud metadata),
/// private and IPv6 local addresses, `localhost` and single-label or internal
/// names are refused at the entry's position; a URL to an IP address is
/// fetched only when the user allowed it on the command line, and a redirect
/// is re-checked, so nothing is requested from the internal address.
#[test]
fn a_config_cannot_open_the_network_to_internal_hosts() {
    let repo = Repo::new();
    repo.write("recipe.sh", SERVE);
    for (host, why) in [
        ("127.0.0.1", "IP address"),
        ("127.0.0.1:8080", "IP address"),
        ("169.254.169.254", "IP address"),
        ("10.0.0.7", "IP address"),
        ("'[::1]'", "IP address"),
        ("'[fd00::1]:443'", "IP address"),
        ("localhost", "single-label"),
        ("metadata", "single-label"),
        ("metadata.google.internal", "local or special-use"),
        ("db.localhost", "local or special-use"),
        ("127.1", "local or special-use"),
    ] {
        repo.write(
            ".recipe-drift.yaml",
            format!(
                "allow-hosts:\n  - docs.example.org\n  - {host}\nlinks:\n  - name: l\n    docs:\n      file: recipe.sh\n    recipe:\n      file: recipe.sh\n"
            ),
        );
        let o = repo.run_deterministic(&["check"]);
        o.assert_input_error(
            ".recipe-drift.yaml:3:5",
            &["allow-hosts", why, "--allow-host"],
        );
    }
    // A link to an address the config could not allow: refused before any
    // request; the same URL with the user's --allow-host is fetched.
    let server = Server::start(|path| match path {
        "/page.sh" => (200, vec![], SERVE.as_bytes().to_vec()),
        "/to-metadata.sh" => (
            302,
            vec!["Location: http://169.254.169.254/latest/meta-data/".into()],
            vec![],
        ),
        "/to-localhost.sh" => (302, vec!["Location: http://localhost/x.sh".into()], vec![]),
        _ => (404, vec![], vec![]),
    });
    let cache = repo.root().join("cache");
    let cache = cache.to_str().unwrap();
    repo.write(
        ".recipe-drift.yaml",
        format!(
            "links:\n  - name: l\n    docs:\n      file: {}\n    recipe:\n      file: recipe.sh\n",
            server.url("/page.sh")
        ),
    );
    let o = repo.run_deterministic(&["check", "--cache-dir", cache]);
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(
        o.stdout.contains("is an IP address") && o.stdout.contains("--allow-host 127.0.0.1"),
        "{}",
        o.both()
    );
    assert!(server.log.lock().unwrap().is_empty(), "a request was made");
    let o = repo.run(&[
        "check",
        "--cache-dir",
        cache,
        "--allow-host",
        &server.host(),
    ]);
    assert_eq!(o.code, Some(0), "{}", o.both());
    // Redirects to the metadata address or to localhost are refused.
    for (path, words) in [
        ("/to-metadata.sh", "169.254.169.254 is an IP address"),
        ("/to-localhost.sh", "redirected to http://localhost/x.sh"),
    ] {
        let o = repo.run(&[
            "extract",
            &server.url(path),
            "--allow-host",
            &server.host(),
            "--cache-dir",
            cache,
        ]);
        o.assert_bounded();
        assert_eq!(o.code, Some(2), "{}", o.both());
        assert!(o.stderr.contains(words), "{}", o.both());
        assert!(!o.stderr.contains("allow-hosts: ["), "{}", o.both());
    }
}
