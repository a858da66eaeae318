//! The stable diagnostic codes. A code, once published, keeps its meaning; a retired code is never
//! reused. Where Puppet 7 has an issue code for the same problem we use Puppet's name.
//! Every code here has at least one failing file under `corpus/` (checked by `tests/it/corpus.rs`).

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

// Puppet's parse-time validation (Checker4_0, `pbc parse --validate`), with Puppet's issue codes.
pub const ILLEGAL_ASSIGNMENT: &str = "ILLEGAL_ASSIGNMENT";
pub const ILLEGAL_INDEXED_ASSIGNMENT: &str = "ILLEGAL_INDEXED_ASSIGNMENT";
pub const ILLEGAL_NUMERIC_ASSIGNMENT: &str = "ILLEGAL_NUMERIC_ASSIGNMENT";
pub const CROSS_SCOPE_ASSIGNMENT: &str = "CROSS_SCOPE_ASSIGNMENT";
pub const APPENDS_DELETES_NO_LONGER_SUPPORTED: &str = "APPENDS_DELETES_NO_LONGER_SUPPORTED";
pub const ILLEGAL_ATTRIBUTE_APPEND: &str = "ILLEGAL_ATTRIBUTE_APPEND";
pub const MULTIPLE_ATTRIBUTES_UNFOLD: &str = "MULTIPLE_ATTRIBUTES_UNFOLD";
pub const CLASS_NOT_VIRTUALIZABLE: &str = "CLASS_NOT_VIRTUALIZABLE";
pub const NOT_VIRTUALIZEABLE: &str = "NOT_VIRTUALIZEABLE";
pub const RESOURCE_WITHOUT_TITLE: &str = "RESOURCE_WITHOUT_TITLE";
pub const IDEM_EXPRESSION_NOT_LAST: &str = "IDEM_EXPRESSION_NOT_LAST";
pub const IDEM_NOT_ALLOWED_LAST: &str = "IDEM_NOT_ALLOWED_LAST";
pub const ILLEGAL_EXPRESSION: &str = "ILLEGAL_EXPRESSION";
pub const DUPLICATE_DEFAULT: &str = "DUPLICATE_DEFAULT";
pub const ILLEGAL_QUERY_EXPRESSION: &str = "ILLEGAL_QUERY_EXPRESSION";
pub const NOT_TOP_LEVEL: &str = "NOT_TOP_LEVEL";
pub const NOT_ABSOLUTE_TOP_LEVEL: &str = "NOT_ABSOLUTE_TOP_LEVEL";
pub const ILLEGAL_DEFINITION_NAME: &str = "ILLEGAL_DEFINITION_NAME";
pub const RESERVED_TYPE_NAME: &str = "RESERVED_TYPE_NAME";
/// A warning (Puppet's deprecation level).
pub const FUTURE_RESERVED_WORD: &str = "FUTURE_RESERVED_WORD";
pub const CAPTURES_REST_NOT_SUPPORTED: &str = "CAPTURES_REST_NOT_SUPPORTED";
pub const CAPTURES_REST_NOT_LAST: &str = "CAPTURES_REST_NOT_LAST";
pub const DUPLICATE_PARAMETER: &str = "DUPLICATE_PARAMETER";
pub const RESERVED_PARAMETER: &str = "RESERVED_PARAMETER";
pub const ILLEGAL_NUMERIC_PARAMETER: &str = "ILLEGAL_NUMERIC_PARAMETER";
pub const ILLEGAL_PARAM_NAME: &str = "ILLEGAL_PARAM_NAME";
pub const ILLEGAL_ASSIGNMENT_CONTEXT: &str = "ILLEGAL_ASSIGNMENT_CONTEXT";
pub const ILLEGAL_HOSTNAME_CHARS: &str = "ILLEGAL_HOSTNAME_CHARS";
pub const ILLEGAL_HOSTNAME_INTERPOLATION: &str = "ILLEGAL_HOSTNAME_INTERPOLATION";
pub const ILLEGAL_NODE_INHERITANCE: &str = "ILLEGAL_NODE_INHERITANCE";
pub const UNSUPPORTED_EXPRESSION: &str = "UNSUPPORTED_EXPRESSION";
pub const ILLEGAL_TYPE_MAPPING: &str = "ILLEGAL_TYPE_MAPPING";
/// A warning in Puppet 7 (`strict=warning`).
pub const DUPLICATE_KEY: &str = "DUPLICATE_KEY";
pub const NUMERIC_OVERFLOW: &str = "NUMERIC_OVERFLOW";
pub const ILLEGAL_NUMERIC_VAR_NAME: &str = "ILLEGAL_NUMERIC_VAR_NAME";
pub const ILLEGAL_VAR_NAME: &str = "ILLEGAL_VAR_NAME";
pub const RESERVED_WORD: &str = "RESERVED_WORD";
pub const NOT_RVALUE: &str = "NOT_RVALUE";
/// Heredoc text that does not have its declared syntax (`@(END:json)`).
pub const ILLEGAL_JSON: &str = "ILLEGAL_JSON";
pub const ILLEGAL_BASE64: &str = "ILLEGAL_BASE64";
pub const ILLEGAL_PUPPET: &str = "ILLEGAL_PUPPET";

