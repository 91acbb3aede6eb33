//! A faithful re-implementation of Python's `argparse` (CPython 3.11) driven by an
//! option table exported from an engine's real parser.
//!
//! It reproduces what matters for comparing commands: option classification,
//! unique-prefix abbreviation (`allow_abbrev`), ambiguity errors, `--k=v`, nargs
//! patterns, actions, type conversion, choices, defaults (first non-SUPPRESS
//! default wins a shared destination), type conversion of string defaults, and
//! `unrecognized arguments`. A differential test (`tests/argparse_oracle.rs`)
//! compares it with Python's own argparse rebuilt from the same table.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

/// argparse's marker for "no default".
pub const SUPPRESS: &str = "==SUPPRESS==";

impl OptionSpec {
    /// argparse's `-h/--help` action, which `add_help=True` registers first.
    pub fn help() -> OptionSpec {
        OptionSpec {
            option_strings: vec!["-h".into(), "--help".into()],
            dest: SUPPRESS.into(),
            action: "help".into(),
            nargs: Value::Null,
            const_value: Value::Null,
            type_kind: None,
            default: Value::String(SUPPRESS.into()),
            choices: None,
            required: false,
            custom_action: None,
            extra: BTreeMap::new(),
        }
    }
}

/// One argparse action, as exported by `scripts/*_schema.py`.
#[derive(Debug, Clone, Deserialize)]
pub struct OptionSpec {
    /// Option strings (`["--tp-size", "--tensor-parallel-size"]`); empty for positionals.
    pub option_strings: Vec<String>,
    /// Destination attribute.
    pub dest: String,
    /// Normalised action kind (`store`, `store_true`, `append`, ...).
    pub action: String,
    /// `null`, `"?"`, `"*"`, `"+"` or a count.
    #[serde(default)]
    pub nargs: Value,
    /// The `const` of the action.
    #[serde(default, rename = "const")]
    pub const_value: Value,
    /// Normalised type converter name, or `null` for plain strings.
    #[serde(default, rename = "type")]
    pub type_kind: Option<String>,
    /// Default value (`"==SUPPRESS=="` for none).
    #[serde(default)]
    pub default: Value,
    /// Allowed values, after type conversion.
    #[serde(default)]
    pub choices: Option<Vec<Value>>,
    /// Whether the option must be given.
    #[serde(default)]
    pub required: bool,
    /// The engine's own Action class, when not a standard one.
    #[serde(default)]
    pub custom_action: Option<String>,
    /// Any other field the exporter recorded (for custom actions).
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// nargs of an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nargs {
    /// One value (nargs=None).
    One,
    /// `?`
    Optional,
    /// `*`
    ZeroOrMore,
    /// `+`
    OneOrMore,
    /// An exact count (0 for flags).
    Exactly(usize),
}

/// A parser built from an option table.
#[derive(Debug)]
pub struct ArgParser {
    /// The actions in parser order.
    pub actions: Vec<OptionSpec>,
    nargs: Vec<Nargs>,
    /// option string -> action index, in insertion order.
    option_index: Vec<(String, usize)>,
    option_map: HashMap<String, usize>,
    allow_abbrev: bool,
    has_negative_number_optionals: bool,
    /// Destination id of each action (`usize::MAX` for SUPPRESS).
    dest_of: Vec<usize>,
    dest_names: Arc<[String]>,
    dest_lookup: Arc<HashMap<String, usize>>,
    converter: Converter,
    custom: &'static [(&'static str, CustomAction)],
}

/// Converts one argument string with an action's type (per engine).
pub type Converter = fn(&OptionSpec, &str) -> Result<Value, String>;

/// An engine's own argparse action (a custom `argparse.Action` subclass, named
/// in the schema's `action`): the destination's new value from the converted
/// value. Engines plug theirs in with [`ArgParser::with_actions`].
pub type CustomAction = fn(&OptionSpec, Value) -> Result<Value, ActionError>;

/// Why a custom action refused a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionError {
    /// A bad value, reported as argparse does (`argument --x: ...`).
    Value(String),
    /// The action calls `parser.error` or raises: the message stands alone.
    Fatal(String),
}

