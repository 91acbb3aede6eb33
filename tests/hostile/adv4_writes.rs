//! Red-team pass 4, files the script writes (H1-H4, H14, H15, M4): a file
//! the script (or a shell, a subshell or a program it runs) may have
//! changed is never read as committed, and never as the text the script
//! wrote earlier when something may have changed it since.

use crate::Repo;

/// A repository where `gen.sh` commits `TP=8` and `other.txt` holds `TP=4`,
/// with `r.sh` = `body`, then `source ./gen.sh` and a launch of `$TP`:
/// extract's output.
fn extract(body: &str, files: &[(&str, &str)]) -> String {
    let repo = Repo::new();
    repo.write("gen.sh", "TP=8\n");
    repo.write("other.txt", "TP=4\n");
    for (p, t) in files {
        repo.write(p, t);
    }
    repo.write(
        "r.sh",
        format!("{body}\nsource ./gen.sh\nsglang serve --model-path m --tp \"${{TP:-2}}\"\n"),
    );
    let o = repo.run(&["extract", "r.sh"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    o.stdout
}

/// `$TP` after `source ./gen.sh` is not knowable (bash reads what the
/// script's commands wrote): never the committed 8, nor a stale text.
fn assert_gen_changed(body: &str, files: &[(&str, &str)], because: &str) {
    let out = extract(body, files);
    assert!(
        !out.contains("(from $TP)"),
        "{body}: $TP read as known:\n{out}"
    );
    assert!(
        out.contains("may not hold what is committed") && out.contains(because),
        "{body}: no reason naming {because:?}:\n{out}"
    );
}

/// H1: a write in a child shell, a command substitution or a process
/// substitution is a write of the script's (bash: `--tp 4` in each).
#[test]
fn writes_in_child_contexts_reach_the_caller() {
    let w = [("w.sh", "cp other.txt gen.sh\n")];
    for (body, files, because) in [
        ("bash -c 'echo TP=4 > gen.sh'", &[][..], "bash -c"),
        ("bash w.sh", &w[..], "w.sh:1:1"),
        (": \"$(echo TP=4 > gen.sh)\"", &[][..], "$(...)"),
        ("x=$(cp other.txt gen.sh)", &[][..], "$(...)"),
        (": < <(cp other.txt gen.sh)", &[][..], "r.sh:1:7"),
        (
            "cat other.txt > >(cp /dev/stdin gen.sh)",
            &[][..],
            "r.sh:1:19",
        ),
        // A text the script wrote, then overwritten by a child shell.
        (
            "cat > gen.sh <<'X'\nTP=6\nX\nbash -c 'cp other.txt gen.sh'",
            &[][..],
            "bash -c",
        ),
    ] {
        assert_gen_changed(body, files, because);
    }
}

/// H1: a child shell sees the files its caller changed (bash `w.sh`
/// sources the `gen.sh` the caller overwrote).
#[test]
fn a_child_shell_sees_the_callers_writes() {
    let repo = Repo::new();
    repo.write("gen.sh", "TP=8\n");
    repo.write("other.txt", "TP=4\n");
    repo.write(
        "w.sh",
        "source ./gen.sh\nsglang serve --model-path m --tp \"${TP:-2}\"\n",
    );
    repo.write("r.sh", "cp other.txt gen.sh\nbash w.sh\n");
    let o = repo.run(&["extract", "r.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(!o.stdout.contains("(from $TP)"), "{}", o.both());
    assert!(o.stdout.contains("r.sh:1:1"), "{}", o.both());
}
