//! A QuickJS sandbox: no I/O globals, a memory limit, a stack limit, a time
//! limit per evaluation and a time budget for all the evaluations of one file.
//!
//! Two layers:
//!
//! - [`Engine`] is QuickJS in this process: an interrupt handler checks the
//!   deadline and an allocator of our own enforces the memory limit. Both set a
//!   flag when they stop the script, so an error is classified by what the
//!   engine did, never by the text of a message a script can forge.
//! - [`Sandbox`] is what the renderer uses. By default
//!   ([`Isolation::Process`]) it runs the engine in a worker process of our
//!   own binary (see `worker.rs`, which also runs the JSX transform): QuickJS's C builtins (`Array.prototype.join`
//!   on a 2^32-element array, `reverse` on an array-like of length 2^53) do not
//!   reach the interrupt handler, so only a process the parent kills at the
//!   deadline bounds wall time by construction; the worker also runs under an
//!   address-space and a CPU-time rlimit.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rquickjs::allocator::{Allocator, RustAllocator};
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Object, Runtime, Type, Value};

use super::worker::Worker;

/// Where untrusted JavaScript is parsed and evaluated (one setting for the
/// process: [`super::set_isolation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// In a worker process of our own binary, killed at the deadline (the
    /// default; see [`super::set_worker_program`] for library users).
    Process,
    /// In this process: the interrupt handler is the only time limit (a C
    /// builtin can run past it) and a parser stack overflow aborts. For
    /// fuzzing only.
    InProcess,
}

/// The limits a sandbox runs under.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall time one evaluation may take (`--js-time-limit`).
    pub time: Duration,
    /// Wall time all the evaluations of one file may take together, loading
    /// and every render and click of the exploration included
    /// (`--js-total-time-limit`).
    pub total: Duration,
    /// Bytes the JS heap may hold.
    pub memory: usize,
    /// Bytes of native stack JS may use (deep recursion ends here).
    pub stack: usize,
    /// The most states `--all-selections` explores per component
    /// (`--max-states`; the exploration's budget, not the engine's).
    pub states: usize,
}

/// The time limits the command line set for this run (`--js-time-limit`,
/// `--js-total-time-limit`), in milliseconds; zero: the built-in ones.
static CONFIGURED_TIME_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static CONFIGURED_TOTAL_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Sets the time limits [`Limits::default`] gives for the rest of the run (the
/// command line's `--js-time-limit` and `--js-total-time-limit`).
pub fn configure_time_limits(time: Duration, total: Duration) {
    use std::sync::atomic::Ordering::Relaxed;
    CONFIGURED_TIME_MS.store(u64::try_from(time.as_millis()).unwrap_or(u64::MAX), Relaxed);
    CONFIGURED_TOTAL_MS.store(
        u64::try_from(total.as_millis()).unwrap_or(u64::MAX),
        Relaxed,
    );
}

/// Whether the command line set the file's time budget
/// (`--js-total-time-limit`); when it did not, `--all-selections` gives the
/// exploration its own, longer budget (`--time-limit`).
pub fn total_time_configured() -> bool {
    CONFIGURED_TOTAL_MS.load(std::sync::atomic::Ordering::Relaxed) != 0
}

impl Limits {
    /// The limits for exploring every selection of a file, each component for
    /// at most `time_limit` (`--all-selections`; `check`, which explores every
    /// page it reads): unless the command line set the file's budget
    /// (`--js-total-time-limit`), the file's JavaScript may take `time_limit`
    /// plus 10 s, so that what stops a large exploration is its own budget:
    /// the state budget first, which cuts at the same state on every machine,
    /// then the exploration's time limit, which says how far it got.
    pub fn exploring(self, time_limit: Duration) -> Limits {
        if total_time_configured() {
            return self;
        }
        Limits {
            total: self
                .total
                .max(time_limit.saturating_add(Duration::from_secs(10))),
            ..self
        }
    }
}

impl Default for Limits {
    /// The built-in limits, with the run's configured time limits when the
    /// command line set them.
    fn default() -> Self {
        use std::sync::atomic::Ordering::Relaxed;
        let configured =
            |ms: u64, builtin: u64| Duration::from_millis(if ms == 0 { builtin } else { ms });
        Limits {
            time: configured(CONFIGURED_TIME_MS.load(Relaxed), 10_000),
            total: configured(CONFIGURED_TOTAL_MS.load(Relaxed), 20_000),
            memory: 256 << 20,
            stack: 1 << 20,
            states: super::MAX_STATES,
        }
    }
}

/// The name a bundle's stack frames give its script (`bundle.js:LINE:COL`),
/// which `react.js` looks for to say where a generator threw.
pub const BUNDLE_FILE: &str = "bundle.js";

/// The most bytes one evaluation may return (a render's JSON).
pub const MAX_REPLY: usize = 16 << 20;

/// The fixed time the sandbox's clock shows: `Date.now()` and `new Date()`
/// are 2025-01-01T00:00:00Z (in UTC in the worker), `performance.now()` is 0.
pub const FIXED_EPOCH_MS: u64 = 1_735_689_600_000;

/// Why an evaluation failed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum JsError {
    /// One evaluation reached the time limit (`--js-time-limit`).
    Timeout(Duration),
    /// The file's evaluations together reached the time budget
    /// (`--js-total-time-limit`).
    TotalTimeout(Duration),
    /// The memory limit was reached.
    OutOfMemory(usize),
    /// The stack limit was reached (deep recursion).
    StackOverflow,
    /// An evaluation returned more than [`MAX_REPLY`] bytes.
    Reply(usize),
    /// The worker process ended without an answer.
    Crashed(String),
    /// The script threw.
    Thrown(String),
}

