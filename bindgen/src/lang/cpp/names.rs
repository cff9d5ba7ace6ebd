//! C++ identifiers: the only place that spells them.
//!
//! Rules: everything lives in `namespace <snake_case name>`; functions, methods, field
//! accessors and parameters are `snake_case`; classes keep the type key's last segment in
//! `PascalCase`; keywords (and a few standard macros and namespaces) get a trailing `_`;
//! generated internals live in the nested namespace `detail` or start with `ffi_` (a user name
//! with that prefix is an error); collisions in one scope are errors.

use crate::lang::case;
use crate::lang::naming::Spelling;

/// C++20 keywords and alternative tokens, macros from the standard headers that would break a
/// declaration, and the namespaces generated code names (`detail`, `ffihub`, `std`).
const KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "assert",
    "errno",
    "NULL",
    "EOF",
    "stdin",
    "stdout",
    "stderr",
    "detail",
    "ffihub",
    "std",
];

/// The prefix of internal names in generated code.
pub const RESERVED_PREFIX: &str = "ffi_";

fn escape(ident: String) -> String {
    if KEYWORDS.contains(&ident.as_str()) {
        format!("{ident}_")
    } else {
        ident
    }
}

/// The namespace for `--name`.
pub fn namespace(name: &str) -> String {
    escape(case::sanitize(&case::snake(name)))
}

/// The parameter holding keyword-only arguments (an options struct), last.
pub const OPTIONS_PARAM: &str = "options";

/// The options struct of a constructor's keyword-only parameters, nested in its class
/// (`GrammarMatcher::InitOptions`; `Options` alone would collide with a class of that name).
pub const CONSTRUCTOR_OPTIONS: &str = "InitOptions";

/// The options struct of a function's or method's keyword-only parameters
/// (`from_json_schema` -> `FromJsonSchemaOptions`).
pub fn options_struct(ident: &str) -> String {
    format!("{}Options", case::pascal(ident.trim_end_matches('_')))
}

/// The setter of a writable field.
pub fn setter(field_ident: &str) -> String {
    format!("set_{field_ident}")
}

/// C++ for the naming every backend shares (`lang::naming`).
pub struct Cpp;

impl Spelling for Cpp {
    const LANG: &'static str = super::LANG;
    const RESERVED_PREFIX: &'static str = RESERVED_PREFIX;

    /// A nested namespace: the segment as registered, escaped.
    fn namespace_segment(segment: &str) -> String {
        escape(case::sanitize(segment))
    }

    /// A class: `PascalCase`.
    fn type_ident(segment: &str) -> String {
        escape(case::sanitize(&case::pascal(segment)))
    }

    /// A function, method, accessor or parameter: `snake_case`.
    fn value(name: &str) -> String {
        escape(case::sanitize(&case::snake(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling() {
        assert_eq!(namespace("TvmFfiTesting"), "tvm_ffi_testing");
        assert_eq!(Cpp::type_ident("test_int_pair"), "TestIntPair");
        assert_eq!(Cpp::namespace_segment("relax"), "relax");
        assert_eq!(Cpp::namespace_segment("new"), "new_");
        assert_eq!(Cpp::value("TestIntPairSum"), "test_int_pair_sum");
        assert_eq!(Cpp::value("delete"), "delete_");
        assert_eq!(setter("v_i64"), "set_v_i64");
        assert_eq!(options_struct("from_json_schema"), "FromJsonSchemaOptions");
    }
}
