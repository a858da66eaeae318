//! Diagnostics: the stable codes, their wording, sorting and rendering (terminal and JSON).
//!
//! Every other stage returns [`Diagnostic`] values with a code from [`codes`] and a primary span;
//! this module alone decides how they look. It must not inspect syntax or run checks itself.
//!
//! Wording rules (apply to every message, in every stage):
//! - one line, starting lower case, no final period; Puppet terms, never Rust type names;
//! - user input and keywords in backticks: ``unexpected `=>` ``, ``unknown option `combinatr` ``;
//! - a category value as Puppet writes it, in backticks: alone as `` `'ams'` ``, in a predicate
//!   as `` `dc 'ams'` `` (``for requests where `dc` is not `'ams'` ``, ``bound twice when
//!   `node 'kermit'` ``);
//! - a rule that relates two things says what is required before what was found: ``this
//!   file's path requires `bindings team::web`, but the file declares `bindings web` ``;
//! - say what is wrong at the primary span; put the remedy in a note (`help: ...`), and a
//!   "did you mean `x`" where a word is one edit away from a keyword or known name;
//! - where Puppet has an issue code for the same problem, use Puppet's code, so that users can
//!   search for it; pbc's own codes follow the same UPPER_SNAKE style.

pub mod codes;
pub mod expected;
pub mod sarif;

use crate::span::{SourceMap, Span};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::term;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One finding, with a stable code and a primary span.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    /// Secondary spans with their own short text.
    pub labels: Vec<(Span, String)>,
    /// `help: ...` / `note: ...` lines.
    pub notes: Vec<String>,
    /// A finding of the rules across files (layers, composition): printed after every file's
    /// own findings, since it is often the consequence of one of them.
    pub across_files: bool,
    /// A value that fails only the lookups that use it (a Hiera 5 datum that cannot be
    /// interpolated, as Puppet interpolates a value when a lookup returns it): `pbc check`
    /// reports it, `pbc lookup` answers every other key.
    pub per_value: bool,
    /// The edit that does what the help says (a did-you-mean, a missing `to`), offered by an
    /// editor as a quick fix and listed in JSON and SARIF.
    pub fix: Option<Box<Fix>>,
}

/// An edit in a diagnostic's file: `replacement` in place of the text at `span`, or, when
/// `word` is given, in place of the one occurrence of `word` as a whole word within that text
/// (a finding's span is often a whole attribute or type, its misspelt word a part of it). An
/// edit that cannot be placed for certain ([`Fix::edit`]) is not offered.
#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    pub span: Span,
    pub word: Option<String>,
    pub replacement: String,
}

impl Fix {
    /// Where the edit goes and what it writes there, in `files`; `None` when its place is not
    /// in `files`, or `word` is not in its span's text exactly once as a whole word.
    pub fn edit(&self, files: &SourceMap) -> Option<(Span, &str)> {
        if self.span.is_none() || self.span.file.0 as usize >= files.len() {
            return None;
        }
        let text = files.source(self.span.file).get(self.span.range())?;
        let Some(word) = self.word.as_deref().filter(|w| !w.is_empty()) else {
            return Some((self.span, &self.replacement));
        };
        let is_word_char = |c: char| c.is_alphanumeric() || c == '_';
        let mut places = text.match_indices(word).filter(|&(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
        });
        let (at, _) = places.next()?;
        if places.next().is_some() {
            return None;
        }
        let start = self.span.start + at as u32;
        let span = Span {
            file: self.span.file,
            start,
            end: start + word.len() as u32,
        };
        Some((span, &self.replacement))
    }

