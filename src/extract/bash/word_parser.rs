//! brush-parser's word parser, bounded in time and cached.
//!
//! The word parser is a backtracking PEG: fuzzing found words on which it takes
//! seconds or more (exponential in nested, unclosed quotes and expansions). It
//! runs on a worker thread of its own; a parse that does not finish within
//! [`WORD_PARSE_TIME`] fails the word, and the worker is abandoned (it stops
//! once the parse ends). Results are cached per thread, as the same words recur
//! across the points of a matrix.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};

use brush_parser::ParserOptions;
use brush_parser::word::{self, WordPieceWithSource};

use super::budget::fixed::WORD_PARSE_TIME;

/// Cached parses kept per thread before the cache is emptied.
const CACHE_CAPACITY: usize = 4_096;

/// Words longer than this (bytes) are not cached: recipe words are short, and
/// the cache must stay small however many distinct words a process sees.
const CACHE_WORD_LIMIT: usize = 512;

/// The pieces of a parsed word, or why it could not be parsed.
pub(crate) type Parsed = Result<Vec<WordPieceWithSource>, String>;

struct Worker {
    requests: Sender<String>,
    replies: Receiver<Parsed>,
}

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
    static CACHE: RefCell<HashMap<String, Parsed>> = RefCell::new(HashMap::new());
}

fn spawn_worker() -> Result<Worker, String> {
    let (req_tx, req_rx) = mpsc::channel::<String>();
    let (rep_tx, rep_rx) = mpsc::channel::<Parsed>();
    super::quiet_parser_panics();
    std::thread::Builder::new()
        .name(super::PARSER_THREAD.into())
        .stack_size(super::parse::PARSER_STACK)
        .spawn(move || {
            let opts = ParserOptions::default();
            for raw in req_rx {
                // brush-parser can panic on malformed words: a parse failure.
                let parsed = std::panic::catch_unwind(|| word::parse(&raw, &opts))
                    .map_err(|_| format!("cannot parse word {raw:?}: the word parser failed"))
                    .and_then(|r| r.map_err(|e| format!("cannot parse word {raw:?}: {e}")));
                if rep_tx.send(parsed).is_err() {
                    break;
                }
            }
        })
        .map_err(|e| format!("cannot start the bash word parser: {e}"))?;
    Ok(Worker {
        requests: req_tx,
        replies: rep_rx,
    })
}

/// Parses one word into pieces, within [`WORD_PARSE_TIME`].
pub(crate) fn parse(raw: &str) -> Parsed {
    if let Some(hit) = CACHE.with(|c| c.borrow().get(raw).cloned()) {
        return hit;
    }
    let parsed = WORKER.with(|w| {
        let mut slot = w.borrow_mut();
        if slot.is_none() {
            *slot = Some(spawn_worker()?);
        }
        let worker = slot.as_ref().expect("worker just set");
        if worker.requests.send(raw.to_string()).is_err() {
            *slot = None;
            return Err("the bash word parser stopped".to_string());
        }
        match worker.replies.recv_timeout(WORD_PARSE_TIME) {
            Ok(parsed) => Ok(parsed),
            Err(RecvTimeoutError::Timeout) => {
                *slot = None;
                Err(format!(
                    "bash parse budget exceeded: the bash word parser did not finish within {} s on this word (parser time budget)",
                    WORD_PARSE_TIME.as_secs()
                ))
            }
            Err(RecvTimeoutError::Disconnected) => {
                *slot = None;
                Err("the bash word parser stopped".to_string())
            }
        }
    });
    // Only finished parses are cached: a failure of the worker is not a fact about the word.
    let parsed = parsed?;
    if raw.len() > CACHE_WORD_LIMIT {
        return parsed;
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_CAPACITY {
            c.clear();
        }
        c.insert(raw.to_string(), parsed.clone());
    });
    parsed
}
