//! `check --docs-root DIR --inferencex ROOT`: load both spaces, pair them and
//! compare every pair (`crate::pair`), with no hand-written links.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::fetch::Fetcher;
use crate::finding::Finding;
use crate::link::{LinkReport, Overrides};
use crate::manifest::Manifest;
use crate::policy::Policy;
use crate::report::{Failure, Skipped};
use crate::resolved::FactSource;
use crate::space::load::Loader;

/// The folders a zero-config run pairs: a docs root (pages and the
/// generators they render), a vllm-project/recipes checkout (the vLLM
/// recipes site), or both, against an InferenceX checkout.
pub(super) struct Roots {
    /// `--docs-root`.
    pub docs: Option<PathBuf>,
    /// `--recipes-root`.
    pub recipes: Option<PathBuf>,
    /// `--inferencex`.
    pub inferencex: PathBuf,
}

impl Roots {
    /// Every root, docs spaces first.
    pub(super) fn all(&self) -> Vec<&Path> {
        self.docs
            .iter()
            .chain(&self.recipes)
            .chain([&self.inferencex])
            .map(PathBuf::as_path)
            .collect()
    }
}

/// One pairing run's inputs.
pub(super) struct Run<'a> {
    /// Each docs space's root (generators' imports resolve against it) and
    /// the files to read there (every page or recipe, or the changed ones).
    pub docs: &'a [(&'a Path, Vec<PathBuf>)],
    /// The InferenceX checkout.
    pub inferencex: &'a Path,
    /// The config (policy, families), or an empty one.
    pub manifest: &'a Manifest,
    /// The config file, for messages.
    pub config: Option<&'a Path>,
    /// Checkpoint facts.
    pub checkpoints: Arc<dyn FactSource>,
    /// The policy.
    pub policy: &'a Policy,
    /// Reads every file.
    pub fetcher: &'a Fetcher,
    /// Pairs compared at most (`--max-pairs`).
    pub max_pairs: usize,
    /// States read per generator at most (`--max-states`); a generator with
    /// more is cut there and reported (`state-budget`).
    pub max_states: usize,
    /// What the config's links compare: not paired again.
    pub pins: &'a crate::space::Pins,
}

/// What a pairing run found besides its pairs' reports.
pub(super) struct Found {
    /// Inputs that could not be read.
    pub failures: Vec<Failure>,
    /// Inputs not read, with the reason.
    pub skipped: Vec<Skipped>,
    /// The run's findings that are no pair's: deployments with no partner
    /// (coverage), then the generators the state budget cut
    /// (`state-budget`, one per generator, in page order).
    pub coverage: Vec<Finding>,
}

