//! The `models.yaml` loader that `server_sglang.sh` runs as
//! `eval "$(python3 -c "...")"`: it picks the model's entry (`<MODEL_NAME>-AgentX`
//! for agentic runs, `<MODEL_NAME>-DI` otherwise, else the bare name) and
//! prints one `NAME="value"` line per flag group and per-role setting, each
//! with a default. The printed variables are data ([`PRINTS`]); the loader's
//! text is checked against them, so a loader that prints other variables is
//! not knowable rather than read wrongly.

use std::path::Path;

use crate::extract::bash::expand::Val;
use crate::extract::yaml_tree::{self, Node, Options, Place, Schema, Val as Y};
use crate::span::Source;

/// How a printed value is made from the entry's value (or the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// `str(value)`.
    Plain,
    /// `eval_formula(value)`: an integer, or a formula over the environment's
    /// integer variables.
    Formula,
    /// `parse_range(value, start, end)`: the part before `-`.
    RangeStart,
    /// `parse_range(value, start, end)`: the part after `-`.
    RangeEnd,
}

/// One printed variable: its name, the mapping it reads (`""` is the model's
/// entry, `prefill.dp` its `prefill: {dp: ...}`), the key, the default as
/// Python writes it, and the form.
type Print = (&'static str, &'static str, &'static str, &'static str, Form);

/// The variables the loader prints, in its order.
pub(super) const PRINTS: &[Print] = &[
    ("MODEL_BASE_FLAGS", "", "base_flags", "", Form::Plain),
    ("MODEL_MTP_FLAGS", "", "mtp_flags", "", Form::Plain),
    ("MODEL_DP_FLAGS", "", "dp_flags", "", Form::Plain),
    ("MODEL_EP_FLAGS", "", "ep_flags", "", Form::Plain),
    (
        "PREFILL_MEM_FRACTION_STATIC",
        "prefill",
        "mem_fraction_static",
        "0.8",
        Form::Plain,
    ),
    (
        "PREFILL_DISABLE_RADIX_CACHE",
        "prefill",
        "disable_radix_cache",
        "True",
        Form::Plain,
    ),
    (
        "PREFILL_DISABLE_CUDA_GRAPH",
        "prefill",
        "disable_cuda_graph",
        "False",
        Form::Plain,
    ),
    (
        "PREFILL_MAX_RUNNING_REQUESTS_DP",
        "prefill.dp",
        "max_running_requests",
        "24",
        Form::Plain,
    ),
    (
        "PREFILL_CHUNKED_PREFILL_SIZE_DP",
        "prefill.dp",
        "chunked_prefill_size",
        "262144",
        Form::Formula,
    ),
    (
        "PREFILL_CUDA_GRAPH_BS_DP",
        "prefill.dp",
        "cuda_graph_bs",
        "1 2 3",
        Form::Plain,
    ),
    (
        "PREFILL_CONTEXT_LENGTH_DP",
        "prefill.dp",
        "context_length",
        "",
        Form::Plain,
    ),
    (
        "PREFILL_MAX_TOTAL_TOKENS_DP",
        "prefill.dp",
        "max_total_tokens",
        "",
        Form::Plain,
    ),
    (
        "PREFILL_ENABLE_TWO_BATCH_OVERLAP_DP",
        "prefill.dp",
        "enable_two_batch_overlap",
        "False",
        Form::Plain,
    ),
    (
        "PREFILL_MAX_RUNNING_REQUESTS_NO_DP",
        "prefill.no_dp",
        "max_running_requests",
        "128",
        Form::Plain,
    ),
    (
        "PREFILL_CHUNKED_PREFILL_SIZE_NO_DP",
        "prefill.no_dp",
        "chunked_prefill_size",
        "262144",
        Form::Formula,
    ),
    (
        "PREFILL_CONTEXT_LENGTH_NO_DP",
        "prefill.no_dp",
        "context_length",
        "",
        Form::Plain,
    ),
    (
        "PREFILL_MAX_TOTAL_TOKENS_NO_DP",
        "prefill.no_dp",
        "max_total_tokens",
        "",
        Form::Plain,
    ),
    (
        "PREFILL_CUDA_GRAPH_BS_NO_DP_START",
        "prefill.no_dp",
        "cuda_graph_bs_range",
        "1-128",
        Form::RangeStart,
    ),
    (
        "PREFILL_CUDA_GRAPH_BS_NO_DP_END",
        "prefill.no_dp",
        "cuda_graph_bs_range",
        "1-128",
        Form::RangeEnd,
    ),
    (
        "DECODE_MEM_FRACTION_STATIC",
        "decode",
        "mem_fraction_static",
        "0.85",
        Form::Plain,
    ),
    (
        "DECODE_PREFILL_ROUND_ROBIN_BALANCE",
        "decode",
        "prefill_round_robin_balance",
        "True",
        Form::Plain,
    ),
    (
        "DECODE_DISAGG_ENABLE_RADIX_CACHE",
        "decode",
        "disagg_decode_enable_radix_cache",
        "False",
        Form::Plain,
    ),
    (
        "DECODE_MAX_RUNNING_REQUESTS_DP",
        "decode.dp",
        "max_running_requests",
        "4096",
        Form::Plain,
    ),
    (
        "DECODE_CHUNKED_PREFILL_SIZE_DP",
        "decode.dp",
        "chunked_prefill_size",
        "262144",
        Form::Formula,
    ),
    (
        "DECODE_CONTEXT_LENGTH_DP",
        "decode.dp",
        "context_length",
        "",
        Form::Plain,
    ),
    (
        "DECODE_CUDA_GRAPH_BS_DP_START",
        "decode.dp",
        "cuda_graph_bs_range",
        "1-160",
        Form::RangeStart,
    ),
    (
        "DECODE_CUDA_GRAPH_BS_DP_END",
        "decode.dp",
        "cuda_graph_bs_range",
        "1-160",
        Form::RangeEnd,
    ),
    (
        "DECODE_MAX_RUNNING_REQUESTS_EP_ONLY",
        "decode.ep_only",
        "max_running_requests",
        "256",
        Form::Plain,
    ),
    (
        "DECODE_CHUNKED_PREFILL_SIZE_EP_ONLY",
        "decode.ep_only",
        "chunked_prefill_size",
        "262144",
        Form::Formula,
    ),
    (
        "DECODE_CONTEXT_LENGTH_EP_ONLY",
        "decode.ep_only",
        "context_length",
        "",
        Form::Plain,
    ),
    (
        "DECODE_CUDA_GRAPH_BS_EP_ONLY_START",
        "decode.ep_only",
        "cuda_graph_bs_range",
        "1-256",
        Form::RangeStart,
    ),
    (
        "DECODE_CUDA_GRAPH_BS_EP_ONLY_END",
        "decode.ep_only",
        "cuda_graph_bs_range",
        "1-256",
        Form::RangeEnd,
    ),
    (
        "DECODE_MAX_RUNNING_REQUESTS_NO_DP",
        "decode.no_dp",
        "max_running_requests",
        "128",
        Form::Plain,
    ),
    (
        "DECODE_CHUNKED_PREFILL_SIZE_NO_DP",
        "decode.no_dp",
        "chunked_prefill_size",
        "262144",
        Form::Formula,
    ),
    (
        "DECODE_CONTEXT_LENGTH_NO_DP",
        "decode.no_dp",
        "context_length",
        "",
        Form::Plain,
    ),
    (
        "DECODE_CUDA_GRAPH_BS_NO_DP_START",
        "decode.no_dp",
        "cuda_graph_bs_range",
        "1-128",
        Form::RangeStart,
    ),
    (
        "DECODE_CUDA_GRAPH_BS_NO_DP_END",
        "decode.no_dp",
        "cuda_graph_bs_range",
        "1-128",
        Form::RangeEnd,
    ),
];

