//! Launch recognition: wrappers (`exec`, `env K=V`, `docker run`, ...),
//! delegation to another script (`bash other.sh`), and the `sglang serve` /
//! `vllm serve` command lines with their environment.

use std::collections::BTreeMap;

use brush_parser::ast::{self, AssignmentName, AssignmentValue};

use super::Interp;
use super::evaluate_at;
use super::expand::{Field, Val, expand_string};
use crate::error::Error;
use crate::launch::{Context, EnvVar, Launch, Provenance, Token};

impl Interp<'_> {
    /// Evaluates a script run with `bash FILE ARGS...`, relative to this
    /// script's folder, with the variables exported here plus `env K=V`, and
    /// `ARGS` as its positional parameters.
    fn delegate(
        &mut self,
        target: &str,
        args: Vec<Val>,
        extra_env: &[(String, String, (usize, usize))],
        at: (usize, usize),
    ) -> Result<(), Error> {
        let max = super::budget::fixed::MAX_DELEGATION_DEPTH;
        if self.level >= max {
            return Err(self.err(
                at.0,
                format!(
                    "scripts delegate to each other too deeply (more than {max} `bash other.sh`)"
                ),
            ));
        }
        let path = self
            .locate(target)
            .map_err(|m| self.err(at.0, format!("`bash {target}`: {m}")))?;
        let source = self
            .files
            .read(&path)
            .map_err(|e| self.err(at.0, format!("`bash {target}`: {e}")))?;
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        for name in &self.st.exported {
            if let Some(Val::Known(v)) = self.st.get(name).and_then(|v| v.into_iter().next()) {
                env.insert(name.clone(), v);
            }
        }
        for (k, v, _) in extra_env {
            env.insert(k.clone(), v.clone());
        }
        let inner = evaluate_at(
            &source,
            args,
            &env,
            &BTreeMap::new(),
            self.level + 1,
            self.st.complete_env,
            self.files,
            self.st.harness(),
        )?;
        self.out.launches.extend(inner.launches);
        self.out.unsupported.extend(inner.unsupported);
        self.out.auxiliary.extend(inner.auxiliary);
        self.out.read.extend(inner.read);
        Ok(())
    }

    pub(super) fn maybe_launch(
        &mut self,
        assigns: &[&ast::Assignment],
        fields: &[(Field, (usize, usize), Option<String>)],
        at: usize,
    ) -> Result<(), Error> {
        // Wrappers: exec, nohup, env K=V.
        let mut i = 0;
        let mut extra_env: Vec<(String, String, (usize, usize))> = Vec::new();
        let mut docker: Option<Vec<(String, (usize, usize))>> = None;
        // `env -i` (it clears the environment before it; true: before a
        // `docker run`) and `env -u NAME`.
        let mut env_cleared: Option<bool> = None;
        let mut env_unset: Vec<(String, bool)> = Vec::new();
        let mut context = Context::default();
        loop {
            let Some((f, range, _)) = fields.get(i) else {
                return Ok(());
            };
            match f.text.as_str() {
                // `exec [-cl] [-a NAME] CMD`: its options come before the command.
                "exec" => {
                    i += 1;
                    while let Some((f, _, _)) = fields.get(i)
                        && f.text.starts_with('-')
                    {
                        let takes_name = f.text == "-a";
                        i += if takes_name { 2 } else { 1 };
                    }
                }
                "nohup" | "time" | "command" | "setsid" => i += 1,
                "sudo" | "uv" | "numactl" | "taskset" | "timeout" => {
                    // sudo [-E], uv run [opts], numactl/taskset/timeout [opts] ARG
                    let takes_arg = matches!(f.text.as_str(), "taskset" | "timeout");
                    i += 1;
                    if f.text == "uv" && fields.get(i).is_some_and(|(f, _, _)| f.text == "run") {
                        i += 1;
                    }
                    while fields
                        .get(i)
                        .is_some_and(|(f, _, _)| f.text.starts_with('-'))
                    {
                        i += 1;
                    }
                    if takes_arg {
                        i += 1;
                    }
                }
                "docker" | "podman"
                    if fields.get(i + 1).is_some_and(|(f, _, _)| f.text == "run") =>
                {
                    // Only `-e` reaches the container; the image gives version and platform.
                    let texts: Vec<&str> = fields[i + 2..]
                        .iter()
                        .map(|(f, _, _)| f.text.as_str())
                        .collect();
                    let parsed = crate::extract::shared::docker_run_options(&texts);
                    docker = Some(
                        parsed
                            .env
                            .into_iter()
                            .map(|(v, at)| (v, fields[i + 2 + at].1))
                            .collect(),
                    );
                    i = match parsed.image {
                        Some(img) => i + 2 + img,
                        None => fields.len(),
                    };
                    if let Some((img, range, _)) = fields.get(i) {
                        let from = format!(
                            "image {} at {}",
                            img.text,
                            self.source.span(range.0, range.1)
                        );
                        context = Context::from_image(&img.text, &from);
                        i += 1;
                    }
                }
                "env" => {
                    i += 1;
                    while let Some((f, range, _)) = fields.get(i) {
                        match f.text.split_once('=') {
                            Some((k, v)) if !k.is_empty() && !k.starts_with('-') => {
                                extra_env.push((k.to_string(), v.to_string(), *range));
                                i += 1;
                            }
                            _ if matches!(f.text.as_str(), "-i" | "-" | "--ignore-environment") => {
                                env_cleared.get_or_insert(docker.is_none());
                                i += 1;
                            }
                            _ if f.text == "-u" => {
                                if let Some((n, _, _)) = fields.get(i + 1) {
                                    env_unset.push((n.text.clone(), docker.is_none()));
                                }
                                i += 2;
                            }
                            _ if f.text.starts_with("--unset=") || f.text.starts_with("-u") => {
                                let n = f.text.trim_start_matches("--unset=");
                                let n = n.strip_prefix("-u").unwrap_or(n).to_string();
                                env_unset.push((n, docker.is_none()));
                                i += 1;
                            }
                            _ if f.text.starts_with('-') => i += 1,
                            _ => break,
                        }
                    }
                }
                _ => {
                    let _ = range;
                    break;
                }
            }
        }
        let words: Vec<&str> = fields[i..]
            .iter()
            .map(|(f, _, _)| f.text.as_str())
            .collect();
        let unknown_head = fields[i].0.unknown.is_some();
        let base = |s: &str| s.rsplit('/').next().unwrap_or("").to_string();
        let head = base(words[0]);
        // `bash other.sh` / `exec env K=V bash other.sh`: delegation to another script.
        if matches!(head.as_str(), "bash" | "sh")
            && let Some(target) = words.get(1)
            && target.ends_with(".sh")
        {
            if let Some(r) = &fields[i + 1].0.unknown {
                return Err(self.err(
                    fields[i + 1].1.0,
                    format!("cannot know which script `{head}` runs: {r}"),
                ));
            }
            let args = fields[i + 2..]
                .iter()
                .map(|(f, _, _)| match &f.unknown {
                    Some(r) => Val::Unknown(r.clone()),
                    None => Val::Known(f.text.clone()),
                })
                .collect();
            return self.delegate(target, args, &extra_env, fields[i + 1].1);
        }
        let is_python = head.starts_with("python") || unknown_head;
        let Some(detected) = crate::launch::detect_launcher(&words, is_python) else {
            return Ok(());
        };
        let len = detected.len;
        let engine = match detected.starts {
            crate::launch::Starts::Engine(e) => e,
            crate::launch::Starts::Auxiliary(name) => {
                let span = self.source.span(fields[i].1.0, fields[i].1.0);
                self.out.auxiliary.push(format!(
                    "{span}: `{}` starts {name}, an auxiliary process (not compared)",
                    words.join(" ")
                ));
                return Ok(());
            }
            crate::launch::Starts::Unsupported(name) => {
                let span = self.source.span(fields[i].1.0, fields[i].1.0);
                self.out.unsupported.push(format!(
                    "{span}: `{}` starts {name}, an engine recipe-drift does not resolve",
                    words[..len].join(" ")
                ));
                return Ok(());
            }
        };
        let token = |(f, (s, e), var): &(Field, (usize, usize), Option<String>)| Token {
            text: f.text.clone(),
            span: self.source.span(*s, *e),
            provenance: match (&f.unknown, var) {
                (Some(r), _) => Provenance::Unknown { reason: r.clone() },
                (None, Some(v)) => Provenance::Var { name: v.clone() },
                (None, None) => Provenance::Literal,
            },
        };
        let launcher: Vec<Token> = fields[i..i + len].iter().map(token).collect();
        let argv: Vec<Token> = fields[i + len..].iter().map(token).collect();
        let span_end = fields.last().map(|(_, r, _)| r.1).unwrap_or(at);
        let whole = self.source.span(at, span_end.max(at));
        // Environment: exported variables, then prefix assignments and `env K=V`;
        // inside `docker run`, only its `-e` variables.
        let mut env: Vec<EnvVar> = Vec::new();
        for name in &self.st.exported {
            if let Some(v) = self.st.get(name).and_then(|v| v.into_iter().next()) {
                // Where it was assigned (`export X=1`), else the launch.
                let span = match self.st.assigned_here(name).as_ref() {
                    Some((s, e)) => self.source.span(*s, *e),
                    None => whole.clone(),
                };
                env.push(env_var(name, &v, span));
            }
        }
        for a in assigns {
            if let AssignmentName::VariableName(n) = &a.name
                && let AssignmentValue::Scalar(w) = &a.value
                && !self.st.is_readonly(n)
            {
                let s = self.byte(&a.loc.start);
                let v = expand_string(&mut self.st, &w.value).map_err(|m| self.err(s, m))?;
                env.retain(|e| &e.name != n);
                env.push(env_var(n, &v, self.source.span(s, self.byte(&a.loc.end))));
            }
        }
        // `env -i` before `docker run`: the host's environment is empty.
        if env_cleared == Some(true) {
            env.clear();
        }
        env.retain(|x| !env_unset.contains(&(x.name.clone(), true)));
        if let Some(vars) = docker {
            let host = std::mem::take(&mut env);
            for (item, (s, e)) in vars {
                let span = self.source.span(s, e);
                match item.split_once('=') {
                    Some((k, v)) => {
                        env.retain(|x| x.name != k);
                        env.push(env_var(k, &Val::Known(v.to_string()), span));
                    }
                    None => {
                        let v = host
                            .iter()
                            .find(|h| h.name == item)
                            .map(|h| match &h.provenance {
                                Provenance::Unknown { reason } => Val::Unknown(reason.clone()),
                                _ => Val::Known(h.value.clone()),
                            })
                            .unwrap_or_else(|| {
                                Val::Unknown(format!(
                                    "`-e {item}` passes the host's {item}, which the script does not export (give it with --env {item}=...)"
                                ))
                            });
                        env.retain(|x| x.name != item);
                        env.push(env_var(&item, &v, span));
                    }
                }
            }
        }
        if env_cleared == Some(false) {
            env.clear();
        }
        env.retain(|x| !env_unset.contains(&(x.name.clone(), false)));
        for (k, v, (s, e)) in extra_env {
            env.retain(|x| x.name != k);
            env.push(env_var(&k, &Val::Known(v), self.source.span(s, e)));
        }
        let mut launch = Launch {
            engine,
            launcher,
            argv,
            env,
            context,
            span: whole,
            source: self.source.clone(),
        };
        if let Some(r) = self.condition() {
            // The whole launch depends on an unknown condition: its launcher says so.
            launch.launcher[0].provenance = Provenance::Unknown {
                reason: format!(
                    "this launch runs only under a condition that is not knowable: {r}"
                ),
            };
        }
        launch.note_env_secrets();
        self.out.launches.push(launch);
        Ok(())
    }
}

fn env_var(name: &str, v: &Val, span: crate::span::Span) -> EnvVar {
    EnvVar {
        name: name.to_string(),
        value: v.text().to_string(),
        span,
        provenance: match v {
            Val::Known(_) => Provenance::Var {
                name: name.to_string(),
            },
            Val::Unknown(r) => Provenance::Unknown { reason: r.clone() },
        },
    }
}