// `pbc check`: the ARM-8 rules for site blocks (categories, environments, layers).
/// `common` listed in `categories` (it is always there, lowest).
pub const CATEGORY_COMMON_LISTED: &str = "CATEGORY_COMMON_LISTED";
/// `environment` listed with a value other than `true`.
pub const CATEGORY_ENVIRONMENT_VALUE: &str = "CATEGORY_ENVIRONMENT_VALUE";
/// `node` listed after `environment`.
pub const CATEGORY_NODE_BELOW_ENVIRONMENT: &str = "CATEGORY_NODE_BELOW_ENVIRONMENT";
pub const DUPLICATE_CATEGORY: &str = "DUPLICATE_CATEGORY";
/// A category name that does not match `[a-z][a-zA-Z0-9_]*`.
pub const INVALID_CATEGORY_NAME: &str = "INVALID_CATEGORY_NAME";
/// `categories { }` inside `if`, `unless`, `case` or a selector.
pub const CATEGORIES_IN_CONDITIONAL: &str = "CATEGORIES_IN_CONDITIONAL";
/// A second `site { categories { } }` in one environment.
pub const DUPLICATE_CATEGORIES: &str = "DUPLICATE_CATEGORIES";
/// `lookup`/`inject` where no injector exists yet (category values, `environments.pp`; D16).
pub const INJECTION_BEFORE_INJECTOR: &str = "INJECTION_BEFORE_INJECTOR";
pub const UNKNOWN_ENVIRONMENT_ATTRIBUTE: &str = "UNKNOWN_ENVIRONMENT_ATTRIBUTE";
/// (warning, `pbc check` of a site) A file with `site` or `bindings` blocks that no environment
/// reads: not its manifest, not under its bindingsdir, not in a module on its modulepath.
pub const NOT_IN_ANY_ENVIRONMENT: &str = "NOT_IN_ANY_ENVIRONMENT";
/// An environment path attribute whose literal value cannot be a path (`modulepath => 42`).
pub const ENVIRONMENT_PATH_TYPE: &str = "ENVIRONMENT_PATH_TYPE";
/// `envdir` on `dynamic_environments` (it is set from the directory found).
pub const ENVDIR_ON_DYNAMIC_ENVIRONMENTS: &str = "ENVDIR_ON_DYNAMIC_ENVIRONMENTS";
pub const RELATIVE_ENVDIR: &str = "RELATIVE_ENVDIR";
/// A literal `dynamic_environments` title that is not an absolute directory.
pub const RELATIVE_DYNAMIC_ENVIRONMENTS: &str = "RELATIVE_DYNAMIC_ENVIRONMENTS";
pub const DUPLICATE_ENVIRONMENT: &str = "DUPLICATE_ENVIRONMENT";
/// `environment`, `Environment` or `dynamic_environments` resources outside `site { }`.
pub const ENVIRONMENT_OUTSIDE_SITE: &str = "ENVIRONMENT_OUTSIDE_SITE";
/// Puppet 3's binder_config code.
pub const DUPLICATE_LAYER_NAME: &str = "DUPLICATE_LAYER_NAME";
pub const UNKNOWN_LAYER_ATTRIBUTE: &str = "UNKNOWN_LAYER_ATTRIBUTE";
pub const BINDINGS_REF_NOT_STRING_OR_ARRAY: &str = "BINDINGS_REF_NOT_STRING_OR_ARRAY";
pub const MISSING_SCHEME: &str = "MISSING_SCHEME";
pub const REF_WITHOUT_PATH: &str = "REF_WITHOUT_PATH";
/// A warning: a scheme neither built in nor bound in `bindings_providers`.
pub const UNKNOWN_REF_SCHEME: &str = "UNKNOWN_REF_SCHEME";
/// `*` in a bindings URI anywhere but the module segment.
pub const ILLEGAL_WILDCARD: &str = "ILLEGAL_WILDCARD";
/// A bindings URI whose path has a `.` or `..` segment (also percent-encoded, `%2e%2e`): it
/// could only lead outside the environment or module.
pub const URI_PATH_ESCAPES: &str = "URI_PATH_ESCAPES";