/// How `models.yaml` is read: by PyYAML.
const OPTIONS: Options = Options {
    schema: Schema::PyYaml11,
    place: Place::Defined,
    max_map_entries: None,
    inner_key_name: None,
    key_name: |key| match &key.val {
        Y::Str(s) => Some(s.clone()),
        Y::Int(n) => Some(n.to_string()),
        _ => None,
    },
};

/// Whether a `python3 -c` program is the models.yaml loader: it loads a
/// `models.yaml` with PyYAML and prints shell assignments.
pub(super) fn is_loader(program: &str) -> bool {
    program.contains("yaml.safe_load")
        && quoted_assignment(program, "config_path").is_some_and(|p| p.ends_with("models.yaml"))
        && program.contains("print(f'MODEL_BASE_FLAGS=")
}

/// `NAME = 'value'` in the program (the loader's inputs, as the shell
/// expanded them into its text).
fn quoted_assignment(program: &str, name: &str) -> Option<String> {
    program.lines().find_map(|l| {
        let rest = l
            .trim()
            .strip_prefix(name)?
            .trim_start()
            .strip_prefix('=')?;
        let rest = rest.trim_start().strip_prefix('\'')?;
        Some(rest[..rest.find('\'')?].to_string())
    })
}

/// The loader's output for its program, reading integer variables of the
/// environment through `var` (the formulas' namespace); `Err` with the
/// reason when it is not knowable.
pub(super) fn output(program: &str, var: &dyn Fn(&str) -> Option<Val>) -> Result<String, String> {
    let printed: Vec<&str> = program
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("print(f'")?
                .split_once('=')
                .map(|(n, _)| n)
        })
        .filter(|n| {
            n.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        .collect();
    let known: Vec<&str> = PRINTS.iter().map(|p| p.0).collect();
    if printed != known {
        let extra: Vec<&&str> = printed.iter().filter(|n| !known.contains(n)).collect();
        let missing: Vec<&&str> = known.iter().filter(|n| !printed.contains(n)).collect();
        return Err(format!(
            "the models.yaml loader of this script prints other variables than the one modeled (new: {extra:?}, gone: {missing:?}, or another order)"
        ));
    }
    let path = quoted_assignment(program, "config_path").unwrap_or_default();
    let model = quoted_assignment(program, "model_name").unwrap_or_default();
    let agentic = program
        .lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("is_agentic = '")?;
            Some(rest[..rest.find('\'')?].trim().to_lowercase())
        })
        .ok_or("the models.yaml loader's IS_AGENTIC test is not the one modeled")?;
    let agentic = agentic == "1" || agentic == "true";
    let source = Source::read(Path::new(&path))
        .map_err(|e| format!("the models.yaml the loader reads is not readable: {e}"))?;
    let doc = yaml_tree::parse(&source, &OPTIONS).map_err(|e| e.to_string())?;
    let suffix = if agentic { "AgentX" } else { "DI" };
    let mut key = format!("{model}-{suffix}");
    let entries = match &doc.val {
        Y::Map(m) => m,
        _ => return Err(format!("{path} is not a mapping of models")),
    };
    let find = |k: &str| entries.iter().find(|(n, _, _)| n == k).map(|(_, _, v)| v);
    if find(&key).is_none() {
        if find(&model).is_none() {
            return Ok(format!(
                "echo \"ERROR: Model {key} not in models.yaml\"; exit 1\n"
            ));
        }
        key = model.clone();
    }
    let entry = find(&key).cloned().unwrap_or_else(|| doc.clone());
    let mut out = format!(
        "echo \"Selected models.yaml entry: {key} (IS_AGENTIC={})\"\n",
        if agentic { "True" } else { "False" }
    );
    for &(name, section, field, default, form) in PRINTS {
        let value = lookup(&entry, section, field);
        let text = match form {
            Form::Plain => value.map(str_of).unwrap_or_else(|| default.to_string()),
            Form::Formula => formula(value, default, var)?,
            Form::RangeStart | Form::RangeEnd => {
                let raw = value.map(str_of).unwrap_or_else(|| default.to_string());
                let (ds, de) = default.split_once('-').unwrap_or((default, default));
                let (s, e) = if raw.contains('-') {
                    let parts: Vec<&str> = raw.split('-').collect();
                    match parts.as_slice() {
                        [s, e] => (s.to_string(), e.to_string()),
                        _ => {
                            return Err(format!(
                                "{key}: {section}.{field} {raw:?} has more than one '-' (the loader fails on it)"
                            ));
                        }
                    }
                } else {
                    (ds.to_string(), de.to_string())
                };
                if form == Form::RangeStart { s } else { e }
            }
        };
        out.push_str(&format!("{name}=\"{text}\"\n"));
    }
    Ok(out)
}

