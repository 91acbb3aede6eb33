//! The worker process: our own binary re-executed with a hidden subcommand
//! ([`SUBCOMMAND`]) runs the QuickJS [`Engine`] and answers requests, one JSON
//! line each way, over its standard input and output.
//!
//! The parent waits for each answer until the evaluation's deadline plus a
//! grace period and then kills the worker, so wall time is bounded even when
//! QuickJS is inside a C builtin that never reaches its interrupt handler. The
//! worker limits itself before loading anything: an address-space rlimit
//! (memory outside the JS heap too), a CPU-time rlimit (a backstop if the
//! parent is gone), and death with its parent (Linux). It starts with an empty
//! environment and `TZ=UTC`, so dates render the same on every machine.
//!
//! One worker serves one file: loading the bundle once, then every render and
//! click of the exploration (a request costs a pipe round trip and a JSON
//! encoding; starting the worker costs an exec and loading the React runtime).

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::sandbox::{Engine, Heap, Isolation, JsError, Limits, MAX_REPLY};
use super::transform::Plain;

/// The hidden subcommand that makes our binary a worker.
pub const SUBCOMMAND: &str = "__js-worker";

/// How long after an evaluation's deadline the parent waits for the engine's
/// own interrupt before it kills the worker.
const GRACE: Duration = Duration::from_millis(750);

/// Address space the worker may map beyond the JS heap limit: the binary,
/// its stacks, allocator arenas and the replies being encoded.
const ADDRESS_SPACE_HEADROOM: u64 = 640 << 20;

/// The longest line the parent reads from a worker (a reply of
/// [`MAX_REPLY`] bytes, JSON-escaped).
const MAX_LINE: u64 = 6 * MAX_REPLY as u64 + 1024;

/// The time a worker may take to transform one module (within
/// [`super::transform::MAX_MODULE_BYTES`] it takes well under a second).
pub const TRANSFORM_TIME: Duration = Duration::from_secs(15);

/// The address space a worker transforming a module may map (the parser
/// takes about 80 bytes per byte of source).
const TRANSFORM_ADDRESS_SPACE: u64 = 768 << 20;

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
static IN_PROCESS: AtomicBool = AtomicBool::new(false);

/// Sets where untrusted JavaScript is parsed and evaluated, for the whole
/// process (default: [`Isolation::Process`]).
pub fn set_isolation(isolation: Isolation) {
    IN_PROCESS.store(isolation == Isolation::InProcess, Ordering::Relaxed);
}

/// Where untrusted JavaScript is parsed and evaluated.
pub(crate) fn isolation() -> Isolation {
    if IN_PROCESS.load(Ordering::Relaxed) {
        Isolation::InProcess
    } else {
        Isolation::Process
    }
}

/// Sets the executable started as the worker (default: the running
/// executable). Programs other than `recipe-drift` that render generators with
/// [`super::Isolation::Process`] (tests, benches) point it at the
/// `recipe-drift` binary. The first call wins.
pub fn set_program(path: PathBuf) {
    let _ = PROGRAM.set(path);
}