// ARM-9: `binder_config.yaml` (Puppet 3.4's binder config codes; `src/data/binder_config.rs`).
pub const CONFIG_VERSION_MISSING: &str = "CONFIG_VERSION_MISSING";
/// A version other than 1 and 2.
pub const CONFIG_WRONG_VERSION: &str = "CONFIG_WRONG_VERSION";
pub const CATEGORIES_IS_NOT_ARRAY: &str = "CATEGORIES_IS_NOT_ARRAY";
pub const CATEGORY_IS_NOT_ARRAY: &str = "CATEGORY_IS_NOT_ARRAY";
pub const CATEGORY_NOT_TWO_STRINGS: &str = "CATEGORY_NOT_TWO_STRINGS";
pub const LAYERS_IS_NOT_ARRAY: &str = "LAYERS_IS_NOT_ARRAY";
pub const LAYER_IS_NOT_HASH: &str = "LAYER_IS_NOT_HASH";
pub const LAYER_NAME_NOT_STRING: &str = "LAYER_NAME_NOT_STRING";
/// A warning: `extensions` (Ruby scheme handlers and backends) cannot run outside Puppet.
pub const EXTENSIONS_NOT_SUPPORTED: &str = "EXTENSIONS_NOT_SUPPORTED";
/// A `site { }` and a `binder_config.yaml` both declare categories (or both layers).
pub const BINDER_CONFIG_CONFLICT: &str = "BINDER_CONFIG_CONFLICT";