/// `section.field` of the entry (`m.get(...)` chains; a missing mapping is `{}`).
fn lookup<'a>(entry: &'a Node, section: &str, field: &str) -> Option<&'a Node> {
    let mut at = entry;
    for part in section.split('.').filter(|p| !p.is_empty()).chain([field]) {
        let Y::Map(m) = &at.val else { return None };
        at = m.iter().find(|(k, _, _)| k == part).map(|(_, _, v)| v)?;
    }
    Some(at)
}

/// Python's `str()` of a value PyYAML read.
fn str_of(n: &Node) -> String {
    crate::extract::srt_slurm::python_str(n)
}

/// `eval_formula`: an integer as it is (`int(val)`), else the text
/// evaluated over the environment's integer variables; a formula that fails
/// in Python is printed as written.
fn formula(
    value: Option<&Node>,
    default: &str,
    var: &dyn Fn(&str) -> Option<Val>,
) -> Result<String, String> {
    let text = match value.map(|n| &n.val) {
        Some(Y::Int(i)) => return Ok(i.to_string()),
        Some(Y::Float(f)) => return Ok((f.trunc() as i128).to_string()),
        Some(Y::Bool(b)) => return Ok(if *b { "1" } else { "0" }.to_string()),
        Some(_) => str_of(value.expect("matched")),
        None => return Ok(default.to_string()),
    };
    arith::evaluate(&text, var)
}

