//! Issue 24 class 6: a credential in a URL (`https://user:TOKEN@host/...`)
//! is a secret whatever names the URL (`PIP_INDEX_URL`, `HF_ENDPOINT`, an
//! argument, a JSON value): masked in every format, in source excerpts and
//! in error messages. The backstop skips words after `:`, so the password of
//! a userinfo is masked by its place, not only by its text.

use crate::Repo;

/// Passwords (and a token used as the user name) that must never be printed.
const LEAKS: &[&str] = &[
    "Pip1ndexT0ken",
    "sh0rt",
    "ArgT0kenSecret",
    "Js0nT0kenSecret",
    "Bu1ltT0kenXyz",
    "ghp_UserT0ken42",
];

fn assert_no_url_secret(what: &str, o: &crate::Outcome) {
    for s in LEAKS {
        assert!(
            !o.stdout.contains(s) && !o.stderr.contains(s),
            "{what}: leaked {s}: {}",
            o.both()
        );
    }
}

fn docs(repo: &Repo) {
    repo.write(
        "docs.sh",
        "T=Bu1ltT0kenXyz\n\
         export PIP_INDEX_URL=https://ci:Pip1ndexT0ken@pypi.example/simple\n\
         export HF_ENDPOINT=https://hf:sh0rt@hf.example\n\
         export GIT_URL=\"https://ci:${T}@git.example/x.git\"\n\
         export MIRROR=https://ghp_UserT0ken42@github.com/o/r\n\
         vllm serve https://me:ArgT0kenSecret@models.example/org/m -tp 8 \\\n  \
         --speculative-config '{\"method\": \"eagle\", \"model\": \"https://x:Js0nT0kenSecret@h.example/d\", \"num_speculative_tokens\": 2}'\n",
    );
    repo.write("recipe.sh", "vllm serve org/m -tp 4\n");
}

#[test]
fn url_passwords_are_masked_in_every_compare_format() {
    let repo = Repo::new();
    docs(&repo);
    for format in ["human", "concise", "json", "sarif", "github", "markdown"] {
        let o = repo.run_deterministic(&["compare", "docs.sh", "recipe.sh", "--format", format]);
        o.assert_bounded().assert_no_leak();
        assert_eq!(o.code, Some(1), "{format}: {}", o.both());
        assert_no_url_secret(format, &o);
        // The URLs are still shown, with their userinfo masked.
        assert!(
            o.stdout.contains("@models.example"),
            "{format}: {}",
            o.both()
        );
        if format == "json" || format == "sarif" {
            serde_json::from_str::<serde_json::Value>(&o.stdout)
                .unwrap_or_else(|e| panic!("{format}: {e}: {}", o.both()));
        }
    }
    // The human report's source excerpts mask the userinfo where it is
    // written.
    let o = repo.run(&["compare", "docs.sh", "recipe.sh"]);
    assert!(
        o.stdout
            .contains("https://*****************@models.example"),
        "{}",
        o.both()
    );
}

#[test]
fn url_passwords_are_masked_in_every_extract_format() {
    let repo = Repo::new();
    docs(&repo);
    repo.write(
        "page.md",
        "```bash\nHF_ENDPOINT=https://hf:sh0rt@hf.example vllm serve org/m \\\n  --tokenizer https://x:ArgT0kenSecret@h.example/t -tp 2\n```\n",
    );
    for file in ["docs.sh", "page.md"] {
        for format in ["human", "json"] {
            let o = repo.run_deterministic(&["extract", file, "--format", format]);
            o.assert_bounded().assert_no_leak();
            assert_eq!(o.code, Some(0), "{file} {format}: {}", o.both());
            assert_no_url_secret(&format!("{file} {format}"), &o);
        }
    }
}

