//! Hardware SKU -> platform, as data (`hardware.yaml`, bundled and read once).
//!
//! A leaf: it knows SKU spellings and nothing else of the crate but
//! [`Platform`].

use std::sync::OnceLock;

use serde::Deserialize;

use crate::launch::Platform;

const TABLE: &str = include_str!("hardware.yaml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    skus: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    sku: String,
    platform: String,
    #[serde(default)]
    exact: bool,
}

/// One row of the table, with its platform parsed.
struct Sku {
    name: String,
    platform: Platform,
    exact: bool,
}

fn table() -> &'static [Sku] {
    static T: OnceLock<Vec<Sku>> = OnceLock::new();
    T.get_or_init(|| {
        let t: Table = serde_saphyr::from_str(TABLE).expect("bundled hardware.yaml is valid");
        t.skus
            .into_iter()
            .map(|e| Sku {
                platform: Platform::parse(&e.platform)
                    .unwrap_or_else(|| panic!("hardware.yaml: unknown platform {:?}", e.platform)),
                name: e.sku,
                exact: e.exact,
            })
            .collect()
    })
}

/// The platform of a hardware name (`mi355x` -> rocm, `b200-nv` -> cuda,
/// `cluster:mi355x-amds` -> rocm, `xeon` -> cpu); `None` for a name the table
/// does not know. Case is ignored and everything up to the last `:` dropped.
pub fn platform_of(sku: &str) -> Option<Platform> {
    row_of(sku).map(|s| s.platform)
}

/// The row a hardware name matches (case ignored, everything up to the last
/// `:` dropped; a row matches as a prefix unless it is `exact`).
fn row_of(name: &str) -> Option<&'static Sku> {
    let name = name.to_ascii_lowercase();
    let sku = name.rsplit(':').next().unwrap_or(&name);
    table().iter().find(|s| {
        if s.exact {
            sku == s.name
        } else {
            sku.starts_with(s.name.as_str())
        }
    })
}

/// The SKU row a hardware name matches, as the table spells it (`mi355x` for
/// `cluster:mi355x-amds`, `b200` for `B200-nv`): the hardware family
/// deployments are paired on. `None` for a name the table does not know.
pub fn family_of(name: &str) -> Option<&'static str> {
    row_of(name).map(|s| s.name.as_str())
}

/// The platform of a hardware name as a config or a user writes it: a SKU of
/// the table (`h200`), optionally after `cluster:`-like prefixes and followed
/// by a runner suffix after `-` or `_` (`b200-dgxc`, `h100_sxm`). Stricter
/// than [`platform_of`], which reads runner labels leniently: `h2000` is no
/// SKU here. `Err` says why, with the nearest SKU when one is close.
pub fn check_name(name: &str) -> Result<Platform, String> {
    let lower = name.to_ascii_lowercase();
    let sku = lower.rsplit(':').next().unwrap_or(&lower);
    let found = table().iter().find(|s| {
        sku == s.name
            || (!s.exact
                && sku
                    .strip_prefix(s.name.as_str())
                    .is_some_and(|rest| rest.starts_with(['-', '_'])))
    });
    if let Some(s) = found {
        return Ok(s.platform);
    }
    let head = sku.split(['-', '_']).next().unwrap_or(sku);
    let near = crate::suggest::nearest(head, table().iter().map(|s| s.name.as_str()), 0.8);
    let known: Vec<&str> = skus().filter(|s| *s != "cpu").collect();
    Err(match near {
        Some(n) => format!(
            "unknown hardware SKU {name:?} (did you mean {n}?); known: {} (give `platform:` with other SKUs)",
            known.join(", ")
        ),
        None => format!(
            "unknown hardware SKU {name:?}; known: {} (give `platform:` with other SKUs)",
            known.join(", ")
        ),
    })
}