impl std::fmt::Display for JsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsError::Timeout(d) => write!(
                f,
                "JavaScript did not finish within the time limit ({} ms); raise it with --js-time-limit",
                d.as_millis()
            ),
            JsError::TotalTimeout(d) => write!(
                f,
                "JavaScript used up the time budget of this file ({} ms for loading, rendering and exploring); raise it with --js-total-time-limit",
                d.as_millis()
            ),
            JsError::OutOfMemory(m) => {
                write!(f, "JavaScript exceeded the memory limit ({} MiB)", m >> 20)
            }
            JsError::StackOverflow => write!(
                f,
                "JavaScript exceeded the stack limit (recursion too deep)"
            ),
            JsError::Reply(n) => write!(
                f,
                "JavaScript returned more than the output limit of one evaluation ({} MiB)",
                n >> 20
            ),
            JsError::Crashed(why) => write!(f, "the JavaScript worker process ended: {why}"),
            JsError::Thrown(m) => write!(f, "JavaScript error: {m}"),
        }
    }
}

/// A sandbox for one file: an engine here or in a worker process, and the
/// file's time budget; not `Send`.
pub struct Sandbox {
    inner: Inner,
    limits: Limits,
    /// When the file's time budget ends (`None`: too far to represent).
    until: Option<Instant>,
}

enum Inner {
    Here(Box<Engine>),
    Worker(Worker),
}

impl Sandbox {
    /// A fresh sandbox with the prelude (inert browser stand-ins) and the
    /// headless React runtime loaded.
    pub fn new(limits: Limits) -> Result<Sandbox, JsError> {
        let until = Instant::now().checked_add(limits.total);
        let time = slice(&limits, until)?;
        let inner = match super::worker::isolation() {
            Isolation::InProcess => {
                Engine::new(limits.memory, limits.stack, time).map(|e| Inner::Here(Box::new(e)))
            }
            Isolation::Process => Worker::spawn(&limits, time).map(Inner::Worker),
        };
        let inner = remap(&limits, inner, time)?;
        Ok(Sandbox {
            inner,
            limits,
            until,
        })
    }

    /// Evaluates a script (global code) within the limits.
    pub fn eval(&self, code: &str) -> Result<(), JsError> {
        let time = slice(&self.limits, self.until)?;
        let r = match &self.inner {
            Inner::Here(e) => e.eval(code, time),
            Inner::Worker(w) => w.eval(code, time),
        };
        remap(&self.limits, r, time)
    }