mod arith {
    //! The formulas `eval_formula` reads: integers and variable names joined
    //! by `+`, `-`, `*`, `//` and parentheses, over Python integers.

    use crate::extract::bash::expand::Val;

    /// The value of a formula; a name that is not an integer variable of the
    /// environment fails in Python, which prints the formula as written.
    pub(super) fn evaluate(
        text: &str,
        var: &dyn Fn(&str) -> Option<Val>,
    ) -> Result<String, String> {
        let tokens = tokenize(text).ok_or_else(|| {
            format!("the models.yaml formula {text:?} is not one the loader model evaluates")
        })?;
        let mut p = Parser {
            tokens,
            at: 0,
            var,
            text,
        };
        match p.sum() {
            Ok(v) if p.at == p.tokens.len() => Ok(v.to_string()),
            Ok(_) => Err(format!(
                "the models.yaml formula {text:?} is not one the loader model evaluates"
            )),
            Err(Fail::Python) => Ok(text.to_string()),
            Err(Fail::Unknown(r)) => Err(r),
        }
    }

    enum Fail {
        /// Python raises: the formula is printed as written.
        Python,
        /// Not knowable.
        Unknown(String),
    }

    #[derive(Debug, Clone, PartialEq)]
    enum Tok {
        Num(i128),
        Name(String),
        Op(&'static str),
    }

    fn tokenize(text: &str) -> Option<Vec<Tok>> {
        let mut out = Vec::new();
        let b: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_whitespace() {
                i += 1;
            } else if c.is_ascii_digit() {
                let s = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                out.push(Tok::Num(b[s..i].iter().collect::<String>().parse().ok()?));
            } else if c.is_ascii_alphabetic() || c == '_' {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
                out.push(Tok::Name(b[s..i].iter().collect()));
            } else if c == '/' && b.get(i + 1) == Some(&'/') {
                out.push(Tok::Op("//"));
                i += 2;
            } else {
                out.push(Tok::Op(match c {
                    '+' => "+",
                    '-' => "-",
                    '*' => "*",
                    '(' => "(",
                    ')' => ")",
                    _ => return None,
                }));
                i += 1;
            }
        }
        Some(out)
    }

    struct Parser<'a> {
        tokens: Vec<Tok>,
        at: usize,
        var: &'a dyn Fn(&str) -> Option<Val>,
        text: &'a str,
    }

    impl Parser<'_> {
        fn peek(&self) -> Option<&Tok> {
            self.tokens.get(self.at)
        }

        fn sum(&mut self) -> Result<i128, Fail> {
            let mut v = self.product()?;
            while let Some(Tok::Op(op @ ("+" | "-"))) = self.peek().cloned() {
                self.at += 1;
                let r = self.product()?;
                v = if op == "+" {
                    v.checked_add(r)
                } else {
                    v.checked_sub(r)
                }
                .ok_or_else(|| self.too_big())?;
            }
            Ok(v)
        }

        fn product(&mut self) -> Result<i128, Fail> {
            let mut v = self.atom()?;
            while let Some(Tok::Op(op @ ("*" | "//"))) = self.peek().cloned() {
                self.at += 1;
                let r = self.atom()?;
                v = if op == "*" {
                    v.checked_mul(r).ok_or_else(|| self.too_big())?
                } else if r == 0 {
                    return Err(Fail::Python);
                } else {
                    v.div_euclid(r)
                        - if (v.rem_euclid(r) != 0) && r < 0 {
                            1
                        } else {
                            0
                        }
                };
            }
            Ok(v)
        }

        fn atom(&mut self) -> Result<i128, Fail> {
            let t = self.peek().cloned();
            self.at += 1;
            match t {
                Some(Tok::Num(n)) => Ok(n),
                Some(Tok::Op("-")) => Ok(-self.atom()?),
                Some(Tok::Op("(")) => {
                    let v = self.sum()?;
                    match self.peek() {
                        Some(Tok::Op(")")) => {
                            self.at += 1;
                            Ok(v)
                        }
                        _ => Err(Fail::Python),
                    }
                }
                Some(Tok::Name(n)) => match (self.var)(&n) {
                    Some(Val::Known(t)) => t.trim().parse::<i128>().map_err(|_| Fail::Python),
                    Some(Val::Unknown(r)) => Err(Fail::Unknown(format!(
                        "the models.yaml formula {:?} reads ${n}, which is not knowable: {r}",
                        self.text
                    ))),
                    None => Err(Fail::Python),
                },
                _ => Err(Fail::Python),
            }
        }

        fn too_big(&self) -> Fail {
            Fail::Unknown(format!("the models.yaml formula {:?} overflows", self.text))
        }
    }
}
