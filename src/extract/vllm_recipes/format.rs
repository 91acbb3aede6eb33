//! The site's command formatting: paste-safe shell quoting, one flag per
//! line, and the `docker run` wrapper.

use super::layer::{EnvEntry, Word};

/// The site's paste-safe quoting of a flag's value.
pub(super) fn shell_quote(s: &str) -> String {
    if s.is_empty() {
        return s.to_string();
    }
    let is_var = s.len() > 1
        && s.starts_with('$')
        && s[1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && s[1..]
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if is_var {
        return s.to_string();
    }
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "_./=:@,+%-".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `vllm serve MODEL \` then one `--flag value` (or lone word) per line.
pub(super) fn format_command(model_id: &str, words: &[Word]) -> String {
    if words.is_empty() {
        return format!("vllm serve {model_id}");
    }
    let mut lines = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let cur = &words[i].text;
        match words.get(i + 1) {
            Some(next) if cur.starts_with('-') && !next.text.starts_with('-') => {
                lines.push(format!("{cur} {}", shell_quote(&next.text)));
                i += 2;
            }
            _ => {
                lines.push(cur.clone());
                i += 1;
            }
        }
    }
    format!("vllm serve {model_id} \\\n  {}", lines.join(" \\\n  "))
}

/// The site's `docker run` wrapper around a `vllm serve` command (port 8000).
pub(super) fn docker_run(command: &str, env: &[EnvEntry], image: &str, gpu_flags: &str) -> String {
    let env_flags = env
        .iter()
        .map(|e| format!("-e {}={}", e.name, e.value))
        .collect::<Vec<_>>()
        .join(" \\\n  ");
    let model_id = command
        .strip_prefix("vllm serve ")
        .and_then(|r| r.split(char::is_whitespace).next())
        .filter(|m| !m.is_empty())
        .unwrap_or("MODEL");
    let local: Vec<String> = if model_id.starts_with('/') {
        vec![format!("{model_id}:{model_id}:ro")]
    } else {
        vec![]
    };
    let mounts: Vec<String> = local
        .iter()
        .cloned()
        .chain(
            env.iter()
                .filter(|e| e.name.ends_with("_CONFIG_PATH"))
                .map(|e| format!("{0}:{0}:ro", e.value)),
        )
        .map(|m| format!("-v {m}"))
        .collect();
    let mount_flags = mounts.join(" \\\n  ");
    let prereq = if local.is_empty() {
        String::new()
    } else {
        format!("# {model_id} must already exist on the host — bind-mounted read-only below.\n")
    };
    // The serve body: the command without `vllm serve MODEL`, the continuation
    // and the indentation that follow it.
    let body = {
        let rest = command
            .get(("vllm serve ".len() + model_id.len()).min(command.len())..)
            .unwrap_or("");
        let rest = rest.trim_start();
        let rest = rest.strip_prefix('\\').unwrap_or(rest);
        let rest = rest.strip_prefix('\n').unwrap_or(rest);
        rest.trim_start()
    };
    let mut out = format!(
        "{prereq}docker run {gpu_flags} \\\n  --privileged --ipc=host -p 8000:8000 \\\n  -v ~/.cache/huggingface:/root/.cache/huggingface \\"
    );
    if !mount_flags.is_empty() {
        out.push_str(&format!("\n  {mount_flags} \\"));
    }
    if !env_flags.is_empty() {
        out.push_str(&format!("\n  {env_flags} \\"));
    }
    out.push_str(&format!("\n  {image} {model_id}"));
    if !body.is_empty() {
        out.push_str(&format!(" \\\n  {body}"));
    }
    out
}
