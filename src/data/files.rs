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
    let mut dirs = vec![dir.to_path_buf()];
    for segment in parents {
        let mut next = Vec::new();
        for d in &dirs {
            next.extend(entries(d, segment, None).into_iter().filter(|p| p.is_dir()));
        }
        dirs = next;
    }
    let mut found: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| entries(d, last, Some(ext)))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
}

/// The entries of `dir` whose name `segment` matches (with `.ext` after it, for a file).
fn entries(dir: &Path, segment: &str, ext: Option<&str>) -> Vec<PathBuf> {
    let full = |s: &str| ext.map_or_else(|| s.to_string(), |e| format!("{s}.{e}"));
    let Some(at) = segment.find('$') else {
        let path = dir.join(full(segment));
        return if path.exists() {
            vec![path]
        } else {
            Vec::new()
        };
    };
    let prefix = &segment[..at];
    let suffix = full(&segment[interpolation_end(segment, at)..]);
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = read
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.')
                && name.len() > prefix.len() + suffix.len()
                && name.starts_with(prefix)
                && name.ends_with(&suffix)
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
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

/// A data file's own rules: a hash at the top (or nothing), String keys, and interpolations
/// that parse. `file`'s text is `text`.
pub fn check(file: FileId, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let doc = match yaml::parse(file, text) {
        Ok(Some(doc)) => doc,
        Ok(None) => return out,
        Err(e) => {
            out.push(Diagnostic::error(
                codes::DATA_FILE_SYNTAX_ERROR,
                e.span,
                format!("this data file cannot be read: {}", e.message),
            ));
            return out;
        }
    };
    let NodeKind::Mapping(entries) = &doc.kind else {
        out.push(
            Diagnostic::error(
                codes::DATA_NOT_HASH,
                doc.span,
                format!(
                    "a data file holds a hash of keys and their values, not {}",
                    doc.kind_name()
                ),
            )
            .with_note("help: e.g. `ntp::servers: ['0.pool.ntp.org']`"),
        );
        return out;
    };
    // Every value, walked with an explicit stack (data nests as deep as its reader allows).
    let mut stack: Vec<&Node> = Vec::new();
    for (key, value) in entries {
        if key.as_str().is_none_or(str::is_empty) {
            out.push(Diagnostic::error(
                codes::DATA_NOT_HASH,
                key.span,
                format!("a data file's keys are names, not {}", key.kind_name()),
            ));
        }
        stack.push(value);
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
            NodeKind::Sequence(items) => stack.extend(items),
            NodeKind::Mapping(pairs) => stack.extend(pairs.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
    out
}

/// The diagnostics of a string value read as a Puppet double-quoted string, placed in the data
/// file: offsets into the value land at the same offsets from the value's start, within it.
fn interpolation(file: FileId, value: &str, at: Span, quoted: bool) -> Vec<Diagnostic> {
    let source = format!("\"{}\"", value.replace('"', "\\\""));
    let parsed = crate::parser::parse_file(file, &source);
    // Byte 1 of the source is the value's first byte; a quoted scalar's text starts a byte
    // after its span's start.
    let base = at.start as i64 - 1 + i64::from(quoted);
    let place = |offset: u32| -> u32 {
        let shifted =
            (base + i64::from(offset)).clamp(i64::from(at.start), i64::from(at.end.max(at.start)));
        shifted as u32
    };
    parsed
        .diagnostics
        .into_iter()
        .map(|mut d| {
            d.span = Span {
                file,
                start: place(d.span.start),
                end: place(d.span.end).max(place(d.span.start)),
            };
            for (span, _) in &mut d.labels {
                *span = Span {
                    file,
                    start: place(span.start),
                    end: place(span.end),
                };
            }
            d
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolations_are_checked_where_they_are() {
        let text = "a: 'plain'\nb: \"${lookup('x')}\"\nc: 'broken ${1 +}'\nd: [1, {e: '$f'}]\n";
        let diags = check(FileId(0), text);
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
            |t: &str| -> Vec<&str> { check(FileId(0), t).iter().map(|d| d.code).collect() };
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
        let _ = std::fs::remove_dir_all(&dir);
    }
}
