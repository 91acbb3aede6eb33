//! Where a report's text goes as it is assembled: a string (a report kept
//! whole, such as `lint-docs`' SARIF log), or a stream that is filtered
//! (secrets masked, controls escaped: `crate::secret::sanitize`), coloured
//! when asked and written a megabyte of whole lines at a time, so a large
//! report is never held whole.

use std::fmt;
use std::io;

/// How much text a stream holds before it writes the whole lines of it.
const PIECE: usize = 1 << 20;

/// A report's text as it is assembled.
pub struct Sink<'a> {
    buf: String,
    target: Target<'a>,
    error: Option<io::Error>,
}

enum Target<'a> {
    /// Kept whole, not filtered (its reader filters it).
    Text,
    /// Filtered and written as it comes.
    Stream {
        out: &'a mut dyn io::Write,
        /// Coloured on the report's own words (`crate::report::color`).
        color: bool,
    },
}

impl<'a> Sink<'a> {
    /// A sink that keeps the text ([`Sink::into_text`]).
    pub fn text() -> Sink<'static> {
        Sink {
            buf: String::new(),
            target: Target::Text,
            error: None,
        }
    }

    /// A sink that filters the text and writes it to `out`, coloured when
    /// `color`; [`Sink::finish`] writes the rest and says whether every
    /// write succeeded.
    pub fn stream(out: &'a mut dyn io::Write, color: bool) -> Sink<'a> {
        Sink {
            buf: String::with_capacity(PIECE + PIECE / 4),
            target: Target::Stream { out, color },
            error: None,
        }
    }

    /// Appends text.
    pub fn push_str(&mut self, s: &str) {
        self.buf.push_str(s);
        self.spill();
    }

    /// Appends a character.
    pub fn push(&mut self, c: char) {
        self.buf.push(c);
        self.spill();
    }

    /// The text kept by a [`Sink::text`] sink.
    pub fn into_text(self) -> String {
        self.buf
    }

    /// Writes what a stream still holds; the first write error, if any.
    pub fn finish(mut self) -> io::Result<()> {
        let rest = std::mem::take(&mut self.buf);
        self.write(&rest);
        match self.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// A stream past [`PIECE`] writes its whole lines.
    fn spill(&mut self) {
        if matches!(self.target, Target::Text) || self.buf.len() < PIECE {
            return;
        }
        // The filter works line by line: cut after the last newline.
        let Some(end) = self.buf.rfind('\n') else {
            return;
        };
        let tail = self.buf.split_off(end + 1);
        let head = std::mem::replace(&mut self.buf, tail);
        self.write(&head);
    }

    fn write(&mut self, text: &str) {
        let Target::Stream { out, color } = &mut self.target else {
            return;
        };
        if text.is_empty() || self.error.is_some() {
            return;
        }
        let filtered = crate::secret::sanitize(text);
        let printed = if *color {
            crate::report::color::paint(&filtered)
        } else {
            filtered
        };
        if let Err(e) = out.write_all(printed.as_bytes()) {
            self.error = Some(e);
        }
    }
}

impl fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Sink;

    #[test]
    fn a_stream_writes_whole_lines_and_the_same_bytes_as_one_piece() {
        let line = "x".repeat(999) + "\n";
        let mut text = String::new();
        let mut out = Vec::new();
        let mut sink = Sink::stream(&mut out, false);
        for _ in 0..3000 {
            sink.push_str(&line);
            text.push_str(&line);
        }
        sink.push_str("no newline at the end");
        text.push_str("no newline at the end");
        sink.finish().unwrap();
        assert_eq!(out, text.into_bytes());
    }

    #[test]
    fn a_text_sink_keeps_everything_unfiltered() {
        let mut sink = Sink::text();
        sink.push_str("a\u{1b}b");
        sink.push('\n');
        assert_eq!(sink.into_text(), "a\u{1b}b\n");
    }
}
