//! Julia identifiers: the only place that spells them.
//!
//! Rules: modules and types `CamelCase`, functions, methods, fields and parameters
//! `snake_case`; keywords get a trailing `_`; generated internals start with `_ffi_` (a user
//! name with that prefix is an error); two items with the same identifier in one scope are an
//! error naming both.

use crate::diagnostics::Diagnostics;
use crate::lang::case;
use crate::lang::Scope;

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

/// The module name for `--name`.
pub fn module(name: &str) -> String {
    escape(case::sanitize(&case::pascal(name)))
}

/// A type name from the last segment of a type key.
pub fn type_name(segment: &str) -> String {
    escape(case::sanitize(&case::pascal(segment)))
}

/// The abstract supertype that stands for a type and its subtypes.
pub fn abstract_type_name(type_name: &str) -> String {
    format!("Abstract{type_name}")
}

/// A function, method, field or parameter name.
pub fn value_name(name: &str) -> String {
    escape(case::sanitize(&case::snake(name)))
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
        assert_eq!(value_name("TestIntPairSum"), "test_int_pair_sum");
        assert_eq!(value_name("end"), "end_");
        assert_eq!(value_name("v_i64"), "v_i64");
    }
}
