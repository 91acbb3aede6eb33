//! The explorer's memory (issue 23): a state found keeps a full snapshot of
//! its fibers and elements only while the JS heap is small; past that it
//! keeps its spine (the component fibers and their hooks) and is rendered
//! again when it is expanded. The states found are the same either way.

use std::path::{Path, PathBuf};

use recipe_drift::extract::jsx;

/// 250 states (three radio groups of five values, and a Copy button that
/// shows "Copied" until the selection changes), each rendering a tree
/// as large as the cookbook's shared deployment engine does per state:
/// styled chips with subtitles, a long command and a table of its flags.
/// With a full snapshot per state found, exploring it takes about 0.1 MiB of
/// JS heap per state (18 MiB at its peak).
const WIDE: &str = r#"// Written by tests/explorer_memory.rs.
const GROUPS = ['hardware', 'variant', 'strategy'];
const VALUES = ['v0', 'v1', 'v2', 'v3', 'v4'];

export const Wide = () => {
  const [sel, setSel] = useState(() => Object.fromEntries(GROUPS.map((g) => [g, 'v0'])));
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    setCopied(false);
  }, [sel]);
  const chip = (on) => ({
    padding: '2px 8px', border: '1px solid #d1d5db', borderRadius: '3px', cursor: 'pointer',
    display: 'inline-flex', flexDirection: 'column', alignItems: 'center', fontSize: '12px',
    fontWeight: on ? 600 : 500, background: on ? '#D45D44' : '#fff', color: on ? 'white' : 'inherit',
    minHeight: '26px', textAlign: 'center', userSelect: 'none', transition: 'all 0.2s',
  });
  const flags = GROUPS.flatMap((g, i) => [
    `--${g}-choice ${sel[g]}`,
    `--${g}-rank ${i}`,
    `--${g}-config '{"name": "${g}", "value": "${sel[g]}", "threads": 16}'`,
  ]);
  const command = 'sglang serve \\\n  --model-path demo/wide \\\n' + flags.map((f) => '  ' + f).join(' \\\n');
  return (
    <div className="not-prose" style={{ maxWidth: '900px', margin: '0 auto', display: 'flex', flexDirection: 'column', gap: '3px' }}>
      {GROUPS.map((g) => (
        <div key={g} style={{ padding: '5px 10px', border: '1px solid #e5e7eb', borderLeft: '3px solid #D45D44', borderRadius: '4px', display: 'flex', gap: '10px' }}>
          <div style={{ fontSize: '12px', fontWeight: '600', minWidth: '108px', flexShrink: 0 }}>{g}</div>
          {VALUES.map((v) => (
            <label key={v} title={`${g} = ${v}`} style={chip(sel[g] === v)}>
              <input type="radio" name={g} value={v} checked={sel[g] === v}
                onChange={() => setSel((s) => ({ ...s, [g]: v }))} style={{ display: 'none' }} />
              <span>{v.toUpperCase()}</span>
              <span style={{ display: 'block', fontSize: '9px', marginTop: '1px', lineHeight: '1.1', opacity: 0.7 }}>{`${g}: ${v}`}</span>
            </label>
          ))}
        </div>
      ))}
      <button type="button" onClick={() => setCopied(true)}>{copied ? 'Copied' : 'Copy'}</button>
      <pre style={{ padding: '12px 16px', fontFamily: "'Menlo', 'Monaco', 'Courier New', monospace", fontSize: '12px', lineHeight: '1.5', whiteSpace: 'pre-wrap', margin: 0 }}>{command}</pre>
      <div style={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', rowGap: '3px' }}>
        {flags.map((f) => [
          <code key={`f-${f}`} style={{ fontFamily: "'Menlo', 'Monaco', 'Courier New', monospace", fontSize: '11px' }}>{f}</code>,
          <span key={`n-${f}`} style={{ textAlign: 'right', fontSize: '11px', color: '#6b7280' }}>{`${f.length} characters`}</span>,
        ])}
      </div>
    </div>
  );
};
"#;

fn explore(
    file: &Path,
    memory: usize,
    full: Option<usize>,
) -> Result<Vec<jsx::Exploration>, String> {
    jsx::set_worker_program(env!("CARGO_BIN_EXE_recipe-drift").into());
    let opts = jsx::Explore {
        time_limit: None,
        full_snapshot_bytes: full,
        ..jsx::Explore::default()
    };
    let limits = jsx::Limits {
        memory,
        total: std::time::Duration::from_secs(600),
        ..jsx::Limits::default()
    };
    jsx::explore_file_with(file, None, &[], limits, opts)
        .map(|(_, found)| found)
        .map_err(|e| e.to_string())
}

/// What an exploration found, as comparable text.
fn found(all: &[jsx::Exploration]) -> Vec<String> {
    let mut out = Vec::new();
    for ex in all {
        for v in &ex.views {
            out.push(format!(
                "{:?} {:?} {:?} {:?}",
                v.path, v.clicked, v.selection, v.commands
            ));
        }
        for c in &ex.crashes {
            out.push(format!(
                "crash {:?} {:?} {}",
                c.path, c.selection, c.message
            ));
        }
    }
    out
}

#[test]
fn a_many_state_generator_fits_a_heap_its_full_snapshots_would_not() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wide.jsx");
    std::fs::write(&file, WIDE).unwrap();
    // 8 MiB: full snapshots of every state found would need about 18 MiB
    // (the limit was exceeded before states kept spines); the first 2 MiB of
    // heap hold full snapshots, the rest of the states their spines.
    let all = explore(&file, 8 << 20, None).unwrap();
    assert_eq!(all[0].views.len(), 250, "{:?}", found(&all).first());
    let last = &all[0].views.last().unwrap().selection;
    assert_eq!(
        last,
        &[
            ("hardware".to_string(), "v4".to_string()),
            ("variant".to_string(), "v4".to_string()),
            ("strategy".to_string(), "v4".to_string()),
        ]
    );
}

/// Every cookbook and explorer fixture but the largest (kept fast), and the
/// wide generator, explored with full snapshots and with spines only: the
/// same states in the same order, the same commands and crash paths.
#[test]
fn states_kept_as_spines_are_the_states_kept_as_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("wide.jsx");
    std::fs::write(&wide, WIDE).unwrap();
    let mut files: Vec<PathBuf> = vec![wide];
    for d in [
        "fixtures/cookbook/src/snippets/autoregressive",
        "fixtures/cookbook/src/snippets/agentx/Qwen",
        "fixtures/explorer",
    ] {
        let mut here: Vec<PathBuf> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsx"))
            .filter(|p| !p.ends_with("nemotron-large-deployment.jsx"))
            .collect();
        here.sort();
        files.extend(here);
    }
    files.push("fixtures/cookbook/cookbook/autoregressive/Meta/Llama-and-Qwen.mdx".into());
    assert!(files.len() >= 12, "{files:?}");
    for f in &files {
        let full = explore(f, 256 << 20, Some(usize::MAX));
        let spines = explore(f, 256 << 20, Some(0));
        match (full, spines) {
            (Ok(a), Ok(b)) => assert_eq!(found(&a), found(&b), "{}", f.display()),
            (a, b) => assert_eq!(a.err(), b.err(), "{}", f.display()),
        }
    }
}