// ARM-9: `hiera.yaml` versions 2 and 3 (Puppet 3.4's hiera2 checker codes and those of the
// version 3 rules; `src/data/hiera.rs`).
/// The file is not YAML.
pub const CONFIG_FILE_SYNTAX_ERROR: &str = "CONFIG_FILE_SYNTAX_ERROR";
/// The file is empty, or its top level is not a hash.
pub const CONFIG_IS_NOT_HASH: &str = "CONFIG_IS_NOT_HASH";
/// A warning: a module's `hiera.yaml` without `version` (Hiera 1's), which is ignored.
pub const MISSING_VERSION: &str = "MISSING_VERSION";
/// A `version` pbc does not read.
pub const WRONG_VERSION: &str = "WRONG_VERSION";
/// A top-level key the version does not have.
pub const UNKNOWN_HIERA_ATTRIBUTE: &str = "UNKNOWN_HIERA_ATTRIBUTE";
/// `backends` that is not a non-empty list.
pub const MISSING_BACKENDS: &str = "MISSING_BACKENDS";
/// A backend other than `yaml` and `json`.
pub const UNKNOWN_BACKEND: &str = "UNKNOWN_BACKEND";
/// Version 2: an entry that is not `[category, value, path]`.
pub const CATEGORY_MUST_BE_THREE_ELEMENT_ARRAY: &str = "CATEGORY_MUST_BE_THREE_ELEMENT_ARRAY";
/// Version 3: `hierarchy` (or an entry) of the wrong shape.
pub const HIERARCHY_WRONG_TYPE: &str = "HIERARCHY_WRONG_TYPE";
pub const HIERARCHY_ENTRY_MISSING_ATTRIBUTE: &str = "HIERARCHY_ENTRY_MISSING_ATTRIBUTE";
pub const UNKNOWN_CATEGORY_ATTRIBUTE: &str = "UNKNOWN_CATEGORY_ATTRIBUTE";
pub const ILLEGAL_VALUE_FOR_COMMON: &str = "ILLEGAL_VALUE_FOR_COMMON";
pub const PATH_PATHS_EXCLUSIVE: &str = "PATH_PATHS_EXCLUSIVE";
pub const CATEGORY_ATTR_WRONG_TYPE: &str = "CATEGORY_ATTR_WRONG_TYPE";
pub const CATEGORY_ATTR_EMPTY: &str = "CATEGORY_ATTR_EMPTY";
pub const CATEGORY_ATTR_ARRAY_ENTRY_EMPTY: &str = "CATEGORY_ATTR_ARRAY_ENTRY_EMPTY";
/// A data file that is not YAML (or JSON).
pub const DATA_FILE_SYNTAX_ERROR: &str = "DATA_FILE_SYNTAX_ERROR";
/// A lookup that reaches a Hiera level pbc cannot search before it has its answer (D25): what
/// that level holds could change the answer, so pbc gives none.
pub const HIERA_LEVEL_NOT_SEARCHABLE: &str = "HIERA_LEVEL_NOT_SEARCHABLE";
/// A lookup that returns a hiera-eyaml value (`ENC[PKCS7,...]`) with no private key on this
/// machine to open it (D25): never a lower level's value, never the ciphertext.
pub const EYAML_VALUE_ENCRYPTED: &str = "EYAML_VALUE_ENCRYPTED";
/// A hiera-eyaml level's private key is there but cannot be used (unreadable, not an RSA
/// private key, protected by a passphrase).
pub const EYAML_KEY_UNREADABLE: &str = "EYAML_KEY_UNREADABLE";
/// A hiera-eyaml value the key does not open: encrypted for another key, another method than
/// PKCS7, or damaged.
pub const EYAML_DECRYPT_FAILED: &str = "EYAML_DECRYPT_FAILED";
/// A YAML file whose aliases would copy more than pbc's budget (`data::yaml::MAX_ALIAS_COPIES`).
pub const YAML_ALIAS_LIMIT: &str = "YAML_ALIAS_LIMIT";
/// A number in a data file that Puppet reads and pbc's values cannot hold (an integer beyond 64
/// bits, an infinity, NaN): a warning at the value, and the error of a lookup that returns it.
pub const DATA_VALUE_NOT_REPRESENTABLE: &str = "DATA_VALUE_NOT_REPRESENTABLE";
/// A data file that does not hold a hash of named keys.
pub const DATA_NOT_HASH: &str = "DATA_NOT_HASH";
/// A warning: a hierarchy entry whose value names another fact than its category's value.
pub const CATEGORY_VALUE_DIFFERS: &str = "CATEGORY_VALUE_DIFFERS";
/// A hierarchy category the site does not declare.
pub const MISSING_CATEGORY_PRECEDENCE: &str = "MISSING_CATEGORY_PRECEDENCE";
/// A hierarchy whose categories are out of the site's order.
pub const PRECEDENCE_MISMATCH_IN_CONTRIBUTION: &str = "PRECEDENCE_MISMATCH_IN_CONTRIBUTION";
/// A data path or `datadir` that leaves the directory of its `hiera.yaml` (D21).
pub const HIERA_PATH_ESCAPES: &str = "HIERA_PATH_ESCAPES";

