//! The tokens the grammar sees, and the raw logos scanner the driver dispatches on.
//!
//! `Tok` is the parser's alphabet: every context-sensitive variant (`ListStart` against `LBrack`,
//! `WsLParen` against `LParen`, `SelBrace` against `LBrace`, `Regex` against `Div`) and every
//! bindings keyword is decided by the driver in `lexer/mod.rs`, never by the grammar.
//!
//! **IMPORTANT**: the Puppet keyword list (`puppet_keyword`) and the bare-word regexes on
//! `Raw::Name` and `Raw::Word` go together. A word is a keyword only if the *whole* scanned word
//! equals one of the keywords, so `class::foo`, `if-x` and `types` stay names. The bindings words
//! (`bind`, `to`, `map`, ...) are *not* in this list: they are contextual (DECISIONS D1) and the
//! driver turns them into `Kw*` tokens only inside `bindings NAME { }` and `site { }` bodies.

use logos::Logos;

/// Where a token's text is: a run of the file's source, or one of the texts the lexer decoded
/// (escapes, heredoc margins, `\/` in a regex; see `lexer::DecodedTexts`). A token carries this
/// instead of the text itself so that it stays small and `Copy` (16 bytes): the parser moves
/// every token from the lexer's chunk to its own stack through several enums, and a 40-byte
/// token with a `SmolStr` in it was moved in more pieces, at offsets its last stores did not
/// match, where each read waited for those stores to drain (half of the parser loop's samples
/// on bindings files; 8% of the time went with it). The builder makes the text when a rule
/// takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text {
    /// The run's first byte, or the decoded text's index.
    at: u32,
    /// The run's length, or [`Text::DECODED`].
    len: u32,
}

impl Text {
    const DECODED: u32 = u32::MAX;

    /// The source's bytes `start..end`, when their place fits (see `DecodedTexts::run`).
    pub(crate) fn run(start: usize, end: usize) -> Option<Text> {
        let at = u32::try_from(start).ok()?;
        let len = u32::try_from(end.checked_sub(start)?).ok()?;
        (len != Text::DECODED).then_some(Text { at, len })
    }

    /// The decoded text at `index`.
    pub(crate) fn decoded(index: u32) -> Text {
        Text {
            at: index,
            len: Text::DECODED,
        }
    }

    /// The index of a decoded text.
    pub(crate) fn decoded_index(self) -> Option<usize> {
        (self.len == Text::DECODED).then_some(self.at as usize)
    }

    /// The text when it is a run of `src` (names, words, variables and numbers are, unless
    /// they are gigabytes long).
    pub fn in_source(self, src: &str) -> Option<&str> {
        if self.len == Text::DECODED {
            return None;
        }
        let start = self.at as usize;
        src.get(start..start + self.len as usize)
    }
}

/// A numeric literal's token: its text and its kind. The value stays text so that integers of
/// any size survive to validation (Puppet keeps big integers and flags them later) and floats
/// print as Puppet does; a float's value, which the lexer checks, is computed again where the
/// literal is built (floats are rare, and the token stays small).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumberTok {
    pub text: Text,
    /// 8, 10 or 16 for an integer; 0 for a float.
    pub radix: u8,
}