    /// What the JS heap holds now and has held at most (a measurement: the
    /// limit is [`Limits::memory`]).
    pub fn heap(&self) -> Result<Heap, JsError> {
        match &self.inner {
            Inner::Here(e) => Ok(e.heap()),
            Inner::Worker(w) => w.heap(),
        }
    }

    /// Calls `__rd.<name>(target, arg)` and returns the string it returns.
    pub fn call(&self, name: &str, target: usize, arg: &str) -> Result<String, JsError> {
        let time = slice(&self.limits, self.until)?;
        let r = match &self.inner {
            Inner::Here(e) => e.call(name, target, arg, time),
            Inner::Worker(w) => w.call(name, target, arg, time),
        };
        remap(&self.limits, r, time)
    }
}

/// The time the next evaluation may take: the per-evaluation limit, or what
/// is left of the file's budget when that is less.
fn slice(limits: &Limits, until: Option<Instant>) -> Result<Duration, JsError> {
    let left = match until {
        Some(until) => until.saturating_duration_since(Instant::now()),
        None => Duration::MAX,
    };
    if left.is_zero() {
        return Err(JsError::TotalTimeout(limits.total));
    }
    Ok(left.min(limits.time))
}

/// A timeout of a slice cut short by the file's budget is the budget's.
fn remap<T>(limits: &Limits, r: Result<T, JsError>, slice: Duration) -> Result<T, JsError> {
    r.map_err(|e| match e {
        JsError::Timeout(_) if slice < limits.time => JsError::TotalTimeout(limits.total),
        JsError::Timeout(_) => JsError::Timeout(limits.time),
        other => other,
    })
}

/// What the JS heap holds, in bytes, as the memory limit counts it (the
/// usable size of every allocation QuickJS holds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Heap {
    /// Held now.
    pub used: usize,
    /// The most held at once since the engine started.
    pub peak: usize,
}

/// The heap figures the allocator keeps for the engine to read.
#[derive(Default)]
struct HeapCounter {
    used: AtomicUsize,
    peak: AtomicUsize,
}

/// QuickJS's allocations, counted against the memory limit; a refusal sets
/// a flag (the engine's own out-of-memory signal).
struct Counted {
    used: usize,
    limit: usize,
    refused: Arc<AtomicBool>,
    heap: Arc<HeapCounter>,
}

impl Counted {
    /// Publishes `used` (and the peak) for [`Engine::heap`].
    fn publish(&self) {
        self.heap.used.store(self.used, Ordering::Relaxed);
        self.heap.peak.fetch_max(self.used, Ordering::Relaxed);
    }

    fn admit(&mut self, more: usize) -> bool {
        if self.used.saturating_add(more) > self.limit {
            self.refused.store(true, Ordering::Relaxed);
            false
        } else {
            true
        }
    }
}

// SAFETY: every pointer comes from and goes back to `RustAllocator`, whose
// contract this forwards unchanged; only the accounting is added.
unsafe impl Allocator for Counted {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if !self.admit(size) {
            return std::ptr::null_mut();
        }
        let p = RustAllocator.alloc(size);
        if !p.is_null() {
            self.used += unsafe { RustAllocator::usable_size(p) };
            self.publish();
        }
        p
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        let Some(total) = count.checked_mul(size) else {
            self.refused.store(true, Ordering::Relaxed);
            return std::ptr::null_mut();
        };
        if !self.admit(total) {
            return std::ptr::null_mut();
        }
        let p = RustAllocator.calloc(count, size);
        if !p.is_null() {
            self.used += unsafe { RustAllocator::usable_size(p) };
            self.publish();
        }
        p
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        unsafe {
            self.used = self.used.saturating_sub(RustAllocator::usable_size(ptr));
            self.publish();
            RustAllocator.dealloc(ptr);
        }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        unsafe {
            let old = if ptr.is_null() {
                0
            } else {
                RustAllocator::usable_size(ptr)
            };
            if new_size > old && !self.admit(new_size - old) {
                return std::ptr::null_mut();
            }
            let p = RustAllocator.realloc(ptr, new_size);
            if !p.is_null() {
                self.used = self.used.saturating_sub(old) + RustAllocator::usable_size(p);
                self.publish();
            }
            p
        }
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        unsafe { RustAllocator::usable_size(ptr) }
    }
}

