//! The globs of a Hiera 5 `glob`/`globs` entry, as Ruby's `Dir.glob` reads them: `*` and `?`
//! within one path segment, `**/` for any number of directories, `[...]` sets and `{a,b}`
//! alternatives. Matching is on `/`-separated paths relative to the data directory; dot files
//! match only a pattern that names the dot. It must not touch the disk: [`files`] finds the
//! candidates, the Hiera engine matches them per request.
//!
//! [`files`]: super::files

/// The most alternatives `{a,b}` may expand to: a pattern is written by hand, and a few braces
/// must not multiply into millions of patterns.
const MAX_ALTERNATIVES: usize = 256;

/// Whether `path` (relative, `/`-separated) matches `pattern`.
pub fn matches(pattern: &str, path: &str) -> bool {
    let names: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    expand_braces(pattern).iter().any(|p| {
        let segments: Vec<&str> = p.split('/').filter(|s| !s.is_empty()).collect();
        matches_segments(&segments, &names)
    })
}

/// `{a,b}` expanded, leftmost first (Ruby's order); past [`MAX_ALTERNATIVES`] the rest are
/// dropped.
pub fn expand_braces(pattern: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut work = vec![pattern.to_string()];
    while let Some(p) = work.pop() {
        if out.len() + work.len() >= MAX_ALTERNATIVES {
            out.push(p);
            continue;
        }
        match innermost_braces(&p) {
            None => out.push(p),
            Some((open, close)) => {
                let inside = &p[open + 1..close];
                let mut alternatives = Vec::new();
                let mut depth = 0;
                let mut start = 0;
                for (i, c) in inside.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            alternatives.push(&inside[start..i]);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                alternatives.push(&inside[start..]);
                // Reversed onto the stack, so that the first alternative comes out first.
                for a in alternatives.iter().rev() {
                    work.push(format!("{}{a}{}", &p[..open], &p[close + 1..]));
                }
            }
        }
    }
    out
}

/// The first `{` and its matching `}`.
fn innermost_braces(p: &str) -> Option<(usize, usize)> {
    let open = p.find('{')?;
    let mut depth = 0;
    for (i, c) in p[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((open, open + i));
                }
            }
            _ => {}
        }
    }
    None
}

/// Segment by segment; `**` takes any number of whole segments. Iterative over the pattern with
/// one saved point for the last `**` (as a single `*` is matched within a name).
fn matches_segments(pattern: &[&str], names: &[&str]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < names.len() {
        if p < pattern.len() && pattern[p] == "**" {
            star = Some((p, n));
            p += 1;
            continue;
        }
        if p < pattern.len() && matches_name(pattern[p], names[n]) {
            p += 1;
            n += 1;
            continue;
        }
        match star {
            // `**` does not enter dot directories.
            Some((sp, sn)) if !names[sn].starts_with('.') => {
                star = Some((sp, sn + 1));
                p = sp + 1;
                n = sn + 1;
            }
            _ => return false,
        }
    }
    pattern[p..].iter().all(|s| *s == "**")
}

/// One name against one segment of a pattern: `*`, `?`, `[...]` (`[!...]`/`[^...]` negated,
/// ranges), `\` escaping the next character.
pub fn matches_name(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = name.chars().collect();
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = set(&p, pi, s[si]) {
                        if matched {
                            pi = next;
                            si += 1;
                            continue;
                        }
                    } else if s[si] == '[' {
                        pi += 1;
                        si += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() && p[pi + 1] == s[si] => {
                    pi += 2;
                    si += 1;
                    continue;
                }
                c if c == s[si] => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, ss)) => {
                star = Some((sp, ss + 1));
                pi = sp + 1;
                si = ss + 1;
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// A `[...]` set at `p[at]`: whether `c` is in it and the index after it; `None` when the `[`
/// is not closed (it is then a plain character).
fn set(p: &[char], at: usize, c: char) -> Option<(bool, usize)> {
    let mut i = at + 1;
    let negated = matches!(p.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((found != negated, i + 1));
        }
        first = false;
        let lo = p[i];
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            found |= lo <= c && c <= p[i + 2];
            i += 3;
        } else {
            found |= lo == c;
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths() {
        assert!(matches("nodes/*.yaml", "nodes/web1.yaml"));
        assert!(!matches("nodes/*.yaml", "nodes/a/web1.yaml"));
        assert!(!matches("nodes/*.yaml", "nodes/.hidden.yaml"));
        assert!(matches("**/*.yaml", "a/b/c.yaml"));
        assert!(matches("**/*.yaml", "c.yaml"));
        assert!(matches("os/**/common.yaml", "os/common.yaml"));
        assert!(matches("os/**/common.yaml", "os/x/y/common.yaml"));
        assert!(!matches("os/**/common.yaml", "os/x/y/other.yaml"));
        assert!(matches("role-?.yaml", "role-a.yaml"));
        assert!(!matches("role-?.yaml", "role-ab.yaml"));
        assert!(matches("[a-c]*.yaml", "b1.yaml"));
        assert!(!matches("[!a-c]*.yaml", "b1.yaml"));
        assert!(matches("{common,site}.yaml", "site.yaml"));
        assert!(matches("x/{a,b{1,2}}.yaml", "x/b2.yaml"));
        assert!(!matches("x/{a,b{1,2}}.yaml", "x/b3.yaml"));
        assert!(matches("\\*.yaml", "*.yaml"));
        assert!(!matches("\\*.yaml", "a.yaml"));
    }

    #[test]
    fn braces_expand_in_order_and_are_bounded() {
        assert_eq!(expand_braces("{b,a}/{1,2}"), ["b/1", "b/2", "a/1", "a/2"]);
        let many = "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
        assert!(expand_braces(many).len() <= MAX_ALTERNATIVES + 1);
    }
}
