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

/// H2: `awk`, `find`, `xargs`, `uniq` and `sed` write files or run
/// commands (bash: `--tp 4`, or 2 where gen.sh is deleted).
#[test]
fn programs_once_taken_as_read_only_may_write() {
    for (body, because) in [
        ("awk 'BEGIN{print \"TP=4\" > \"gen.sh\"}'", "`awk`"),
        ("find . -maxdepth 0 -fprintf gen.sh 'TP=4\\n'", "`find`"),
        ("find . -maxdepth 0 -exec cp other.txt gen.sh ';'", "`find`"),
        ("find . -name gen.sh -delete", "`find`"),
        ("xargs cp other.txt gen.sh < /dev/null", "`xargs cp`"),
        ("uniq other.txt gen.sh", "`uniq`"),
        ("sed -n 'w gen.sh' other.txt", "`sed`"),
        ("sed -n -e 's/4/6/w gen.sh' other.txt", "`sed`"),
    ] {
        assert_gen_changed(body, &[], because);
    }
}

/// H2: the same programs when they only read leave the committed file known.
#[test]
fn reading_forms_of_those_programs_stay_known() {
    for body in [
        "awk '{print $1}' gen.sh",
        "find . -name '*.sh'",
        "sed -n 's/TP/tp/p' gen.sh",
        "ls | xargs echo",
    ] {
        let out = extract(body, &[]);
        assert!(
            out.contains("8") && out.contains("(from $TP)"),
            "{body}:\n{out}"
        );
    }
}

/// H3: written paths in the forms `dd of=`, `sort -oFILE`, dot-files and
/// extensionless names, `cp -t DIR`, a folder target, `ln -s` with one
/// operand (bash: `--tp 4` each).
#[test]
fn every_named_operand_form_is_a_write() {
    let sub = [("sub/gen.sh", "TP=4\n")];
    for (body, files) in [
        ("dd if=other.txt of=gen.sh status=none", &[][..]),
        ("sort -ogen.sh other.txt", &[][..]),
        ("python3 tool.py --out=gen.sh", &[][..]),
        ("cp -t . sub/gen.sh", &sub[..]),
        ("cp --target-directory=. sub/gen.sh", &sub[..]),
        ("cp sub/gen.sh .", &sub[..]),
        ("ln -sf sub/gen.sh", &sub[..]),
    ] {
        assert_gen_changed(body, files, "r.sh:1:1");
    }
    // `.env` / `env`: names without a stem or an extension.
    for name in [".env", "env"] {
        let repo = Repo::new();
        repo.write(name, "TP=8\n");
        repo.write("other.txt", "TP=4\n");
        repo.write(
            "r.sh",
            format!("sort -u other.txt -o {name}\nset -a; source {name}\nsglang serve --model-path m --tp \"${{TP:-2}}\"\n"),
        );
        let o = repo.run(&["extract", "r.sh"]);
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(!o.stdout.contains("(from $TP)"), "{name}: {}", o.both());
        assert!(o.stdout.contains("`sort`"), "{name}: {}", o.both());
    }
}

/// H3: a copy into a folder changes only the names copied there.
#[test]
fn a_copy_into_a_folder_keeps_other_files_known() {
    let out = extract("cp sub/x.txt .", &[("sub/x.txt", "")]);
    assert!(out.contains("8") && out.contains("(from $TP)"), "{out}");
}

/// H15: a program whose name is not knowable may write what it names.
#[test]
fn a_program_whose_name_is_unknown_may_write() {
    for body in [
        "\"$PYTHON_BIN\" make_env.py --out gen.sh",
        "$CONDA_RUN python3 make_env.py --out gen.sh",
    ] {
        assert_gen_changed(body, &[], "not knowable");
    }
}

/// M4: inline code, patches, archives, another branch: any file may have
/// changed, and the reason names the program.
#[test]
fn hidden_code_may_change_any_file() {
    for (body, because) in [
        (
            "python3 - <<'PY'\nopen('gen.sh', 'w').write('TP=4\\n')\nPY",
            "`python3 -`",
        ),
        ("python3 -c 'open(\"x\", \"w\")'", "`python3 -c`"),
        ("perl -e 'print 1'", "`perl -e`"),
        ("node -e '1'", "`node -e`"),
        ("git apply p.diff", "`git apply`"),
        ("git pull", "`git pull`"),
        ("git checkout b", "`git checkout`"),
        ("git checkout b -- .", "`git`"),
        ("tar xf a.tar", "`tar` extracts"),
        ("tar -C . -xzf a.tgz", "`tar`"),
        ("ruby -e '1'", "`ruby -e`"),
        ("patch -p1 < fix.diff", "`patch` reads its code or changes"),
        ("unzip a.zip", "`unzip` writes files"),
        ("git stash pop", "`git stash`"),
        ("awk '{system(\"cp other.txt gen.sh\")}' other.txt", "`awk`"),
        ("sed -n '1e cp other.txt gen.sh' other.txt", "`sed`"),
    ] {
        assert_gen_changed(body, &[], because);
    }
}

/// H4: one file under two spellings: an absolute path under the script's
/// folder (`"$SCRIPT_DIR/gen.sh"`, InferenceX's idiom) and a path through
/// a committed symbolic link are `./gen.sh` (bash: `--tp 4`).
#[test]
fn another_spelling_of_a_written_file_is_the_same_file() {
    assert_gen_changed(
        "SCRIPT_DIR=$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\ncp other.txt \"$SCRIPT_DIR/gen.sh\"",
        &[],
        "r.sh:2:1",
    );
    let repo = Repo::new();
    repo.write("gen.sh", "TP=8\n");
    repo.write("other.txt", "TP=4\n");
    repo.symlink("cur", std::path::Path::new("."));
    repo.write(
        "r.sh",
        "cp other.txt cur/gen.sh\nsource ./gen.sh\nsglang serve --model-path m --tp \"${TP:-2}\"\n",
    );
    let o = repo.run(&["extract", "r.sh"]);
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(!o.stdout.contains("(from $TP)"), "{}", o.both());
    assert!(o.stdout.contains("r.sh:1:1"), "{}", o.both());
}

/// H14: the text of `cat > FILE <<EOF` is not the file's when bash would
/// not write it (`set -C`) or `cat` is a function or an alias (bash: 8, 6,
/// 6): the file is written, its text not knowable.
#[test]
fn a_written_text_is_taken_only_from_cat_itself() {
    let doc = "cat > gen.sh <<'X'\nTP=4\nX";
    for pre in [
        "set -o noclobber",
        "set -C",
        "cat() { command cat \"$@\" | sed 's/4/6/'; }",
        "shopt -s expand_aliases\nalias cat='sed s/4/6/'",
    ] {
        let body = format!("{pre}\n{doc}");
        let out = extract(&body, &[]);
        assert!(!out.contains("(from $TP)"), "{body}:\n{out}");
        assert!(
            out.contains("may not hold what is committed"),
            "{body}:\n{out}"
        );
    }
    // `>|` overwrites under `set -C`: the text is the file's.
    let out = extract("set -C\ncat >| gen.sh <<'X'\nTP=4\nX", &[]);
    assert!(out.contains("4") && out.contains("(from $TP)"), "{out}");
}