    /// What an editor calls the edit: `` replace `old` with `new` `` or `` insert `new` ``.
    pub fn title(&self, files: &SourceMap) -> Option<String> {
        let (span, replacement) = self.edit(files)?;
        let old = files.source(span.file).get(span.range())?;
        Some(if old.is_empty() {
            format!("insert `{}`", replacement.trim())
        } else {
            format!("replace `{old}` with `{replacement}`")
        })
    }
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            across_files: false,
            per_value: false,
            fix: None,
        }
    }

    /// Adds the edit that does what the help says ([`Fix`]).
    pub fn with_fix(mut self, span: Span, replacement: impl Into<String>) -> Diagnostic {
        self.fix = Some(Box::new(Fix {
            span,
            word: None,
            replacement: replacement.into(),
        }));
        self
    }

    /// `help: did you mean `suggestion`?`, with the edit that writes `suggestion` in place of
    /// `word` within the primary span.
    pub fn did_you_mean(self, word: &str, suggestion: &str) -> Diagnostic {
        self.with_note(format!("help: did you mean `{suggestion}`?"))
            .with_word_fix(word, suggestion)
    }

    /// Adds the edit that writes `replacement` in place of `word` within the primary span.
    pub fn with_word_fix(mut self, word: &str, replacement: &str) -> Diagnostic {
        self.fix = Some(Box::new(Fix {
            span: self.span,
            word: Some(word.to_string()),
            replacement: replacement.to_string(),
        }));
        self
    }

    /// Marks a finding that fails only the lookups of the value it points at.
    pub fn per_value(mut self) -> Diagnostic {
        self.per_value = true;
        self
    }

    /// Marks a finding of the rules across files.
    pub fn across_files(mut self) -> Diagnostic {
        self.across_files = true;
        self
    }

    /// Points the diagnostic's spans at `file`: for findings made on a file loaded on its own,
    /// reported with the same file in a larger [`SourceMap`].
    pub fn move_to_file(&mut self, file: crate::span::FileId) {
        self.for_each_span_mut(|span| {
            if !span.is_none() {
                span.file = file;
            }
        });
    }

    /// `f` on every span the diagnostic holds (its own, its labels', its fix's): for moving
    /// it to another file or place.
    pub fn for_each_span_mut(&mut self, mut f: impl FnMut(&mut Span)) {
        f(&mut self.span);
        for (span, _) in &mut self.labels {
            f(span);
        }
        if let Some(fix) = self.fix.as_mut() {
            f(&mut fix.span);
        }
    }

    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sorts each file's own findings (syntax, Puppet's rules, a file's bindings rules) before the
/// findings across files, each group by file, position, then code, and drops exact duplicates:
/// a cause is printed before its consequences, and output order never depends on the order in
/// which passes found things.
pub fn sort(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| {
        (
            a.across_files,
            a.span.file,
            a.span.start,
            a.span.end,
            a.code,
            &a.message,
        )
            .cmp(&(
                b.across_files,
                b.span.file,
                b.span.start,
                b.span.end,
                b.code,
                &b.message,
            ))
    });
    diags.dedup();
}

/// Renders diagnostics as codespan-reporting text (no colour: output is stable for snapshots
/// and logs).
pub fn render_text(files: &SourceMap, diags: &[Diagnostic]) -> String {
    render(files, diags, false)
}

/// [`render_text`], with ANSI colours when `colour` (a terminal that wants them).
pub fn render(files: &SourceMap, diags: &[Diagnostic], colour: bool) -> String {
    if colour {
        render_to(term::termcolor::Ansi::new(Vec::new()), files, diags)
    } else {
        render_to(term::termcolor::NoColor::new(Vec::new()), files, diags)
    }
}

/// A writer of rendered text that gives its bytes back.
trait TextOut: term::termcolor::WriteColor {
    fn bytes_mut(&mut self) -> &mut Vec<u8>;
    fn into_bytes(self) -> Vec<u8>;
}

impl TextOut for term::termcolor::NoColor<Vec<u8>> {
    fn bytes_mut(&mut self) -> &mut Vec<u8> {
        self.get_mut()
    }
    fn into_bytes(self) -> Vec<u8> {
        self.into_inner()
    }
}

impl TextOut for term::termcolor::Ansi<Vec<u8>> {
    fn bytes_mut(&mut self) -> &mut Vec<u8> {
        self.get_mut()
    }
    fn into_bytes(self) -> Vec<u8> {
        self.into_inner()
    }
}

fn render_to(mut out: impl TextOut, files: &SourceMap, diags: &[Diagnostic]) -> String {
    let config = term::Config::default();
    // Past a few findings of one code in one file the rest repeat what was shown (each with
    // its source lines, which a machine-made file can make huge): they are counted instead.
    let mut shown: std::collections::BTreeMap<(crate::span::FileId, &str), usize> =
        std::collections::BTreeMap::new();
    for d in diags {
        // Findings without a place (a key not found, a facts file) are each their own.
        if !d.span.is_none() {
            let count = shown.entry((d.span.file, d.code)).or_insert(0);
            *count += 1;
            if *count > MAX_SHOWN_PER_CODE {
                continue;
            }
        }
        if files.positions(d.span).is_none() {
            let mut text = format!("{}[{}]: {}\n", severity_word(d.severity), d.code, d.message);
            for n in &d.notes {
                text.push_str(&format!("  = {n}\n"));
            }
            text.push('\n');
            out.bytes_mut().extend_from_slice(text.as_bytes());
            continue;
        }
        let cs = to_codespan(d);
        if term::emit_to_write_style(&mut out, &config, files, &cs).is_err() {
            // A span outside its file is a pbc bug; still say something useful.
            let place = match files.positions(d.span) {
                Some(((line, col), _)) => format!("{}:{line}:{col}", files.name(d.span.file)),
                None => String::from("?"),
            };
            let text = format!(
                "{}[{}]: {}\n  --> {place}\n",
                severity_word(d.severity),
                d.code,
                d.message,
            );
            out.bytes_mut().extend_from_slice(text.as_bytes());
        }
    }
    for ((file, code), count) in shown {
        if count > MAX_SHOWN_PER_CODE {
            let text = format!(
                "... and {} more `{code}` findings in {} (`--error-format json` lists every one)\n\n",
                count - MAX_SHOWN_PER_CODE,
                files.name(file)
            );
            out.bytes_mut().extend_from_slice(text.as_bytes());
        }
    }
    String::from_utf8_lossy(&out.into_bytes()).into_owned()
}

