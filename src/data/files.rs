//! The data files a `hiera.yaml` names: which files on disk its paths match (a path's
//! interpolations, `${osfamily}` or `$osfamily`, stand for any name at their place), and each
//! file's own rules: YAML or JSON holding a hash of keys, whose string values may interpolate
//! Puppet expressions (`${expr}`, `$var`; `\$` for a dollar sign), parsed by pbc's parser so
//! that a mistake is reported at the file, line and column of the value.

use super::yaml::{self, Node, NodeKind};
use crate::diag::{codes, Diagnostic};
use crate::span::{FileId, Span};
use std::path::{Path, PathBuf};

/// The files below `dir` that `template` (a path without extension, `/`-separated) matches
/// with the extension `ext`, sorted. A segment with an interpolation matches any name with the
/// same text before and after it; directories are read only where a segment needs it.
pub fn matching(dir: &Path, template: &str, ext: &str) -> Vec<PathBuf> {
    let segments: Vec<&str> = template.split('/').filter(|s| !s.is_empty()).collect();
    let Some((last, parents)) = segments.split_last() else {
        return Vec::new();
    };
    // What an entry is, through a link: only a link costs a look at what it leads to.
    let is_dir = |(path, own): &(PathBuf, std::fs::FileType)| {
        if own.is_symlink() {
            std::fs::metadata(path).map(|m| m.is_dir()).ok()
        } else {
            Some(own.is_dir())
        }
    };
    let mut dirs = vec![dir.to_path_buf()];
    for segment in parents {
        let mut next = Vec::new();
        for d in &dirs {
            next.extend(
                entries(d, segment, None)
                    .into_iter()
                    .filter(|e| is_dir(e) == Some(true))
                    .map(|(path, _)| path),
            );
        }
        dirs = next;
    }
    // Whatever is there but a directory: a data file that is not a regular file (a FIFO, a
    // device) is reported when it is read, not skipped without a word.
    let mut found: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| entries(d, last, Some(ext)))
        .filter(|e| is_dir(e) == Some(false))
        .map(|(path, _)| path)
        .collect();
    found.sort();
    found
}

/// The files under `dir` that the globs of one hierarchy entry match (see [`super::glob`]),
/// each once, in the order found. Directories are read once each, however many globs read
/// them; a link is listed as a link (a `**/` does not go through it, as in Ruby), and whether
/// a linked file is read is the caller's rule for links.
pub fn globbed(dir: &Path, globs: &[String]) -> Result<Vec<PathBuf>, super::glob::Limit> {
    use super::glob::Globber;
    let mut tree = OnDisk {
        root: dir.to_path_buf(),
        listed: std::collections::HashMap::new(),
    };
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut globbed = std::collections::HashSet::new();
    let mut globber = Globber::new(&mut tree);
    for glob in globs {
        // The same pattern twice finds the same files.
        if !globbed.insert(glob.as_str()) {
            continue;
        }
        for path in globber.glob(glob)? {
            if seen.insert(path.clone()) {
                found.push(dir.join(&path));
            }
        }
    }
    // Puppet drops what is a directory (through a link too).
    found.retain(|p| !p.is_dir());
    Ok(found)
}

/// The disk below a directory, each directory listed once.
struct OnDisk {
    root: PathBuf,
    listed: std::collections::HashMap<String, Option<std::rc::Rc<[super::glob::Entry]>>>,
}

impl super::glob::Tree for OnDisk {
    fn list(&mut self, path: &str) -> Option<std::rc::Rc<[super::glob::Entry]>> {
        use super::glob::{Entry, Kind};
        if let Some(listed) = self.listed.get(path) {
            return listed.clone();
        }
        let listed = std::fs::read_dir(self.root.join(path)).ok().map(|read| {
            let mut entries: Vec<Entry> = read
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    // A name that is not UTF-8 cannot be a key's file in the model.
                    let name = e.file_name().into_string().ok()?;
                    let kind = match e.file_type() {
                        Ok(t) if t.is_symlink() => Kind::Link,
                        Ok(t) if t.is_dir() => Kind::Dir,
                        _ => Kind::Other,
                    };
                    Some(Entry { name, kind })
                })
                .collect();
            entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
            std::rc::Rc::from(entries)
        });
        self.listed.insert(path.to_string(), listed.clone());
        listed
    }

    fn exists(&mut self, path: &str) -> bool {
        std::fs::symlink_metadata(self.root.join(path)).is_ok()
    }
}