/// The SKUs of the table, in table order (AMD, NVIDIA, CPU).
pub fn skus() -> impl Iterator<Item = &'static str> {
    table().iter().map(|s| s.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sku_maps_to_its_platform() {
        let t = table();
        assert!(!t.is_empty());
        for s in t {
            assert_eq!(platform_of(&s.name), Some(s.platform), "{}", s.name);
            assert_eq!(platform_of(&s.name.to_ascii_uppercase()), Some(s.platform));
        }
        assert_eq!(skus().count(), t.len());
    }

    #[test]
    fn inferencex_runner_labels_map() {
        for (label, p) in [
            ("h100-cw_00", Platform::Cuda),
            ("h200-multinode", Platform::Cuda),
            ("cluster:b200-dgxc", Platform::Cuda),
            ("b300-nv", Platform::Cuda),
            ("cluster:gb200-nv", Platform::Cuda),
            ("gb300", Platform::Cuda),
            ("rtx6000pro-lat", Platform::Cuda),
            ("mi300x-disagg", Platform::Rocm),
            ("cluster:mi325x-tw", Platform::Rocm),
            ("mi355x", Platform::Rocm),
            ("MI355X-AMDS", Platform::Rocm),
            ("xeon-6980p", Platform::Cpu),
            ("cpu", Platform::Cpu),
        ] {
            assert_eq!(platform_of(label), Some(p), "{label}");
        }
    }

    #[test]
    fn unknown_names_are_none() {
        for name in [
            "",
            "tpu",
            "tpu-v5",
            "rtx_pro_6000",
            "cpu-only",
            "a10",
            "mi3",
            "nvidia",
        ] {
            assert_eq!(platform_of(name), None, "{name}");
        }
    }

    #[test]
    fn config_names_are_skus_with_optional_runner_suffixes() {
        for (name, p) in [
            ("h200", Platform::Cuda),
            ("H200", Platform::Cuda),
            ("h20", Platform::Cuda),
            ("b200-dgxc", Platform::Cuda),
            ("h100_sxm", Platform::Cuda),
            ("cluster:mi355x-amds", Platform::Rocm),
            ("cpu", Platform::Cpu),
            ("xeon-6980p", Platform::Cpu),
        ] {
            assert_eq!(check_name(name), Ok(p), "{name}");
        }
        let e = check_name("h2000").unwrap_err();
        assert!(e.contains("did you mean h200?"), "{e}");
        let e = check_name("mi355").unwrap_err();
        assert!(e.contains("did you mean mi355x?"), "{e}");
        for name in ["", "tpu-v5", "cpu-only", "nvidia", "h100sxm"] {
            assert!(check_name(name).is_err(), "{name}");
        }
    }

    #[test]
    fn skus_of_different_platforms_do_not_overlap() {
        let t = table();
        for a in t {
            for b in t {
                if a.platform != b.platform && !a.exact {
                    assert!(
                        !b.name.starts_with(a.name.as_str()),
                        "{} / {}",
                        a.name,
                        b.name
                    );
                }
            }
        }
        let mut names: Vec<&str> = skus().collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate SKU in hardware.yaml");
    }

    #[test]
    fn matches_what_inferencex_and_the_docs_use() {
        let names: Vec<&str> = skus().collect();
        for sku in [
            "h100",
            "h200",
            "b200",
            "b300",
            "gb200",
            "gb300",
            "mi300x",
            "mi325x",
            "mi355x",
            "mi350x",
            "rtx6000pro",
            "a100",
            "l40s",
            "xeon",
        ] {
            assert!(names.contains(&sku), "{sku}");
        }
    }
    /// `Platform::from_hardware` as it was written before the table.
    fn before_the_table(sku: &str) -> Option<Platform> {
        let sku = sku.to_ascii_lowercase();
        let sku = sku.rsplit(':').next().unwrap_or(&sku);
        const ROCM: &[&str] = &["mi300x", "mi325x", "mi355x", "mi350x", "mi300a", "mi250x"];
        const CUDA: &[&str] = &[
            "h100",
            "h200",
            "h20",
            "b200",
            "b300",
            "gb200",
            "gb300",
            "rtx6000pro",
            "a100",
            "l40s",
        ];
        if ROCM.iter().any(|p| sku.starts_with(p)) {
            Some(Platform::Rocm)
        } else if CUDA.iter().any(|p| sku.starts_with(p)) {
            Some(Platform::Cuda)
        } else if sku.starts_with("xeon") || sku == "cpu" {
            Some(Platform::Cpu)
        } else {
            None
        }
    }

    #[test]
    fn matches_the_code_it_replaced() {
        let mut names: Vec<String> = vec![
            "".into(),
            ":".into(),
            "cluster:".into(),
            "tpu-v5".into(),
            "rtx_pro_6000".into(),
            "cpu-only".into(),
            "CPU".into(),
            "Xeon".into(),
            "a:b:h100".into(),
            "h1".into(),
        ];
        for s in skus() {
            for n in [
                s.to_string(),
                s.to_ascii_uppercase(),
                format!("{s}-nv_0"),
                format!("cluster:{s}-amds"),
                format!("x{s}"),
                s[..s.len() - 1].to_string(),
            ] {
                names.push(n);
            }
        }
        for n in &names {
            assert_eq!(platform_of(n), before_the_table(n), "{n:?}");
        }
    }
}
