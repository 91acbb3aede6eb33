//! Cross-role consistency: the keys the prefill and decode workers of one
//! disaggregated deployment must agree on (model, quantization, KV-cache
//! dtype, page size, transfer backend, speculative decoding), as data in
//! `roles.yaml`. A disagreement is a warning, and an error where a release
//! of the engine refuses it (SGLang from 0.5.15 refuses speculative decoding
//! set on the decode worker only).

use std::str::FromStr;
use std::sync::OnceLock;

use pep440_rs::{Version, VersionSpecifiers};
use serde::Deserialize;

use crate::launch::Role;
use crate::resolved::{Resolved, Val, display_value};
use crate::span::Span;

const DATA: &str = include_str!("roles.yaml");

/// One role's value of a key its deployment's roles disagree on.
#[derive(Debug, Clone)]
pub struct RoleValue {
    /// The role.
    pub role: Role,
    /// Its value, as messages print it (`EAGLE`, `None`).
    pub value: String,
    /// How it was written (`--speculative-algorithm EAGLE`), if written.
    pub written: Option<String>,
    /// Where it is written, else the role's launch.
    pub at: Span,
}

/// A release's refusal of a disagreement (the deployment serves no request).
#[derive(Debug, Clone)]
pub struct Refused {
    /// The release the role resolves with (`sglang 0.5.23`).
    pub release: String,
    /// What the engine does, in its words.
    pub message: String,
    /// Where upstream says it.
    pub reference: String,
}

