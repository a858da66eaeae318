//! The globs of a Hiera 5 `glob`/`globs` entry, found as Ruby's `Dir.glob` finds them (Puppet
//! calls `Pathname.glob` for each): `*`, `?` and `[...]` sets within one name, `**/` for any
//! number of real directories (never a link, never a dot directory), `{a,b}` alternatives, `\`
//! escaping the next character; a dot file matches only a pattern that names its dot. The
//! order and the repeats are Ruby's too, since they decide which file answers first: each
//! directory is read in name order, and alternatives are tried in turn (`{b,a}.yaml` gives
//! `b.yaml` before `a.yaml`, `{a,a}.yaml` gives it twice), except after a `**/`, where a
//! name is matched against all of them at once. This is Ruby's own walk (`glob_helper` in its
//! `dir.c`), one step for one step, over a [`Tree`]: the disk when pbc reads a tree, the data
//! files a level holds when it answers a request.
//!
//! It must not read files or judge them: it gives paths. Its cost is bounded ([`Limit`]):
//! alternatives and pattern size are checked when `hiera.yaml` is read, and a walk stops at a
//! depth and a count of steps, saying which, so that a level it could not search completely
//! fails the lookups that reach it rather than answering from part of it.

use std::rc::Rc;

/// The most patterns the globs of one hierarchy entry may expand to, counting each `{a,b}`
/// alternative: a hierarchy is written by hand, and each pattern walks the data directory.
pub const MAX_GLOB_PATTERNS: usize = 256;

/// The longest glob, in bytes.
pub const MAX_GLOB_BYTES: usize = 1024;

/// How many directories below the `hiera.yaml`'s directory a glob looks.
pub const MAX_GLOB_DEPTH: usize = 64;

/// The most files the globs of one entry may find, repeats included.
pub const MAX_GLOB_MATCHES: usize = 100_000;

/// Entries visited and characters compared by the globs of one entry.
const MAX_GLOB_STEPS: u64 = 1 << 26;

/// What a glob found too much of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Alternatives: the number they expand to, at least.
    Patterns(usize),
    /// A glob longer than [`MAX_GLOB_BYTES`]: its length.
    Size(usize),
    /// A directory deeper than [`MAX_GLOB_DEPTH`] a glob would read.
    Depth(String),
    /// More than [`MAX_GLOB_STEPS`].
    Steps,
    /// More than [`MAX_GLOB_MATCHES`].
    Matches,
}

impl Limit {
    /// Why an entry cannot be searched, for a diagnostic or a failed lookup.
    pub fn describe(&self) -> String {
        match self {
            Limit::Patterns(n) => format!(
                "its globs expand to {n} or more patterns, more than pbc's limit of {MAX_GLOB_PATTERNS}"
            ),
            Limit::Size(n) => format!(
                "a glob of {n} bytes is longer than pbc's limit of {MAX_GLOB_BYTES}"
            ),
            Limit::Depth(dir) => format!(
                "its globs reach `{dir}`, more than {MAX_GLOB_DEPTH} directories down, where pbc stops looking"
            ),
            Limit::Steps => format!(
                "matching its globs takes more than pbc's limit of {MAX_GLOB_STEPS} steps"
            ),
            Limit::Matches => format!(
                "its globs find more than pbc's limit of {MAX_GLOB_MATCHES} files"
            ),
        }
    }
}

/// What a directory entry is, as `readdir` says it: a link is neither a directory nor a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Dir,
    Link,
    Other,
}

/// One name in a directory.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub kind: Kind,
}

/// Directories to glob in. Paths are relative to the tree's root, `/`-separated, `""` being
/// the root.
pub trait Tree {
    /// The entries of the directory at `path`, sorted by name as bytes; `None` when there is
    /// no directory there (a link to one lists as that directory).
    fn list(&mut self, path: &str) -> Option<Rc<[Entry]>>;
    /// Whether anything is at `path`, a dangling link included.
    fn exists(&mut self, path: &str) -> bool;
}

/// Checks the globs of one entry as `hiera.yaml` gives them: their size and how many patterns
/// their alternatives make.
pub fn check(globs: &[String]) -> Result<(), Limit> {
    let mut patterns = 0;
    for glob in globs {
        if glob.len() > MAX_GLOB_BYTES {
            return Err(Limit::Size(glob.len()));
        }
        patterns += alternatives(glob, MAX_GLOB_PATTERNS - patterns, &mut 0)?.len();
        if patterns > MAX_GLOB_PATTERNS {
            return Err(Limit::Patterns(patterns));
        }
    }
    Ok(())
}