// Hiera 5: `hiera.yaml` version 5 (`src/data/hiera5.rs`), with Puppet 7's issue names.
/// A value of the wrong type where Puppet's configuration type asserts one (a non-empty
/// string, a list of at least one path, `mapped_paths` of three, an option name).
pub const HIERA_WRONG_TYPE: &str = "HIERA_WRONG_TYPE";
pub const HIERA_DEFAULT_HIERARCHY_NOT_IN_MODULE: &str = "HIERA_DEFAULT_HIERARCHY_NOT_IN_MODULE";
pub const HIERA_MISSING_DATA_PROVIDER_FUNCTION: &str = "HIERA_MISSING_DATA_PROVIDER_FUNCTION";
pub const HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS: &str = "HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS";
pub const HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS_IN_DEFAULT: &str =
    "HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS_IN_DEFAULT";
pub const HIERA_V3_BACKEND_NOT_GLOBAL: &str = "HIERA_V3_BACKEND_NOT_GLOBAL";
pub const HIERA_V3_BACKEND_REPLACED_BY_DATA_HASH: &str = "HIERA_V3_BACKEND_REPLACED_BY_DATA_HASH";
pub const HIERA_MULTIPLE_LOCATION_SPECS: &str = "HIERA_MULTIPLE_LOCATION_SPECS";
pub const HIERA_OPTION_RESERVED_BY_PUPPET: &str = "HIERA_OPTION_RESERVED_BY_PUPPET";
pub const HIERA_DEFAULT_OPTION_RESERVED_BY_PUPPET: &str = "HIERA_DEFAULT_OPTION_RESERVED_BY_PUPPET";
pub const HIERA_HIERARCHY_NAME_MULTIPLY_DEFINED: &str = "HIERA_HIERARCHY_NAME_MULTIPLY_DEFINED";
/// `%{name('k')}` where only variables are allowed (paths, `datadir`, options).
pub const HIERA_INTERPOLATION_METHOD_SYNTAX_NOT_ALLOWED: &str =
    "HIERA_INTERPOLATION_METHOD_SYNTAX_NOT_ALLOWED";
/// `%{alias('k')}` with anything else in the string.
pub const HIERA_INTERPOLATION_ALIAS_NOT_ENTIRE_STRING: &str =
    "HIERA_INTERPOLATION_ALIAS_NOT_ENTIRE_STRING";
/// `%{name('k')}` with a name other than `lookup`, `hiera`, `alias`, `literal`, `scope`.
pub const HIERA_INTERPOLATION_UNKNOWN_INTERPOLATION_METHOD: &str =
    "HIERA_INTERPOLATION_UNKNOWN_INTERPOLATION_METHOD";