/// Where and how a destination was last set from the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct SetBy {
    /// Index of the action that set it.
    pub action: usize,
    /// The option string as matched (full form, not the abbreviation).
    pub option_string: String,
    /// Index of the argv word that named the option.
    pub arg_index: usize,
    /// Indexes of the argv words that gave its values.
    pub value_indexes: Vec<usize>,
}

/// The result of a parse: every destination with its value, and which ones the argv set.
#[derive(Debug, Clone)]
pub struct Namespace {
    names: Arc<[String]>,
    lookup: Arc<HashMap<String, usize>>,
    slots: Vec<Option<Value>>,
    order: Vec<usize>,
    /// Destinations set by the argv (last setter).
    pub set_by: BTreeMap<String, SetBy>,
}

impl Namespace {
    /// The value of a destination.
    pub fn get(&self, dest: &str) -> Option<&Value> {
        self.lookup.get(dest).and_then(|&i| self.get_id(i))
    }

    /// The value of a destination by its id (`ArgParser::dest_id`).
    pub fn get_id(&self, id: usize) -> Option<&Value> {
        self.slots.get(id).and_then(|v| v.as_ref())
    }

    /// Every destination with its value, in the order argparse creates them.
    pub fn values(&self) -> Vec<(String, Value)> {
        self.order
            .iter()
            .filter_map(|&i| self.slots[i].clone().map(|v| (self.names[i].clone(), v)))
            .collect()
    }

    fn set_id(&mut self, id: usize, value: Value) {
        if self.slots[id].is_none() {
            self.order.push(id);
        }
        self.slots[id] = Some(value);
    }
}

/// A parse error with the argv index it concerns (if any).
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// argparse-style message.
    pub message: String,
    /// The argv word at fault.
    pub arg_index: Option<usize>,
    /// What kind of error, for callers that treat some as findings.
    pub kind: ParseErrorKind,
    /// For an invalid choice or value: the action and the rejected value.
    pub rejected: Option<Box<(usize, Value)>>,
}

/// Classes of parse errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// An option that this release does not have.
    Unrecognized,
    /// A prefix matching several options.
    Ambiguous,
    /// A value not among the choices.
    InvalidChoice,
    /// A value the type converter rejects.
    InvalidValue,
    /// Missing or extra values for an option.
    Arity,
    /// A required option is missing.
    Required,
    /// `-h/--help` (or a prefix of it): the engine prints help and exits.
    Help,
    /// A removed option whose action refuses to run.
    Deprecated,
}

impl ArgParser {
    /// Builds a parser from an option table.
    pub fn new(actions: Vec<OptionSpec>, allow_abbrev: bool) -> Result<ArgParser, String> {
        let mut option_index = Vec::new();
        let mut option_map = HashMap::new();
        let mut nargs = Vec::new();
        let mut has_negative_number_optionals = false;
        for (i, a) in actions.iter().enumerate() {
            nargs.push(action_nargs(a)?);
            for s in &a.option_strings {
                if is_negative_number(s) {
                    has_negative_number_optionals = true;
                }
                if option_map.insert(s.clone(), i).is_none() {
                    option_index.push((s.clone(), i));
                } else {
                    // argparse would raise a conflict; the later one replaces the former.
                    option_index.retain(|(o, _)| o != s);
                    option_index.push((s.clone(), i));
                }
            }
        }
        let mut names: Vec<String> = Vec::new();
        let mut lookup: HashMap<String, usize> = HashMap::new();
        let mut dest_of = Vec::with_capacity(actions.len());
        for a in &actions {
            if a.dest == SUPPRESS {
                dest_of.push(usize::MAX);
                continue;
            }
            let id = *lookup.entry(a.dest.clone()).or_insert_with(|| {
                names.push(a.dest.clone());
                names.len() - 1
            });
            dest_of.push(id);
        }
        Ok(ArgParser {
            actions,
            nargs,
            option_index,
            option_map,
            allow_abbrev,
            has_negative_number_optionals,
            dest_of,
            dest_names: names.into(),
            dest_lookup: Arc::new(lookup),
            converter: convert,
            custom: &[],
        })
    }

    /// The same parser with another engine's type converters.
    pub fn with_converter(mut self, converter: Converter) -> ArgParser {
        self.converter = converter;
        self
    }

