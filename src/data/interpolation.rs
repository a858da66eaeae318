//! Hiera's `%{...}` interpolation, as Puppet 7 reads it (`Lookup::Interpolation`): what a
//! string in a version 5 `hiera.yaml` or data file says, parsed once into text and references.
//!
//! A reference is a scope variable with an optional dig into it (`%{facts.os.family}`,
//! `%{::osfamily}`, `%{trusted.certname}`, `%{facts."a.b".0}`), or a method: `lookup('k')`
//! and its alias `hiera('k')`, `alias('k')` (the value itself, only as the whole string),
//! `literal('%')` and `scope('x')`. `%{}`, `%{::}` and their quoted forms are empty; a `%{`
//! without its `}` is text, as in Puppet. Where methods are not allowed (paths, `datadir`,
//! options) a method is an error. It must not evaluate anything: looking up and reading scopes
//! is the Hiera engine's.

use crate::diag::codes;

/// One part of an interpolated string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Text(String),
    /// A scope variable (`facts`, `trusted`, `osfamily` for `::osfamily`), then the keys and
    /// indexes to dig into it.
    Scope(String, Vec<Dig>),
    /// `lookup('k')` or `hiera('k')`: the value of another key, as text.
    Lookup(String),
    /// `alias('k')`: the value of another key itself (the whole string).
    Alias(String),
}

/// A step into a value: a hash key, or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dig {
    Key(String),
    Index(i64),
}

/// Why a string cannot be interpolated: Puppet's issue code and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub code: &'static str,
    pub message: String,
}

/// A key or variable as Puppet's `split_key` reads it (`ntp::servers.0`, `a."b.c"`,
/// `facts.os.family`): its root and the keys and indexes to dig; `None` when it is not one.
pub fn split_key(name: &str) -> Option<(String, Vec<Dig>)> {
    match parse(&format!("%{{{name}}}"), false).ok()?.as_slice() {
        [Part::Scope(root, digs)] => Some((root.clone(), digs.clone())),
        _ => None,
    }
}

/// The parts of `text`; `allow_methods`: `lookup()` and the other methods may be used.
pub fn parse(text: &str, allow_methods: bool) -> Result<Vec<Part>, Problem> {
    let mut parts: Vec<Part> = Vec::new();
    let mut rest = text;
    let mut literal = String::new();
    while let Some(at) = rest.find("%{") {
        let Some(len) = rest[at + 2..].find('}') else {
            break;
        };
        literal.push_str(&rest[..at]);
        let whole = &rest[at..at + 2 + len + 1];
        let inside = rest[at + 2..at + 2 + len].trim();
        rest = &rest[at + 2 + len + 1..];
        if matches!(inside, "" | "::" | "\"\"" | "''" | "\"::\"" | "'::'") {
            continue;
        }
        match method(inside) {
            Some((name, argument)) => {
                if !allow_methods {
                    return Err(Problem {
                        code: codes::HIERA_INTERPOLATION_METHOD_SYNTAX_NOT_ALLOWED,
                        message: format!("`{whole}`: interpolation methods such as `{name}()` are not allowed here (only in data)"),
                    });
                }
                match name {
                    "literal" => {
                        literal.push_str(argument);
                        continue;
                    }
                    "alias" => {
                        if whole != text {
                            return Err(Problem {
                                code: codes::HIERA_INTERPOLATION_ALIAS_NOT_ENTIRE_STRING,
                                message: format!("`{whole}` must be the whole string: `alias()` gives the value itself, not text"),
                            });
                        }
                        return Ok(vec![Part::Alias(argument.to_string())]);
                    }
                    "lookup" | "hiera" => {
                        flush(&mut literal, &mut parts);
                        parts.push(Part::Lookup(argument.to_string()));
                    }
                    "scope" => {
                        flush(&mut literal, &mut parts);
                        parts.push(scope(argument, whole)?);
                    }
                    other => {
                        return Err(Problem {
                            code: codes::HIERA_INTERPOLATION_UNKNOWN_INTERPOLATION_METHOD,
                            message: format!("`{whole}`: `{other}` is not an interpolation method (`lookup`, `hiera`, `alias`, `literal` or `scope`)"),
                        })
                    }
                }
            }
            None => {
                flush(&mut literal, &mut parts);
                parts.push(scope(inside, whole)?);
            }
        }
    }
    literal.push_str(rest);
    flush(&mut literal, &mut parts);
    Ok(parts)
}

fn flush(literal: &mut String, parts: &mut Vec<Part>) {
    if !literal.is_empty() {
        parts.push(Part::Text(std::mem::take(literal)));
    }
}