#[test]
fn url_passwords_are_masked_in_error_messages() {
    let repo = Repo::new();
    // An input error quoting the URL (a source of a file that is not there).
    repo.write(
        "e.sh",
        "export PIP_INDEX_URL=https://ci:Pip1ndexT0ken@pypi.example/simple\nsource \"https://me:ArgT0kenSecret@h.example/x.sh\"\nvllm serve org/m\n",
    );
    let o = repo.run_deterministic(&["extract", "e.sh"]);
    o.assert_bounded().assert_no_leak();
    assert_no_url_secret("error", &o);
}

/// Issue 24, fresh adversary (class 6): userinfo in URLs of other shapes, in
/// an env prefix, an argument and a JSON value: never printed, in any
/// `compare` format or `extract`.
#[test]
fn adversary_url_userinfo_of_every_shape_is_masked() {
    const T: &str = "SeCrEtT0kenXYZ987";
    for line in [
        "HF_ENDPOINT=https://user:{T}@host sglang serve --model-path m --tp 4",
        "HF_ENDPOINT=https://{T}@hf.example.com sglang serve --model-path m --tp 4",
        "HF_ENDPOINT=https://:{T}@hf.example.com sglang serve --model-path m --tp 4",
        "HF_ENDPOINT=HTTPS://u:{T}@hf.example.com sglang serve --model-path m --tp 4",
        "PIP_INDEX_URL=https://u:p@{T}@hf.example.com/simple sglang serve --model-path m --tp 4",
        "HF_ENDPOINT=git+https://u:{T}@hf.example.com sglang serve --model-path m --tp 4",
        "REDIS_URL=redis://:{T}@h:6379/0 sglang serve --model-path m --tp 4",
        "sglang serve --model-path s3://AKIAX:{T}@bucket/m --tp 4",
        "HF_ENDPOINT=https://u:{T}@[::1]:8080/x sglang serve --model-path m --tp 4",
        "sglang serve --model-path m --tp 4 --json-model-override-args '{\"url\":\"https://u:{T}@h\"}'",
        "sglang serve --model-path m --tp 4 --tokenizer-path=https://u:{T}@h/t",
        "HF_ENDPOINT=\"https://u:\"SeCrEt\"T0kenXYZ987@h\" sglang serve --model-path m --tp 4",
        "docker run --gpus all -e HF_ENDPOINT=https://u:{T}@h -e HF_TOKEN={T} lmsysorg/sglang:v0.5.5 python3 -m sglang.launch_server --model-path m --tp 4",
        // Bad shell after the secret: the error message masks it too.
        "sglang serve --model-path 'https://u:{T}@h --tp 4",
    ] {
        let repo = Repo::new();
        repo.write("d.txt", format!("{}\n", line.replace("{T}", T)));
        repo.write("r.txt", "sglang serve --model-path m --tp 4\n");
        let mut runs = vec![];
        for format in ["human", "json", "markdown", "github", "sarif", "concise"] {
            runs.push(repo.run_deterministic(&[
                "compare",
                "d.txt",
                "r.txt",
                "--offline",
                "--format",
                format,
            ]));
        }
        runs.push(repo.run_deterministic(&["extract", "d.txt", "--format", "json"]));
        runs.push(repo.run_deterministic(&["extract", "d.txt"]));
        for o in &runs {
            o.assert_bounded();
            for part in [T, "SeCrEt", "T0kenXYZ"] {
                assert!(
                    !o.stdout.contains(part) && !o.stderr.contains(part),
                    "{line}: leaked {part}: {}",
                    o.both()
                );
            }
        }
    }
}

