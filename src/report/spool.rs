//! Where a run keeps the links it has written until its report is printed:
//! an anonymous temporary file (removed by the system when it is closed,
//! never named in the output), read back a link at a time, once per part
//! of the report that lists the links. A run's memory then holds no link's
//! text, however many links it writes.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};

use super::{Piece, Tally, Written};

/// The written links of a run, in order, and their counts added up.
pub struct Spool {
    file: BufWriter<File>,
    tally: Tally,
    error: Option<io::Error>,
}

impl Spool {
    /// An empty spool in a new temporary file.
    pub fn new() -> Result<Spool, crate::error::Error> {
        let file = tempfile::tempfile().map_err(|e| {
            crate::error::Error::usage(format!(
                "cannot make a temporary file for the report (set $TMPDIR to a writable folder): {e}"
            ))
        })?;
        Ok(Spool {
            file: BufWriter::new(file),
            tally: Tally::default(),
            error: None,
        })
    }

    /// Adds a written link after the others.
    pub fn push(&mut self, w: Written) {
        self.tally.add(&w.tally);
        if self.error.is_some() {
            return;
        }
        if let Err(e) = write_link(&mut self.file, &w) {
            self.error = Some(e);
        }
    }

    /// Ends the writing: the file to read back, or the first write error
    /// (a full disk) as a usage error.
    pub fn close(self) -> Result<Spooled, crate::error::Error> {
        let failed = |e: io::Error| {
            crate::error::Error::usage(format!(
                "cannot write the report's temporary file (set $TMPDIR to a folder with room): {e}"
            ))
        };
        if let Some(e) = self.error {
            return Err(failed(e));
        }
        let file = self.file.into_inner().map_err(|e| failed(e.into_error()))?;
        Ok(Spooled {
            file,
            tally: self.tally,
        })
    }
}

/// A spool written whole, to read back.
pub struct Spooled {
    file: File,
    tally: Tally,
}

impl Spooled {
    /// The links' counts, added up.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// The links' pieces at index `i` (the report's format first, then the
    /// Markdown body), in order, read from the start of the file; a read
    /// error ends the pass and is kept in [`Pass::error`].
    pub(super) fn pass(&self, i: usize) -> Pass<'_> {
        Pass {
            reader: io::BufReader::with_capacity(
                1 << 16,
                At {
                    file: &self.file,
                    at: 0,
                },
            ),
            i,
            error: None,
        }
    }
}

/// One reading of a spool.
pub(super) struct Pass<'a> {
    reader: io::BufReader<At<'a>>,
    i: usize,
    /// The error that ended the pass, if one did.
    pub(super) error: Option<io::Error>,
}

impl Iterator for Pass<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        if self.error.is_some() {
            return None;
        }
        match read_link(&mut self.reader, self.i) {
            Ok(piece) => piece,
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

/// A reader of a file at its own offset (positional reads), so two passes
/// over one file do not move each other.
struct At<'a> {
    file: &'a File,
    at: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.at)?;
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

// The file's records: per link, its number of pieces, then each piece as a
// tag and its strings (each a length and its bytes).
const TEXT: u8 = 0;
const MARKDOWN: u8 = 1;
const SARIF: u8 = 2;

fn write_link(out: &mut impl Write, w: &Written) -> io::Result<()> {
    out.write_all(&(w.pieces.len() as u64).to_le_bytes())?;
    for p in &w.pieces {
        match p {
            Piece::Text(t) => {
                out.write_all(&[TEXT])?;
                write_str(out, t)?;
            }
            Piece::Markdown { row, section } => {
                out.write_all(&[MARKDOWN])?;
                write_str(out, row)?;
                write_str(out, section)?;
            }
            Piece::Sarif {
                results,
                notifications,
            } => {
                out.write_all(&[SARIF])?;
                out.write_all(&(results.len() as u64).to_le_bytes())?;
                for r in results {
                    write_str(out, r)?;
                }
                let n = serde_json::to_string(notifications).map_err(io::Error::other)?;
                write_str(out, &n)?;
            }
        }
    }
    Ok(())
}

