//! The stable diagnostic codes. A code, once published, keeps its meaning; a retired code is never
//! reused. Where Puppet 7 has an issue code for the same problem we use Puppet's name.
//! Every code here has at least one failing file under `corpus/` (checked by `tests/corpus.rs`).

/// A token the grammar cannot accept here.
pub const SYNTAX_ERROR: &str = "SYNTAX_ERROR";
/// The file ends inside a construct.
pub const UNEXPECTED_EOF: &str = "UNEXPECTED_EOF";

// Lexical errors (Puppet's lexer issue codes).
pub const UNCLOSED_QUOTE: &str = "UNCLOSED_QUOTE";
pub const UNCLOSED_MLCOMMENT: &str = "UNCLOSED_MLCOMMENT";
pub const ILLEGAL_NUMBER: &str = "ILLEGAL_NUMBER";
pub const INVALID_HEX_NUMBER: &str = "INVALID_HEX_NUMBER";
pub const INVALID_OCTAL_NUMBER: &str = "INVALID_OCTAL_NUMBER";
pub const INVALID_DECIMAL_NUMBER: &str = "INVALID_DECIMAL_NUMBER";
pub const ILLEGAL_CLASS_REFERENCE: &str = "ILLEGAL_CLASS_REFERENCE";
pub const ILLEGAL_FULLY_QUALIFIED_NAME: &str = "ILLEGAL_FULLY_QUALIFIED_NAME";
pub const ILLEGAL_BOM: &str = "ILLEGAL_BOM";
pub const UNRECOGNIZED_ESCAPE: &str = "UNRECOGNIZED_ESCAPE";
pub const ILLEGAL_UNICODE_ESCAPE: &str = "ILLEGAL_UNICODE_ESCAPE";
pub const HEREDOC_UNCLOSED_PARENTHESIS: &str = "HEREDOC_UNCLOSED_PARENTHESIS";
pub const HEREDOC_INVALID_SYNTAX: &str = "HEREDOC_INVALID_SYNTAX";
pub const HEREDOC_EMPTY_ENDTAG: &str = "HEREDOC_EMPTY_ENDTAG";
pub const HEREDOC_MULTIPLE_AT_ESCAPES: &str = "HEREDOC_MULTIPLE_AT_ESCAPES";
pub const HEREDOC_INVALID_ESCAPE: &str = "HEREDOC_INVALID_ESCAPE";
pub const HEREDOC_WITHOUT_TEXT: &str = "HEREDOC_WITHOUT_TEXT";
pub const HEREDOC_WITHOUT_END_TAGGED_LINE: &str = "HEREDOC_WITHOUT_END_TAGGED_LINE";

// Input hygiene and limits (pbc's own).
/// The file is not valid UTF-8.
pub const INVALID_UTF8: &str = "INVALID_UTF8";
/// Brackets, blocks or operators nest deeper than pbc's limit.
pub const NESTING_TOO_DEEP: &str = "NESTING_TOO_DEEP";
/// More errors than the per-file cap; the rest are not shown.
pub const TOO_MANY_ERRORS: &str = "TOO_MANY_ERRORS";

// Parser-level errors that Puppet raises from its grammar actions.
pub const VIRTUAL_NOT_RESOURCE: &str = "VIRTUAL_NOT_RESOURCE";
pub const EXPORTED_NOT_RESOURCE: &str = "EXPORTED_NOT_RESOURCE";
pub const NOT_A_RESOURCE: &str = "NOT_A_RESOURCE";
pub const RESOURCE_APPEND_WITHOUT_TITLE: &str = "RESOURCE_APPEND_WITHOUT_TITLE";
pub const CALL_WITHOUT_PARENTHESES: &str = "CALL_WITHOUT_PARENTHESES";
pub const ILLEGAL_COMMA_LIST: &str = "ILLEGAL_COMMA_LIST";
pub const CLASS_KEYWORD_AS_NAME: &str = "CLASS_KEYWORD_AS_NAME";
pub const QUOTED_NAME: &str = "QUOTED_NAME";

// Bindings syntax (ARM-8, DECISIONS D1-D5).
/// `AS`, `TO`, `IN` written in upper case (D2).
pub const KEYWORD_CASE: &str = "KEYWORD_CASE";
/// A bind key that is neither a quoted name nor a type, or a misspelt keyword (D4).
pub const INVALID_BIND_KEY: &str = "INVALID_BIND_KEY";
/// A flag (`abstract`, `override`) given twice.
pub const DUPLICATE_BIND_FLAG: &str = "DUPLICATE_BIND_FLAG";
/// An option hash key that is not a bare name.
pub const INVALID_OPTION: &str = "INVALID_OPTION";
/// `include`/`exclude` of something that is not a class name or list of names.
pub const INVALID_CLASS_LIST: &str = "INVALID_CLASS_LIST";
