//! Table tests for the lexer's context rules (reference section 1.6 and 1.8).

use super::{lex, DecodedTexts, SpannedTok, Tok};
use crate::span::FileId;

/// A token with its text, as a test expects it. Compares equal to a `Tok` without a text.
#[derive(Debug, PartialEq)]
enum Shown {
    Plain(Tok),
    /// The variant's name and the token's text.
    Text(&'static str, String),
}

impl PartialEq<Tok> for Shown {
    fn eq(&self, tok: &Tok) -> bool {
        matches!(self, Shown::Plain(plain) if plain == tok)
    }
}

fn shown(tokens: &[SpannedTok], decoded: &DecodedTexts, src: &str) -> Vec<Shown> {
    let text = |kind, t| Shown::Text(kind, decoded.with_text(t, src, str::to_owned));
    tokens
        .iter()
        .map(|(_, tok, _)| match *tok {
            Tok::Name(t) => text("Name", t),
            Tok::Word(t) => text("Word", t),
            Tok::ClassRef(t) => text("ClassRef", t),
            Tok::Variable(t) => text("Variable", t),
            Tok::Number(n) => text("Number", n.text),
            Tok::Str(t) => text("Str", t),
            Tok::DqPre(t) => text("DqPre", t),
            Tok::DqMid(t) => text("DqMid", t),
            Tok::DqPost(t) => text("DqPost", t),
            Tok::Regex(t) => text("Regex", t),
            Tok::Heredoc(t) => text("Heredoc", t),
            Tok::Other(t) => text("Other", t),
            plain => Shown::Plain(plain),
        })
        .collect()
}

fn kinds(src: &str) -> Vec<Shown> {
    let lexed = lex(FileId(0), src);
    shown(&lexed.tokens, &lexed.decoded, src)
}

fn shown_text(kind: &'static str, text: &str) -> Shown {
    Shown::Text(kind, text.to_owned())
}

fn name(s: &str) -> Shown {
    shown_text("Name", s)
}

fn var(s: &str) -> Shown {
    shown_text("Variable", s)
}

fn string(s: &str) -> Shown {
    shown_text("Str", s)
}

#[test]
fn list_start_and_lbrack() {
    assert_eq!(kinds("[1]")[0], Tok::ListStart);
    assert_eq!(kinds("$a [1]")[1], Tok::ListStart);
    assert_eq!(kinds("$a[1]")[1], Tok::LBrack);
    assert_eq!(kinds("$a /*c*/[1]")[1], Tok::LBrack);
}

#[test]
fn ws_lparen_only_first_on_line() {
    assert_eq!(kinds("foo ($x)")[1], Tok::LParen);
    assert_eq!(kinds("foo\n  ($x)")[1], Tok::WsLParen);
}

#[test]
fn selbrace_after_qmark() {
    assert_eq!(kinds("$x ? { }")[2], Tok::SelBrace);
    assert_eq!(kinds("$x { }")[1], Tok::LBrace);
}

#[test]
fn regex_or_division() {
    assert_eq!(kinds("$a = $b /2/ 1")[3], Tok::Div);
    assert_eq!(kinds("$a = /x\\/y/")[2], shown_text("Regex", "x/y"));
    assert_eq!(kinds("} /b/")[1], shown_text("Regex", "b"));
}

#[test]
fn interpolation_rewrites() {
    let t = kinds("\"${x}\"");
    assert_eq!(
        t,
        vec![shown_text("DqPre", ""), var("x"), shown_text("DqPost", "")]
    );
    let t = kinds("\"${x[1]}\"");
    assert_eq!(t[1], var("x"));
    let t = kinds("\"${x + 1}\"");
    assert_eq!(t[1], name("x"));
    let t = kinds("\"${true}\"");
    assert_eq!(t[1], Tok::BoolVariable(true));
    let t = kinds("\"$x.b\"");
    assert_eq!(
        t,
        vec![
            shown_text("DqPre", ""),
            var("x"),
            shown_text("DqPost", ".b")
        ]
    );
    let t = kinds("\"a$\"");
    assert_eq!(t, vec![string("a$")]);
}

#[test]
fn escapes() {
    assert_eq!(kinds(r#""a\tb\u0041\$""#), vec![string("a\tbA$")]);
    assert_eq!(kinds(r"'a\nb\''"), vec![string("a\\nb'")]);
    let lexed = lex(FileId(0), r#""\q""#);
    assert_eq!(lexed.diagnostics.len(), 1);
    assert_eq!(kinds(r#""\q""#)[0], string("\\q"));
}

#[test]
fn heredoc_margin_trim_and_two_on_a_line() {
    let t = kinds("$a = @(END)\n  Hello\n  World\n  |- END\n");
    assert_eq!(t[3], string("Hello\nWorld"));
    let t = kinds("f(@(A), @(B))\na\nA\nb\nB\n$x");
    let strs: Vec<&Shown> = t
        .iter()
        .filter(|t| matches!(t, Shown::Text("Str", _)))
        .collect();
    assert_eq!(strs, vec![&string("a\n"), &string("b\n")]);
    assert_eq!(t.last(), Some(&var("x")));
}

#[test]
fn words_names_numbers() {
    assert_eq!(kinds("foo-bar")[0], shown_text("Word", "foo-bar"));
    assert_eq!(kinds("a-")[0], name("a"));
    assert_eq!(kinds("foo::Bar")[0], name("foo"));
    assert_eq!(kinds("foo::Bar")[1], shown_text("ClassRef", "::Bar"));
    assert_eq!(kinds("1.foo")[0], shown_text("Number", "1"));
    assert_eq!(kinds("1.foo")[1], Tok::Dot);
    assert_eq!(kinds("$::x")[0], var("::x"));
}

#[test]
fn bindings_words_are_contextual() {
    assert_eq!(kinds("bind")[0], name("bind"));
    let t = kinds("bindings x { bind 'a' to 1 }");
    assert_eq!(t[0], Tok::KwBindings);
    assert_eq!(t[3], Tok::KwBind);
    assert_eq!(t[5], Tok::KwTo);
    let t = kinds("bindings x { bind 'a' to { map => 1 } }");
    assert_eq!(t[7], name("map"));
    let t = kinds("$x = { bind => 1 }");
    assert_eq!(t[3], name("bind"));
}

/// The scanner reads names as the segment rule says: `::`-separated segments, each a
/// lowercase letter then word characters, with an optional leading `::`. Other bare words
/// are `Word`s, however much of them would be a name.
#[test]
fn names_follow_the_segment_rule() {
    let by_segments = |text: &str| {
        let t = text.strip_prefix("::").unwrap_or(text);
        t.split("::").all(|seg| {
            let mut bytes = seg.bytes();
            matches!(bytes.next(), Some(b'a'..=b'z')) && bytes.all(super::is_word_byte)
        })
    };
    for text in [
        "", "::", "a", "a::b", "::a::b", "a::", "a:::b", "a:b", "A::b", "a::B", "a_1::b2", "a-b",
        "::::a", "a::b::c", "_a", "é", "a::é", ":a", "a::::b", "a::b-c", "a::_b", "a_", "a-b::c",
        "a--b", "a::b_", "z9::y",
    ] {
        let mut raw = <super::token::Raw as logos::Logos>::lexer(text);
        let whole_name =
            raw.next() == Some(Ok(super::token::Raw::Name)) && raw.span().end == text.len();
        assert_eq!(whole_name, by_segments(text), "{text:?}");
    }
}

/// The parser takes a file's tokens a chunk at a time ([`super::TokenStream`]); across every
/// chunk boundary they are the tokens [`lex`] makes of the whole file. The lexer looks back at
/// the token before (`$b / 2 /` divides twice, where `/ 2 /` alone would be a regex). The
/// repeated lines hold 14 tokens, and their start is shifted by one token at a time, so that
/// the first chunk ends at every place in them where the lexer can pause.
#[test]
fn streamed_tokens_are_the_whole_files_tokens() {
    let line = "$a = $b / 2 / $c\n$r = \"x${y}z\" =~ /ab+c/\n";
    assert_eq!(lex(FileId(0), line).tokens.len(), 14);
    for filler in 0..14 {
        let mut src = "$f ".repeat(filler);
        src.push('\n');
        // About four chunks of tokens.
        while src.len() < 4 * 4096 * 3 {
            src.push_str(line);
        }
        let whole = lex(FileId(0), &src);
        assert!(whole.diagnostics.is_empty(), "{:?}", whole.diagnostics);
        assert!(whole.tokens.len() > 3 * 4096);
        let mut stream = super::TokenStream::new(FileId(0), &src);
        let streamed: Vec<_> = stream.by_ref().collect();
        assert_eq!(streamed, whole.tokens, "filler {filler}");
        assert_eq!(
            shown(&streamed, &stream.decoded(), &src),
            shown(&whole.tokens, &whole.decoded, &src),
            "filler {filler}"
        );
    }
}

/// Each file a thread lexes for the parser takes the room for its tokens that the file before
/// it left, however many chunks either had: where freed memory goes back to the system at once
/// (`pbc lsp`), room asked for and freed per file was handed back and faulted in again.
#[test]
fn each_file_takes_the_token_room_the_last_left() {
    let src = "$a = $b\n".repeat(3000);
    let rooms = |stream: &super::TokenStream| {
        let mut rooms = [stream.ready.tokens.as_ptr(), stream.lexer.out.as_ptr()];
        rooms.sort();
        rooms
    };
    std::thread::spawn(move || {
        let mut first = super::TokenStream::new(FileId(0), &src);
        let tokens = first.by_ref().count();
        assert_eq!(tokens, 9000);
        let left = rooms(&first);
        drop(first);
        let mut second = super::TokenStream::new(FileId(0), &src);
        assert_eq!(second.by_ref().count(), tokens);
        assert_eq!(rooms(&second), left);
    })
    .join()
    .expect("the thread lexes");
}

/// A large file is lexed on another thread ([`super::LexedElsewhere`]): the parser gets the
/// tokens [`lex`] makes, and every decoded text (escapes, heredoc margins) is found under the
/// number its token carries, in every chunk. A lexing error late in the file is known once the
/// stream has ended, and only then.
#[test]
fn tokens_lexed_elsewhere_are_the_whole_files_tokens() {
    let line = "$a = \"t\\t${b}\\n\"\n$h = @(END)\n    x\\ty\n    | END\n$r = $c / 2 / $d\n";
    let mut src = String::new();
    let mut n = 0;
    while src.len() < 5 * 4096 * 4 {
        src.push_str(&line.replace("$a", &format!("$a{n}")));
        n += 1;
    }
    let whole = lex(FileId(0), &src);
    assert!(whole.diagnostics.is_empty(), "{:?}", whole.diagnostics);
    // Several chunks of tokens, each with decoded texts.
    assert!(whole.tokens.len() > 4 * 4096, "{}", whole.tokens.len());
    assert!(
        whole.decoded.0.borrow().len() > 2000,
        "{}",
        whole.decoded.0.borrow().len()
    );
    let (tokens, texts, troubled) = std::thread::scope(|scope| {
        let mut elsewhere = super::LexedElsewhere::start(scope, FileId(0), &src);
        let tokens: Vec<_> = elsewhere.by_ref().collect();
        (tokens, elsewhere.decoded(), elsewhere.troubled())
    });
    assert_eq!(tokens, whole.tokens);
    assert_eq!(
        shown(&tokens, &texts, &src),
        shown(&whole.tokens, &whole.decoded, &src)
    );
    assert!(!troubled);

    let bad = format!("{src}$x = \"unclosed\n");
    std::thread::scope(|scope| {
        let mut elsewhere = super::LexedElsewhere::start(scope, FileId(0), &bad);
        assert!(elsewhere.next().is_some());
        assert!(!elsewhere.troubled(), "said before the lexer got there");
        elsewhere.by_ref().for_each(drop);
        assert!(elsewhere.troubled());
        assert!(elsewhere.next().is_none());
        assert!(elsewhere.troubled());
    });
    // A parser that stops early stops the lexing thread: the scope ends.
    std::thread::scope(|scope| {
        let mut elsewhere = super::LexedElsewhere::start(scope, FileId(0), &src);
        assert!(elsewhere.next().is_some());
    });
}

#[test]
fn token_texts_are_the_texts_whatever_their_length() {
    // Around the inline limit, in bytes and in characters; blanks, which `SmolStr::new` may
    // share from a static table.
    for text in [
        "",
        "a",
        "m635::k0",
        &"x".repeat(23),
        &"x".repeat(24),
        &"é".repeat(11),
        &"é".repeat(12),
        "\n\n    ",
        &" ".repeat(40),
    ] {
        let made = super::smol(text);
        assert_eq!(made, smol_str::SmolStr::new(text), "{text:?}");
        assert_eq!(made.len(), text.len());
        assert_eq!(
            made.is_heap_allocated(),
            text.len() > 23 && text.trim() != ""
        );
    }
}

/// Blanks and comments are skipped a word at a time: every token starts where it should, and
/// a `(` after indentation is still the first thing on its line, for runs of spaces and
/// comments of every length around a word's eight bytes, and a comment that ends the input.
#[test]
fn tokens_start_after_blanks_and_comments_of_any_length() {
    for spaces in 0..=19 {
        for said in 0..=19 {
            let pad = " ".repeat(spaces);
            let comment = "x".repeat(said);
            let src =
                format!("$a{pad}# {comment}\n{pad}$b {pad}=> 1 #{comment}\n{pad}(1)\n#{comment}");
            let b = 2 + spaces + 2 + said + 1 + spaces;
            let arrow = b + 3 + spaces;
            let paren = arrow + 7 + said + spaces;
            let tokens = lex(FileId(0), &src).tokens;
            let starts: Vec<usize> = tokens.iter().map(|t| t.0).collect();
            assert_eq!(
                starts,
                [0, b, arrow, arrow + 3, paren, paren + 1, paren + 2],
                "{src:?}"
            );
            assert_eq!(tokens[2].1, Tok::FArrow, "{src:?}");
            assert_eq!(tokens[4].1, Tok::WsLParen, "{src:?}");
        }
    }
}

/// The parser moves every token through several enums between the lexer's chunk and its
/// stack; a token with its text inside (40 bytes) was moved at offsets that made each read
/// wait for the stores before it. A token is a kind and a [`super::Text`], and `Copy`.
#[test]
fn tokens_are_small_and_copy() {
    fn copy<T: Copy>() {}
    copy::<Tok>();
    assert!(size_of::<Tok>() <= 16, "Tok is {}", size_of::<Tok>());
    assert!(size_of::<SpannedTok>() <= 32);
}

/// A text's place is kept as 32-bit numbers. What they cannot hold (past 4 GiB, or a run of
/// `u32::MAX` bytes, whose length would read as "decoded") is refused, and the lexer then
/// keeps the text itself with the decoded ones; decoded texts come back as they went in.
#[test]
fn texts_are_runs_or_decoded_and_never_wrong() {
    let src = "abc::def 'x\\'y'";
    let run = super::Text::run(5, 8).expect("a small run");
    assert_eq!(run.in_source(src), Some("def"));
    let empty_run = super::Text::run(3, 3).expect("an empty run");
    assert_eq!(empty_run.in_source(src), Some(""));
    let far = 1usize << 32;
    assert_eq!(super::Text::run(far, far + 1), None);
    assert_eq!(super::Text::run(0, u32::MAX as usize), None);
    assert!(super::Text::run(1, u32::MAX as usize).is_some());
    assert_eq!(super::Text::run(8, 5), None);
    let decoded = DecodedTexts::default();
    let empty = decoded.push("");
    assert_eq!(decoded.text(empty, src), "");
    let first = decoded.push("x'y");
    let second = decoded.push(&"é".repeat(30));
    assert_eq!(first.in_source(src), None);
    assert_eq!(decoded.text(first, src), "x'y");
    assert_eq!(decoded.text(second, src), "é".repeat(30));
    assert_eq!(decoded.text(run, src), "def");
    assert_eq!(
        decoded.run(src, 0, 3),
        super::Text::run(0, 3).expect("fits")
    );
    let lexed = lex(FileId(0), src);
    assert_eq!(
        shown(&lexed.tokens, &lexed.decoded, src),
        vec![name("abc::def"), string("x'y")]
    );
}

/// The lexer's fast path (`common_raw`) against the scanner, on every text of up to five of the
/// bytes that decide where its tokens end: whatever the fast path answers, the scanner answers
/// the same kind and length.
#[test]
fn common_tokens_are_the_scanners() {
    use super::token::Raw;
    use logos::Logos;
    let alphabet: &[u8] = b"aZ0_-:$=>~,;()[]{}.'\"x \xc3";
    let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
    let mut agreed = 0;
    for _ in 0..5 {
        let mut longer = Vec::new();
        for text in &texts {
            for &b in alphabet {
                let mut t = text.clone();
                t.push(b);
                if b == 0xc3 {
                    t.push(0xa9); // é: a non-ASCII letter ends every ASCII run
                }
                longer.push(t);
            }
        }
        for t in &longer {
            let Some((kind, len)) = super::common_raw(t) else {
                continue;
            };
            let text = std::str::from_utf8(t).expect("the texts are made of whole characters");
            let mut raw = Raw::lexer(text);
            let scanned = raw.next();
            assert_eq!(
                (scanned, raw.span().end),
                (Some(Ok(kind)), len),
                "fast path and scanner differ on {text:?}"
            );
            agreed += 1;
        }
        texts = longer;
    }
    assert!(agreed > 1_000_000, "only {agreed} texts compared");
}