    /// The same parser with an engine's own actions (by schema action name).
    pub fn with_actions(mut self, actions: &'static [(&'static str, CustomAction)]) -> ArgParser {
        self.custom = actions;
        self
    }

    /// Every option string, in parser order.
    pub fn option_strings(&self) -> impl Iterator<Item = &str> {
        self.option_index.iter().map(|(s, _)| s.as_str())
    }

    /// The destination id of an action (for `Namespace::get_id`), if it has one.
    pub fn dest_id(&self, action: usize) -> Option<usize> {
        self.dest_of
            .get(action)
            .copied()
            .filter(|&d| d != usize::MAX)
    }

    /// The nargs of an action.
    pub fn nargs_of(&self, action: usize) -> Nargs {
        self.nargs[action]
    }

    /// The action an exact option string names.
    pub fn action_for(&self, option: &str) -> Option<usize> {
        self.option_map.get(option).copied()
    }

    /// The namespace before any argument: each destination at the first
    /// non-SUPPRESS default of its actions.
    pub fn defaults(&self) -> Namespace {
        let mut ns = Namespace {
            names: self.dest_names.clone(),
            lookup: self.dest_lookup.clone(),
            slots: vec![None; self.dest_names.len()],
            order: Vec::with_capacity(self.dest_names.len()),
            set_by: BTreeMap::new(),
        };
        for (i, a) in self.actions.iter().enumerate() {
            if let Some(d) = self.dest_id(i)
                && ns.slots[d].is_none()
                && a.default != SUPPRESS
            {
                ns.set_id(d, a.default.clone());
            }
        }
        ns
    }

    /// Parses an argv like `parser.parse_args(argv)`.
    pub fn parse(&self, args: &[String]) -> Result<Namespace, ParseError> {
        let (ns, extras) = self.parse_known(args)?;
        if let Some(&first) = extras.first() {
            let words: Vec<&str> = extras.iter().map(|&i| args[i].as_str()).collect();
            return Err(ParseError {
                message: format!("unrecognized arguments: {}", words.join(" ")),
                arg_index: Some(first),
                kind: ParseErrorKind::Unrecognized,
                rejected: None,
            });
        }
        Ok(ns)
    }

    /// Parses an argv like `parser.parse_known_args(argv)`: the namespace and
    /// the indices of the words left over (unknown options, and the values no
    /// option or positional took), which `parse` refuses as unrecognized.
    pub fn parse_known(&self, args: &[String]) -> Result<(Namespace, Vec<usize>), ParseError> {
        let ns = self.defaults();
        // Classify.
        let mut pattern = Vec::with_capacity(args.len());
        let mut option_at: BTreeMap<usize, Option<(usize, String, Option<String>)>> =
            BTreeMap::new();
        let mut dashdash = false;
        for (i, arg) in args.iter().enumerate() {
            if dashdash {
                pattern.push('A');
                continue;
            }
            if arg == "--" {
                dashdash = true;
                pattern.push('-');
                continue;
            }
            match self.parse_optional(arg, i)? {
                None => pattern.push('A'),
                Some(t) => {
                    option_at.insert(i, t);
                    pattern.push('O');
                }
            }
        }
        let positionals: Vec<usize> = self
            .actions
            .iter()
            .enumerate()
            .filter(|(_, a)| a.option_strings.is_empty())
            .map(|(i, _)| i)
            .collect();
        let mut state = State {
            ns,
            seen: BTreeSet::new(),
            extras: Vec::new(),
            positionals,
        };
        let max_option = option_at
            .keys()
            .next_back()
            .map(|&i| i as isize)
            .unwrap_or(-1);
        let mut start = 0usize;
        while (start as isize) <= max_option {
            let next_option = *option_at.range(start..).next().map(|(k, _)| k).unwrap();
            if start != next_option {
                let end = self.consume_positionals(&mut state, args, &pattern, start)?;
                if end > start {
                    start = end;
                    continue;
                }
                start = end;
            }
            if !option_at.contains_key(&start) {
                state.extras.extend(start..next_option);
                start = next_option;
            }
            let opt = option_at.get(&start).cloned().unwrap();
            start = self.consume_optional(&mut state, args, &pattern, start, opt)?;
        }
        let stop = self.consume_positionals(&mut state, args, &pattern, start)?;
        state.extras.extend(stop..args.len());

        // Required actions and string defaults.
        let mut required = Vec::new();
        for (i, a) in self.actions.iter().enumerate() {
            if state.seen.contains(&i) {
                continue;
            }
            if a.required {
                required.push(action_name(a));
            } else if let Value::String(d) = &a.default
                && d != SUPPRESS
                && let Some(id) = self.dest_id(i)
                && state.ns.get_id(id) == Some(&a.default)
                && !state.ns.set_by.contains_key(&a.dest)
            {
                let v = (self.converter)(a, d).map_err(|m| ParseError {
                    message: format!("argument {}: {m}", action_name(a)),
                    arg_index: None,
                    kind: ParseErrorKind::InvalidValue,
                    rejected: None,
                })?;
                state.ns.set_id(id, v);
            }
        }
        if !required.is_empty() {
            return Err(ParseError {
                message: format!(
                    "the following arguments are required: {}",
                    required.join(", ")
                ),
                arg_index: None,
                kind: ParseErrorKind::Required,
                rejected: None,
            });
        }
        // A secret is recognised by the destination it lands in, whatever the
        // spelling (`--api-k` is `--api-key`): it is masked in every output.
        for dest in state.ns.set_by.keys() {
            if crate::secret::is_secret_dest(dest) {
                note_secret_value(state.ns.get(dest));
            }
        }
        Ok((state.ns, state.extras))
    }

    /// argparse `_parse_optional`: `None` for a positional word, else the matched action
    /// (`None` action for an unknown option), the option string and an explicit `=value`.
    #[allow(clippy::type_complexity)]
    fn parse_optional(
        &self,
        arg: &str,
        index: usize,
    ) -> Result<Option<Option<(usize, String, Option<String>)>>, ParseError> {
        if arg.is_empty() || !arg.starts_with('-') {
            return Ok(None);
        }
        if let Some(&a) = self.option_map.get(arg) {
            return Ok(Some(Some((a, arg.to_string(), None))));
        }
        if arg.chars().count() == 1 {
            return Ok(None);
        }
        if let Some((opt, explicit)) = arg.split_once('=')
            && let Some(&a) = self.option_map.get(opt)
        {
            return Ok(Some(Some((a, opt.to_string(), Some(explicit.to_string())))));
        }
        let tuples = self.option_tuples(arg);
        if tuples.len() > 1 {
            let matches: Vec<&str> = tuples.iter().map(|(_, s, _)| s.as_str()).collect();
            return Err(ParseError {
                message: format!("ambiguous option: {arg} could match {}", matches.join(", ")),
                arg_index: Some(index),
                kind: ParseErrorKind::Ambiguous,
                rejected: None,
            });
        }
        if let Some(t) = tuples.into_iter().next() {
            return Ok(Some(Some(t)));
        }
        if is_negative_number(arg) && !self.has_negative_number_optionals {
            return Ok(None);
        }
        if arg.contains(' ') {
            return Ok(None);
        }
        Ok(Some(None))
    }

    /// argparse `_get_option_tuples` (prefix matches).
    fn option_tuples(&self, arg: &str) -> Vec<(usize, String, Option<String>)> {
        let mut out = Vec::new();
        let mut chars = arg.chars();
        let second = chars.nth(1);
        if second == Some('-') {
            if self.allow_abbrev {
                let (prefix, explicit) = match arg.split_once('=') {
                    Some((p, e)) => (p, Some(e.to_string())),
                    None => (arg, None),
                };
                for (s, a) in &self.option_index {
                    if s.starts_with(prefix) {
                        out.push((*a, s.clone(), explicit.clone()));
                    }
                }
            }
        } else {
            let short_end = arg
                .char_indices()
                .nth(2)
                .map(|(i, _)| i)
                .unwrap_or(arg.len());
            let short_prefix = &arg[..short_end];
            let short_explicit = &arg[short_end..];
            for (s, a) in &self.option_index {
                if s == short_prefix {
                    out.push((*a, s.clone(), Some(short_explicit.to_string())));
                } else if s.starts_with(arg) {
                    out.push((*a, s.clone(), None));
                }
            }
        }
        out
    }

    fn consume_optional(
        &self,
        st: &mut State,
        args: &[String],
        pattern: &[char],
        start: usize,
        opt: Option<(usize, String, Option<String>)>,
    ) -> Result<usize, ParseError> {
        let Some((mut action, mut option_string, mut explicit)) = opt else {
            st.extras.push(start);
            return Ok(start + 1);
        };
        let mut todo: Vec<(usize, Vec<usize>, Option<String>, String)> = Vec::new();
        let stop;
        loop {
            if let Some(exp) = explicit.clone() {
                let count = match_count(self.nargs[action], &['A'], true);
                let second_is_prefix = option_string.chars().nth(1) == Some('-');
                if count == Some(0) && !second_is_prefix && !exp.is_empty() {
                    todo.push((action, vec![], None, option_string.clone()));
                    let first = exp.chars().next().unwrap();
                    let new_opt = format!("-{first}");
                    let rest: String = exp.chars().skip(1).collect();
                    match self.option_map.get(&new_opt) {
                        Some(&a) => {
                            action = a;
                            option_string = new_opt;
                            explicit = if rest.is_empty() { None } else { Some(rest) };
                        }
                        None => {
                            return Err(self.err(
                                action,
                                format!("ignored explicit argument '{exp}'"),
                                start,
                                ParseErrorKind::Arity,
                            ));
                        }
                    }
                } else if count.is_none() {
                    return Err(self.err(
                        action,
                        nargs_error(self.nargs[action]),
                        start,
                        ParseErrorKind::Arity,
                    ));
                } else if count == Some(1) {
                    stop = start + 1;
                    todo.push((action, vec![], Some(exp), option_string.clone()));
                    break;
                } else {
                    return Err(self.err(
                        action,
                        format!("ignored explicit argument '{exp}'"),
                        start,
                        ParseErrorKind::Arity,
                    ));
                }
            } else {
                let begin = start + 1;
                let count =
                    match_count(self.nargs[action], &pattern[begin..], true).ok_or_else(|| {
                        self.err(
                            action,
                            nargs_error(self.nargs[action]),
                            start,
                            ParseErrorKind::Arity,
                        )
                    })?;
                stop = begin + count;
                todo.push((action, (begin..stop).collect(), None, option_string.clone()));
                break;
            }
        }
        for (action, idx, exp, opt_string) in todo {
            let mut strings: Vec<String> = idx.iter().map(|&i| args[i].clone()).collect();
            let mut idx = idx;
            if let Some(e) = exp {
                strings = vec![e];
                idx = vec![start];
            }
            self.take_action(st, action, strings, idx, Some((opt_string, start)))?;
        }
        Ok(stop)
    }

    fn consume_positionals(
        &self,
        st: &mut State,
        args: &[String],
        pattern: &[char],
        start: usize,
    ) -> Result<usize, ParseError> {
        // _match_arguments_partial: as many positionals as can match, greedily.
        let nargs: Vec<Nargs> = st.positionals.iter().map(|&p| self.nargs[p]).collect();
        let counts = match_partial(&nargs, &pattern[start..]);
        let mut pos = start;
        let n = counts.len();
        for (k, count) in counts.into_iter().enumerate() {
            let action = st.positionals[k];
            let idx: Vec<usize> = (pos..pos + count).collect();
            let strings: Vec<String> = idx.iter().map(|&i| args[i].clone()).collect();
            pos += count;
            self.take_action(st, action, strings, idx, None)?;
        }
        st.positionals.drain(..n);
        Ok(pos)
    }

    fn err(&self, action: usize, msg: String, at: usize, kind: ParseErrorKind) -> ParseError {
        ParseError {
            message: format!("argument {}: {msg}", action_name(&self.actions[action])),
            arg_index: Some(at),
            kind,
            rejected: None,
        }
    }

    fn take_action(
        &self,
        st: &mut State,
        action: usize,
        mut strings: Vec<String>,
        idx: Vec<usize>,
        option: Option<(String, usize)>,
    ) -> Result<(), ParseError> {
        st.seen.insert(action);
        let a = &self.actions[action];
        let nargs = self.nargs[action];
        let at = option
            .as_ref()
            .map(|o| o.1)
            .or(idx.first().copied())
            .unwrap_or(0);
        if let Some(p) = strings.iter().position(|s| s == "--") {
            strings.remove(p);
        }
        // Errors point at the value word when there is one.
        let word_of = |k: usize| idx.get(k).copied().unwrap_or(at);
        let value_err = |m: String, kind, word: usize| ParseError {
            message: format!("argument {}: {m}", action_name(a)),
            arg_index: Some(word),
            kind,
            rejected: None,
        };
        let bad_value = |m: String, k: usize, s: &str| {
            let mut e = value_err(m, ParseErrorKind::InvalidValue, word_of(k));
            e.rejected = Some(Box::new((action, Value::String(s.to_string()))));
            e
        };
        let check = |v: &Value, k: usize| -> Result<(), ParseError> {
            if let Some(choices) = &a.choices
                && !choices.iter().any(|c| py_eq(c, v))
            {
                let mut e = value_err(
                    format!(
                        "invalid choice: {} (choose from {})",
                        py_repr(v),
                        choices.iter().map(py_repr).collect::<Vec<_>>().join(", ")
                    ),
                    ParseErrorKind::InvalidChoice,
                    word_of(k),
                );
                e.rejected = Some(Box::new((action, v.clone())));
                return Err(e);
            }
            Ok(())
        };
        let value: Value = if strings.is_empty() && nargs == Nargs::Optional {
            let v = if a.option_strings.is_empty() {
                a.default.clone()
            } else {
                a.const_value.clone()
            };
            match &v {
                Value::String(s) => {
                    let c = (self.converter)(a, s)
                        .map_err(|m| value_err(m, ParseErrorKind::InvalidValue, at))?;
                    check(&c, usize::MAX)?;
                    c
                }
                _ => v,
            }
        } else if strings.is_empty() && nargs == Nargs::ZeroOrMore && a.option_strings.is_empty() {
            let v = if a.default != Value::Null {
                a.default.clone()
            } else {
                Value::Array(vec![])
            };
            check(&v, usize::MAX)?;
            v
        } else if strings.len() == 1 && matches!(nargs, Nargs::One | Nargs::Optional) {
            let c = (self.converter)(a, &strings[0]).map_err(|m| bad_value(m, 0, &strings[0]))?;
            check(&c, 0)?;
            c
        } else {
            let mut out = Vec::new();
            for (k, s) in strings.iter().enumerate() {
                out.push((self.converter)(a, s).map_err(|m| bad_value(m, k, s))?);
            }
            for (k, v) in out.iter().enumerate() {
                check(v, k)?;
            }
            Value::Array(out)
        };
        // argparse skips SUPPRESS values (positionals with default SUPPRESS).
        if value == SUPPRESS {
            return Ok(());
        }
        let set_by = |st: &mut State| {
            if let Some((opt, at)) = &option {
                st.ns.set_by.insert(
                    a.dest.clone(),
                    SetBy {
                        action,
                        option_string: opt.clone(),
                        arg_index: *at,
                        value_indexes: idx.clone(),
                    },
                );
            } else if let Some(&first) = idx.first() {
                st.ns.set_by.insert(
                    a.dest.clone(),
                    SetBy {
                        action,
                        option_string: String::new(),
                        arg_index: first,
                        value_indexes: idx.clone(),
                    },
                );
            }
        };
        let Some(dest) = self.dest_id(action) else {
            return Ok(());
        };
        let current = st.ns.get_id(dest).cloned();
        let new = match a.action.as_str() {
            "deprecated_ignore" => return Ok(()),
            "deprecated_error" => {
                return Err(ParseError {
                    message: a
                        .extra
                        .get("error_message")
                        .and_then(|m| m.as_str())
                        .unwrap_or("this option is no longer supported")
                        .to_string(),
                    arg_index: Some(at),
                    kind: ParseErrorKind::Deprecated,
                    rejected: None,
                });
            }
            "store_const_consuming_value" => a.const_value.clone(),
            "store" => value,
            "store_const" | "store_true" | "store_false" => a.const_value.clone(),
            "append" => {
                let mut items = list_or_empty(current);
                items.push(value);
                Value::Array(items)
            }
            "append_const" => {
                let mut items = list_or_empty(current);
                items.push(a.const_value.clone());
                Value::Array(items)
            }
            "extend" => {
                let mut items = list_or_empty(current);
                if let Value::Array(v) = value {
                    items.extend(v);
                }
                Value::Array(items)
            }
            "count" => {
                let n = match current {
                    Some(Value::Number(n)) => n.as_i64().unwrap_or(0),
                    _ => 0,
                };
                Value::from(n + 1)
            }
            "help" => {
                return Err(ParseError {
                    message: "-h/--help would print the help text and exit".into(),
                    arg_index: Some(at),
                    kind: ParseErrorKind::Help,
                    rejected: None,
                });
            }
            "boolean_optional" => {
                let opt = option.as_ref().map(|o| o.0.as_str()).unwrap_or("");
                Value::Bool(!opt.starts_with("--no-"))
            }
            "enable_disable" => {
                // vLLM EnableDisableAction: the negative strings store false.
                let opt = option.as_ref().map(|o| o.0.as_str()).unwrap_or("");
                let negative = a
                    .extra
                    .get("negative_option_strings")
                    .and_then(Value::as_array)
                    .is_some_and(|n| n.iter().any(|x| x.as_str() == Some(opt)));
                Value::Bool(!negative)
            }
            other => match self.custom.iter().find(|(name, _)| *name == other) {
                Some((_, custom)) => custom(a, value).map_err(|e| match e {
                    ActionError::Value(m) => value_err(m, ParseErrorKind::InvalidValue, at),
                    // parser.error(...) or a crash: the message stands alone.
                    ActionError::Fatal(m) => ParseError {
                        message: m,
                        arg_index: Some(at),
                        kind: ParseErrorKind::InvalidValue,
                        rejected: None,
                    },
                })?,
                None => {
                    return Err(value_err(
                        format!("recipe-drift does not know the action kind '{other}'"),
                        ParseErrorKind::InvalidValue,
                        at,
                    ));
                }
            },
        };
        st.ns.set_id(dest, new);
        set_by(st);
        Ok(())
    }
}

