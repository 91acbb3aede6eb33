//! Running the binary against hostile inputs with a budget.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The wall-clock budget every hostile input must end within (the security
/// model's promise, `docs/src/security.md`, is 30 s on a 2-core machine).
pub const TIME_BUDGET: Duration = Duration::from_secs(30);
/// The peak memory (resident set) every hostile input must stay under.
pub const MEMORY_BUDGET_KIB: u64 = 1024 * 1024;
/// A run still going after this is killed, so a hang fails the test instead of
/// the CI job.
const KILL_AFTER: Duration = Duration::from_secs(90);

/// A text planted outside the repository root: it must never be printed.
pub const CANARY: &str = "ghp_CANARYc4n4ryCANARYc4n4ry0123456789";

/// What one run did.
#[derive(Debug)]
pub struct Outcome {
    /// Exit code; `None` when killed by a signal (a crash or our kill).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Wall-clock time.
    pub wall: Duration,
    /// Peak resident set of the process, in KiB.
    pub max_rss_kib: u64,
}

impl Outcome {
    /// Both streams, for messages.
    pub fn both(&self) -> String {
        format!(
            "exit {:?} after {:?}, {} KiB\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.wall, self.max_rss_kib, self.stdout, self.stderr
        )
    }

    /// Ended within the time and memory budgets, without a crash or panic.
    pub fn assert_bounded(&self) -> &Self {
        assert!(self.code.is_some(), "killed by a signal: {}", self.both());
        assert_ne!(self.code, Some(101), "panicked: {}", self.both());
        assert!(!self.stderr.contains("panicked"), "{}", self.both());
        assert!(
            self.wall < TIME_BUDGET,
            "over the time budget: {}",
            self.both()
        );
        assert!(
            self.max_rss_kib < MEMORY_BUDGET_KIB,
            "over the memory budget: {}",
            self.both()
        );
        self
    }

    /// Exit 2 with `at` (a `file:line:col` or part of one) and each of `words`
    /// in stderr.
    pub fn assert_input_error(&self, at: &str, words: &[&str]) -> &Self {
        self.assert_bounded();
        assert_eq!(self.code, Some(2), "{}", self.both());
        assert!(self.stderr.contains(at), "expected {at:?}: {}", self.both());
        for w in words {
            assert!(self.stderr.contains(w), "expected {w:?}: {}", self.both());
        }
        self
    }

    /// Nothing of the canary planted outside the root was printed.
    pub fn assert_no_leak(&self) -> &Self {
        for part in [CANARY, &CANARY[..12], &CANARY[CANARY.len() - 12..]] {
            assert!(
                !self.stdout.contains(part) && !self.stderr.contains(part),
                "leaked {part:?}: {}",
                self.both()
            );
        }
        self
    }
}

/// A scratch repository (a git top level) with a sibling folder outside it
/// that holds the canary.
pub struct Repo {
    dir: tempfile::TempDir,
}

impl Default for Repo {
    fn default() -> Self {
        Self::new()
    }
}

impl Repo {
    /// A new repository `repo/` (with `.git/`) beside `outside/secret.txt`.
    pub fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo/.git")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(
            dir.path().join("outside/secret.txt"),
            format!("{CANARY}\nsglang serve --model-path {CANARY} --tp 8\n"),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("outside/secret.sh"),
            format!("sglang serve --model-path m --api-key {CANARY} --tp 8\n"),
        )
        .unwrap();
        Repo { dir }
    }

    /// The repository root.
    pub fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// The folder outside the root.
    pub fn outside(&self) -> PathBuf {
        self.dir.path().join("outside")
    }

    /// Writes `text` at `rel` inside the root (folders made as needed).
    pub fn write(&self, rel: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A symlink at `rel` inside the root pointing at `target`.
    pub fn symlink(&self, rel: &str, target: &Path) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, path).unwrap();
    }

    /// Runs the binary in the root.
    pub fn run(&self, args: &[&str]) -> Outcome {
        run_in(&self.root(), args)
    }

    /// Runs twice and asserts byte-identical output and exit code.
    pub fn run_deterministic(&self, args: &[&str]) -> Outcome {
        let a = self.run(args);
        let b = self.run(args);
        assert_eq!(
            a.code,
            b.code,
            "exit codes differ: {}\n{}",
            a.both(),
            b.both()
        );
        assert_eq!(a.stdout, b.stdout, "stdout differs between runs");
        assert_eq!(a.stderr, b.stderr, "stderr differs between runs");
        a
    }
}

/// Runs the binary in `dir` with its output in files, its peak memory read
/// from `wait4`, and a kill after [`KILL_AFTER`].
#[allow(clippy::zombie_processes)] // reaped by wait4 below, which also gives the peak memory
pub fn run_in(dir: &Path, args: &[&str]) -> Outcome {
    let out = tempfile::tempfile().unwrap();
    let err = tempfile::tempfile().unwrap();
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_recipe-drift"))
        .current_dir(dir)
        .args(args)
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(err.try_clone().unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let (status, rss) = loop {
        let mut status = 0;
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break (status, usage.ru_maxrss as u64);
        }
        assert!(r == 0, "wait4 failed");
        if start.elapsed() > KILL_AFTER {
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let wall = start.elapsed();
    let code = if libc::WIFEXITED(status) {
        Some(libc::WEXITSTATUS(status))
    } else {
        None
    };
    let read = |mut f: std::fs::File| {
        use std::io::{Read, Seek};
        let mut s = Vec::new();
        f.seek(std::io::SeekFrom::Start(0)).unwrap();
        f.read_to_end(&mut s).unwrap();
        String::from_utf8_lossy(&s).into_owned()
    };
    Outcome {
        code,
        stdout: read(out),
        stderr: read(err),
        wall,
        max_rss_kib: rss,
    }
}
