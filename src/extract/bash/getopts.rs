//! `getopts OPTSTRING NAME [ARGS...]`: one step of option parsing, as bash
//! does it, over the arguments given or the positional parameters. It sets
//! NAME, `OPTARG` and `OPTIND` (exported under `set -a`, as every
//! assignment); what is not knowable (an argument, `OPTIND`, options
//! bundled in one word, whose position bash keeps hidden) makes the three
//! unknown with the reason.

use brush_parser::ast;

use super::expand::Val;
use super::{Interp, Status};
use crate::error::Error;

/// What one `getopts` step sets: NAME's value, `OPTARG` (`None`: unset),
/// the next `OPTIND`, and whether an option was found.
struct Step {
    name: String,
    optarg: Option<String>,
    optind: usize,
    found: bool,
}

impl Interp<'_> {
    /// `getopts OPTSTRING NAME [ARGS...]`.
    pub(super) fn getopts(
        &mut self,
        raw: &[(&ast::Word, Option<&ast::Assignment>)],
        at: usize,
    ) -> Result<Status, Error> {
        let args = self.args_of(raw, at)?;
        let (Some(spec), Some(name)) = (args.first(), args.get(1)) else {
            // "usage": nothing is set.
            return Ok(Status::Fail);
        };
        let line = self.source.line_col(at).line;
        let Val::Known(name) = name.clone() else {
            let Val::Unknown(r) = name else {
                unreachable!()
            };
            self.st.clobber(&format!(
                "the `getopts` on line {line}, whose variable name is not knowable ({})",
                super::expand::brief(r)
            ));
            return Ok(Status::Unknown(r.clone()));
        };
        let words: Vec<Val> = if args.len() > 2 {
            args[2..].to_vec()
        } else {
            self.st.positional.clone()
        };
        let optind = match self.st.get("OPTIND").and_then(|v| v.into_iter().next()) {
            None => Ok(1),
            Some(Val::Known(t)) => t
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| format!("$OPTIND is {t:?}, not an index getopts is evaluated at")),
            Some(Val::Unknown(r)) => Err(r),
        };
        let step = match (spec, optind) {
            (Val::Known(spec), Ok(i)) => step(spec, &words, i),
            (Val::Unknown(r), _) => Err(r.clone()),
            (_, Err(r)) => Err(r),
        };
        match step {
            Ok(s) => {
                self.st.set_scalar(&name, Val::Known(s.name));
                match s.optarg {
                    Some(a) => self.st.set_scalar("OPTARG", Val::Known(a)),
                    None => {
                        if !self.st.is_readonly("OPTARG") {
                            self.st.vars.remove("OPTARG");
                        }
                    }
                }
                self.st
                    .set_scalar("OPTIND", Val::Known(s.optind.to_string()));
                Ok(if s.found { Status::Ok } else { Status::Fail })
            }
            Err(r) => {
                let why =
                    format!("set by the `getopts` on line {line}, which is not evaluated: {r}");
                for n in [name.as_str(), "OPTARG", "OPTIND"] {
                    self.st
                        .set_scalar(n, Val::Unknown(format!("${n} is {why}")));
                }
                Ok(Status::Unknown(format!(
                    "the `getopts` on line {line} is not evaluated: {r}"
                )))
            }
        }
    }
}

/// One getopts step over `words` at `optind` (1-based), or why it is not
/// knowable.
fn step(spec: &str, words: &[Val], optind: usize) -> Result<Step, String> {
    let silent = spec.starts_with(':');
    let end = |optind| Step {
        name: "?".into(),
        optarg: None,
        optind,
        found: false,
    };
    // An unknown word may stand for any number of words (`"$@"` of a
    // caller): the words from there are not at known positions.
    if let Some(Val::Unknown(r)) = words
        .iter()
        .take(optind + 1)
        .find(|w| matches!(w, Val::Unknown(_)))
    {
        return Err(r.clone());
    }
    let word = match words.get(optind - 1) {
        None => return Ok(end(optind)),
        Some(Val::Unknown(r)) => return Err(r.clone()),
        Some(Val::Known(w)) => w,
    };
    if word == "--" {
        return Ok(end(optind + 1));
    }
    let Some(rest) = word.strip_prefix('-').filter(|r| !r.is_empty()) else {
        return Ok(end(optind));
    };
    let mut chars = rest.chars();
    let c = chars.next().unwrap_or('-');
    let tail: String = chars.collect();
    let at = spec.trim_start_matches(':').find(c).filter(|_| c != ':');
    let takes_arg =
        at.is_some_and(|k| spec.trim_start_matches(':')[k + c.len_utf8()..].starts_with(':'));
    if !tail.is_empty() && !takes_arg {
        return Err(format!(
            "{word:?} bundles options in one word, whose position getopts keeps hidden"
        ));
    }
    let found = |name: String, optarg, optind| Step {
        name,
        optarg,
        optind,
        found: true,
    };
    Ok(match (at, takes_arg) {
        (None, _) => found("?".into(), silent.then(|| c.to_string()), optind + 1),
        (Some(_), false) => found(c.to_string(), None, optind + 1),
        (Some(_), true) if !tail.is_empty() => found(c.to_string(), Some(tail), optind + 1),
        (Some(_), true) => match words.get(optind) {
            Some(Val::Known(a)) => found(c.to_string(), Some(a.clone()), optind + 2),
            Some(Val::Unknown(r)) => return Err(r.clone()),
            None if silent => found(":".into(), Some(c.to_string()), optind + 1),
            None => found("?".into(), None, optind + 1),
        },
    })
}