/// Globs over one tree, sharing its bound of steps and matches across the globs of an entry.
pub struct Globber<'t, T: Tree> {
    tree: &'t mut T,
    steps: u64,
    found: usize,
    max_depth: usize,
}

impl<'t, T: Tree> Globber<'t, T> {
    pub fn new(tree: &'t mut T) -> Self {
        Globber {
            tree,
            steps: 0,
            found: 0,
            max_depth: MAX_GLOB_DEPTH,
        }
    }

    /// For a tree of files a walk with the depth limit found (a level's data files): its
    /// paths start at the `hiera.yaml`'s directory, a data directory or two above where that
    /// walk counted from, and are no deeper than it went.
    pub fn found_files(mut self) -> Self {
        self.max_depth = usize::MAX;
        self
    }

    /// The paths `pattern` matches, in Ruby's order, repeats kept; directories are among them
    /// when the pattern matches them (Puppet drops those).
    pub fn glob(&mut self, pattern: &str) -> Result<Vec<String>, Limit> {
        if pattern.len() > MAX_GLOB_BYTES {
            return Err(Limit::Size(pattern.len()));
        }
        let list = make_pattern(pattern);
        let mut out = Vec::new();
        self.helper("", None, &list, &[0], &mut out)?;
        Ok(out)
    }

    fn charge(&mut self, steps: u64) -> Result<(), Limit> {
        self.steps += steps;
        if self.steps > MAX_GLOB_STEPS {
            return Err(Limit::Steps);
        }
        Ok(())
    }

    /// Ruby's `glob_helper`: `path` has been reached with the pattern positions `beg` still to
    /// match below it (`known` is what it is when its directory said so).
    fn helper(
        &mut self,
        path: &str,
        known: Option<Kind>,
        list: &[Segment],
        beg: &[usize],
        out: &mut Vec<String>,
    ) -> Result<(), Limit> {
        let (mut plain, mut brace, mut magical, mut recursive, mut match_all) =
            (false, false, false, false, false);
        for &at in beg {
            let mut segment = &list[at];
            if segment.kind == SegmentKind::Recursive {
                recursive = true;
                segment = &list[at + 1];
            }
            match segment.kind {
                SegmentKind::Plain => plain = true,
                // Ruby 3.1's rule, which Puppet 7 runs on; later Rubies also expand a brace
                // holding a `/` after `**/`.
                SegmentKind::Brace => brace |= !recursive,
                SegmentKind::Magical => magical = true,
                SegmentKind::MatchAll => match_all = true,
                SegmentKind::MatchDir | SegmentKind::Recursive => {}
            }
        }
        if brace {
            // The rest of the pattern, each of its alternatives globbed from here in turn.
            let rest = join_from(list, beg[0]);
            for alternative in self.expand(&rest)? {
                let list = make_pattern(&alternative);
                self.helper(path, known, &list, &[0], out)?;
            }
            return Ok(());
        }
        if !path.is_empty() && match_all && (known.is_some() || self.tree.exists(path)) {
            self.found += 1;
            if self.found > MAX_GLOB_MATCHES {
                return Err(Limit::Matches);
            }
            out.push(path.to_string());
        }
        let depth = if path.is_empty() {
            0
        } else {
            path.split('/').count()
        };
        if magical || recursive {
            let Some(entries) = self.tree.list(path) else {
                return Ok(());
            };
            if depth > self.max_depth {
                return Err(Limit::Depth(path.to_string()));
            }
            for entry in entries.iter() {
                self.charge(1)?;
                let name: Vec<char> = entry.name.chars().collect();
                let mut next = Vec::new();
                for &at in beg {
                    let mut at = at;
                    if list[at].kind == SegmentKind::Recursive {
                        if entry.kind == Kind::Dir && !entry.name.starts_with('.') {
                            next.push(at);
                        }
                        at += 1;
                    }
                    let segment = &list[at];
                    let matched = match segment.kind {
                        SegmentKind::Brace => self.brace_matches(&segment.text, &name)?,
                        SegmentKind::Plain | SegmentKind::Magical => {
                            self.fnmatch(&segment.chars, &name)?
                        }
                        _ => false,
                    };
                    if matched {
                        next.push(at + 1);
                    }
                }
                if !next.is_empty() {
                    let child = join(path, &entry.name);
                    self.helper(&child, Some(entry.kind), list, &next, out)?;
                }
            }
        } else if plain {
            let mut taken = vec![false; beg.len()];
            for (i, &at) in beg.iter().enumerate() {
                if taken[i] || list[at].kind != SegmentKind::Plain {
                    continue;
                }
                let name = remove_backslashes(&list[at].text);
                let chars: Vec<char> = name.chars().collect();
                let mut next = vec![at + 1];
                for (j, &other) in beg.iter().enumerate().skip(i + 1) {
                    if !taken[j]
                        && list[other].kind == SegmentKind::Plain
                        && self.fnmatch(&list[other].chars, &chars)?
                    {
                        next.push(other + 1);
                        taken[j] = true;
                    }
                }
                let child = join(path, &name);
                if depth + name.split('/').count() > self.max_depth.saturating_add(1) {
                    return Err(Limit::Depth(child));
                }
                self.helper(&child, None, list, &next, out)?;
            }
        }
        Ok(())
    }