/// The entries of `dir` whose name `segment` matches (with `.ext` after it, for a file), each
/// with what it is itself (a link is a link). A directory is listed through
/// [`crate::source::list_dir`]: once per command where the command keeps its listings, however
/// many hierarchy entries read it, and without a look at each entry.
fn entries(dir: &Path, segment: &str, ext: Option<&str>) -> Vec<(PathBuf, std::fs::FileType)> {
    let full = |s: &str| ext.map_or_else(|| s.to_string(), |e| format!("{s}.{e}"));
    let Some(at) = segment.find('$') else {
        let path = dir.join(full(segment));
        return match std::fs::symlink_metadata(&path) {
            Ok(meta) => vec![(path, meta.file_type())],
            Err(_) => Vec::new(),
        };
    };
    let prefix = &segment[..at];
    let suffix = full(&segment[interpolation_end(segment, at)..]);
    let Ok(listed) = crate::source::list_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, std::fs::FileType)> = listed
        .iter()
        .filter(|e| {
            let name = e.name.to_string_lossy();
            !name.starts_with('.')
                && name.len() > prefix.len() + suffix.len()
                && name.starts_with(prefix)
                && name.ends_with(&suffix)
        })
        .map(|e| (dir.join(&e.name), e.own_type))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The category value a data file stands for: `stem` (its path below the data directory,
/// without extension) matched against `template`, where `value` (`${osfamily}`, or a literal)
/// stands in the template. `None` when the template does not name the value.
pub fn category_value(template: &str, value: &str, stem: &str) -> Option<String> {
    if !value.contains('$') {
        return Some(value.to_string());
    }
    let segments: Vec<&str> = template.split('/').filter(|s| !s.is_empty()).collect();
    let names: Vec<&str> = stem.split('/').filter(|s| !s.is_empty()).collect();
    if segments.len() != names.len() {
        return None;
    }
    segments.iter().zip(&names).find_map(|(segment, name)| {
        let at = segment.find(value)?;
        let (prefix, suffix) = (&segment[..at], &segment[at + value.len()..]);
        let captured = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
        (!captured.is_empty()).then(|| captured.to_string())
    })
}

/// Where the last interpolation of `segment` (the first starting at `at`) ends.
fn interpolation_end(segment: &str, at: usize) -> usize {
    let mut end = at;
    let bytes = segment.as_bytes();
    let mut i = at;
    while i < bytes.len() {
        if bytes[i] == b'$' {
            if bytes.get(i + 1) == Some(&b'{') {
                i = segment[i..].find('}').map_or(bytes.len(), |j| i + j + 1);
            } else {
                i += 1;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b':')
                {
                    i += 1;
                }
            }
            end = i;
        } else {
            i += 1;
        }
    }
    end
}

/// A data file's document when it is a hash of named keys (problems said in `out`); `None`
/// also for a file without data.
/// `hiera5`: read as Puppet 7's `yaml_data` reads a file (symbol keys as names; a document
/// that is not a hash, or keys that are not strings, only warned about, since Puppet 7 reads
/// such a file as empty or never finds those keys).
fn document(file: FileId, text: &str, hiera5: bool, out: &mut Vec<Diagnostic>) -> Option<Node> {
    let read = if hiera5 {
        yaml::parse_hiera_data(file, text)
    } else {
        yaml::parse(file, text)
    };
    // Where Puppet 7 reads the file anyway, a shape problem is a warning with Puppet's reading.
    let as_puppet_reads = |mut d: Diagnostic, reading: &str| {
        if hiera5 {
            d.severity = crate::diag::Severity::Warning;
            d = d.with_note(format!("note: {reading}; so does pbc"));
        }
        d
    };
    let doc = match read {
        Ok(Some(doc)) => doc,
        Ok(None) => return None,
        Err(e) => {
            out.push(Diagnostic::error(
                e.code.unwrap_or(codes::DATA_FILE_SYNTAX_ERROR),
                e.span,
                format!("this data file cannot be read: {}", e.message),
            ));
            return None;
        }
    };
    let NodeKind::Mapping(entries) = &doc.kind else {
        let d = Diagnostic::error(
            codes::DATA_NOT_HASH,
            doc.span,
            format!(
                "a data file holds a hash of keys and their values, not {}",
                doc.kind_name()
            ),
        )
        .with_note("help: e.g. `ntp::servers: ['0.pool.ntp.org']`");
        out.push(as_puppet_reads(
            d,
            "Puppet 7 warns that the file \"does not contain a valid yaml hash\" and reads it as empty",
        ));
        return None;
    };
    for (key, _) in entries {
        if key.as_str().is_none_or(str::is_empty) {
            let d = Diagnostic::error(
                codes::DATA_NOT_HASH,
                key.span,
                format!("a data file's keys are names, not {}", key.kind_name()),
            );
            out.push(as_puppet_reads(
                d,
                "no lookup can find it: Puppet reads the file and never finds this key",
            ));
        }
    }
    Some(doc)
}