/// `%{...}` that is not a variable with keys to dig (Puppet: "Syntax error in string").
pub const HIERA_INTERPOLATION_SYNTAX_ERROR: &str = "HIERA_INTERPOLATION_SYNTAX_ERROR";
/// A warning: a level whose function (`lookup_key`, `data_dig`, a Hiera 3 backend, a data hash
/// function other than `yaml_data` and `json_data`) or `uri` locations pbc cannot run.
pub const HIERA_FUNCTION_NOT_SUPPORTED: &str = "HIERA_FUNCTION_NOT_SUPPORTED";
/// A warning: a level whose globs exceed pbc's limits (patterns, size, depth, steps, files found): pbc
/// cannot search it completely, so a lookup that reaches it fails.
pub const HIERA_GLOB_LIMIT: &str = "HIERA_GLOB_LIMIT";
/// A warning: a key in a module's Hiera 5 data outside the module's namespace (Puppet drops
/// it with a warning: a module answers only its own keys).
pub const HIERA_KEY_NOT_IN_MODULE: &str = "HIERA_KEY_NOT_IN_MODULE";
/// At lookup: values a merge strategy cannot merge (`hash` of an Array, `unique` of a Hash).
pub const HIERA_MERGE_MISMATCH: &str = "HIERA_MERGE_MISMATCH";
/// At lookup: `lookup_options` that are not a hash of keys (or `^` patterns) to options, an
/// unknown merge strategy or option, a pattern that is not a regular expression, or a module's
/// options for keys outside its module.
pub const HIERA_INVALID_LOOKUP_OPTIONS: &str = "HIERA_INVALID_LOOKUP_OPTIONS";
/// At lookup: `convert_to` names a type (or `new` arguments) pbc does not convert to: one
/// outside Puppet's built-in data types and `Sensitive`, a `String` format, a `Hash` tree.
pub const HIERA_CONVERT_TO_NOT_SUPPORTED: &str = "HIERA_CONVERT_TO_NOT_SUPPORTED";
/// At lookup: Puppet's `new` for the `convert_to` type refuses the found value (`'x1'` to
/// `Integer`, a result outside `Integer[0, 5]`).
pub const HIERA_CONVERT_TO_FAILED: &str = "HIERA_CONVERT_TO_FAILED";