/// QuickJS in this process, with flags set by the interrupt handler and the
/// allocator when they stop a script.
pub(crate) struct Engine {
    // The context must drop before the runtime.
    ctx: Context,
    _rt: Runtime,
    /// The deadline, in nanoseconds since `epoch`; 0 = none.
    deadline: Arc<AtomicU64>,
    epoch: Instant,
    /// Set when the interrupt handler stopped the script.
    interrupted: Arc<AtomicBool>,
    /// Set when the allocator refused an allocation over the limit.
    refused: Arc<AtomicBool>,
    /// The allocator's heap figures.
    heap: Arc<HeapCounter>,
    limit: Cell<Duration>,
    memory: usize,
}

impl Engine {
    fn bare(memory: usize, stack: usize) -> Result<Engine, JsError> {
        let refused = Arc::new(AtomicBool::new(false));
        let heap = Arc::new(HeapCounter::default());
        let rt = Runtime::new_with_alloc(Counted {
            used: 0,
            limit: memory,
            refused: refused.clone(),
            heap: heap.clone(),
        })
        .map_err(|e| JsError::Thrown(e.to_string()))?;
        rt.set_max_stack_size(stack);
        rt.set_gc_threshold(memory / 8);
        let deadline = Arc::new(AtomicU64::new(0));
        let interrupted = Arc::new(AtomicBool::new(false));
        let epoch = Instant::now();
        let (d, fired) = (deadline.clone(), interrupted.clone());
        rt.set_interrupt_handler(Some(Box::new(move || {
            let limit = d.load(Ordering::Relaxed);
            let stop = limit != 0 && epoch.elapsed().as_nanos() > u128::from(limit);
            if stop {
                fired.store(true, Ordering::Relaxed);
            }
            stop
        })));
        let ctx = Context::full(&rt).map_err(|e| JsError::Thrown(e.to_string()))?;
        Ok(Engine {
            ctx,
            _rt: rt,
            deadline,
            epoch,
            interrupted,
            refused,
            heap,
            limit: Cell::new(Duration::ZERO),
            memory,
        })
    }

    /// An engine with the prelude and the headless React loaded, the loading
    /// taking at most `time`.
    pub(crate) fn new(memory: usize, stack: usize, time: Duration) -> Result<Engine, JsError> {
        let engine = Self::bare(memory, stack)?;
        engine.eval_named(include_str!("prelude.js"), "prelude.js", time)?;
        engine.expose_heap()?;
        engine.expose_jobs()?;
        engine.expose_visibility()?;
        engine.eval_named(include_str!("react.js"), "react.js", time)?;
        Ok(engine)
    }

    /// `__rd_heap()`, the bytes the JS heap holds, for `react.js`: it takes
    /// the function and deletes the global before any generator code runs
    /// (a generator that could read it could render differently from run to
    /// run).
    fn expose_heap(&self) -> Result<(), JsError> {
        let heap = self.heap.clone();
        self.ctx
            .with(|ctx| {
                let used = Function::new(ctx.clone(), move || {
                    heap.used.load(Ordering::Relaxed) as f64
                })?;
                ctx.globals().set("__rd_heap", used)
            })
            .map_err(|e| JsError::Thrown(e.to_string()))
    }

