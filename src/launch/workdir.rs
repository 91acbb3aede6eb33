//! Where a launch starts and what its script changed before it: the
//! working folder (`cd`, `pushd`) and the files written, removed or moved.

use std::sync::Arc;

/// The working folder of a launch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum WorkDir {
    /// The folder the text starts in: no `cd` ran (a docs page, a command
    /// line, a script before any `cd`).
    #[default]
    Start,
    /// After `cd`: the folder as the script names it, relative to the one
    /// it starts in (or absolute), normalised lexically ([`logical_join`]).
    Known(String),
    /// Not knowable, and why.
    Unknown(String),
}

/// Paths a script wrote, removed or moved (`> f`, `cp`, `mv`, `rm`, `sed
/// -i`, ...), each as [`logical_join`] names it, with why. A copy shares
/// its maps until one side changes them (every subshell and `$(...)` copies
/// the shell's state).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// Path -> "written by the script at x.sh:3:1".
    pub paths: Arc<std::collections::BTreeMap<String, String>>,
    /// Set when the script wrote to a path that is not knowable (or from a
    /// folder that is not): any file may have changed, and why.
    pub anywhere: Option<String>,
    /// Files whose whole text the script wrote and nothing changed since
    /// (`cat > cfg.yaml <<EOF`): path -> (text, where it was written).
    pub texts: Arc<std::collections::BTreeMap<String, (String, String)>>,
    /// Folders the script filled from the Hub (`hf download REPO --local-dir
    /// DIR`) and nothing changed since: path -> (the repository, where).
    pub downloads: Arc<std::collections::BTreeMap<String, (String, String)>>,
}

impl Written {
    /// The Hub repository the script downloaded into the folder `path` (as
    /// [`logical_join`] names it), and where, when it is knowable.
    pub fn download(&self, path: &str) -> Option<(&str, &str)> {
        if self.anywhere.is_some() {
            return None;
        }
        let path = path.trim_end_matches('/');
        self.downloads
            .get(path)
            .map(|(r, w)| (r.as_str(), w.as_str()))
    }

    /// Records that the script filled the folder `key` with the Hub
    /// repository `repo`, at `from`.
    pub fn set_download(&mut self, key: String, repo: String, from: String) {
        Arc::make_mut(&mut self.downloads).insert(key, (repo, from));
    }

    /// The text the script wrote at `path` (as [`logical_join`] names it)
    /// and where, when it is knowable.
    pub fn text(&self, path: &str) -> Option<(&str, &str)> {
        if self.anywhere.is_some() {
            return None;
        }
        self.texts.get(path).map(|(t, w)| (t.as_str(), w.as_str()))
    }

    /// Records that `key` (and what is under it) changed, and why: a text
    /// written there before is no longer what is there.
    pub fn mark(&mut self, key: String, reason: String) {
        let under = format!("{key}/");
        if self
            .texts
            .keys()
            .any(|p| *p == key || p.starts_with(&under) || key == ".")
        {
            Arc::make_mut(&mut self.texts)
                .retain(|p, _| *p != key && !p.starts_with(&under) && key != ".");
        }
        if self
            .downloads
            .keys()
            .any(|p| *p == key || p.starts_with(&under) || key == ".")
        {
            Arc::make_mut(&mut self.downloads)
                .retain(|p, _| *p != key && !p.starts_with(&under) && key != ".");
        }
        if self.paths.get(&key) != Some(&reason) {
            Arc::make_mut(&mut self.paths).insert(key, reason);
        }
    }

    /// Records that any file may have changed, and why (the first reason
    /// is kept).
    pub fn mark_anywhere(&mut self, reason: impl FnOnce() -> String) {
        if self.anywhere.is_none() {
            self.anywhere = Some(reason());
        }
    }

    /// Records that the script wrote `text` as the whole of `key`, at `from`.
    pub fn set_text(&mut self, key: String, text: String, from: String) {
        Arc::make_mut(&mut self.texts).insert(key, (text, from));
    }