// `pbc check`: the ARM-8 rules for bindings files and bind operations.
/// A `bindings` name that does not match the file's place in the tree.
pub const BINDINGS_NAME_MISMATCH: &str = "BINDINGS_NAME_MISMATCH";
pub const MULTIPLE_BINDINGS_IN_FILE: &str = "MULTIPLE_BINDINGS_IN_FILE";
/// A binding name starting with `/` (reserved for the naming scheme).
pub const RESERVED_BINDING_NAME: &str = "RESERVED_BINDING_NAME";
/// A binding name with interpolation (keys are fixed before any request).
pub const BINDING_NAME_NOT_LITERAL: &str = "BINDING_NAME_NOT_LITERAL";
/// `multibind ... to VALUE`: a multibind's value is its contributions; the producer would be
/// dropped.
pub const MULTIBIND_VALUE: &str = "MULTIBIND_VALUE";
/// `when` blocks or a declared type nest deeper than the model allows
/// (`MAX_WHEN_NESTING`, `MAX_TYPE_NESTING` of `puppet_bindings::lower::model`).
pub const BINDINGS_TOO_DEEP: &str = "BINDINGS_TOO_DEEP";
/// `or`s that copy the bindings they enclose more than
/// `puppet_bindings::lower::model::MAX_ALTERNATIVES` times (through nested `when`s).
pub const TOO_MANY_ALTERNATIVES: &str = "TOO_MANY_ALTERNATIVES";
/// A `when` category the site does not declare (a warning when the tree has no site).
pub const UNKNOWN_CATEGORY: &str = "UNKNOWN_CATEGORY";
pub const ABSTRACT_WITH_PRODUCER: &str = "ABSTRACT_WITH_PRODUCER";
pub const ABSTRACT_PARAMETERS: &str = "ABSTRACT_PARAMETERS";
/// Puppet 3's code: a concrete binding that binds nothing.
pub const MISSING_PRODUCER: &str = "MISSING_PRODUCER";
/// A `to ...` on `rebind`, `bind alias` or `bind renamed`.
pub const PRODUCER_NOT_ALLOWED: &str = "PRODUCER_NOT_ALLOWED";
/// A warning: `override` on `rebind`, `bind alias` or `bind renamed`.
pub const OVERRIDE_HAS_NO_EFFECT: &str = "OVERRIDE_HAS_NO_EFFECT";
/// Puppet 3's code: a multibind whose type is not `Array[...]` or `Hash[...]`.
pub const MULTIBIND_TYPE_ERROR: &str = "MULTIBIND_TYPE_ERROR";
pub const HASH_CONTRIBUTION_WITHOUT_NAME: &str = "HASH_CONTRIBUTION_WITHOUT_NAME";
/// A warning: a contribution to an id that no multibind in the tree declares.
pub const UNKNOWN_MULTIBIND: &str = "UNKNOWN_MULTIBIND";
/// `bind parameters X to R[...]` twice with the same type `R`.
pub const DUPLICATE_PARAMETERS_PRODUCER: &str = "DUPLICATE_PARAMETERS_PRODUCER";
pub const INVALID_PARAMETER_NAME: &str = "INVALID_PARAMETER_NAME";
pub const DUPLICATE_VARIABLE: &str = "DUPLICATE_VARIABLE";
pub const DEPENDENCY_NOT_RESOURCE: &str = "DEPENDENCY_NOT_RESOURCE";
/// `?? query` anywhere but in a producer.
pub const QUERY_OUTSIDE_PRODUCER: &str = "QUERY_OUTSIDE_PRODUCER";
pub const UNKNOWN_OPTION: &str = "UNKNOWN_OPTION";
pub const OPTION_NOT_APPLICABLE: &str = "OPTION_NOT_APPLICABLE";
pub const INVALID_OPTION_VALUE: &str = "INVALID_OPTION_VALUE";
/// `append`, `flatten` or `uniq` on a Hash multibind whose elements are not Data or arrays.
pub const OPTION_NEEDS_ARRAY_ELEMENTS: &str = "OPTION_NEEDS_ARRAY_ELEMENTS";
pub const UNKNOWN_TYPE: &str = "UNKNOWN_TYPE";
pub const WRONG_TYPE_PARAMETER_COUNT: &str = "WRONG_TYPE_PARAMETER_COUNT";
/// A reserved type name (`Array`, `Enum` ...) used as a resource type.
pub const RESERVED_TYPE_AS_RESOURCE: &str = "RESERVED_TYPE_AS_RESOURCE";
/// Puppet 3's code: a literal producer whose value does not have the binding's type.
pub const INCOMPATIBLE_TYPE: &str = "INCOMPATIBLE_TYPE";
/// A literal contribution that does not have its multibind's element type.
pub const CONTRIBUTION_INCOMPATIBLE_TYPE: &str = "CONTRIBUTION_INCOMPATIBLE_TYPE";

// `pbc check`: what only the composed layers show (D6, D11, D13).
/// A layer's `include` names bindings the tree does not have (and is not optional).
pub const MISSING_BINDINGS: &str = "MISSING_BINDINGS";
/// `--confine`: an environment path attribute leads out of the tree.
pub const PATH_OUTSIDE_TREE: &str = "PATH_OUTSIDE_TREE";
/// A directory of the tree whose path is longer than the system allows: it is not read.
pub const PATH_TOO_LONG: &str = "PATH_TOO_LONG";
/// (warning) A symbolic link in the tree that leads out of it: not followed (unless
/// `--follow-symlinks`), by every subcommand alike.
pub const SYMLINK_NOT_FOLLOWED: &str = "SYMLINK_NOT_FOLLOWED";
/// (warning) A layer's wildcard `include` (`module:/*::defualt`) names no bindings file of the
/// tree: often a typo that silently drops every module's bindings.
pub const INCLUDE_MATCHES_NOTHING: &str = "INCLUDE_MATCHES_NOTHING";
/// (warning, a tree with a site) A bindings file the environment reads but no layer includes:
/// its bindings never apply.
pub const NOT_IN_ANY_LAYER: &str = "NOT_IN_ANY_LAYER";
/// Two bindings of one key in one layer with equal precedence.
pub const CONFLICTING_BINDINGS: &str = "CONFLICTING_BINDINGS";
/// An `override` binding with nothing to override (a warning when the tree has no site).
pub const UNRESOLVED_OVERRIDE: &str = "UNRESOLVED_OVERRIDE";
/// An abstract binding no binding makes concrete (a warning when the tree has no site).
pub const ABSTRACT_NOT_OVERRIDDEN: &str = "ABSTRACT_NOT_OVERRIDDEN";