/// `name('argument')` or `name("argument")` (a word, then one quoted non-empty argument).
fn method(inside: &str) -> Option<(&str, &str)> {
    let open = inside.find('(')?;
    let name = &inside[..open];
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let argument = inside[open + 1..].strip_suffix(')')?;
    let quote = argument.chars().next()?;
    if quote != '"' && quote != '\'' {
        return None;
    }
    let body = argument[1..].strip_suffix(quote)?;
    if body.is_empty() || body.contains(quote) {
        return None;
    }
    Some((name, body))
}

/// A scope variable and its dig, split as Puppet's `split_key` splits it: segments joined by
/// `.`, each a word or a quoted string, numbers being indexes. A leading `::` names the top
/// scope, which is the only scope here.
fn scope(key: &str, whole: &str) -> Result<Part, Problem> {
    let syntax = || {
        Problem {
        code: codes::HIERA_INTERPOLATION_SYNTAX_ERROR,
        message: format!("`{whole}` is not a variable with keys to dig (`facts.os.family`, `facts.\"a.b\"`, `::x`)"),
    }
    };
    let key = key.strip_prefix("::").unwrap_or(key);
    let mut segments: Vec<Dig> = Vec::new();
    let mut rest = key;
    loop {
        let trimmed = rest.trim_start();
        let (segment, after) = match trimmed.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let end = trimmed[1..].find(q).ok_or_else(syntax)?;
                if end == 0 {
                    return Err(syntax());
                }
                (
                    Dig::Key(trimmed[1..1 + end].to_string()),
                    trimmed[2 + end..].trim_start(),
                )
            }
            Some(_) => {
                let end = trimmed.find(['.', '"', '\'']).unwrap_or(trimmed.len());
                let word = &trimmed[..end];
                if word.trim().is_empty() {
                    return Err(syntax());
                }
                let digits = word.strip_prefix(['+', '-']).unwrap_or(word);
                let segment = match word.parse::<i64>() {
                    Ok(i) if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) => {
                        Dig::Index(i)
                    }
                    _ => Dig::Key(word.to_string()),
                };
                (segment, &trimmed[end..])
            }
            None => return Err(syntax()),
        };
        segments.push(segment);
        match after.strip_prefix('.') {
            Some(next) => rest = next,
            None if after.is_empty() => break,
            None => return Err(syntax()),
        }
    }
    let root = match segments.remove(0) {
        Dig::Key(k) => k,
        Dig::Index(i) => i.to_string(),
    };
    Ok(Part::Scope(root, segments))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(root: &str, dig: Vec<Dig>) -> Part {
        Part::Scope(root.into(), dig)
    }

    #[test]
    fn references_and_text() {
        assert_eq!(
            parse("nodes/%{trusted.certname}.yaml", false),
            Ok(vec![
                Part::Text("nodes/".into()),
                scope("trusted", vec![Dig::Key("certname".into())]),
                Part::Text(".yaml".into()),
            ])
        );
        assert_eq!(
            parse("%{::osfamily}-%{ facts.\"a.b\".0 }", false),
            Ok(vec![
                scope("osfamily", vec![]),
                Part::Text("-".into()),
                scope("facts", vec![Dig::Key("a.b".into()), Dig::Index(0)]),
            ])
        );
        // Empty interpolations vanish; an unclosed one is text.
        assert_eq!(
            parse("a%{}b%{::}c%{'::'}d%{e", false),
            Ok(vec![Part::Text("abcd%{e".into())])
        );
        assert_eq!(
            parse("100%{literal('%')} of %{lookup('k')} %{hiera(\"h\")}", true),
            Ok(vec![
                Part::Text("100% of ".into()),
                Part::Lookup("k".into()),
                Part::Text(" ".into()),
                Part::Lookup("h".into()),
            ])
        );
        assert_eq!(
            parse("%{alias('k')}", true),
            Ok(vec![Part::Alias("k".into())])
        );
        assert_eq!(
            parse("%{scope('x.y')}", true),
            Ok(vec![scope("x", vec![Dig::Key("y".into())])])
        );
    }

    #[test]
    fn problems_have_puppets_issues() {
        let code = |text: &str, methods: bool| parse(text, methods).map_err(|p| p.code);
        assert_eq!(
            code("%{lookup('k')}", false),
            Err(codes::HIERA_INTERPOLATION_METHOD_SYNTAX_NOT_ALLOWED)
        );
        assert_eq!(
            code("x %{alias('k')}", true),
            Err(codes::HIERA_INTERPOLATION_ALIAS_NOT_ENTIRE_STRING)
        );
        assert_eq!(
            code("%{nosuch('k')}", true),
            Err(codes::HIERA_INTERPOLATION_UNKNOWN_INTERPOLATION_METHOD)
        );
        for bad in [
            "%{facts..x}",
            "%{facts.\"x}",
            "%{facts.}",
            "%{facts.''}",
            "%{a\"b\"}",
        ] {
            assert_eq!(
                code(bad, true),
                Err(codes::HIERA_INTERPOLATION_SYNTAX_ERROR),
                "{bad}"
            );
        }
    }
}