/// A key the prefill and decode workers of one deployment disagree on.
#[derive(Debug, Clone)]
pub struct Disagreement {
    /// The key as messages name it (`speculative decoding`).
    pub key: String,
    /// Why the roles must agree on it.
    pub why: String,
    /// Each role's value, in role order.
    pub values: Vec<RoleValue>,
    /// Set when the release refuses it: then an error, else a warning.
    pub refused: Option<Refused>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Data {
    keys: Vec<KeyRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyRule {
    name: String,
    why: String,
    sglang: Vec<String>,
    vllm: Vec<String>,
    #[serde(default)]
    refused: Vec<RefusedRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefusedRule {
    engine: String,
    versions: String,
    when: When,
    message: String,
    reference: String,
}

/// Which disagreements a release refuses.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum When {
    /// Set on the decode worker and not on the prefill worker.
    DecodeOnly,
    /// Any disagreement.
    Any,
}

struct Rules {
    keys: Vec<KeyRule>,
    specifiers: Vec<Vec<VersionSpecifiers>>,
}

fn rules() -> &'static Rules {
    static R: OnceLock<Rules> = OnceLock::new();
    R.get_or_init(|| {
        let data: Data = serde_saphyr::from_str(DATA).expect("bundled roles.yaml");
        let specifiers = data
            .keys
            .iter()
            .map(|k| {
                k.refused
                    .iter()
                    .map(|r| {
                        VersionSpecifiers::from_str(&r.versions)
                            .expect("roles.yaml: versions are PEP 440 specifiers")
                    })
                    .collect()
            })
            .collect();
        Rules {
            keys: data.keys,
            specifiers,
        }
    })
}

/// A role's known value of the first of `keys` its command resolves, with
/// where it is written; `None` when the text cannot decide it.
fn value_of(role: Role, launch_at: &Span, r: &Resolved, keys: &[String]) -> Option<RoleValue> {
    for k in keys {
        let (val, written, at) = match r.values.get(k) {
            Some(e) => (
                e.val.clone(),
                e.written.clone(),
                e.spans
                    .first()
                    .cloned()
                    .unwrap_or_else(|| launch_at.clone()),
            ),
            None => (r.absent(k), None, launch_at.clone()),
        };
        match val {
            Val::Unknown { .. } => return None,
            _ => {
                let Some(v) = val.value() else { continue };
                return Some(RoleValue {
                    role,
                    value: display_value(v),
                    written,
                    at,
                });
            }
        }
    }
    None
}

/// Whether a value means the feature is off (`None`, `false`, empty).
fn is_off(v: &str) -> bool {
    matches!(v, "" | "None" | "none" | "null" | "false" | "False")
}

/// The keys the prefill and decode roles of one deployment disagree on.
/// `roles` holds each role's launch span and resolution; deployments
/// without both a prefill and a decode role have nothing to check.
pub fn check(roles: &[(Role, &Span, &Resolved)]) -> Vec<Disagreement> {
    let prefill = roles.iter().find(|(r, _, _)| *r == Role::Prefill);
    let decode = roles.iter().find(|(r, _, _)| *r == Role::Decode);
    let (Some(p), Some(d)) = (prefill, decode) else {
        return Vec::new();
    };
    let engine = d.2.engine.name();
    let t = rules();
    let mut out = Vec::new();
    for (rule, specs) in t.keys.iter().zip(&t.specifiers) {
        let keys = match engine {
            "sglang" => &rule.sglang,
            _ => &rule.vllm,
        };
        let (Some(pv), Some(dv)) = (value_of(p.0, p.1, p.2, keys), value_of(d.0, d.1, d.2, keys))
        else {
            continue;
        };
        if pv.value == dv.value || p.2.engine != d.2.engine {
            continue;
        }
        let decode_only = is_off(&pv.value) && !is_off(&dv.value);
        let release: Option<Version> = d.2.version.version.parse().ok();
        let refused = rule.refused.iter().zip(specs).find_map(|(r, spec)| {
            let applies = r.engine == engine
                && release.as_ref().is_some_and(|v| spec.contains(v))
                && (r.when == When::Any || decode_only);
            applies.then(|| Refused {
                release: format!("{engine} {}", d.2.version.version),
                message: r.message.clone(),
                reference: r.reference.clone(),
            })
        });
        out.push(Disagreement {
            key: rule.name.clone(),
            why: rule.why.clone(),
            values: vec![pv, dv],
            refused,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(cmd: &str, version: &str) -> (Span, Resolved) {
        let (launch, r) = super::super::resolved_command(cmd, version);
        (launch.span, r)
    }

    const PREFILL: &str =
        "sglang serve --model-path org/M-FP8 --disaggregation-mode prefill --tp 8";
    const DECODE_MTP: &str = "sglang serve --model-path org/M-FP8 --disaggregation-mode decode --tp 8 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4";

    fn disagreements(prefill: &str, decode: &str, version: &str) -> Vec<Disagreement> {
        let (ps, pr) = resolved(prefill, version);
        let (ds, dr) = resolved(decode, version);
        check(&[(Role::Prefill, &ps, &pr), (Role::Decode, &ds, &dr)])
    }

    #[test]
    fn decode_only_speculative_decoding_is_refused_from_0_5_15() {
        let new = disagreements(PREFILL, DECODE_MTP, "0.5.19");
        assert_eq!(new.len(), 1, "{new:?}");
        assert_eq!(new[0].key, "speculative decoding");
        assert_eq!(new[0].values[0].value, "None");
        assert_eq!(new[0].values[1].value, "EAGLE");
        let r = new[0].refused.as_ref().expect("refused from 0.5.15");
        assert!(r.message.contains("state component count mismatch"));
        assert_eq!(r.release, "sglang 0.5.19");
        // Before 0.5.15 the same disagreement is a warning.
        let old = disagreements(PREFILL, DECODE_MTP, "0.5.14");
        assert_eq!(old.len(), 1);
        assert!(old[0].refused.is_none());
        // Prefill-only is a disagreement, never the decode-only refusal.
        let prefill_only = disagreements(
            DECODE_MTP.replace("decode", "prefill").as_str(),
            PREFILL.replace("prefill", "decode").as_str(),
            "0.5.19",
        );
        assert_eq!(prefill_only.len(), 1);
        assert!(prefill_only[0].refused.is_none());
    }

    #[test]
    fn agreeing_roles_and_roles_without_a_pair_have_nothing() {
        let same = DECODE_MTP.replace("decode", "prefill");
        assert!(disagreements(&same, DECODE_MTP, "0.5.19").is_empty());
        let (s, r) = resolved(PREFILL, "0.5.19");
        assert!(check(&[(Role::Aggregated, &s, &r)]).is_empty());
    }

    #[test]
    fn each_key_of_the_table_is_checked() {
        let d = disagreements(
            "sglang serve --model-path org/M-FP8 --disaggregation-mode prefill --kv-cache-dtype fp8_e4m3 --page-size 64 --disaggregation-transfer-backend nixl",
            "sglang serve --model-path org/M-FP8 --disaggregation-mode decode --kv-cache-dtype bf16 --page-size 32",
            "0.5.19",
        );
        let found: Vec<&str> = d.iter().map(|x| x.key.as_str()).collect();
        assert_eq!(found, ["kv-cache dtype", "page size", "transfer backend"]);
        assert!(d.iter().all(|x| x.refused.is_none()));
        let table: Vec<&str> = rules().keys.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(
            table,
            [
                "model",
                "quantization",
                "kv-cache dtype",
                "page size",
                "transfer backend",
                "speculative decoding"
            ]
        );
    }
}