    /// `{a,b}` expanded, its work counted in the steps.
    fn expand(&mut self, text: &str) -> Result<Vec<String>, Limit> {
        let mut steps = 0;
        let expanded = alternatives(text, MAX_GLOB_PATTERNS, &mut steps)?;
        self.charge(steps)?;
        Ok(expanded)
    }

    /// A name against a segment with braces: against each alternative in turn.
    fn brace_matches(&mut self, segment: &str, name: &[char]) -> Result<bool, Limit> {
        for alternative in self.expand(segment)? {
            let chars: Vec<char> = alternative.chars().collect();
            if self.fnmatch(&chars, name)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn fnmatch(&mut self, pattern: &[char], name: &[char]) -> Result<bool, Limit> {
        let mut steps = 0;
        let matched = fnmatch(pattern, name, &mut steps);
        self.charge(steps)?;
        Ok(matched)
    }
}

/// Whether `name` matches the glob `pattern` alone (no tree): for tests and for a path known
/// to exist.
pub fn matches_name(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = name.chars().collect();
    fnmatch(&p, &s, &mut 0)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SegmentKind {
    Plain,
    Brace,
    Magical,
    /// `**/`: the next segment is what follows it.
    Recursive,
    /// The pattern's end: the path reached is a match.
    MatchAll,
    /// The pattern's end after a `/`: a directory is (Puppet drops directories).
    MatchDir,
}

#[derive(Debug)]
struct Segment {
    kind: SegmentKind,
    text: String,
    chars: Vec<char>,
}

/// Ruby's `glob_make_pattern`: the pattern as segments between `/`s (a `/` inside `[...]` or
/// `{...}` does not count); plain segments before any `**/` are joined into one path, since
/// they need no directory read.
fn make_pattern(pattern: &str) -> Vec<Segment> {
    let b = pattern.as_bytes();
    let e = b.len();
    let is_recursive = |i: usize| {
        b.get(i) == Some(&b'*') && b.get(i + 1) == Some(&b'*') && b.get(i + 2) == Some(&b'/')
    };
    let mut list = Vec::new();
    let mut dirsep = false;
    let mut recursive = false;
    let mut i = 0;
    while i < e {
        if is_recursive(i) {
            loop {
                i += 3;
                while b.get(i) == Some(&b'/') {
                    i += 1;
                }
                if !is_recursive(i) {
                    break;
                }
            }
            list.push(Segment {
                kind: SegmentKind::Recursive,
                text: String::new(),
                chars: Vec::new(),
            });
            dirsep = true;
            recursive = true;
            continue;
        }
        let mut m = find_dirsep(b, i);
        let kind = has_magic(&b[i..m]);
        if kind == SegmentKind::Plain && !recursive && m < e {
            loop {
                let m2 = find_dirsep(b, m + 1);
                if has_magic(&b[m + 1..m2]) == SegmentKind::Plain && m2 < e {
                    m = m2;
                } else {
                    break;
                }
            }
        }
        let text = pattern[i..m].to_string();
        list.push(Segment {
            kind,
            chars: text.chars().collect(),
            text,
        });
        if m < e {
            dirsep = true;
            i = m + 1;
        } else {
            dirsep = false;
            i = m;
        }
    }
    list.push(Segment {
        kind: if dirsep {
            SegmentKind::MatchDir
        } else {
            SegmentKind::MatchAll
        },
        text: String::new(),
        chars: Vec::new(),
    });
    list
}

/// The next `/` that separates segments, or the end.
fn find_dirsep(b: &[u8], mut i: usize) -> usize {
    let mut open = false;
    while i < b.len() {
        match b[i] {
            b'[' | b'{' => open = true,
            b']' | b'}' => open = false,
            b'/' if !open => return i,
            b'\\' => i += 1,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Ruby's `has_magic` on Linux: a brace first, else a wildcard, else plain.
fn has_magic(b: &[u8]) -> SegmentKind {
    let mut magical = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => return SegmentKind::Brace,
            b'*' | b'?' | b'[' => magical = true,
            b'\\' => i += 1,
            _ => {}
        }
        i += 1;
    }
    if magical {
        SegmentKind::Magical
    } else {
        SegmentKind::Plain
    }
}

/// Ruby's `join_path_from_pattern`: the pattern again from segment `at`.
fn join_from(list: &[Segment], at: usize) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for segment in &list[at..] {
        match segment.kind {
            SegmentKind::Recursive => parts.push("**"),
            SegmentKind::MatchDir => parts.push(""),
            SegmentKind::MatchAll => {}
            _ => parts.push(&segment.text),
        }
    }
    parts.join("/")
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}/{name}")
    }
}

fn remove_backslashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Ruby's `ruby_brace_expand`: `{a,b}` expanded, leftmost brace first, alternatives in the
/// order written; a `{` without its `}` expands to nothing. More than `cap` patterns, or more
/// work than they justify (alternatives that expand to nothing), is an error.
fn alternatives(pattern: &str, cap: usize, steps: &mut u64) -> Result<Vec<String>, Limit> {
    let budget = (4 * cap as u64 + 64) * (pattern.len() as u64 + 1);
    let mut out = Vec::new();
    let mut work = vec![pattern.to_string()];
    while let Some(p) = work.pop() {
        *steps += p.len() as u64 + 1;
        if *steps > budget {
            return Err(Limit::Patterns(MAX_GLOB_PATTERNS + 1));
        }
        let b = p.as_bytes();
        let (mut lbrace, mut rbrace) = (None, None);
        let mut nest = 0usize;
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'{' {
                if nest == 0 {
                    lbrace = Some(i);
                }
                nest += 1;
            }
            if b[i] == b'}' && lbrace.is_some() {
                nest -= 1;
                if nest == 0 {
                    rbrace = Some(i);
                    break;
                }
            }
            if b[i] == b'\\' {
                i += 1;
            }
            i += 1;
        }
        match (lbrace, rbrace) {
            (Some(l), Some(r)) => {
                let mut parts = Vec::new();
                let mut start = l + 1;
                let mut nest = 0usize;
                let mut i = l + 1;
                while i < r {
                    match b[i] {
                        b'{' => nest += 1,
                        b'}' => nest = nest.saturating_sub(1),
                        b',' if nest == 0 => {
                            parts.push(&p[start..i]);
                            start = i + 1;
                        }
                        b'\\' => i += 1,
                        _ => {}
                    }
                    i += 1;
                }
                parts.push(&p[start..r]);
                for part in parts.iter().rev() {
                    work.push(format!("{}{part}{}", &p[..l], &p[r + 1..]));
                }
            }
            (None, None) => {
                out.push(p);
                if out.len() > cap {
                    return Err(Limit::Patterns(MAX_GLOB_PATTERNS + 1));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Ruby's `fnmatch` for one name (no `FNM_PATHNAME`, no `FNM_DOTMATCH`): a leading dot must be
/// matched by a dot; `*` backtracks to its last place only, so it is linear in the name for
/// each `*`. `steps` counts the characters compared.
fn fnmatch(p: &[char], s: &[char], steps: &mut u64) -> bool {
    let unescape = |i: usize| if p.get(i) == Some(&'\\') { i + 1 } else { i };
    if s.first() == Some(&'.') && p.get(unescape(0)) != Some(&'.') {
        return false;
    }
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        *steps += 1;
        match p.get(pi) {
            Some('*') => {
                while p.get(pi) == Some(&'*') {
                    pi += 1;
                }
                if unescape(pi) >= p.len() {
                    return true;
                }
                if si >= s.len() {
                    return false;
                }
                star = Some((pi, si));
                continue;
            }
            Some('?') => {
                if si >= s.len() {
                    return false;
                }
                pi += 1;
                si += 1;
                continue;
            }
            Some('[') => {
                if si >= s.len() {
                    return false;
                }
                if let Some(next) = bracket(p, pi + 1, s[si], steps) {
                    pi = next;
                    si += 1;
                    continue;
                }
            }
            _ => {
                let at = unescape(pi);
                if si >= s.len() {
                    return at >= p.len();
                }
                if at < p.len() && p[at] == s[si] {
                    pi = at + 1;
                    si += 1;
                    continue;
                }
            }
        }
        // Try the last `*` one character further.
        match star {
            Some((sp, ss)) => {
                star = Some((sp, ss + 1));
                pi = sp;
                si = ss + 1;
            }
            None => return false,
        }
    }
}

/// Ruby's `bracket`: the set starting at `p[at]` (after its `[`); the index after its `]` when
/// `c` is in it. A set not closed, or `[]`, matches nothing.
fn bracket(p: &[char], mut at: usize, c: char, steps: &mut u64) -> Option<usize> {
    if at >= p.len() {
        return None;
    }
    let negated = matches!(p[at], '!' | '^');
    if negated {
        at += 1;
    }
    let mut ok = false;
    while p.get(at) != Some(&']') {
        *steps += 1;
        let mut t1 = at;
        if p.get(t1) == Some(&'\\') {
            t1 += 1;
        }
        let lo = *p.get(t1)?;
        at = t1 + 1;
        if at >= p.len() {
            return None;
        }
        if p[at] == '-' && p.get(at + 1) != Some(&']') {
            let mut t2 = at + 1;
            if p.get(t2) == Some(&'\\') {
                t2 += 1;
            }
            let hi = *p.get(t2)?;
            at = t2 + 1;
            if c == lo || c == hi || (lo <= c && c <= hi) {
                ok = true;
            }
        } else if lo == c {
            ok = true;
        }
    }
    (ok != negated).then_some(at + 1)
}

/// A [`Tree`] of paths known to exist (a level's data files): each directory they imply,
/// listed in name order. It cannot know which directories were links on disk.
pub struct Listed {
    dirs: std::collections::HashMap<String, Rc<[Entry]>>,
    files: std::collections::HashSet<String>,
}

impl Listed {
    pub fn new<'a>(paths: impl IntoIterator<Item = &'a str>) -> Self {
        let mut children: std::collections::HashMap<
            String,
            std::collections::BTreeMap<String, Kind>,
        > = std::collections::HashMap::new();
        let mut files = std::collections::HashSet::new();
        for path in paths {
            files.insert(path.to_string());
            let mut parent = String::new();
            let names: Vec<&str> = path.split('/').collect();
            for (i, name) in names.iter().enumerate() {
                let kind = if i + 1 == names.len() {
                    Kind::Other
                } else {
                    Kind::Dir
                };
                children
                    .entry(parent.clone())
                    .or_default()
                    .entry(name.to_string())
                    .or_insert(kind);
                parent = join(&parent, name);
            }
        }
        let dirs = children
            .into_iter()
            .map(|(dir, names)| {
                let entries: Rc<[Entry]> = names
                    .into_iter()
                    .map(|(name, kind)| Entry { name, kind })
                    .collect();
                (dir, entries)
            })
            .collect();
        Listed { dirs, files }
    }
}

impl Tree for &Listed {
    fn list(&mut self, path: &str) -> Option<Rc<[Entry]>> {
        self.dirs.get(path).cloned()
    }

    fn exists(&mut self, path: &str) -> bool {
        self.files.contains(path) || self.dirs.contains_key(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(paths: &[&str], pattern: &str) -> Vec<String> {
        let listed = Listed::new(paths.iter().copied());
        let mut tree = &listed;
        Globber::new(&mut tree)
            .glob(pattern)
            .expect("within limits")
    }

    /// Each expected list is what Ruby 3.1's `Dir.glob` gave on the same files.
    #[test]
    fn ruby_order_and_repeats() {
        let tree = [
            "a.yaml",
            "c.yaml",
            "x/c.yaml",
            "x/a.yaml",
            "b/a.yaml",
            "b/c.yaml",
            "x/y/c.yaml",
            "a-b/f.yaml",
            "a.b.yaml",
            ".hidden.yaml",
            ".dot/a.yaml",
        ];
        let cases: &[(&str, &[&str])] = &[
            (
                "**/{c,a}.yaml",
                &[
                    "a.yaml",
                    "b/a.yaml",
                    "b/c.yaml",
                    "c.yaml",
                    "x/a.yaml",
                    "x/c.yaml",
                    "x/y/c.yaml",
                ],
            ),
            ("{c,a}.yaml", &["c.yaml", "a.yaml"]),
            (
                "*/{c,a}.yaml",
                &["b/c.yaml", "b/a.yaml", "x/c.yaml", "x/a.yaml"],
            ),
            (
                "{x,b}/{c,a}.yaml",
                &["x/c.yaml", "x/a.yaml", "b/c.yaml", "b/a.yaml"],
            ),
            (
                "{x,b}/**/{c,a}.yaml",
                &["x/c.yaml", "x/y/c.yaml", "x/a.yaml", "b/c.yaml", "b/a.yaml"],
            ),
            ("**/{y/c,a}.yaml", &["a.yaml", "b/a.yaml", "x/a.yaml"]),
            ("**/*/{c,a}.yaml", &[]),
            ("**/x/{c,a}.yaml", &["x/a.yaml", "x/c.yaml"]),
            (
                "*/**/{c,a}.yaml",
                &["b/a.yaml", "b/c.yaml", "x/a.yaml", "x/c.yaml", "x/y/c.yaml"],
            ),
            (
                "**/{x,b}/{c,a}.yaml",
                &["b/a.yaml", "b/c.yaml", "x/a.yaml", "x/c.yaml"],
            ),
            ("**/{x/y,b}/c.yaml", &["b/c.yaml"]),
            (
                "*/{c,a,c}.yaml",
                &[
                    "b/c.yaml", "b/a.yaml", "b/c.yaml", "x/c.yaml", "x/a.yaml", "x/c.yaml",
                ],
            ),
            (
                "**/*.yaml",
                &[
                    "a-b/f.yaml",
                    "a.b.yaml",
                    "a.yaml",
                    "b/a.yaml",
                    "b/c.yaml",
                    "c.yaml",
                    "x/a.yaml",
                    "x/c.yaml",
                    "x/y/c.yaml",
                ],
            ),
            ("*", &["a-b", "a.b.yaml", "a.yaml", "b", "c.yaml", "x"]),
            (".*.yaml", &[".hidden.yaml"]),
            (".dot/*.yaml", &[".dot/a.yaml"]),
            ("x/**/c.yaml", &["x/c.yaml", "x/y/c.yaml"]),
            ("[ab]*.yaml", &["a.b.yaml", "a.yaml"]),
            ("[!ab]*.yaml", &["c.yaml"]),
            ("{a,c.yaml", &[]),
            ("[a.yaml", &[]),
            ("\\a.yaml", &["a.yaml"]),
        ];
        for (pattern, expected) in cases {
            assert_eq!(glob(&tree, pattern), *expected, "{pattern}");
        }
    }

    #[test]
    fn limits_are_checked_before_a_walk() {
        let many = "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
        assert!(matches!(
            check(&[many.to_string()]),
            Err(Limit::Patterns(_))
        ));
        let copies = vec!["**/*.yaml".to_string(); MAX_GLOB_PATTERNS + 1];
        assert!(matches!(check(&copies), Err(Limit::Patterns(_))));
        assert!(check(&vec!["**/*.yaml".to_string(); MAX_GLOB_PATTERNS]).is_ok());
        assert!(matches!(
            check(&["x".repeat(MAX_GLOB_BYTES + 1)]),
            Err(Limit::Size(_))
        ));
        // Alternatives that expand to nothing still cost their work.
        let dead = format!("{}{{", "{a,b}".repeat(100));
        assert!(check(&[dead]).is_err());
    }

    #[test]
    fn a_deep_tree_is_reported_where_the_walk_stops() {
        let deep = format!("{}x.yaml", "d/".repeat(MAX_GLOB_DEPTH + 2));
        let listed = Listed::new([deep.as_str()]);
        let mut tree = &listed;
        assert!(matches!(
            Globber::new(&mut tree).glob("**/*.yaml"),
            Err(Limit::Depth(_))
        ));
        let shallow = format!("{}x.yaml", "d/".repeat(MAX_GLOB_DEPTH - 1));
        assert_eq!(glob(&[shallow.as_str()], "**/*.yaml"), [shallow]);
    }

    #[test]
    fn names() {
        assert!(matches_name("*.yaml", "a.yaml"));
        assert!(!matches_name("*.yaml", ".a.yaml"));
        assert!(matches_name("\\.a*", ".a.yaml"));
        assert!(!matches_name("[.]a*", ".a.yaml"));
        assert!(matches_name("role-?.yaml", "role-a.yaml"));
        assert!(!matches_name("role-?.yaml", "role-ab.yaml"));
        assert!(matches_name("[a-c]*", "b1"));
        assert!(!matches_name("[]a]", "a"));
        assert!(matches_name("*a*a*a*b", "aaaaab"));
        assert!(!matches_name("*a*a*a*b", &"a".repeat(200)));
    }
}