/// How many findings of one code in one file the text rendering shows.
pub const MAX_SHOWN_PER_CODE: usize = 20;

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn to_codespan(d: &Diagnostic) -> CsDiagnostic<crate::span::FileId> {
    let base = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
    };
    let mut labels = vec![Label::primary(d.span.file, d.span.range())];
    for (span, text) in d.labels.iter().filter(|(span, _)| !span.is_none()) {
        labels.push(Label::secondary(span.file, span.range()).with_message(text.clone()));
    }
    base.with_code(d.code)
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(d.notes.clone())
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    severity: Severity,
    code: &'a str,
    #[serde(flatten)]
    at: JsonLocation<'a>,
    notes: &'a [String],
    /// The secondary locations (the other binding of a conflict ...), as SARIF's
    /// `relatedLocations`; left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related: Vec<JsonLocation<'a>>,
    /// The edit that does what the help says: its place (`message` is the edit's title) and
    /// the text to write there; left out when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<JsonFix<'a>>,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    #[serde(flatten)]
    at: JsonLocation<'a>,
    replacement: &'a str,
}

/// A place a diagnostic points at, with what it says there (1-based, columns in characters).
/// A diagnostic about no place in a file (the command line, a link pbc does not follow, a
/// file it cannot read) has `null` for the file and its positions.
#[derive(Serialize)]
struct JsonLocation<'a> {
    message: std::borrow::Cow<'a, str>,
    file: Option<&'a str>,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
}

impl<'a> JsonLocation<'a> {
    fn new(
        files: &'a SourceMap,
        span: crate::span::Span,
        message: impl Into<std::borrow::Cow<'a, str>>,
    ) -> Self {
        let message = message.into();
        match files.positions(span) {
            Some(((line, column), (end_line, end_column))) => JsonLocation {
                message,
                file: Some(files.name(span.file)),
                line: Some(line),
                column: Some(column),
                end_line: Some(end_line),
                end_column: Some(end_column),
            },
            None => JsonLocation {
                message,
                file: None,
                line: None,
                column: None,
                end_line: None,
                end_column: None,
            },
        }
    }
}

#[derive(Serialize)]
struct JsonSummary {
    files: usize,
    errors: usize,
    warnings: usize,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: JsonSummary,
}

/// The `--error-format json` document: `{"diagnostics": [...], "summary": {...}}`.
pub fn render_json(files: &SourceMap, diags: &[Diagnostic], file_count: usize) -> String {
    let diagnostics = diags
        .iter()
        .map(|d| JsonDiagnostic {
            severity: d.severity,
            code: d.code,
            at: JsonLocation::new(files, d.span, d.message.as_str()),
            notes: &d.notes,
            related: d
                .labels
                .iter()
                .map(|(span, message)| JsonLocation::new(files, *span, message.as_str()))
                .collect(),
            fix: d.fix.as_ref().and_then(|fix| {
                let (span, replacement) = fix.edit(files)?;
                Some(JsonFix {
                    at: JsonLocation::new(files, span, fix.title(files)?),
                    replacement,
                })
            }),
        })
        .collect();
    let report = JsonReport {
        diagnostics,
        summary: JsonSummary {
            files: file_count,
            errors: diags.iter().filter(|d| d.is_error()).count(),
            warnings: diags.iter().filter(|d| !d.is_error()).count(),
        },
    };
    let mut s = serde_json::to_string_pretty(&report).unwrap_or_else(|_| String::from("{}"));
    s.push('\n');
    s
}

/// The last line of human output: `N files checked: E errors, W warnings`.
pub fn summary_line(diags: &[Diagnostic], file_count: usize) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "{} checked: {}, {}\n",
        plural(file_count, "file"),
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}