fn write_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    out.write_all(&(s.len() as u64).to_le_bytes())?;
    out.write_all(s.as_bytes())
}

/// The next link's piece `i` (`None` at the end of the file).
fn read_link(r: &mut impl Read, i: usize) -> io::Result<Option<Piece>> {
    let mut count = [0u8; 8];
    match r.read_exact(&mut count) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let count = u64::from_le_bytes(count) as usize;
    let mut wanted = None;
    for k in 0..count {
        let piece = read_piece(r)?;
        if k == i {
            wanted = Some(piece);
        }
    }
    Ok(Some(wanted.unwrap_or(Piece::Text(String::new()))))
}

fn read_piece(r: &mut impl Read) -> io::Result<Piece> {
    let mut tag = [0u8; 1];
    r.read_exact(&mut tag)?;
    Ok(match tag[0] {
        TEXT => Piece::Text(read_str(r)?),
        MARKDOWN => Piece::Markdown {
            row: read_str(r)?,
            section: read_str(r)?,
        },
        SARIF => {
            let mut n = [0u8; 8];
            r.read_exact(&mut n)?;
            let n = u64::from_le_bytes(n) as usize;
            let mut results = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                results.push(read_str(r)?);
            }
            let notifications = serde_json::from_str(&read_str(r)?).map_err(io::Error::other)?;
            Piece::Sarif {
                results,
                notifications,
            }
        }
        other => {
            return Err(io::Error::other(format!(
                "the report's temporary file holds an unknown record ({other})"
            )));
        }
    })
}

fn read_str(r: &mut impl Read) -> io::Result<String> {
    let mut len = [0u8; 8];
    r.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len) as usize;
    let mut bytes = Vec::new();
    r.take(len as u64).read_to_end(&mut bytes)?;
    if bytes.len() != len {
        return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
    }
    String::from_utf8(bytes).map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::{Piece, Spool, Tally, Written};

    fn link(n: usize) -> Written {
        Written {
            tally: Tally {
                links: 1,
                drift: n % 2,
                ..Tally::default()
            },
            pieces: vec![
                Piece::Sarif {
                    results: (0..n).map(|k| format!("result {n}.{k}\nline")).collect(),
                    notifications: vec![serde_json::json!({"n": n})],
                },
                Piece::Markdown {
                    row: format!("| {n} |\n"),
                    section: "é\u{1b}\n".repeat(n),
                },
            ],
        }
    }

    #[test]
    fn links_come_back_in_order_piece_by_piece_and_passes_do_not_move_each_other() {
        let mut spool = Spool::new().unwrap();
        for n in 0..300 {
            spool.push(link(n));
        }
        let spooled = spool.close().unwrap();
        assert_eq!(spooled.tally().links, 300);
        assert_eq!(spooled.tally().drift, 150);
        let mut sarif = spooled.pass(0);
        let mut markdown = spooled.pass(1);
        for n in 0..300 {
            // Two passes read alternately, each at its own place.
            let Some(Piece::Sarif {
                results,
                notifications,
            }) = sarif.next()
            else {
                panic!("a SARIF piece")
            };
            assert_eq!(results.len(), n);
            assert_eq!(notifications, vec![serde_json::json!({"n": n})]);
            let Some(Piece::Markdown { row, section }) = markdown.next() else {
                panic!("a Markdown piece")
            };
            assert_eq!(row, format!("| {n} |\n"));
            assert_eq!(section, "é\u{1b}\n".repeat(n));
        }
        assert!(sarif.next().is_none() && markdown.next().is_none());
        assert!(sarif.error.is_none() && markdown.error.is_none());
    }

    #[test]
    fn an_empty_spool_reads_nothing() {
        let spooled = Spool::new().unwrap().close().unwrap();
        let mut pass = spooled.pass(0);
        assert!(pass.next().is_none());
        assert!(pass.error.is_none());
        assert_eq!(spooled.tally(), &Tally::default());
    }
}