/// A token of the Puppet language plus the bindings extension.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tok {
    // Brackets, with the context variants the driver decides.
    LBrack,
    ListStart,
    RBrack,
    LBrace,
    SelBrace,
    RBrace,
    LParen,
    WsLParen,
    RParen,
    // Operators.
    Equals,
    IsEqual,
    Match,
    FArrow,
    Plus,
    Appends,
    PArrow,
    Minus,
    Deletes,
    /// `->`
    InEdge,
    /// `~>`
    InEdgeSub,
    /// `<-`
    OutEdge,
    /// `<~`
    OutEdgeSub,
    Not,
    NotEqual,
    NoMatch,
    Less,
    LessEqual,
    LShift,
    LCollect,
    LLCollect,
    Greater,
    GreaterEqual,
    RShift,
    Pipe,
    RCollect,
    RRCollect,
    Times,
    Div,
    Modulo,
    Dot,
    Comma,
    Colon,
    Semic,
    QMark,
    At,
    AtAt,
    // Puppet keywords.
    Case,
    Class,
    Default,
    Define,
    If,
    Elsif,
    Else,
    Inherits,
    Node,
    And,
    Or,
    Undef,
    Boolean(bool),
    In,
    Unless,
    Function,
    Type,
    Attr,
    Private,
    // Words and literals.
    Name(Text),
    /// A bare word with a hyphen or a segment starting with `_`: a string literal.
    Word(Text),
    ClassRef(Text),
    /// `$name`, without the `$`. May be empty (a lone `$`).
    Variable(Text),
    /// `${true}` / `${false}`: Puppet keeps the boolean as the variable's "name".
    BoolVariable(bool),
    Number(NumberTok),
    /// A string without interpolation (single-quoted, double-quoted or heredoc text).
    Str(Text),
    DqPre(Text),
    DqMid(Text),
    DqPost(Text),
    Regex(Text),
    /// `@(TAG:syntax/flags)`: carries the syntax name ("" when absent). The text follows as `Str`
    /// or `DqPre ... DqPost` tokens.
    Heredoc(Text),
    // Bindings extension (only ever emitted inside `site { }` / `bindings NAME { }`).
    KwSite,
    KwBindings,
    KwBind,
    KwMultibind,
    KwRebind,
    KwWhen,
    KwTo,
    KwAs,
    /// `in 'id'` at the level of a bind operation (inside brackets `in` stays the operator).
    KwInId,
    KwAbstract,
    KwOverride,
    KwOptional,
    KwProducer,
    KwParameters,
    KwVariables,
    KwMap,
    KwAlias,
    KwRenamed,
    KwInclude,
    KwExclude,
    KwDependency,
    KwCategories,
    KwLayer,
    /// `bindings => [...]` inside `site { }`.
    KwSiteBindings,
    /// `class` inside bindings: `class ntp` is a type, not a definition.
    KwClassType,
    /// `??`: a query, inside bindings only.
    Query,
    /// Characters that start no token (`&`, `^`, control characters...), coalesced into one run.
    Other(Text),
    /// A token the lexer already reported an error for; the parser stays silent about it.
    Error,
}

impl Tok {
    /// `{`, `[` or `(`, in any of their context variants.
    pub fn opens_bracket(&self) -> bool {
        matches!(
            self,
            Tok::LBrace
                | Tok::SelBrace
                | Tok::LBrack
                | Tok::ListStart
                | Tok::LParen
                | Tok::WsLParen
        )
    }

    /// `}`, `]` or `)`.
    pub fn closes_bracket(&self) -> bool {
        matches!(self, Tok::RBrace | Tok::RBrack | Tok::RParen)
    }

    /// Whether Puppet's lexer allows a regex to start after this token (reference 1.6.4).
    pub fn allows_regex_after(&self) -> bool {
        !matches!(
            self,
            Tok::RParen
                | Tok::RBrack
                | Tok::RCollect
                | Tok::RRCollect
                | Tok::Name(_)
                | Tok::ClassRef(_)
                | Tok::Number(_)
                | Tok::Str(_)
                | Tok::Boolean(_)
                | Tok::DqPre(_)
                | Tok::DqMid(_)
                | Tok::DqPost(_)
                | Tok::Heredoc(_)
                | Tok::Regex(_)
                | Tok::Variable(_)
                | Tok::BoolVariable(_)
                | Tok::Word(_)
        )
    }

    /// Puppet keywords, which `${kw}` turns into a variable of the same name.
    pub fn is_puppet_keyword(&self) -> bool {
        matches!(
            self,
            Tok::Case
                | Tok::Class
                | Tok::Default
                | Tok::Define
                | Tok::If
                | Tok::Elsif
                | Tok::Else
                | Tok::Inherits
                | Tok::Node
                | Tok::And
                | Tok::Or
                | Tok::Undef
                | Tok::Boolean(_)
                | Tok::In
                | Tok::Unless
                | Tok::Function
                | Tok::Type
                | Tok::Attr
                | Tok::Private
        )
    }

    /// The bindings keywords (contextual: see DECISIONS D1).
    pub fn is_bindings_keyword(&self) -> bool {
        matches!(
            self,
            Tok::KwSite
                | Tok::KwBindings
                | Tok::KwBind
                | Tok::KwMultibind
                | Tok::KwRebind
                | Tok::KwWhen
                | Tok::KwTo
                | Tok::KwAs
                | Tok::KwInId
                | Tok::KwAbstract
                | Tok::KwOverride
                | Tok::KwOptional
                | Tok::KwProducer
                | Tok::KwParameters
                | Tok::KwVariables
                | Tok::KwMap
                | Tok::KwAlias
                | Tok::KwRenamed
                | Tok::KwInclude
                | Tok::KwExclude
                | Tok::KwDependency
                | Tok::KwCategories
                | Tok::KwLayer
                | Tok::KwSiteBindings
                | Tok::KwClassType
        )
    }
}

