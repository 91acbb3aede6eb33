//! A QuickJS sandbox: no I/O globals, a memory limit, a stack limit and a time
//! limit per evaluation (an interrupt handler checks a deadline).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt, CaughtError, Context, Function, Object, Runtime};

/// The limits a sandbox runs under.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall time one evaluation may take.
    pub time: Duration,
    /// Bytes the JS heap may hold.
    pub memory: usize,
    /// Bytes of native stack JS may use (deep recursion ends here).
    pub stack: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time: Duration::from_secs(10),
            memory: 256 << 20,
            stack: 1 << 20,
        }
    }
}

/// Why an evaluation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsError {
    /// The time limit was reached.
    Timeout(Duration),
    /// The memory limit was reached.
    OutOfMemory(usize),
    /// The stack limit was reached (deep recursion).
    StackOverflow,
    /// The script threw.
    Thrown(String),
}

impl std::fmt::Display for JsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsError::Timeout(d) => write!(
                f,
                "JavaScript did not finish within the time limit ({} ms)",
                d.as_millis()
            ),
            JsError::OutOfMemory(m) => {
                write!(f, "JavaScript exceeded the memory limit ({} MiB)", m >> 20)
            }
            JsError::StackOverflow => write!(
                f,
                "JavaScript exceeded the stack limit (recursion too deep)"
            ),
            JsError::Thrown(m) => write!(f, "JavaScript error: {m}"),
        }
    }
}

/// One QuickJS runtime and context with limits; not `Send`: use it on the
/// thread that made it.
pub struct Sandbox {
    // The context must drop before the runtime.
    ctx: Context,
    _rt: Runtime,
    limits: Limits,
    /// The deadline, in nanoseconds since `epoch`; 0 = none.
    deadline: Arc<AtomicU64>,
    epoch: Instant,
}

impl Sandbox {
    /// A fresh sandbox with the prelude (inert browser stand-ins) and the
    /// headless React runtime loaded.
    pub fn new(limits: Limits) -> Result<Sandbox, JsError> {
        let rt = Runtime::new().map_err(|e| JsError::Thrown(e.to_string()))?;
        rt.set_memory_limit(limits.memory);
        rt.set_max_stack_size(limits.stack);
        rt.set_gc_threshold(limits.memory / 8);
        let deadline = Arc::new(AtomicU64::new(0));
        let epoch = Instant::now();
        let d = deadline.clone();
        rt.set_interrupt_handler(Some(Box::new(move || {
            let limit = d.load(Ordering::Relaxed);
            limit != 0 && epoch.elapsed().as_nanos() as u64 > limit
        })));
        let ctx = Context::full(&rt).map_err(|e| JsError::Thrown(e.to_string()))?;
        let sandbox = Sandbox {
            ctx,
            _rt: rt,
            limits,
            deadline,
            epoch,
        };
        sandbox.eval(include_str!("prelude.js"))?;
        sandbox.eval(include_str!("react.js"))?;
        Ok(sandbox)
    }

    fn arm(&self) {
        let until = self.epoch.elapsed() + self.limits.time;
        self.deadline
            .store(until.as_nanos().max(1) as u64, Ordering::Relaxed);
    }

    fn disarm(&self) {
        self.deadline.store(0, Ordering::Relaxed);
    }

    /// Evaluates a script (global code) within the limits.
    pub fn eval(&self, code: &str) -> Result<(), JsError> {
        self.arm();
        let r = self.ctx.with(|ctx| {
            ctx.eval::<(), _>(code)
                .catch(&ctx)
                .map_err(|e| self.classify(e))
        });
        self.disarm();
        r
    }

    /// Calls `__rd.<name>(target, arg)` and returns the string it returns.
    pub fn call(&self, name: &str, target: usize, arg: &str) -> Result<String, JsError> {
        self.arm();
        let r = self.ctx.with(|ctx| {
            let run = || -> rquickjs::Result<String> {
                let rd: Object = ctx.globals().get("__rd")?;
                let f: Function = rd.get(name)?;
                f.call((target as u32, arg.to_string()))
            };
            run().catch(&ctx).map_err(|e| self.classify(e))
        });
        self.disarm();
        r
    }

    fn classify(&self, e: CaughtError<'_>) -> JsError {
        let text = match &e {
            CaughtError::Exception(ex) => {
                let msg = ex.message().unwrap_or_default();
                let name: String = ex
                    .get::<_, rquickjs::Coerced<String>>("name")
                    .map(|c| c.0)
                    .unwrap_or_default();
                if name.is_empty() {
                    msg
                } else {
                    format!("{name}: {msg}")
                }
            }
            CaughtError::Value(v) => v
                .as_string()
                .and_then(|s| s.to_string().ok())
                .unwrap_or_else(|| format!("{v:?}")),
            CaughtError::Error(e) => e.to_string(),
        };
        let lower = text.to_ascii_lowercase();
        if lower.contains("interrupted") {
            JsError::Timeout(self.limits.time)
        } else if lower.contains("out of memory") {
            JsError::OutOfMemory(self.limits.memory)
        } else if lower.contains("stack overflow") || lower.contains("call stack size") {
            JsError::StackOverflow
        } else {
            JsError::Thrown(text)
        }
    }
}