impl Run<'_> {
    /// Loads, pairs and compares: each pair's report (recipe points with
    /// the same MAJOR outcome merged) goes to `keep` on the worker that made
    /// it, and what `keep` makes of it to `take`, in pair order. More pairs
    /// than `max_pairs` is an error before any is compared.
    pub(super) fn run<T: Send>(
        &self,
        keep: impl Fn(LinkReport) -> T + Sync,
        take: impl FnMut(T),
    ) -> Result<Found, crate::error::Error> {
        let loader = Loader {
            files: self.fetcher,
            checkpoints: Some(self.checkpoints.clone()),
            families: self.manifest.families.clone(),
            max_states: self.max_states,
        };
        let mut docs = crate::space::load::Loaded::default();
        for (root, files) in self.docs {
            let loaded = loader.docs(root, files);
            let offset = docs.deployments.len();
            docs.resizable
                .extend(loaded.resizable.into_iter().map(|mut z| {
                    z.deployment += offset;
                    z
                }));
            docs.deployments.extend(loaded.deployments);
            docs.failures.extend(loaded.failures);
            docs.skipped.extend(loaded.skipped);
            docs.cuts.extend(loaded.cuts);
        }
        let recipes = loader.inferencex(self.inferencex);
        let pair_by = self
            .manifest
            .policy
            .pair_by
            .clone()
            .unwrap_or_else(crate::space::default_pair_by);
        // A reader sets a prefill/decode cluster's pool sizes: the clusters
        // are also composed at the sizes the benchmarks of their shape run.
        loader.resize(&mut docs, &recipes, &pair_by);
        let mut pairing = crate::pair::pair(
            &docs.deployments,
            &recipes.deployments,
            &pair_by,
            &self.manifest.policy.coverage,
        );
        let pinned = pin(
            &mut pairing,
            &docs.deployments,
            &recipes.deployments,
            self.pins,
        );
        let compared: usize = pairing.pairs.iter().map(|p| p.recipes.len()).sum();
        if compared > self.max_pairs {
            return Err(crate::error::Error::usage(format!(
                "the pairing found {compared} pairs to compare (docs deployment x recipe point group), more than --max-pairs {}: give the pages to check as FILES, or raise --max-pairs",
                self.max_pairs
            )));
        }
        let ctx = Overrides {
            origin: self.config.map(crate::span::path_label),
            checkpoints: Some(self.checkpoints.clone()),
            ..Overrides::default()
        };
        let pair_failures = crate::pair::run_pairs(
            &docs.deployments,
            &recipes.deployments,
            &pairing,
            &ctx,
            self.policy,
            keep,
            take,
        );
        let failures = docs
            .failures
            .into_iter()
            .chain(recipes.failures)
            .chain(pair_failures)
            .map(|(name, error)| Failure { name, error })
            .collect();
        let skipped = pinned
            .into_iter()
            .chain(docs.skipped)
            .chain(recipes.skipped)
            .map(|(name, reason)| Skipped { name, reason })
            .collect();
        // A generator the state budget cut: its states before the cut were
        // paired and compared above; the cut is a finding of its own.
        let mut coverage = pairing.coverage;
        // Deployments with roles: their workers checked against each other;
        // then the points whose servers are not known.
        coverage.extend(crate::pair::cross_role_findings(
            docs.deployments.iter().chain(&recipes.deployments),
        ));
        coverage.extend(crate::pair::unknown_points(
            &recipes.unknown,
            &self.manifest.policy.coverage,
        ));
        coverage.extend(docs.cuts.into_iter().map(|c| {
            let mut f =
                Finding::state_budget(&c.component, c.at, c.states, "read, paired and compared");
            f.severity = match self.policy.state_budget() {
                Some(crate::policy::Level::Error) => crate::finding::Severity::Error,
                Some(crate::policy::Level::Info) => crate::finding::Severity::Info,
                Some(crate::policy::Level::Warning) => crate::finding::Severity::Warning,
                None => f.severity,
            };
            f
        }));
        Ok(Found {
            failures,
            skipped,
            coverage,
        })
    }
}

/// Leaves to the config's links what they compare: a docs deployment a link
/// compares is not paired again (its pairs are dropped), and neither side's
/// pinned deployments are coverage. Pairing ran on every deployment first, so
/// an entry a link pins is not paired by the nearest shape instead. Returns
/// the pinned deployments, each with the link that compares it (listed as not
/// paired).
fn pin(
    pairing: &mut crate::pair::Pairing,
    docs: &[crate::space::Deployment],
    recipes: &[crate::space::Deployment],
    pins: &crate::space::Pins,
) -> Vec<(String, String)> {
    let mut pinned = Vec::new();
    if pins.is_empty() {
        return pinned;
    }
    let mut labels = std::collections::BTreeSet::new();
    for d in docs.iter().chain(recipes) {
        if let Some(link) = pins.link_of(d) {
            labels.insert(d.label());
            pinned.push((
                d.label(),
                format!("compared by the config's link `{link}`, not paired"),
            ));
        }
    }
    pairing
        .pairs
        .retain(|p| pins.link_of(&docs[p.docs]).is_none());
    pairing
        .coverage
        .retain(|c| c.unpaired().is_none_or(|u| !labels.contains(&u.deployment)));
    // A pinned deployment's own findings are its link's.
    pairing.coverage.retain_mut(|c| match &mut c.about {
        crate::finding::About::Command { deployments, .. } if !deployments.is_empty() => {
            deployments.retain(|d| !labels.contains(d));
            !deployments.is_empty()
        }
        _ => true,
    });
    pinned
}