fn program() -> std::io::Result<PathBuf> {
    match PROGRAM.get() {
        Some(p) => Ok(p.clone()),
        None => std::env::current_exe(),
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Request {
    Start {
        memory: usize,
        stack: usize,
        time: Duration,
        address_space: u64,
        cpu_secs: u64,
    },
    Transform {
        text: String,
        path: PathBuf,
        address_space: u64,
        cpu_secs: u64,
    },
    Eval {
        code: String,
        time: Duration,
    },
    Call {
        name: String,
        target: usize,
        arg: String,
        time: Duration,
    },
    /// The engine's [`Heap`] figures, as JSON.
    Heap,
}

/// How long the parent waits for the answer to [`Request::Heap`].
const HEAP_TIME: Duration = Duration::from_secs(5);

type Reply = Result<String, JsError>;

enum Line {
    Text(String),
    TooLong,
    End,
}

/// A running worker, seen from the parent.
pub(crate) struct Worker {
    child: RefCell<Child>,
    stdin: RefCell<Option<ChildStdin>>,
    replies: Receiver<Line>,
    /// Set once the worker is gone: every later request fails with it.
    gone: RefCell<Option<JsError>>,
    address_space: u64,
    cpu_secs: u64,
}

impl Worker {
    /// Starts a worker and loads the prelude and React runtime in it, within
    /// `time`.
    pub(crate) fn spawn(limits: &Limits, time: Duration) -> Result<Worker, JsError> {
        let address_space = (limits.memory as u64).saturating_add(ADDRESS_SPACE_HEADROOM);
        let cpu_secs = limits.total.as_secs().saturating_add(5);
        let worker = Self::launch(address_space, cpu_secs)?;
        worker.request(
            &Request::Start {
                memory: limits.memory,
                stack: limits.stack,
                time,
                address_space,
                cpu_secs,
            },
            time,
        )?;
        Ok(worker)
    }

    /// Starts a worker process with nothing loaded.
    fn launch(address_space: u64, cpu_secs: u64) -> Result<Worker, JsError> {
        let exe = program()
            .map_err(|e| JsError::Crashed(format!("cannot find our own executable: {e}")))?;
        let mut child = Command::new(&exe)
            .arg(SUBCOMMAND)
            .env_clear()
            .env("TZ", "UTC")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| JsError::Crashed(format!("cannot start {}: {e}", exe.display())))?;
        let stdout = child.stdout.take().expect("piped");
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::Builder::new()
            .name("jsx-worker-reader".into())
            .spawn(move || read_lines(stdout, tx));
        let worker = Worker {
            child: RefCell::new(child),
            stdin: RefCell::new(stdin),
            replies: rx,
            gone: RefCell::new(None),
            address_space,
            cpu_secs,
        };
        if let Err(e) = reader {
            return Err(worker.stop(JsError::Crashed(format!("cannot read its output: {e}"))));
        }
        Ok(worker)
    }

    /// Evaluates a script in the worker within `time`.
    pub(crate) fn eval(&self, code: &str, time: Duration) -> Result<(), JsError> {
        let req = Request::Eval {
            code: code.to_string(),
            time,
        };
        self.request(&req, time).map(|_| ())
    }

    /// Calls `__rd.<name>(target, arg)` in the worker within `time`.
    pub(crate) fn call(
        &self,
        name: &str,
        target: usize,
        arg: &str,
        time: Duration,
    ) -> Result<String, JsError> {
        let req = Request::Call {
            name: name.to_string(),
            target,
            arg: arg.to_string(),
            time,
        };
        self.request(&req, time)
    }

    /// The engine's heap figures.
    pub(crate) fn heap(&self) -> Result<Heap, JsError> {
        let text = self.request(&Request::Heap, HEAP_TIME)?;
        serde_json::from_str(&text)
            .map_err(|e| self.stop(JsError::Crashed(format!("unreadable answer: {e}"))))
    }

    fn request(&self, req: &Request, time: Duration) -> Result<String, JsError> {
        if let Some(e) = self.gone.borrow().clone() {
            return Err(e);
        }
        let mut line = serde_json::to_string(req).expect("plain data");
        line.push('\n');
        let sent = match self.stdin.borrow_mut().as_mut() {
            Some(stdin) => stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        if sent.is_err() {
            let why = self.ended();
            return Err(self.stop(JsError::Crashed(why)));
        }
        match self.replies.recv_timeout(time.saturating_add(GRACE)) {
            Ok(Line::Text(text)) => match serde_json::from_str::<Reply>(&text) {
                Ok(Ok(s)) => Ok(s),
                Ok(Err(e)) => {
                    // After a timeout or out of memory the engine is not reused.
                    Err(match e {
                        JsError::Thrown(_) => e,
                        e => self.stop(e),
                    })
                }
                Err(e) => Err(self.stop(JsError::Crashed(format!("unreadable answer: {e}")))),
            },
            Ok(Line::TooLong) => Err(self.stop(JsError::Reply(MAX_REPLY))),
            Err(RecvTimeoutError::Timeout) => Err(self.stop(JsError::Timeout(time))),
            Ok(Line::End) | Err(RecvTimeoutError::Disconnected) => {
                let why = self.ended();
                Err(self.stop(JsError::Crashed(why)))
            }
        }
    }

    /// Kills the worker (if still running), reaps it and remembers `e` for
    /// later requests.
    fn stop(&self, e: JsError) -> JsError {
        self.stdin.borrow_mut().take();
        let mut child = self.child.borrow_mut();
        let _ = child.kill();
        let _ = child.wait();
        *self.gone.borrow_mut() = Some(e.clone());
        e
    }

    /// Why the worker ended by itself.
    fn ended(&self) -> String {
        let status = self.child.borrow_mut().wait();
        match status {
            Ok(s) => describe_exit(s, self.address_space, self.cpu_secs),
            Err(e) => format!("cannot wait for it: {e}"),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if self.gone.borrow().is_none() {
            self.stop(JsError::Crashed("stopped".into()));
        }
    }
}

/// Transforms a module in a worker of its own: the result (or the
/// transform's error: byte offset and message), or why the worker failed.
pub(crate) fn transform(text: &str, path: &std::path::Path) -> Result<TransformReply, String> {
    let cpu_secs = TRANSFORM_TIME.as_secs().saturating_add(5);
    let worker = Worker::launch(TRANSFORM_ADDRESS_SPACE, cpu_secs).map_err(|e| e.to_string())?;
    let req = Request::Transform {
        text: text.to_string(),
        path: path.to_path_buf(),
        address_space: TRANSFORM_ADDRESS_SPACE,
        cpu_secs,
    };
    let describe = |e: JsError| match e {
        JsError::Timeout(d) => format!(
            "it did not finish within the parser's time budget ({} s)",
            d.as_secs()
        ),
        JsError::Crashed(why) => format!(
            "the parser's process ended ({why}); the module may nest too deeply for the parser's 16 MiB stack"
        ),
        e => e.to_string(),
    };
    let text = worker.request(&req, TRANSFORM_TIME).map_err(describe)?;
    serde_json::from_str(&text).map_err(|e| format!("unreadable answer: {e}"))
}

/// What a worker answers to a transform.
pub(crate) type TransformReply = Result<Plain, (usize, String)>;

fn describe_exit(s: ExitStatus, address_space: u64, cpu_secs: u64) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (_, Some(sig)) if sig == libc::SIGXCPU || sig == libc::SIGKILL => {
            format!(
                "stopped by signal {sig}: its CPU-time limit ({cpu_secs} s) or the system's out-of-memory killer"
            )
        }
        (_, Some(sig)) => format!(
            "stopped by signal {sig}: out of memory (its address-space limit is {} MiB) or a native stack overflow",
            address_space >> 20
        ),
        (Some(code), _) => format!("exited with code {code} without an answer"),
        (None, None) => "ended without an answer".into(),
    }
}

/// Sends each line of the worker's output, then `End`; a line longer than
/// [`MAX_LINE`] is `TooLong` and ends the reading.
fn read_lines(out: ChildStdout, tx: Sender<Line>) {
    let mut r = BufReader::new(out);
    loop {
        let mut buf = Vec::new();
        let read = (&mut r).take(MAX_LINE + 1).read_until(b'\n', &mut buf);
        let line = match read {
            Ok(_) if buf.last() == Some(&b'\n') => {
                buf.pop();
                Line::Text(String::from_utf8_lossy(&buf).into_owned())
            }
            Ok(_) if buf.len() as u64 > MAX_LINE => Line::TooLong,
            _ => Line::End,
        };
        let last = !matches!(line, Line::Text(_));
        if tx.send(line).is_err() || last {
            return;
        }
    }
}

/// The worker's main: limits itself, then answers requests until its input
/// ends. Returns the exit code.
pub fn serve() -> u8 {
    // The engine runs on a thread with a stack larger than its own limit.
    let run = std::thread::Builder::new()
        .name("jsx-worker".into())
        .stack_size(16 << 20)
        .spawn(serve_requests);
    match run.map(|t| t.join()) {
        Ok(Ok(code)) => code,
        _ => 70,
    }
}

fn serve_requests() -> u8 {
    die_with_parent();
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut out = std::io::stdout().lock();
    let mut engine: Option<Engine> = None;
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return 0,
            Ok(_) => {}
            Err(_) => return 74,
        }
        let Ok(req) = serde_json::from_str::<Request>(&line) else {
            return 65;
        };
        let reply: Reply = match (req, &engine) {
            (
                Request::Start {
                    memory,
                    stack,
                    time,
                    address_space,
                    cpu_secs,
                },
                None,
            ) => {
                limit_self(address_space, cpu_secs);
                Engine::new(memory, stack, time).map(|e| {
                    engine = Some(e);
                    String::new()
                })
            }
            (
                Request::Transform {
                    text,
                    path,
                    address_space,
                    cpu_secs,
                },
                None,
            ) => {
                limit_self(address_space, cpu_secs);
                let reply: TransformReply = super::transform::plain(&text, &path);
                Ok(serde_json::to_string(&reply).expect("plain data"))
            }
            (Request::Eval { code, time }, Some(e)) => e.eval(&code, time).map(|()| String::new()),
            (
                Request::Call {
                    name,
                    target,
                    arg,
                    time,
                },
                Some(e),
            ) => e.call(&name, target, &arg, time),
            (Request::Heap, Some(e)) => Ok(serde_json::to_string(&e.heap()).expect("plain data")),
            _ => return 65,
        };
        let mut text = serde_json::to_string(&reply).expect("plain data");
        text.push('\n');
        if out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return 74;
        }
    }
}

/// Address-space and CPU-time rlimits on this process.
fn limit_self(address_space: u64, cpu_secs: u64) {
    let set = |resource, soft: u64, hard: u64| {
        let lim = libc::rlimit {
            rlim_cur: soft as libc::rlim_t,
            rlim_max: hard as libc::rlim_t,
        };
        // SAFETY: setrlimit reads a valid struct; it only lowers our limits.
        unsafe { libc::setrlimit(resource, &lim) };
    };
    set(libc::RLIMIT_AS, address_space, address_space);
    set(libc::RLIMIT_CPU, cpu_secs, cpu_secs.saturating_add(1));
}

/// Ends this process when the parent ends (Linux), so a worker stuck in a C
/// builtin never outlives a killed parent.
fn die_with_parent() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
}
