//! Waivers in the config: applied, unused, expired, ignored, and refused when
//! malformed.

const LINK: &str = "links:
  - name: layouts
    hardware: mi355x
    engine-version: \"0.5.16\"
    docs: {file: a.sh}
    recipe: {file: b.sh}
";

/// Writes the two demo commands (their HiCache layouts differ on 0.5.16) and a
/// config with `waivers`, then runs `check` with `today` and extra flags.
fn check(waivers: &str, today: &str, flags: &[&str]) -> (i32, String, String) {
    check_link(LINK, waivers, today, flags)
}

fn check_link(link: &str, waivers: &str, today: &str, flags: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    for (name, from) in [
        ("a.sh", "fixtures/demo/hicache-kernel-page-first.sh"),
        ("b.sh", "fixtures/demo/hicache-kernel-layer-first.sh"),
    ] {
        std::fs::copy(format!("{root}/{from}"), dir.path().join(name)).unwrap();
    }
    let cfg = dir.path().join("cfg.yaml");
    std::fs::write(&cfg, format!("{link}{waivers}")).unwrap();
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
        .unwrap()
        .env("RECIPE_DRIFT_TODAY", today)
        .args(["check", "--config", cfg.to_str().unwrap()])
        .args(flags)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const WAIVERS: &str = "waivers:
  - {link: layouts, key: hicache_mem_layout, reason: \"layer_first is being rolled out\", until: 2026-12-31}
";

#[test]
fn a_waiver_in_force_turns_its_drift_into_information() {
    let (code, out, err) = check(WAIVERS, "2026-12-31", &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("note[RD001 contradicts]: hicache_mem_layout differs: docs page_first vs recipe layer_first (MAJOR) [waived until 2026-12-31: layer_first is being rolled out]"),
        "{out}"
    );
    assert!(out.contains("waives 1 finding"), "{out}");
    let (code, out, _) = check(WAIVERS, "2026-12-31", &["--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = v["links"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == "hicache_mem_layout")
        .unwrap();
    assert_eq!(f["severity"], "info");
    assert_eq!(f["waived"]["until"], "2026-12-31");
    assert_eq!(v["waivers"][0]["status"], "applied");
    assert_eq!(v["links"][0]["status"], "ok");
}

#[test]
fn an_expired_waiver_is_an_error_and_no_longer_applies() {
    let (code, out, _) = check(WAIVERS, "2027-01-01", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("error[RD001 contradicts]: hicache_mem_layout differs"),
        "{out}"
    );
    assert!(
        out.contains("error[waiver]: the waiver of hicache_mem_layout on link \"layouts\""),
        "{out}"
    );
    assert!(
        out.contains("1 link checked, 1 with MAJOR drift, 1 expired waiver"),
        "{out}"
    );
}

#[test]
fn an_expired_waiver_fails_even_without_drift() {
    // On sglang 0.5.15 (ROCm) the two layouts run the same server: no drift.
    let link = LINK.replace("0.5.16", "0.5.15");
    let w = "waivers:\n  - {link: layouts, key: page_size, reason: \"old\", until: 2026-01-31}\n";
    let (code, out, _) = check_link(&link, w, "2026-01-31", &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("matches no finding; remove it"), "{out}");
    let (code, out, _) = check_link(&link, w, "2026-02-01", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("1 link checked, 0 with MAJOR drift, 1 expired waiver"),
        "{out}"
    );
}

#[test]
fn no_waivers_shows_everything() {
    let (code, out, _) = check(WAIVERS, "2026-12-31", &["--no-waivers"]);
    assert_eq!(code, 1);
    assert!(!out.contains("waived"), "{out}");
}

#[test]
fn malformed_waivers_are_input_errors() {
    for (waivers, at, words) in [
        (
            "waivers:\n  - {link: nope, key: page_size, reason: r, until: 2027-01-01}\n",
            "cfg.yaml:8:",
            "\"nope\" is not the name of a link",
        ),
        (
            "waivers:\n  - {link: layouts, key: page_sise, reason: r, until: 2027-01-01}\n",
            "cfg.yaml:8:",
            "\"page_sise\" is not a canonical key",
        ),
        (
            "waivers:\n  - {link: layouts, key: page_size, reason: r, until: 2027-02-30}\n",
            "cfg.yaml:8:",
            "is not a YYYY-MM-DD date",
        ),
        (
            "waivers:\n  - {link: layouts, key: page_size, reason: \" \", until: 2027-01-01}\n",
            "cfg.yaml:8:",
            "needs a reason",
        ),
        (
            "waivers:\n  - {link: layouts, key: page_size, until: 2027-01-01}\n",
            "cfg.yaml:",
            "reason",
        ),
    ] {
        let (code, out, err) = check(waivers, "2026-11-30", &[]);
        assert_eq!(code, 2, "{waivers}: {out}{err}");
        assert!(err.contains(at) && err.contains(words), "{waivers}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn waivers_show_in_every_format() {
    let (code, out, _) = check(WAIVERS, "2026-12-31", &["--format", "sarif"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    let waived = results
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .unwrap()
                .contains("hicache_mem_layout")
        })
        .unwrap();
    assert_eq!(waived["suppressions"][0]["kind"], "external");
    assert!(
        waived["suppressions"][0]["justification"]
            .as_str()
            .unwrap()
            .contains("layer_first is being rolled out")
    );
    let (_, out, _) = check(WAIVERS, "2026-12-31", &["--format", "github"]);
    assert!(
        out.contains("waived until 2026-12-31: layer_first is being rolled out"),
        "{out}"
    );
    let (_, out, _) = check(WAIVERS, "2026-12-31", &["--format", "markdown"]);
    assert!(
        out.contains("(waived until 2026-12-31: layer\\_first is being rolled out)"),
        "{out}"
    );
    // An expired one is counted in each summary.
    let (code, out, _) = check(WAIVERS, "2027-01-01", &["--format", "markdown"]);
    assert_eq!(code, 1);
    assert!(out.contains(", 1 expired waiver"), "{out}");
    let (_, out, _) = check(WAIVERS, "2027-01-01", &["--format", "github"]);
    assert!(out.contains(", 1 expired waiver"), "{out}");
    let (_, out, _) = check(WAIVERS, "2027-01-01", &["--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["runs"][0]["invocations"][0]["executionSuccessful"], false);
}

#[test]
fn a_waiver_expires_even_when_its_link_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let root = env!("CARGO_MANIFEST_DIR");
    for (name, from) in [
        ("a.sh", "fixtures/demo/hicache-kernel-page-first.sh"),
        ("b.sh", "fixtures/demo/hicache-kernel-layer-first.sh"),
        ("c.sh", "fixtures/demo/hicache-kernel-page-first.sh"),
    ] {
        std::fs::copy(format!("{root}/{from}"), d.join(name)).unwrap();
    }
    std::fs::write(
        d.join("cfg.yaml"),
        format!(
            "{LINK}  - name: other\n    hardware: mi355x\n    docs: {{file: c.sh}}\n    recipe: {{file: c.sh}}\n{}",
            WAIVERS.replace("2026-12-31", "2026-01-31")
        ),
    )
    .unwrap();
    // Only c.sh changed: the `layouts` link is skipped, its waiver has expired.
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(d)
        .env("RECIPE_DRIFT_TODAY", "2026-11-30")
        .args(["check", "--config", "cfg.yaml", "c.sh"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("skipped: layouts"), "{stdout}");
    assert!(
        stdout.contains("error[waiver]: the waiver of hicache_mem_layout"),
        "{stdout}"
    );
}