struct State {
    ns: Namespace,
    seen: BTreeSet<usize>,
    extras: Vec<usize>,
    positionals: Vec<usize>,
}

fn list_or_empty(v: Option<Value>) -> Vec<Value> {
    match v {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    }
}

fn action_nargs(a: &OptionSpec) -> Result<Nargs, String> {
    let zero = matches!(
        a.action.as_str(),
        "store_const"
            | "store_true"
            | "store_false"
            | "append_const"
            | "count"
            | "boolean_optional"
            | "enable_disable"
            | "help"
    );
    if zero {
        return Ok(Nargs::Exactly(0));
    }
    Ok(match &a.nargs {
        Value::Null => Nargs::One,
        Value::String(s) if s == "?" => Nargs::Optional,
        Value::String(s) if s == "*" => Nargs::ZeroOrMore,
        Value::String(s) if s == "+" => Nargs::OneOrMore,
        Value::Number(n) if n.as_u64().is_some() => Nargs::Exactly(n.as_u64().unwrap() as usize),
        other => return Err(format!("{}: unsupported nargs {other}", a.dest)),
    })
}

/// How many 'A's an optional's nargs consume at the start of `pattern` (argparse
/// `_match_argument` with the optional-pattern simplification).
fn match_count(nargs: Nargs, pattern: &[char], optional: bool) -> Option<usize> {
    let leading_a = pattern.iter().take_while(|&&c| c == 'A').count();
    debug_assert!(optional);
    match nargs {
        Nargs::One => (leading_a >= 1).then_some(1),
        Nargs::Optional => Some(leading_a.min(1)),
        Nargs::ZeroOrMore => Some(leading_a),
        Nargs::OneOrMore => (leading_a >= 1).then_some(leading_a),
        Nargs::Exactly(n) => (leading_a >= n).then_some(n),
    }
}

