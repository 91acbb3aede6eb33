//! Where a command's standard output goes when its output is read (inside
//! `$(...)`, or a pipeline stage whose text the next one reads): its
//! redirections, applied in order as bash applies them, decide whether what
//! it writes is captured (`echo 8`, `echo 8 2>&1`) or goes elsewhere
//! (`echo 8 >&2`, `echo 8 >/dev/null`, `{ echo 8; } >f`).

use std::collections::BTreeMap;

use brush_parser::ast::{self, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect};

use super::{Interp, Status};
use crate::error::Error;

/// Where one file descriptor writes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// The output being read (standard output as the command got it).
    Captured,
    /// Anywhere else (standard error, a file, closed).
    Elsewhere,
    /// Not knowable (a descriptor this command did not open, a pipe to a
    /// process substitution, a word that is not a literal).
    Unknown(String),
}

/// Where standard output goes after `redirects`, in order.
fn stdout_after<'a>(redirects: impl Iterator<Item = &'a IoRedirect>) -> Target {
    let mut fds: BTreeMap<i32, Target> = BTreeMap::new();
    fds.insert(1, Target::Captured);
    fds.insert(2, Target::Elsewhere);
    let of = |fds: &BTreeMap<i32, Target>, n: i32| {
        fds.get(&n).cloned().unwrap_or_else(|| {
            Target::Unknown(format!(
                "it writes to file descriptor {n}, opened outside the command (where it points is not followed)"
            ))
        })
    };
    for r in redirects {
        match r {
            IoRedirect::File(fd, kind, target) => {
                let input = matches!(
                    kind,
                    IoFileRedirectKind::Read
                        | IoFileRedirectKind::ReadAndWrite
                        | IoFileRedirectKind::DuplicateInput
                );
                let n = fd.unwrap_or(if input { 0 } else { 1 });
                let dup = matches!(
                    kind,
                    IoFileRedirectKind::DuplicateOutput | IoFileRedirectKind::DuplicateInput
                );
                let to = match target {
                    IoFileRedirectTarget::Fd(m) if dup => of(&fds, *m),
                    IoFileRedirectTarget::Duplicate(w) if dup => {
                        let v = w.value.as_str();
                        match v.strip_suffix('-').unwrap_or(v).parse::<i32>() {
                            // `N>&M-`: M is moved (closed after the copy).
                            Ok(m) if v.ends_with('-') => {
                                let t = of(&fds, m);
                                fds.insert(m, Target::Elsewhere);
                                t
                            }
                            Ok(m) => of(&fds, m),
                            // `>&-`: closed.
                            Err(_) if v == "-" => Target::Elsewhere,
                            Err(_) if v.contains(['$', '`', '\\', '\'', '"']) => Target::Unknown(
                                format!("its output goes to `>&{v}`, which is not evaluated"),
                            ),
                            // `>&FILE`: standard output and error to FILE.
                            Err(_) => {
                                fds.insert(2, Target::Elsewhere);
                                Target::Elsewhere
                            }
                        }
                    }
                    IoFileRedirectTarget::ProcessSubstitution(..) => Target::Unknown(
                        "its output goes to a process substitution, which runs beside it".into(),
                    ),
                    _ => Target::Elsewhere,
                };
                fds.insert(n, to);
            }
            IoRedirect::HereDocument(fd, _) | IoRedirect::HereString(fd, _) => {
                fds.insert(fd.unwrap_or(0), Target::Elsewhere);
            }
            IoRedirect::OutputAndError(..) => {
                fds.insert(1, Target::Elsewhere);
                fds.insert(2, Target::Elsewhere);
            }
        }
    }
    of(&fds, 1)
}

impl Interp<'_> {
    /// Runs `run` (a command with `redirects`) where its output is read: when
    /// the redirections send standard output elsewhere, what it writes is
    /// not part of the output; when where it goes is not knowable, neither
    /// is the output.
    pub(super) fn with_stdout<'a>(
        &mut self,
        redirects: impl Iterator<Item = &'a IoRedirect>,
        run: impl FnOnce(&mut Self) -> Result<Status, Error>,
    ) -> Result<Status, Error> {
        if self.capture.is_none() {
            return run(self);
        }
        let target = stdout_after(redirects);
        if target == Target::Captured {
            return run(self);
        }
        let saved = (
            self.capture.replace(String::new()),
            self.capture_unknown.take(),
        );
        let r = run(self);
        (self.capture, self.capture_unknown) = saved;
        if let Target::Unknown(why) = target {
            self.capture_unknown
                .get_or_insert(format!("the output is not knowable: {why}"));
        }
        r
    }

    /// `exec >&2` (redirections only) where the output is read: the rest of
    /// the output goes where they say, which is not followed.
    pub(super) fn exec_redirects(&mut self, sc: &ast::SimpleCommand) {
        if self.capture.is_none() {
            return;
        }
        if stdout_after(redirects_of(sc)) != Target::Captured {
            self.capture_unknown.get_or_insert(
                "`exec` moves the standard output of the rest of the text, which is not followed"
                    .into(),
            );
        }
    }
}

/// The redirections of a simple command, prefix then suffix, in order.
pub(super) fn redirects_of(sc: &ast::SimpleCommand) -> impl Iterator<Item = &ast::IoRedirect> {
    sc.prefix
        .iter()
        .flat_map(|p| p.0.iter())
        .chain(sc.suffix.iter().flat_map(|s| s.0.iter()))
        .filter_map(|it| match it {
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => Some(r),
            _ => None,
        })
}