/// Adversary round 5b (class 6): Python's `urlsplit` removes ASCII tab, CR
/// and LF anywhere in a URL before splitting it (`_UNSAFE_URL_BYTES_TO_REMOVE`),
/// so `https://u:Tab5ecret\t0123@host` has the password `Tab5ecret0123`; and
/// a JSON value's `\u002f\u002f` is `//` once the engine decodes the JSON.
/// recipe-drift ends the authority at the blank (or finds no `//`) and
/// prints each password (as `Tab5ecret\u00090123`, ...).
#[test]
fn adversary_url_passwords_split_by_blanks_or_json_escapes_are_masked() {
    let repo = Repo::new();
    repo.write(
        "docs.sh",
        "export PIP_INDEX_URL=\"https://ci:Tab5ecret\t0123@pypi.example/simple\"\n\
         export HF_ENDPOINT=\"https://hf:NewL1ne\n5ecretXy@hf.example\"\n\
         vllm serve org/m -tp 8 \\\n  \
         --hf-overrides '{\"u\": \"https:\\u002f\\u002fx:Js0nEsc4pedT0ken@h.example/d\"}'\n",
    );
    repo.write("recipe.sh", "vllm serve org/m -tp 4\n");
    for args in [
        &["extract", "docs.sh"][..],
        &["compare", "docs.sh", "recipe.sh", "--offline"][..],
        &[
            "compare",
            "docs.sh",
            "recipe.sh",
            "--offline",
            "--format",
            "json",
        ][..],
    ] {
        let o = repo.run_deterministic(args);
        o.assert_bounded().assert_no_leak();
        for s in ["Tab5ecret", "5ecretXy", "Js0nEsc4pedT0ken"] {
            assert!(
                !o.stdout.contains(s) && !o.stderr.contains(s),
                "{args:?}: leaked {s}: {}",
                o.both()
            );
        }
    }
}

/// Adversary round 5b (class 6), held: userinfo forms `urlsplit` finds that
/// are masked: an upper-case scheme, a scheme-relative `//user:pass@`, an
/// empty user name (`redis://:pass@`), a percent-escape in the password, and
/// an `@` inside the password (the userinfo ends at the last `@`).
#[test]
fn adversary_held_userinfo_forms_are_masked() {
    let repo = Repo::new();
    repo.write(
        "docs.sh",
        "export HF_ENDPOINT=HTTPS://u:UpperSch3meTok@host\n\
         export PIP_INDEX_URL=//u:SchemeRel4tiveTok@pypi.example/simple\n\
         export REDIS_URL=redis://:EmptyUs3rTok@cache:6379\n\
         export MIRROR=\"https://u:Perc%43ntT0kXy@host\"\n\
         export OTHER=\"https://u:tk@AtInsideT0kQ@host\"\n\
         sglang serve --model-path m --tp 8\n",
    );
    repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
    for args in [
        &["extract", "docs.sh"][..],
        &[
            "compare",
            "docs.sh",
            "recipe.sh",
            "--offline",
            "--format",
            "json",
        ][..],
    ] {
        let o = repo.run_deterministic(args);
        o.assert_bounded().assert_no_leak();
        for s in [
            "UpperSch3meTok",
            "SchemeRel4tiveTok",
            "EmptyUs3rTok",
            "Perc%43ntT0kXy",
            "AtInsideT0kQ",
        ] {
            assert!(
                !o.stdout.contains(s) && !o.stderr.contains(s),
                "{args:?}: leaked {s}: {}",
                o.both()
            );
        }
    }
}

// Issue 24, round 6 (class 6): 22 URL shapes (schemes, an empty or
// token-only user, `@` and `:` inside the password, IPv6 hosts, percent
// escapes, scheme-relative) in four places (a prefix assignment, an
// `export`, an option value, the model path), through `compare` in every
// format and `extract`: 88 inputs, one leak.

/// A userinfo whose `:` is percent-encoded (`https://u%3ATOKEN@host`) is a
/// user `u:TOKEN` (a client sends `u` and `TOKEN` as basic credentials). The
/// word itself is masked where the command is printed, but the checkpoint
/// reasons derived from a model path holding it print the token in full.
#[test]
fn adversary_round6_percent_encoded_userinfo_in_a_model_path_is_masked() {
    let repo = Repo::new();
    repo.write(
        "docs.sh",
        "sglang serve --model-path https://u%3AZq9xW7vK2mP4@h.example --tp 8\n",
    );
    repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
    for format in ["human", "json", "sarif", "markdown"] {
        let o = repo.run_deterministic(&[
            "compare",
            "docs.sh",
            "recipe.sh",
            "--offline",
            "--format",
            format,
        ]);
        o.assert_bounded();
        for part in ["Zq9xW7vK2mP4", "Zq9xW7vK", "W7vK2mP4"] {
            assert!(
                !o.stdout.contains(part) && !o.stderr.contains(part),
                "{format}: leaked {part}: {}",
                o.both()
            );
        }
    }
}

