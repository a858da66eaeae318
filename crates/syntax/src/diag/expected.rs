//! Renders lalrpop's "expected" terminal lists for people: friendly names, tokens that can only
//! start an expression collapsed into "an expression", duplicates removed, an Oxford-comma join.

/// Terminals that can start an expression (collapsed into "an expression" when most are present).
const EXPRESSION_STARTS: &[&str] = &[
    "NAME",
    "WORD",
    "CLASSREF",
    "VARIABLE",
    "BOOLVARIABLE",
    "NUMBER",
    "STRING",
    "DQPRE",
    "REGEX",
    "HEREDOC",
    "LBRACK",
    "LISTSTART",
    "LPAREN",
    "WSLPAREN",
    "{",
    "-",
    "!",
    "*",
    "@",
    "@@",
    "BOOLEAN",
    "default",
    "undef",
    "if",
    "unless",
    "case",
    "class",
    "define",
    "node",
    "function",
    "type",
    "private",
    "attr",
    "site",
    "bindings",
    "categories",
    "SITE_BINDINGS",
    "layer",
    "CLASS_TYPE",
];

/// Binary and assignment operators (collapsed into "an operator" when most are present).
const OPERATORS: &[&str] = &[
    "=", "==", "=~", "+", "+=", "-=", "->", "~>", "<-", "<~", "!=", "!~", "<", "<=", "<<", "<|",
    "<<|", ">", ">=", ">>", "/", "%", "and", "or", "in", "?", "-", "*", ".",
];

fn friendly(name: &str) -> Option<&str> {
    Some(match name {
        "NAME" => "a name",
        "WORD" => "a bare word",
        "CLASSREF" => "a type reference",
        "VARIABLE" | "BOOLVARIABLE" => "a variable",
        "NUMBER" => "a number",
        "STRING" | "DQPRE" => "a string",
        "DQMID" | "DQPOST" => "the rest of the string",
        "REGEX" => "a regular expression",
        "HEREDOC" => "a heredoc",
        "BOOLEAN" => "`true` or `false`",
        "LBRACK" | "LISTSTART" => "`[`",
        "LPAREN" | "WSLPAREN" => "`(`",
        "SELBRACE" => "`{`",
        "IN_ID" => "`in`",
        "SITE_BINDINGS" => "`bindings`",
        "CLASS_TYPE" => "`class`",
        "??" => "`??`",
        "OTHER" | "ERROR" => return None,
        _ => return Some(name),
    })
}

/// `Some("one of `,`, `)`, or an expression")`, or `None` when nothing useful is expected.
pub fn describe(expected: &[String]) -> Option<String> {
    let names: Vec<&str> = expected.iter().map(|e| e.trim_matches('"')).collect();
    let starts = names
        .iter()
        .filter(|n| EXPRESSION_STARTS.contains(n))
        .count();
    let collapse = starts >= 8;
    let operators = names.iter().filter(|n| OPERATORS.contains(n)).count() >= 8;
    let mut out: Vec<String> = Vec::new();
    for n in &names {
        if collapse && EXPRESSION_STARTS.contains(n) {
            continue;
        }
        if operators && OPERATORS.contains(n) {
            continue;
        }
        let Some(f) = friendly(n) else { continue };
        let text = if f == *n {
            format!("`{n}`")
        } else {
            f.to_string()
        };
        if !out.contains(&text) {
            out.push(text);
        }
    }
    if operators {
        out.push("an operator".to_string());
    }
    if collapse {
        out.push("an expression".to_string());
    }
    match out.len() {
        0 => None,
        1 => Some(out.remove(0)),
        2 => Some(format!("{} or {}", out[0], out[1])),
        _ => {
            let last = out.pop().unwrap_or_default();
            Some(format!("one of {}, or {last}", out.join(", ")))
        }
    }
}