/// argparse `_match_arguments_partial` for positionals (patterns with `-*`).
fn match_partial(nargs: &[Nargs], pattern: &[char]) -> Vec<usize> {
    for i in (0..=nargs.len()).rev() {
        if let Some(counts) = match_seq(&nargs[..i], pattern) {
            return counts;
        }
    }
    Vec::new()
}

/// Greedy regex-like matching of positional nargs against a prefix of `pattern`.
fn match_seq(nargs: &[Nargs], pattern: &[char]) -> Option<Vec<usize>> {
    fn go(nargs: &[Nargs], pattern: &[char], pos: usize, out: &mut Vec<usize>) -> bool {
        let Some((first, rest)) = nargs.split_first() else {
            return true;
        };
        // Each positional's group consumes `-*` around its 'A's; the group length counts
        // every char, but only 'A's become values. Candidate lengths tried greedily.
        let max = pattern.len() - pos;
        let candidates: Vec<usize> = (0..=max).rev().collect();
        for len in candidates {
            let seg = &pattern[pos..pos + len];
            if seg.contains(&'O') {
                continue;
            }
            let a_count = seg.iter().filter(|&&c| c == 'A').count();
            let ok = match first {
                Nargs::One => a_count == 1 && valid_dash_layout(seg, 1),
                Nargs::Optional => a_count <= 1,
                Nargs::ZeroOrMore => true,
                Nargs::OneOrMore => {
                    a_count >= 1
                        && seg.iter().take_while(|&&c| c == '-').count() < seg.len()
                        && seg[seg.iter().take_while(|&&c| c == '-').count()] == 'A'
                }
                Nargs::Exactly(n) => a_count == *n,
            };
            if !ok {
                continue;
            }
            out.push(len);
            if go(rest, pattern, pos + len, out) {
                return true;
            }
            out.pop();
        }
        false
    }
    let mut out = Vec::new();
    if go(nargs, pattern, 0, &mut out) {
        Some(out)
    } else {
        None
    }
}