/// Maps a whole bare word to its Puppet keyword token.
pub fn puppet_keyword(word: &str) -> Option<Tok> {
    Some(match word {
        "case" => Tok::Case,
        "class" => Tok::Class,
        "default" => Tok::Default,
        "define" => Tok::Define,
        "if" => Tok::If,
        "elsif" => Tok::Elsif,
        "else" => Tok::Else,
        "inherits" => Tok::Inherits,
        "node" => Tok::Node,
        "and" => Tok::And,
        "or" => Tok::Or,
        "undef" => Tok::Undef,
        "true" => Tok::Boolean(true),
        "false" => Tok::Boolean(false),
        "in" => Tok::In,
        "unless" => Tok::Unless,
        "function" => Tok::Function,
        "type" => Tok::Type,
        "attr" => Tok::Attr,
        "private" => Tok::Private,
        _ => return None,
    })
}

/// The context-free part of the scanner. The driver runs it one token at a time on the rest of
/// the input and handles strings, heredocs, regexes, comments and numbers by hand, because those
/// need lookbehind, lookahead or nesting that a DFA cannot express. The driver's fast path
/// (`common_raw` in `lexer/mod.rs`) gives the same answer as this scanner for the commonest
/// tokens without running it; a change to a regex here must keep the two alike (the test
/// `common_tokens_are_the_scanners` fails if not).
///
/// `\w` in Puppet's lexer is ASCII only, so the classes here are spelled out.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Raw {
    /// `[[:blank:]]` (tab and every Unicode space separator) plus `\r`.
    #[regex(r"[\t\r\p{Zs}]+")]
    Blank,
    #[token("\n")]
    Newline,
    #[regex(r"#[^\n]*", allow_greedy = true)]
    LineComment,
    #[token("/*")]
    BlockCommentStart,
    /// A name, `(::)?[a-z]\w*(::[a-z]\w*)*`: the bare words that are not `Word`s. Where both
    /// match the same text the name wins, so the driver never scans a word again to tell them
    /// apart; a longer match is a `Word` (`a::b-c`, `a::_b`).
    #[regex(r"(::)?[a-z][A-Za-z0-9_]*(::[a-z][A-Za-z0-9_]*)*", priority = 100)]
    Name,
    /// Bare word: segments `(::)?[a-z_]` then `[\w-]*\w`; a hyphen never ends a segment.
    #[regex(
        r"(::)?[a-z_][A-Za-z0-9_]*(-+[A-Za-z0-9_]+)*(::[a-z_][A-Za-z0-9_]*(-+[A-Za-z0-9_]+)*)*"
    )]
    Word,
    #[regex(r"(::)?[A-Z][A-Za-z0-9_]*(::[A-Z][A-Za-z0-9_]*)*")]
    ClassRef,
    #[token("::")]
    LoneColonColon,
    #[regex(r"\$((::)?([A-Za-z0-9_]+::)*[A-Za-z0-9_]+)?")]
    Variable,
    #[regex(r"[0-9]")]
    Digit,
    #[token("\"")]
    DoubleQuote,
    #[token("'")]
    SingleQuote,
    #[token("@(")]
    HeredocStart,
    #[token("/")]
    Slash,
    #[token("[")]
    LBrack,
    #[token("]")]
    RBrack,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("=")]
    Equals,
    #[token("==")]
    IsEqual,
    #[token("=~")]
    Match,
    #[token("=>")]
    FArrow,
    #[token("+")]
    Plus,
    #[token("+=")]
    Appends,
    #[token("+>")]
    PArrow,
    #[token("-")]
    Minus,
    #[token("-=")]
    Deletes,
    #[token("->")]
    InEdge,
    #[token("!")]
    Not,
    #[token("!=")]
    NotEqual,
    #[token("!~")]
    NoMatch,
    #[token("<")]
    Less,
    #[token("<=")]
    LessEqual,
    #[token("<<")]
    LShift,
    #[token("<|")]
    LCollect,
    #[token("<<|")]
    LLCollect,
    #[token("<-")]
    OutEdge,
    #[token("<~")]
    OutEdgeSub,
    #[token(">")]
    Greater,
    #[token(">=")]
    GreaterEqual,
    #[token(">>")]
    RShift,
    #[token("|")]
    Pipe,
    #[token("|>")]
    RCollect,
    #[token("|>>")]
    RRCollect,
    #[token("~>")]
    InEdgeSub,
    #[token("*")]
    Times,
    #[token("%")]
    Modulo,
    #[token(".")]
    Dot,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(";")]
    Semic,
    #[token("?")]
    QMark,
    #[token("??")]
    DoubleQMark,
    #[token("@")]
    At,
    #[token("@@")]
    AtAt,
}