    /// `__rd_jobs(max)`, for `react.js` (which takes it and deletes the
    /// global, as it does `__rd_heap`): runs the pending jobs (promise
    /// reactions, `await` continuations, `queueMicrotask` callbacks) in
    /// order, the ones they queue too, as a browser drains its microtask
    /// queue when a task ends. Returns how many ran, or [`JOBS_STOPPED`]
    /// when the engine stopped one (the time or memory limit: the flags say
    /// which), or [`JOBS_UNSETTLED`] when `max` ran and more are queued.
    fn expose_jobs(&self) -> Result<(), JsError> {
        let (interrupted, refused) = (self.interrupted.clone(), self.refused.clone());
        self.ctx
            .with(|ctx| {
                let run = Function::new(ctx.clone(), move |ctx: Ctx<'_>, max: f64| -> f64 {
                    let max = if max.is_finite() && max > 0.0 {
                        max as u64
                    } else {
                        0
                    };
                    run_jobs(&ctx, max, &interrupted, &refused)
                })?;
                ctx.globals().set("__rd_jobs", run)
            })
            .map_err(|e| JsError::Thrown(e.to_string()))
    }

    /// `__rd_element_hides(name, attrs)`, for `react.js` (which takes it and
    /// deletes the global): whether an element (its lower-case tag name and
    /// its DOM attributes `hidden`, `open`, `popover`, `style`, `class` as
    /// strings, absent ones left out) renders its content, as
    /// [`crate::extract::visibility::element_hides`] decides for pages too:
    /// `null` when it does, else what hides it.
    fn expose_visibility(&self) -> Result<(), JsError> {
        self.ctx
            .with(|ctx| {
                let hides = Function::new(
                    ctx.clone(),
                    |name: String, attrs: Object<'_>| -> Option<String> {
                        let get = |k: &str| attrs.get::<_, Option<String>>(k).ok().flatten();
                        crate::extract::visibility::element_hides(&name, &get)
                    },
                )?;
                ctx.globals().set("__rd_element_hides", hides)
            })
            .map_err(|e| JsError::Thrown(e.to_string()))
    }

    /// What the JS heap holds now and has held at most.
    pub(crate) fn heap(&self) -> Heap {
        Heap {
            used: self.heap.used.load(Ordering::Relaxed),
            peak: self.heap.peak.load(Ordering::Relaxed),
        }
    }

    fn arm(&self, time: Duration) {
        self.interrupted.store(false, Ordering::Relaxed);
        self.refused.store(false, Ordering::Relaxed);
        self.limit.set(time);
        // Saturates: a deadline past u64 nanoseconds (584 years) is none.
        let until = self.epoch.elapsed().saturating_add(time).as_nanos();
        let until = u64::try_from(until).unwrap_or(u64::MAX).max(1);
        self.deadline.store(until, Ordering::Relaxed);
    }

    fn disarm(&self) {
        self.deadline.store(0, Ordering::Relaxed);
    }

    /// Evaluates a script (global code) within `time`; its stack frames
    /// name it [`BUNDLE_FILE`].
    pub(crate) fn eval(&self, code: &str, time: Duration) -> Result<(), JsError> {
        self.eval_named(code, BUNDLE_FILE, time)
    }

    /// Evaluates a script (global code) named `name` within `time`.
    fn eval_named(&self, code: &str, name: &str, time: Duration) -> Result<(), JsError> {
        self.arm(time);
        let r = self.ctx.with(|ctx| {
            let mut options = rquickjs::context::EvalOptions::default();
            options.filename = Some(name.to_string());
            ctx.eval_with_options::<(), _>(code, options)
                .catch(&ctx)
                .map_err(|e| self.classify(e))?;
            // The microtasks the script queued run before anything else, as
            // a browser runs them when a module's evaluation ends.
            let ran = run_jobs(&ctx, MAX_JOBS, &self.interrupted, &self.refused);
            if self.interrupted.load(Ordering::Relaxed) {
                return Err(JsError::Timeout(self.limit.get()));
            }
            if self.refused.load(Ordering::Relaxed) {
                return Err(JsError::OutOfMemory(self.memory));
            }
            if ran == JOBS_UNSETTLED {
                return Err(JsError::Thrown(unsettled_jobs()));
            }
            Ok(())
        });
        self.disarm();
        r
    }

    /// Calls `__rd.<name>(target, arg)` within `time` and returns the string
    /// it returns.
    pub(crate) fn call(
        &self,
        name: &str,
        target: usize,
        arg: &str,
        time: Duration,
    ) -> Result<String, JsError> {
        self.arm(time);
        let r = self.ctx.with(|ctx| {
            let run = || -> rquickjs::Result<String> {
                let rd: Object = ctx.globals().get("__rd")?;
                let f: Function = rd.get(name)?;
                f.call((u32::try_from(target).unwrap_or(u32::MAX), arg.to_string()))
            };
            run().catch(&ctx).map_err(|e| self.classify(e))
        });
        self.disarm();
        match r {
            // An allocation refused over the limit is the limit's, even when
            // the script caught the error it raised (the explorer records a
            // throwing click as a crash path and goes on).
            Ok(_) if self.refused.load(Ordering::Relaxed) => Err(JsError::OutOfMemory(self.memory)),
            Ok(s) if s.len() > MAX_REPLY => Err(JsError::Reply(MAX_REPLY)),
            r => r,
        }
    }

    /// What stopped the script: the interrupt handler's and the allocator's
    /// flags first, then what was thrown. (Runs still armed: reading a thrown
    /// object's properties can run its getters.)
    fn classify(&self, e: CaughtError<'_>) -> JsError {
        if self.interrupted.load(Ordering::Relaxed) {
            return JsError::Timeout(self.limit.get());
        }
        if self.refused.load(Ordering::Relaxed) {
            return JsError::OutOfMemory(self.memory);
        }
        match &e {
            CaughtError::Exception(ex) => {
                let msg = ex.message().unwrap_or_default();
                let name: String = ex
                    .get::<_, rquickjs::Coerced<String>>("name")
                    .map(|c| c.0)
                    .unwrap_or_default();
                // QuickJS's own stack-overflow error has no engine flag; a
                // script throwing the same error is told the same.
                if name == "RangeError" && msg == "Maximum call stack size exceeded" {
                    return JsError::StackOverflow;
                }
                JsError::Thrown(if name.is_empty() {
                    msg
                } else {
                    format!("{name}: {msg}")
                })
            }
            CaughtError::Value(v) => JsError::Thrown(describe(v)),
            CaughtError::Error(e) => JsError::Thrown(e.to_string()),
        }
    }
}

