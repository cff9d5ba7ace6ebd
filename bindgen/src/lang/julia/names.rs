//! Julia identifiers: the only place that spells them.
//!
//! Rules: modules and types `CamelCase`, functions, methods, fields and parameters
//! `snake_case`; keywords get a trailing `_`, and so do type names that `Base` exports; methods
//! whose name `Base` exports extend Base's function; generated internals start with `_ffi_` (a
//! user name with that prefix is an error); two items with the same identifier in one scope are
//! an error naming both.

use crate::diagnostics::Diagnostics;
use crate::lang::case;
use crate::lang::Scope;

use super::base_names::BASE_EXPORTS;
use super::LANG;

/// Julia's reserved words (including the contextual ones that cannot name a function), and
/// names that generated code relies on.
const KEYWORDS: &[&str] = &[
    "abstract",
    "baremodule",
    "begin",
    "break",
    "catch",
    "const",
    "continue",
    "do",
    "else",
    "elseif",
    "end",
    "export",
    "false",
    "finally",
    "for",
    "function",
    "global",
    "if",
    "import",
    "in",
    "isa",
    "let",
    "local",
    "macro",
    "module",
    "mutable",
    "outer",
    "primitive",
    "quote",
    "return",
    "struct",
    "true",
    "try",
    "type",
    "using",
    "where",
    "while",
    "nothing",
    "missing",
    // Modules every Julia module sees; a type with these names would hide them.
    "Base",
    "Core",
    "Main",
];

/// The prefix of every internal name in generated code.
pub const RESERVED_PREFIX: &str = "_ffi_";

fn escape(ident: String) -> String {
    if KEYWORDS.contains(&ident.as_str()) {
        format!("{ident}_")
    } else {
        ident
    }
}

/// Whether Julia's `Base` (or `Core`) exports `ident`.
pub fn is_base_export(ident: &str) -> bool {
    BASE_EXPORTS.binary_search(&ident).is_ok()
}

/// The module name for `--name`.
pub fn module(name: &str) -> String {
    escape(case::sanitize(&case::pascal(name)))
}

/// A submodule from a segment of a dotted name (spelled as registered, escaped).
pub fn namespace_segment(segment: &str) -> String {
    escape(case::sanitize(segment))
}

/// A type name from the last segment of a type key. Names that `Base` exports (`Pair`,
/// `String`, ...) get a trailing `_` too: the generated code and its users need Base's.
pub fn type_name(segment: &str) -> String {
    let ident = escape(case::sanitize(&case::pascal(segment)));
    if is_base_export(&ident) {
        format!("{ident}_")
    } else {
        ident
    }
}

/// The abstract supertype that stands for a type and its subtypes.
pub fn abstract_type_name(type_name: &str) -> String {
    format!("Abstract{type_name}")
}

/// A function, method, field or parameter name.
pub fn value_name(name: &str) -> String {
    escape(case::sanitize(&case::snake(name)))
}

/// A function's name as registered, for when its [`value_name`] is taken: the registered case
/// kept (`BitwiseAnd` next to `bitwise_and`), made an identifier like every other name.
pub fn verbatim_value_name(name: &str) -> String {
    escape(case::sanitize(name))
}

/// A parameter name: like [`value_name`], and `self` (the receiver of methods) gets a `_`.
pub fn param_name(name: &str) -> String {
    let ident = value_name(name);
    if ident == "self" {
        "self_".into()
    } else {
        ident
    }
}

/// The name under which a method is defined: a name that `Base` exports extends Base's
/// function (`Base.sum(self::AbstractTestIntPair)`: the receiver is a generated type, so this
/// adds a method without changing Base's behaviour for anything else).
/// `prefix` qualifies other names (`Tvm.relax.`, for a type of a namespace).
pub fn method_definition(ident: &str, prefix: &str) -> String {
    if is_base_export(ident) {
        format!("Base.{ident}")
    } else {
        format!("{prefix}{ident}")
    }
}

/// A Julia `Symbol` literal: `:x`, or `Symbol("end")` when `:name` would not parse.
pub fn symbol_literal(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name);
    if plain {
        format!(":{name}")
    } else {
        format!("Symbol({})", super::model::literal(name))
    }
}

/// Claims `ident` in `scope`, rejecting the reserved prefix.
pub fn claim(scope: &mut Scope, ident: &str, item: &str, diags: &mut Diagnostics) {
    if ident.starts_with(RESERVED_PREFIX) {
        diags.error(
            LANG,
            item,
            format!("`{ident}` uses the reserved prefix {RESERVED_PREFIX}"),
        );
    }
    scope.claim(ident, item, LANG, diags);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling() {
        assert_eq!(module("tvm_ffi_testing"), "TvmFfiTesting");
        assert_eq!(type_name("TestIntPair"), "TestIntPair");
        assert_eq!(type_name("Pair"), "Pair_");
        assert_eq!(type_name("Base"), "Base_");
        assert_eq!(value_name("TestIntPairSum"), "test_int_pair_sum");
        assert_eq!(value_name("end"), "end_");
        assert_eq!(value_name("v_i64"), "v_i64");
        assert_eq!(verbatim_value_name("BitwiseAnd"), "BitwiseAnd");
        assert_eq!(verbatim_value_name("a\"b"), "a_b");
        assert_eq!(verbatim_value_name("a-b"), "a_b");
        assert_eq!(verbatim_value_name("end"), "end_");
        assert_eq!(param_name("self"), "self_");
        assert_eq!(method_definition("sum", ""), "Base.sum");
        assert_eq!(method_definition("norm", ""), "norm");
        assert_eq!(method_definition("norm", "T.a."), "T.a.norm");
        assert_eq!(symbol_literal("x"), ":x");
        assert_eq!(symbol_literal("end"), "Symbol(\"end\")");
        assert_eq!(symbol_literal("a-b"), "Symbol(\"a-b\")");
    }
}
