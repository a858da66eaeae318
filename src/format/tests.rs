use super::*;

fn formatted(src: &str) -> String {
    match format_source(FileId(0), src) {
        Formatted::Text(text) => text,
        other => panic!("{other:?}"),
    }
}

/// Lines are indented two spaces per open bracket, whatever they were.
#[test]
fn lines_are_indented_by_their_brackets() {
    assert_eq!(
        formatted("class a {\nfile { '/x':\n        ensure => file,\n}\n    }\n"),
        "class a {\n  file { '/x':\n    ensure => file,\n  }\n}\n"
    );
}

/// A heredoc's text and its end line are left as written, wherever its tag stands.
#[test]
fn heredocs_are_left_as_written() {
    let src = "class a {\n      $x = @(END)\n    body # not a comment\n\t  more\n    | END\n        $y = 1\n}\n";
    assert_eq!(
        formatted(src),
        "class a {\n  $x = @(END)\n    body # not a comment\n\t  more\n    | END\n  $y = 1\n}\n"
    );
}

/// Formatting what was formatted changes nothing.
#[test]
fn formatting_twice_is_formatting_once() {
    let src = "class a(\n$x = 1,\n  $y = {'a'=>1,\n'bb' => 2},\n) {\n\n\n\n  if $x and\n$y { notice($x) }   \n}\n";
    let once = formatted(src);
    assert_eq!(formatted(&once), once);
}

/// The refusal: a text that does not parse to the program given.
#[test]
fn a_changed_program_is_refused() {
    let before = crate::parser::parse_file(FileId(0), "$a = 1\n")
        .program
        .expect("parses");
    let pn = crate::pn::program_to_json(&before);
    assert!(meaning_kept(FileId(0), &pn, "$a = 1\n").is_none());
    let refused = meaning_kept(FileId(0), &pn, "$a = 2\n").expect("refused");
    assert_eq!(refused.code, codes::FORMAT_CHANGED_MEANING);
}

/// A file written with `\r\n` keeps them, its last line end too; a comment's line keeps its own.
#[test]
fn crlf_line_ends_are_kept() {
    assert_eq!(
        formatted("class a {\r\n# c\r\nfile { '/x':\r\nensure => file,\r\n}\r\n}"),
        "class a {\r\n  # c\r\n  file { '/x':\r\n    ensure => file,\r\n  }\r\n}\r\n"
    );
}