/// A data file's own rules: a hash at the top (or nothing), String keys, and interpolations
/// that parse. `file`'s text is `text`. Gives the document when the file has no errors (`None`
/// also for a file without data).
pub fn check(file: FileId, text: &str) -> (Option<Node>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let Some(doc) = document(file, text, false, &mut out) else {
        return (None, out);
    };
    // Every value, walked with an explicit stack (data nests as deep as its reader allows).
    let mut stack: Vec<&Node> = Vec::new();
    if let NodeKind::Mapping(entries) = &doc.kind {
        stack.extend(entries.iter().map(|(_, v)| v));
    }
    while let Some(node) = stack.pop() {
        match &node.kind {
            NodeKind::String(s) if s.contains('$') => {
                let quoted = matches!(
                    text.as_bytes().get(node.span.start as usize),
                    Some(b'\'' | b'"')
                );
                out.extend(interpolation(file, s, node.span, quoted));
            }
            NodeKind::Unrepresentable(t) => out.push(unrepresentable_warning(node.span, t)),
            NodeKind::Sequence(items) => stack.extend(items),
            NodeKind::Mapping(pairs) => stack.extend(pairs.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
    let clean = !out.iter().any(Diagnostic::is_error);
    (clean.then_some(doc), out)
}

/// A Hiera 5 data file's own rules: a hash at the top (or nothing), String keys, and string
/// values whose `%{...}` interpolations are well formed (methods such as `%{lookup('k')}`
/// allowed), each problem at its value. Gives the document too (`None` for a file that
/// cannot be read or is not a hash).
pub fn check_hiera5(file: FileId, text: &str) -> (Option<Node>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let Some(doc) = document(file, text, true, &mut out) else {
        return (None, out);
    };
    // Keys interpolate too (Puppet interpolates a hash's keys and values).
    let mut stack: Vec<&Node> = Vec::new();
    if let NodeKind::Mapping(entries) = &doc.kind {
        stack.extend(entries.iter().flat_map(|(k, v)| [k, v]));
    }
    while let Some(node) = stack.pop() {
        match &node.kind {
            NodeKind::String(s) if s.contains("%{") => {
                // Puppet interpolates a value when a lookup returns it: only the lookups that
                // use this one fail.
                if let Err(problem) = super::interpolation::parse(s, true) {
                    out.push(
                        Diagnostic::error(problem.code, node.span, problem.message).per_value(),
                    );
                }
            }
            NodeKind::Unrepresentable(t) => out.push(unrepresentable_warning(node.span, t)),
            NodeKind::Sequence(items) => stack.extend(items),
            NodeKind::Mapping(pairs) => stack.extend(pairs.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
    (Some(doc), out)
}

/// What a lookup that returns a number pbc cannot hold says.
pub fn unrepresentable_message(text: &str) -> String {
    let what = if text.contains(['n', 'N']) && !text.contains(['i', 'I']) {
        "NaN"
    } else if text.contains(['i', 'I']) || text.contains('.') {
        "an infinite Float"
    } else {
        "an Integer beyond 64 bits"
    };
    format!("`{text}` is {what} to Puppet, which pbc's values cannot hold: a lookup that returns it fails rather than answer its text")
}

/// The warning for a number pbc cannot hold, at the value: the file is good Puppet data, only
/// the lookups that return the value fail.
fn unrepresentable_warning(at: Span, text: &str) -> Diagnostic {
    Diagnostic::warning(
        codes::DATA_VALUE_NOT_REPRESENTABLE,
        at,
        unrepresentable_message(text),
    )
    .with_note("help: quote it if it is meant as text")
}

/// A string value read as a Puppet double-quoted string (D20), its spans placed at the value
/// in the data file: the source `"..."` stands one byte before the value's first byte.
fn parse_in_place(file: FileId, value: &str, at: Span, quoted: bool) -> crate::parser::Parsed {
    let source = format!("\"{}\"", value.replace('"', "\\\""));
    let base = (at.start as usize + usize::from(quoted)).saturating_sub(1);
    crate::parser::parse_file_at(file, &source, base)
}

/// The diagnostics of a string value, kept within the value's text.
fn interpolation(file: FileId, value: &str, at: Span, quoted: bool) -> Vec<Diagnostic> {
    let end = at.end.max(at.start);
    let place = |offset: u32| offset.clamp(at.start, end);
    parse_in_place(file, value, at, quoted)
        .diagnostics
        .into_iter()
        .map(|mut d| {
            d.span = Span {
                file,
                start: place(d.span.start),
                end: place(d.span.end).max(place(d.span.start)),
            };
            // The text parsed is the value's, unescaped: an edit of it has no place in the
            // file for certain.
            d.fix = None;
            // The closing quote is pbc's, not the file's: `}"` is shown as the `}` it is.
            if let Some(shown) = d.message.strip_suffix("\"`") {
                d.message = format!("{shown}`");
            }
            d
        })
        .collect()
}

/// A string value as the expression it is: `None` when it does not parse (the check reports
/// it).
pub fn parse_string(file: FileId, value: &str, at: Span, quoted: bool) -> Option<crate::ast::Expr> {
    let parsed = parse_in_place(file, value, at, quoted);
    let mut body = parsed.program?.body;
    if body.len() == 1 {
        body.pop()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolations_are_checked_where_they_are() {
        let text = "a: 'plain'\nb: \"${lookup('x')}\"\nc: 'broken ${1 +}'\nd: [1, {e: '$f'}]\n";
        let (_, diags) = check(FileId(0), text);
        assert_eq!(diags.len(), 1, "{diags:?}");
        let line_c = text.find("c:").expect("c") as u32;
        assert!(
            diags[0].span.start > line_c && diags[0].span.start < line_c + 20,
            "{diags:?}"
        );
    }

    #[test]
    fn a_data_file_is_a_hash() {
        let codes_of =
            |t: &str| -> Vec<&str> { check(FileId(0), t).1.iter().map(|d| d.code).collect() };
        assert_eq!(codes_of("- a\n"), vec![codes::DATA_NOT_HASH]);
        assert_eq!(codes_of("a: [1\n"), vec![codes::DATA_FILE_SYNTAX_ERROR]);
        assert!(codes_of("---\n").is_empty());
        assert!(codes_of("{\"a\": 1}").is_empty());
    }

    #[test]
    fn templates_match_files() {
        let dir = std::env::temp_dir().join(format!("pbc-data-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("osfamily")).expect("dir");
        for f in [
            "osfamily/Darwin.yaml",
            "osfamily/RedHat.yaml",
            "osfamily/notes.txt",
            "common.yaml",
        ] {
            std::fs::write(dir.join(f), "a: 1\n").expect("file");
        }
        let names = |t: &str| -> Vec<String> {
            matching(&dir, t, "yaml")
                .iter()
                .map(|p| p.strip_prefix(&dir).unwrap_or(p).display().to_string())
                .collect()
        };
        assert_eq!(
            names("osfamily/${osfamily}"),
            vec!["osfamily/Darwin.yaml", "osfamily/RedHat.yaml"]
        );
        assert_eq!(names("osfamily/$osfamily"), names("osfamily/${osfamily}"));
        assert_eq!(names("common"), vec!["common.yaml"]);
        assert!(names("nodes/${fqdn}").is_empty());
        assert_eq!(
            category_value("osfamily/${osfamily}", "${osfamily}", "osfamily/Darwin"),
            Some("Darwin".into())
        );
        assert_eq!(
            category_value("node-${fqdn}", "${fqdn}", "node-web01"),
            Some("web01".into())
        );
        assert_eq!(
            category_value("os/default", "${osfamily}", "os/default"),
            None
        );
        assert_eq!(
            category_value("env", "production", "env"),
            Some("production".into())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