/// The most microtasks one drain runs (a promise chain or a
/// `queueMicrotask` loop that never ends is an error at this count, the same
/// on every machine, long before the time limit on most).
pub const MAX_JOBS: u64 = 100_000;

/// What [`Engine::expose_jobs`]'s `__rd_jobs` answers when the engine stopped
/// a job (its time or memory limit).
pub const JOBS_STOPPED: f64 = -1.0;

/// What `__rd_jobs` answers when it ran as many jobs as it was allowed and
/// more are queued.
pub const JOBS_UNSETTLED: f64 = -2.0;

/// The error of microtasks that do not settle within [`MAX_JOBS`] (the text
/// `react.js` throws too).
fn unsettled_jobs() -> String {
    format!(
        "Error: Microtasks did not settle: more than {MAX_JOBS} ran in a row (a promise chain or queueMicrotask loop that never ends)"
    )
}

/// Runs pending jobs in order until none is left (their count), `max` have
/// run with more queued ([`JOBS_UNSETTLED`]), or the engine stopped one: the
/// interrupt handler or the allocator set its flag ([`JOBS_STOPPED`]). A job
/// that throws is dropped, as a browser reports an error thrown by a
/// microtask and goes on (a promise reaction's error rejects its promise).
fn run_jobs(ctx: &Ctx<'_>, max: u64, interrupted: &AtomicBool, refused: &AtomicBool) -> f64 {
    let stopped = || interrupted.load(Ordering::Relaxed) || refused.load(Ordering::Relaxed);
    let mut n = 0u64;
    loop {
        if stopped() {
            return JOBS_STOPPED;
        }
        if !ctx.execute_pending_job() {
            return n as f64;
        }
        n += 1;
        if n > max {
            return if stopped() {
                JOBS_STOPPED
            } else {
                JOBS_UNSETTLED
            };
        }
    }
}