fn valid_dash_layout(seg: &[char], _n: usize) -> bool {
    seg.iter().all(|&c| c == 'A' || c == '-')
}

fn nargs_error(n: Nargs) -> String {
    match n {
        Nargs::One => "expected one argument".into(),
        Nargs::Optional => "expected at most one argument".into(),
        Nargs::OneOrMore => "expected at least one argument".into(),
        Nargs::Exactly(n) => format!("expected {n} argument{}", if n == 1 { "" } else { "s" }),
        Nargs::ZeroOrMore => "expected arguments".into(),
    }
}

/// argparse `_get_action_name`.
pub fn action_name(a: &OptionSpec) -> String {
    if a.option_strings.is_empty() {
        return a.dest.clone();
    }
    // vLLM's EnableDisableAction names itself without its hidden strings.
    if let Some(shown) = a
        .extra
        .get("display_option_strings")
        .and_then(Value::as_array)
    {
        let shown: Vec<&str> = shown.iter().filter_map(Value::as_str).collect();
        if !shown.is_empty() {
            return shown.join("/");
        }
    }
    a.option_strings.join("/")
}

fn is_negative_number(s: &str) -> bool {
    // ^-\d+$|^-\d*\.\d+$
    let Some(rest) = s.strip_prefix('-') else {
        return false;
    };
    if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    if let Some((a, b)) = rest.split_once('.') {
        return a.chars().all(|c| c.is_ascii_digit())
            && !b.is_empty()
            && b.chars().all(|c| c.is_ascii_digit());
    }
    false
}

/// Converts one argument string with the action's type.
pub fn convert(a: &OptionSpec, s: &str) -> Result<Value, String> {
    let kind = a.type_kind.as_deref().unwrap_or("str");
    super::types::convert(kind, s, a.extra.get("type_params"))
}

/// Python `==` between two JSON-held values (`1 == 1.0 == True`).
pub fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Bool(x), Value::Number(y)) | (Value::Number(y), Value::Bool(x)) => {
            y.as_f64() == Some(if *x { 1.0 } else { 0.0 })
        }
        _ => a == b,
    }
}

/// Python `repr` of a JSON-held value, for messages.
pub fn py_repr(v: &Value) -> String {
    match v {
        Value::String(s) => super::types::py_str_repr(s),
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        other => other.to_string(),
    }
}

/// Records a parsed secret value (a string, or the strings of a list).
fn note_secret_value(v: Option<&Value>) {
    match v {
        Some(Value::String(t)) => crate::secret::note(t),
        Some(Value::Array(items)) => items.iter().for_each(|i| note_secret_value(Some(i))),
        _ => {}
    }
}
