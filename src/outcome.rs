//! What a command the library runs for a whole command line (`pbc lookup`, `diff`, `migrate`)
//! gives back: the text for standard output, what it has to say on standard error as data
//! (diagnostics with the sources they point into, and lines of their own), and the exit
//! status. The caller renders what is said, in colour or not; `pbc serve` and the tests read
//! the same data.
//!
//! It owns only the shape; it must not render on its own initiative nor print.

use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap, Span};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One thing said on standard error.
pub enum Said {
    /// Diagnostics, with the sources their spans point into (empty for diagnostics that point
    /// nowhere: a model's, the command line's).
    Diagnostics {
        sources: Arc<SourceMap>,
        diagnostics: Vec<Diagnostic>,
    },
    /// A line of its own (`pbc: 3 of 10 nodes differ`, `notice: ...`), without its newline.
    Line(String),
}

impl Said {
    /// Diagnostics that point into no source.
    pub fn unplaced(diagnostics: Vec<Diagnostic>) -> Said {
        Said::Diagnostics {
            sources: Arc::default(),
            diagnostics,
        }
    }

    /// Diagnostics that point into `files`, with copies of the files they point into (only
    /// those: what is said outlives the tree it was said about, and is small).
    pub fn placed(files: &SourceMap, mut diagnostics: Vec<Diagnostic>) -> Said {
        let mut used = BTreeMap::new();
        for d in &diagnostics {
            for span in std::iter::once(d.span).chain(d.labels.iter().map(|l| l.0)) {
                if !span.is_none() && (span.file.0 as usize) < files.len() {
                    used.insert(span.file, FileId(0));
                }
            }
        }
        // New numbers in the old order, so that diagnostics sorted by file stay in order.
        let mut sources = SourceMap::with_capacity(used.len());
        for (old, new) in used.iter_mut() {
            *new = sources.add(files.name(*old), files.source(*old));
        }
        let moved = |span: &mut Span| {
            if let Some(new) = used.get(&span.file) {
                span.file = *new;
            }
        };
        for d in &mut diagnostics {
            d.for_each_span_mut(moved);
        }
        Said::Diagnostics {
            sources: Arc::new(sources),
            diagnostics,
        }
    }

    /// `pbc: MESSAGE`.
    pub fn pbc(message: impl std::fmt::Display) -> Said {
        Said::Line(format!("pbc: {message}"))
    }
}

/// A command's whole result.
pub struct Outcome {
    pub stdout: String,
    pub said: Vec<Said>,
    /// 0 done (all found, nothing differs); 1 not found, differing or an error; 2 usage.
    pub status: u8,
}

impl Outcome {
    /// A failure before anything was read, said as one line: exit `status`.
    pub fn failed(status: u8, message: impl std::fmt::Display) -> Outcome {
        Outcome {
            stdout: String::new(),
            said: vec![Said::pbc(message)],
            status,
        }
    }

    /// A usage error: exit 2.
    pub fn usage(message: impl std::fmt::Display) -> Outcome {
        Outcome::failed(2, message)
    }

    /// Diagnostics with no source to show (a model's, the command line's): exit 1.
    pub fn unplaced(d: Diagnostic) -> Outcome {
        Outcome {
            stdout: String::new(),
            said: vec![Said::unplaced(vec![d])],
            status: 1,
        }
    }

    /// Diagnostics in `sources` (all of them theirs), and nothing else: exit 1.
    pub fn diagnostics(sources: SourceMap, diagnostics: Vec<Diagnostic>) -> Outcome {
        Outcome {
            stdout: String::new(),
            said: vec![Said::Diagnostics {
                sources: Arc::new(sources),
                diagnostics,
            }],
            status: 1,
        }
    }

    /// Diagnostics that point into `files` ([`Said::placed`]), and nothing else: exit 1.
    pub fn placed(files: &SourceMap, diagnostics: Vec<Diagnostic>) -> Outcome {
        Outcome {
            stdout: String::new(),
            said: vec![Said::placed(files, diagnostics)],
            status: 1,
        }
    }

    /// What is said, as text ([`crate::diag::render`]; ANSI colours with `colour`).
    pub fn stderr(&self, colour: bool) -> String {
        let mut text = String::new();
        for said in &self.said {
            match said {
                Said::Diagnostics {
                    sources,
                    diagnostics,
                } => text.push_str(&crate::diag::render(sources, diagnostics, colour)),
                Said::Line(line) => {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;

    /// Diagnostics said with copies of only their files render as they do against the whole
    /// tree's sources, labels and order included.
    #[test]
    fn placed_diagnostics_render_as_against_every_file() {
        let mut files = SourceMap::new();
        let ids: Vec<FileId> = (0..5)
            .map(|i| files.add(format!("f{i}.pp"), format!("$a = {i}\n$b = oops{i}\n")))
            .collect();
        let diagnostics = vec![
            Diagnostic::error("E1", Span::new(ids[3], 5, 9), "later file")
                .with_label(Span::new(ids[1], 0, 2), "other file"),
            Diagnostic::error("E2", Span::new(ids[1], 12, 17), "earlier file"),
            Diagnostic::error("E3", Span::NONE, "no file"),
        ];
        let whole = crate::diag::render(&files, &diagnostics, false);
        let Said::Diagnostics {
            sources,
            diagnostics: moved,
        } = Said::placed(&files, diagnostics)
        else {
            panic!("diagnostics are said as diagnostics");
        };
        assert_eq!(sources.len(), 2);
        assert_eq!(crate::diag::render(&sources, &moved, false), whole);
        assert!(
            whole.contains("f3.pp:1:6") && whole.contains("f1.pp"),
            "{whole}"
        );
    }
}