/// The Levenshtein distance between `a` and `b` when it is at most `limit`, else `None`, for
/// "did you mean" suggestions. Only the cells within `limit` of the diagonal are computed and a
/// row past the limit stops it, so a suggestion among many long names (every key of a tree, a
/// megabyte-long name) costs their length times the limit, not their lengths multiplied.
pub fn edit_distance_within(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    // Any distance past the limit is the same to the caller.
    let over = limit + 1;
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j.min(over)).collect();
    let mut cur = vec![over; b.len() + 1];
    for (i, &ca) in a.iter().enumerate().map(|(i, c)| (i + 1, c)) {
        let lo = i.saturating_sub(limit).max(1);
        let hi = (i + limit).min(b.len());
        cur[0] = i.min(over);
        cur[lo - 1] = if lo == 1 { cur[0] } else { over };
        let mut row_min = cur[lo - 1];
        for j in lo..=hi {
            let cost = usize::from(ca != b[j - 1]);
            cur[j] = (prev[j - 1] + cost)
                .min(prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(over);
            row_min = row_min.min(cur[j]);
        }
        // The next row reads one cell past this band.
        if hi < b.len() {
            cur[hi + 1] = over;
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|&d| d <= limit)
}

/// Words for a note listing them: `` `a`, `b`, `c` ``.
pub fn backticked<T: std::fmt::Display>(words: impl IntoIterator<Item = T>) -> String {
    words
        .into_iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The candidate one edit away from `word` (or two for words of six letters or more), if exactly
/// one such candidate is closest.
pub fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = if word.chars().count() >= 6 { 2 } else { 1 };
    let mut best: Option<(&str, usize)> = None;
    let mut tie = false;
    for &c in candidates {
        if c == word {
            return None;
        }
        if let Some(d) = edit_distance_within(word, c, limit) {
            match best {
                Some((_, bd)) if bd == d => tie = true,
                Some((_, bd)) if bd < d => {}
                _ => {
                    best = Some((c, d));
                    tie = false;
                }
            }
        }
    }
    if tie {
        None
    } else {
        best.map(|(c, _)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole Levenshtein table: what the banded distance must agree with.
    fn edit_distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        let mut cur = vec![0; b.len() + 1];
        for (i, ca) in a.chars().enumerate() {
            cur[0] = i + 1;
            for (j, &cb) in b.iter().enumerate() {
                let cost = usize::from(ca != cb);
                cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        prev[b.len()]
    }

    /// A did-you-mean's edit is placed only where its word is, once, as a whole word; it is
    /// listed in JSON and SARIF with its place and title, and not where it has none.
    #[test]
    fn fixes_are_placed_only_where_their_word_is_once() {
        let mut files = SourceMap::default();
        let id = files.add("a.pp", "layer { includes => 'x' }\nwhen dc 'dc' {}\n");
        let at = |start: u32, end: u32| crate::span::Span::new(id, start as usize, end as usize);
        let placed = Diagnostic::error("C", at(8, 24), "m").did_you_mean("includes", "include");
        let fix = placed.fix.as_deref().expect("a fix");
        assert_eq!(fix.edit(&files), Some((at(8, 16), "include")));
        assert_eq!(
            fix.title(&files).as_deref(),
            Some("replace `includes` with `include`")
        );
        // Part of a longer word is not the word; a word twice is not placed for certain.
        let inside = Diagnostic::error("C", at(8, 24), "m").did_you_mean("include", "x");
        assert_eq!(inside.fix.as_deref().and_then(|f| f.edit(&files)), None);
        let twice = Diagnostic::error("C", at(26, 38), "m").did_you_mean("dc", "datacenter");
        assert_eq!(twice.fix.as_deref().and_then(|f| f.edit(&files)), None);
        let nowhere = Diagnostic::error("C", crate::span::Span::NONE, "m").did_you_mean("a", "b");
        assert_eq!(nowhere.fix.as_deref().and_then(|f| f.edit(&files)), None);
        let insert = Diagnostic::error("C", at(0, 5), "m").with_fix(at(5, 5), " to");
        assert_eq!(
            insert
                .fix
                .as_deref()
                .and_then(|f| f.title(&files))
                .as_deref(),
            Some("insert `to`")
        );
        let diags = [placed, twice];
        let json: serde_json::Value =
            serde_json::from_str(&render_json(&files, &diags, 1)).expect("JSON");
        let fix = &json["diagnostics"][0]["fix"];
        assert_eq!(fix["message"], "replace `includes` with `include`");
        assert_eq!(
            (&fix["line"], &fix["column"], &fix["end_column"]),
            (&1.into(), &9.into(), &17.into())
        );
        assert_eq!(fix["replacement"], "include");
        assert!(json["diagnostics"][1].get("fix").is_none());
        let sarif: serde_json::Value =
            serde_json::from_str(&sarif::render(&files, &diags)).expect("SARIF");
        let results = &sarif["runs"][0]["results"];
        let change = &results[0]["fixes"][0]["artifactChanges"][0];
        assert_eq!(change["artifactLocation"]["uri"], "a.pp");
        assert_eq!(change["replacements"][0]["deletedRegion"]["startColumn"], 9);
        assert_eq!(
            change["replacements"][0]["insertedContent"]["text"],
            "include"
        );
        assert!(results[1].get("fixes").is_none());
    }

    /// A diagnostic about no place in a file ([`Span::NONE`], for its place or a label's)
    /// renders in every format, whatever its code: no position, never a panic.
    #[test]
    fn every_code_renders_without_a_place_in_every_format() {
        let mut files = SourceMap::default();
        let id = files.add("a.pp", "x\n");
        let none = crate::span::Span::NONE;
        let codes_src = include_str!("codes.rs");
        let mut diags = Vec::new();
        for line in codes_src.lines() {
            let Some(rest) = line.strip_prefix("pub const ") else {
                continue;
            };
            let code: &'static str = Box::leak(rest.split(':').next().unwrap_or("").trim().into());
            diags.push(Diagnostic::error(code, none, "no place").with_note("a note"));
            diags.push(
                Diagnostic::warning(code, crate::span::Span::new(id, 0, 1), "a place")
                    .with_label(none, "no place either"),
            );
        }
        assert!(diags.len() > 200, "{}", diags.len());
        let text = render(&files, &diags, false);
        assert_eq!(text.matches("no place\n").count(), diags.len() / 2);
        let json: serde_json::Value =
            serde_json::from_str(&render_json(&files, &diags, 1)).expect("JSON");
        let listed = json["diagnostics"].as_array().expect("diagnostics");
        assert_eq!(listed.len(), diags.len());
        assert!(listed[0]["file"].is_null() && listed[0]["line"].is_null());
        assert_eq!(listed[1]["file"], "a.pp");
        assert!(listed[1]["related"][0]["file"].is_null());
        let sarif: serde_json::Value =
            serde_json::from_str(&sarif::render(&files, &diags)).expect("SARIF");
        let results = sarif["runs"][0]["results"].as_array().expect("results");
        assert_eq!(results.len(), diags.len());
        assert!(results[0].get("locations").is_none());
        assert!(results[1]["locations"][0]["physicalLocation"].is_object());
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            did_you_mean("varibles", &["variables", "parameters"]),
            Some("variables")
        );
        assert_eq!(did_you_mean("bnd", &["bind", "map"]), Some("bind"));
        assert_eq!(did_you_mean("zzzz", &["bind"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    /// The banded distance agrees with the whole one wherever that is within the limit, and
    /// says `None` wherever it is not.
    #[test]
    fn banded_distance_agrees_with_the_whole_one() {
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "abc",
            "acb",
            "bind",
            "bnd",
            "bound",
            "kitten",
            "sitting",
            "variables",
            "varibles",
            "parameters",
            "ntp::servers",
            "ntp::server",
            "ñtp::servers",
            "xyzzy",
            "aaaa",
            "aaab",
            "baaa",
        ];
        for a in words {
            for b in words {
                let whole = edit_distance(a, b);
                for limit in 0..4 {
                    let want = (whole <= limit).then_some(whole);
                    assert_eq!(
                        edit_distance_within(a, b, limit),
                        want,
                        "{a:?} {b:?} {limit}"
                    );
                }
            }
        }
        // A long name costs its length, not its square: this would take minutes otherwise.
        let long = "x".repeat(1_000_000);
        let other = format!("{}y", "x".repeat(999_999));
        assert_eq!(edit_distance_within(&long, &other, 2), Some(1));
    }

    /// Many findings without a place (every key of a long lookup not found) are each shown:
    /// they are not counted per file, which they have none of.
    #[test]
    fn findings_without_a_place_are_all_shown() {
        let files = SourceMap::default();
        let diags: Vec<Diagnostic> = (0..MAX_SHOWN_PER_CODE + 5)
            .map(|i| Diagnostic::error("KEY_NOT_FOUND", Span::NONE, format!("key {i}")))
            .collect();
        let text = render_text(&files, &diags);
        assert_eq!(
            text.matches("error[KEY_NOT_FOUND]").count(),
            MAX_SHOWN_PER_CODE + 5
        );
    }
}