/// A thrown value that is not an `Error`, as stable text: never a heap
/// address (a Symbol or a Proxy has no other printable identity).
fn describe(v: &Value<'_>) -> String {
    let kind = match v.type_of() {
        Type::String => {
            return v
                .as_string()
                .and_then(|s| s.to_string().ok())
                .unwrap_or_default();
        }
        Type::Int | Type::Float => {
            return v
                .as_number()
                .map(|n| n.to_string())
                .unwrap_or_else(|| "a number".into());
        }
        Type::Bool => return v.as_bool().unwrap_or_default().to_string(),
        Type::Null => "null",
        Type::Undefined | Type::Uninitialized => "undefined",
        Type::Symbol => "a Symbol",
        Type::BigInt => "a BigInt",
        Type::Function | Type::Constructor => "a function",
        Type::Array => "an array",
        _ => "an object",
    };
    format!("{kind} was thrown (not an Error)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        Engine::new(64 << 20, 256 << 10, Duration::from_secs(10)).unwrap()
    }

    const SHORT: Duration = Duration::from_millis(100);

    #[test]
    fn a_script_cannot_forge_the_engines_limits() {
        let e = engine();
        for (code, want) in [
            ("throw new Error('interrupted')", "Error: interrupted"),
            (
                "throw new InternalError('out of memory')",
                "InternalError: out of memory",
            ),
        ] {
            assert_eq!(e.eval(code, SHORT), Err(JsError::Thrown(want.into())));
        }
    }

    #[test]
    fn the_limits_are_read_from_the_engines_flags() {
        let e = engine();
        assert_eq!(e.eval("for (;;) {}", SHORT), Err(JsError::Timeout(SHORT)));
        assert_eq!(
            e.eval("'x'.repeat(2 ** 27)", SHORT),
            Err(JsError::OutOfMemory(64 << 20))
        );
        // A later evaluation starts with the flags down.
        assert_eq!(e.eval("1 + 1", SHORT), Ok(()));
    }

    #[test]
    fn thrown_values_print_without_addresses() {
        let e = engine();
        for (code, want) in [
            ("throw Symbol('s')", "a Symbol was thrown (not an Error)"),
            (
                "throw new Proxy({}, {})",
                "an object was thrown (not an Error)",
            ),
            ("throw 42", "42"),
            ("throw 'text'", "text"),
        ] {
            assert_eq!(e.eval(code, SHORT), Err(JsError::Thrown(want.into())));
        }
    }

    #[test]
    fn a_scripts_microtasks_run_when_it_ends_in_order() {
        let e = engine();
        let code = "globalThis.x = 0; (async () => { await null; x *= 10; })(); \
                    Promise.resolve().then(() => { x += 1; }); queueMicrotask(() => { x += 1; });";
        assert_eq!(e.eval(code, SHORT), Ok(()));
        // The await's continuation first, then the reaction, then the microtask.
        assert_eq!(
            e.eval("if (x !== 2) throw new Error('x=' + x)", SHORT),
            Ok(())
        );
        // react.js took the job runner and the timers: no script sees them.
        assert_eq!(
            e.eval(
                "if (typeof __rd_jobs !== 'undefined' || typeof __rd_tasks !== 'undefined') throw new Error('seen')",
                SHORT
            ),
            Ok(())
        );
    }

    #[test]
    fn a_microtask_loop_ends_at_a_count_or_at_the_time_limit() {
        let e = engine();
        let Err(JsError::Thrown(msg)) = e.eval("const f = () => queueMicrotask(f); f();", SHORT)
        else {
            panic!("a microtask loop must be an error");
        };
        assert!(msg.contains("Microtasks did not settle"), "{msg}");
        let slow =
            "const g = () => { for (let i = 0; i < 1e6; i++); Promise.resolve().then(g); }; g();";
        assert_eq!(e.eval(slow, SHORT), Err(JsError::Timeout(SHORT)));
    }

    #[test]
    fn the_clock_is_fixed() {
        let e = engine();
        let code = format!(
            "if (Date.now() !== {FIXED_EPOCH_MS} || new Date().getTime() !== {FIXED_EPOCH_MS} \
             || performance.now() !== 0 || new Date(0).getTime() !== 0 \
             || !(new Date() instanceof Date)) throw new Error('clock')"
        );
        assert_eq!(e.eval(&code, SHORT), Ok(()));
    }
}