/// Shapes of the same set that held: a token-only user, `@` and `:` inside
/// the password, an IPv6 host, an empty user, a scheme-relative URL.
#[test]
fn adversary_round6_userinfo_shapes_are_masked() {
    const T: &str = "Zq9xW7vK2mP4";
    for url in [
        format!("https://{T}@h.example/x"),
        format!("https://u:a@{T}@h.example"),
        "https://u:Zq9xW7:vK2mP4@h.example".to_string(),
        format!("https://u:{T}@[::1]:8080/"),
        format!("redis://:{T}@h.example:6379/0"),
        format!("//u:{T}@h.example/p"),
    ] {
        let repo = Repo::new();
        repo.write(
            "docs.sh",
            format!("export HF_ENDPOINT='{url}'\nsglang serve --model-path {url} --tp 8\n"),
        );
        repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
        for args in [
            &["compare", "docs.sh", "recipe.sh", "--offline"][..],
            &[
                "compare",
                "docs.sh",
                "recipe.sh",
                "--offline",
                "--format",
                "json",
            ],
            &["extract", "docs.sh"],
        ] {
            let o = repo.run(args);
            o.assert_bounded();
            for part in [T, &T[..8], &T[T.len() - 8..]] {
                assert!(
                    !o.stdout.contains(part) && !o.stderr.contains(part),
                    "{url} {args:?}: leaked {part}: {}",
                    o.both()
                );
            }
        }
    }
}

/// Percent escapes in a userinfo, read as clients read them (`requests` and
/// `pip` unquote the user and the password): an escaped `:` in either case
/// starts a password, an empty user before it, an escaped user that spells
/// a token, escapes inside the password. Wherever the URL is (a model path,
/// whose derived checkpoint reasons cut it at its `@`; an environment value;
/// an option value), no format and no `extract` prints the credential or a
/// piece of it.
#[test]
fn percent_encoded_userinfo_shapes_are_masked_in_derived_texts() {
    const T: &str = "Qm4rT8wZ1nX6";
    for url in [
        format!("https://u%3a{T}@h.example"),
        format!("https://%3A{T}@h.example/x"),
        format!("https://u%3Ax%3A{T}@h.example"),
        format!("https://u:%40{T}%2F@h.example"),
        "https://%51m4rT8wZ1nX6@h.example".to_string(),
    ] {
        let repo = Repo::new();
        repo.write(
            "docs.sh",
            format!(
                "export PIP_INDEX_URL='{url}'\nsglang serve --model-path {url} --tp 8 --tokenizer-path {url}\n"
            ),
        );
        repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
        let mut runs: Vec<Vec<&str>> = ["human", "concise", "json", "sarif", "github", "markdown"]
            .iter()
            .map(|f| {
                vec![
                    "compare",
                    "docs.sh",
                    "recipe.sh",
                    "--offline",
                    "--format",
                    f,
                ]
            })
            .collect();
        runs.push(vec!["extract", "docs.sh"]);
        runs.push(vec!["extract", "docs.sh", "--format", "json"]);
        for args in runs {
            let o = repo.run(&args);
            o.assert_bounded();
            for part in [T, &T[..8], &T[T.len() - 8..]] {
                assert!(
                    !o.stdout.contains(part) && !o.stderr.contains(part),
                    "{url} {args:?}: leaked {part}: {}",
                    o.both()
                );
            }
        }
    }
}