    /// Adds what `other` (a shell run in parallel, or on another branch)
    /// changed; a text is kept only where both wrote the same one.
    pub fn merge(&mut self, other: &Written) {
        // A download is kept where the other shell made the same one or left
        // the folder alone (`if [ ! -d DIR ]; then hf download ...; fi`).
        if !Arc::ptr_eq(&self.downloads, &other.downloads) {
            let mut out: std::collections::BTreeMap<String, (String, String)> = self
                .downloads
                .iter()
                .filter(|(p, d)| {
                    other.downloads.get(*p) == Some(*d) || !other.paths.contains_key(*p)
                })
                .map(|(p, d)| (p.clone(), d.clone()))
                .collect();
            for (p, d) in other.downloads.iter() {
                if !self.paths.contains_key(p) || self.downloads.get(p) == Some(d) {
                    out.entry(p.clone()).or_insert_with(|| d.clone());
                }
            }
            self.downloads = Arc::new(out);
        }
        if !Arc::ptr_eq(&self.texts, &other.texts)
            && self
                .texts
                .iter()
                .any(|(p, t)| other.texts.get(p) != Some(t))
        {
            Arc::make_mut(&mut self.texts).retain(|p, t| other.texts.get(p) == Some(t));
        }
        if !Arc::ptr_eq(&self.paths, &other.paths) {
            if self.paths.is_empty() {
                self.paths = other.paths.clone();
            } else if other.paths.keys().any(|p| !self.paths.contains_key(p)) {
                let mine = Arc::make_mut(&mut self.paths);
                for (p, r) in other.paths.iter() {
                    mine.entry(p.clone()).or_insert_with(|| r.clone());
                }
            }
        }
        if self.anywhere.is_none() {
            self.anywhere = other.anywhere.clone();
        }
    }

    /// Why the file at `path` (as [`logical_join`] names it) may not hold
    /// its committed content, if it may not: it, or a folder above it, was
    /// written, removed or moved.
    pub fn changed(&self, path: &str) -> Option<&str> {
        // The write that names it (or a folder above it) first.
        let mut p = path;
        let named = loop {
            if let Some(r) = self.paths.get(p) {
                break Some(r);
            }
            match p.rfind('/') {
                Some(i) if i > 0 => p = &p[..i],
                // The folder the script starts in (`cp x .`) holds every
                // relative path; `/` every absolute one.
                Some(_) => break self.paths.get("/"),
                None => break self.paths.get("."),
            }
        };
        named.or(self.anywhere.as_ref()).map(String::as_str)
    }
}

/// `path` as seen from `folder` (a [`WorkDir::Known`] path, or `""` for the
/// start folder), normalised lexically: `.` dropped, `..` removes the
/// name before it (kept at the start of a relative path); absolute when
/// either is.
pub fn logical_join(folder: &str, path: &str) -> String {
    let joined = if path.starts_with('/') || folder.is_empty() {
        path.to_string()
    } else {
        format!("{folder}/{path}")
    };
    let absolute = joined.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for c in joined.split('/') {
        match c {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            _ => parts.push(c),
        }
    }
    let body = parts.join("/");
    if absolute {
        format!("/{body}")
    } else if body.is_empty() {
        ".".into()
    } else {
        body
    }
}

impl WorkDir {
    /// Where a relative path the launch names may be, in order: from the
    /// folder of the script file (`script_dir`), then as the script names
    /// its folder relative to where recipe-drift runs (the script's `$0` is
    /// the path it was given, so `cd "$(dirname "$0")"` names a folder from
    /// there). Nothing when the folder is not knowable.
    pub fn candidates(&self, script_dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        use std::path::PathBuf;
        match self {
            WorkDir::Start => vec![script_dir.to_path_buf()],
            WorkDir::Known(d) if d.starts_with('/') => vec![PathBuf::from(d)],
            WorkDir::Known(d) => vec![script_dir.join(d), PathBuf::from(d)],
            WorkDir::Unknown(_) => Vec::new(),
        }
    }

    /// The folder as [`logical_join`] takes it (`""`: the start folder).
    pub fn text(&self) -> Option<&str> {
        match self {
            WorkDir::Start => Some(""),
            WorkDir::Known(d) => Some(d),
            WorkDir::Unknown(_) => None,
        }
    }
}
