//! Julia identifiers: the only place that spells them.
//!
//! Rules: modules and types `CamelCase`, functions, methods, fields and parameters
//! `snake_case`; keywords get a trailing `_`, and so do type names that `Base` exports; methods
//! whose name `Base` exports extend Base's function; generated internals start with `_ffi_` (a
//! user name with that prefix is an error); two items with the same identifier in one scope are
//! an error naming both.

use crate::lang::case;
use crate::lang::naming::Spelling;

use super::base_names::{BASE_EXPORTS, BUILTINS, LATER_EXPORTS};

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

/// The abstract supertype that stands for a type and its subtypes.
pub fn abstract_type_name(type_name: &str) -> String {
    // TVM's `ir.Range` would make `AbstractRange`, Base's on every version.
    let name = format!("Abstract{type_name}");
    if is_base_export(&name) {
        format!("{name}_")
    } else {
        name
    }
}

/// A function, method, field or parameter name.
pub fn value_name(name: &str) -> String {
    escape(case::sanitize(&case::snake(name)))
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
/// Builtins (`tuple`, `typeof`) take no methods: the package defines its own function. A name only
/// later versions' Base has is written as the package's own, under `TVMFFI.@extend_base`
/// ([`extends_base_on_load`]).
pub fn method_definition(ident: &str, prefix: &str) -> String {
    if is_base_export(ident) && !is_sorted_in(BUILTINS, ident) && !extends_base_on_load(ident) {
        format!("Base.{ident}")
    } else {
        format!("{prefix}{ident}")
    }
}

/// Whether a method named `ident` extends Base's function only where the Julia that precompiles
/// the package has one (`TVMFFI.@extend_base`): names of some versions' Base only.
pub fn extends_base_on_load(ident: &str) -> bool {
    is_sorted_in(LATER_EXPORTS, ident)
}

fn is_sorted_in(list: &[&str], ident: &str) -> bool {
    list.binary_search(&ident).is_ok()
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
        format!("Symbol({})", super::text::literal(name))
    }
}

/// Julia for the naming every backend shares (`lang::naming`): a type also takes its abstract
/// supertype's name, and a module binds its own name.
pub struct Julia;

impl Spelling for Julia {
    const LANG: &'static str = super::LANG;
    const RESERVED_PREFIX: &'static str = RESERVED_PREFIX;
    const SELF_NAMED: bool = true;

    /// A submodule: the segment as registered, escaped.
    fn namespace_segment(segment: &str) -> String {
        escape(case::sanitize(segment))
    }

    /// A type: `CamelCase`. Names that `Base` exports (`Pair`, `String`, ...) get a trailing
    /// `_` too: the generated code and its users need Base's.
    fn type_ident(segment: &str) -> String {
        let ident = escape(case::sanitize(&case::pascal(segment)));
        if is_base_export(&ident) {
            format!("{ident}_")
        } else {
            ident
        }
    }

    fn type_companions(ident: &str) -> Vec<String> {
        vec![abstract_type_name(ident)]
    }

    fn value(name: &str) -> String {
        value_name(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling() {
        assert_eq!(module("tvm_ffi_testing"), "TvmFfiTesting");
        assert_eq!(Julia::type_ident("TestIntPair"), "TestIntPair");
        assert_eq!(Julia::type_ident("Pair"), "Pair_");
        assert_eq!(Julia::type_ident("Base"), "Base_");
        assert_eq!(value_name("TestIntPairSum"), "test_int_pair_sum");
        assert_eq!(value_name("end"), "end_");
        assert_eq!(value_name("v_i64"), "v_i64");
        assert_eq!(Julia::verbatim_value("BitwiseAnd"), "BitwiseAnd");
        assert_eq!(Julia::verbatim_value("a\"b"), "a_b");
        assert_eq!(Julia::verbatim_value("a-b"), "a_b");
        assert_eq!(Julia::verbatim_value("end"), "end_");
        assert_eq!(param_name("self"), "self_");
        assert_eq!(method_definition("sum", ""), "Base.sum");
        assert_eq!(method_definition("tuple", ""), "tuple");
        assert_eq!(method_definition("logrange", "T.a."), "T.a.logrange");
        assert!(extends_base_on_load("stack") && extends_base_on_load("public"));
        assert!(!extends_base_on_load("sum") && !extends_base_on_load("tuple"));
        assert_eq!(abstract_type_name("Range"), "AbstractRange_");
        assert_eq!(abstract_type_name("Point"), "AbstractPoint");
        assert_eq!(method_definition("norm", ""), "norm");
        assert_eq!(method_definition("norm", "T.a."), "T.a.norm");
        assert_eq!(symbol_literal("x"), ":x");
        assert_eq!(symbol_literal("end"), "Symbol(\"end\")");
        assert_eq!(symbol_literal("a-b"), "Symbol(\"a-b\")");
    }
}