// `pbc lookup`: evaluating expressions (`src/eval/`) and resolving keys (`src/inject/`).
/// An operator or function applied to values of the wrong type, a wrong argument count.
pub const EVAL_TYPE_ERROR: &str = "EVAL_TYPE_ERROR";
/// Evaluation exceeded its step budget or nesting limit.
pub const EVAL_LIMIT: &str = "EVAL_LIMIT";
/// A selector with no matching option.
pub const EVAL_NO_MATCH: &str = "EVAL_NO_MATCH";
/// `fail(...)` was called.
pub const EVAL_FAILED: &str = "EVAL_FAILED";
/// A construct that has no value in a binding (a resource, a class definition ...).
pub const NOT_EVALUABLE: &str = "NOT_EVALUABLE";
/// An instance, producer or query producer: it needs a runtime pbc does not have.
pub const NEEDS_RUNTIME: &str = "NEEDS_RUNTIME";
/// An unknown variable under `--strict`.
pub const UNDEFINED_VARIABLE: &str = "UNDEFINED_VARIABLE";
pub const UNKNOWN_FUNCTION: &str = "UNKNOWN_FUNCTION";
/// `lookup()` of a key nothing is bound to, without a default.
pub const KEY_NOT_FOUND: &str = "KEY_NOT_FOUND";
/// A lookup that needs its own value (directly or through other keys).
pub const LOOKUP_LOOP: &str = "LOOKUP_LOOP";
/// The environment `--env` or `environments.pp` names is not declared.
pub const UNKNOWN_ENVIRONMENT: &str = "UNKNOWN_ENVIRONMENT";
/// A static environment's `envdir` is not a directory (an error for the request that selects
/// it; a warning from `pbc check`, which then cannot check that environment).
pub const ENVDIR_NOT_FOUND: &str = "ENVDIR_NOT_FOUND";
/// A Hash multibind contribution without a name, or a key contributed twice.
pub const MULTIBIND_CONTRIBUTION: &str = "MULTIBIND_CONTRIBUTION";
/// `pbc lookup --type T`: the value found is not a T.
pub const LOOKUP_TYPE_MISMATCH: &str = "LOOKUP_TYPE_MISMATCH";
/// A facts file that cannot be read as facts.
pub const INVALID_FACTS: &str = "INVALID_FACTS";
/// An ENC output file (`--enc`) that is not what an ENC prints.
pub const INVALID_ENC: &str = "INVALID_ENC";
/// `--model FILE`: not a model `pbc compile DIR` writes (not JSON, another format or version,
/// the model of bindings files alone, a shape pbc does not read, nesting past the limit).
pub const INVALID_MODEL: &str = "INVALID_MODEL";
/// `--model FILE`: `--env` names another environment than the model's.
pub const MODEL_ENVIRONMENT_MISMATCH: &str = "MODEL_ENVIRONMENT_MISMATCH";
/// `pbc serve`: a line a client sent is not the protocol's (docs/answers.md).
pub const SERVE_REQUEST: &str = "SERVE_REQUEST";
/// `pbc serve`: a model outside the directories `--models` gives.
pub const SERVE_MODEL_REFUSED: &str = "SERVE_MODEL_REFUSED";
/// `pbc serve`: a connection past `--max-connections`.
pub const SERVE_BUSY: &str = "SERVE_BUSY";
/// `pbc fmt`: the laid-out text would not parse to the same program (a bug in pbc); the file is
/// left as it was.
pub const FORMAT_CHANGED_MEANING: &str = "FORMAT_CHANGED_MEANING";
