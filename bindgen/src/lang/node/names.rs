//! JavaScript/TypeScript identifiers: the only place that spells them.
//!
//! Rules: classes `PascalCase`; functions, members and parameters `camelCase`; reserved words
//! (and member names with a special meaning: `constructor`, and for static members `name`,
//! `length`, `prototype`, `caller`, `arguments`) get a trailing `_`; generated internals start
//! with `__ffi` (a user name with that prefix is an error); collisions in one scope are errors.

use crate::lang::case;
use crate::lang::naming::Spelling;

/// ECMAScript reserved words, strict-mode reserved words, and TypeScript's type keywords that
/// cannot name a declaration.
const KEYWORDS: &[&str] = &[
    "arguments",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "any",
    "boolean",
    "never",
    "number",
    "string",
    "symbol",
    "unknown",
    "object",
    "bigint",
    "require",
    "module",
    "exports",
];

/// Members of every JavaScript object (`Object.prototype`): a generated member of that name
/// would change how every object prints, compares or is inspected, and `tsc --strict` rejects
/// one whose type differs (`toString(): number`).
const OBJECT_MEMBERS: &[&str] = &[
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
];

/// Instance member names with a special meaning.
const RESERVED_MEMBERS: &[&str] = &["constructor"];

/// Static member names that clash with properties of every class (a function), and
/// `constructor`, which TypeScript does not accept as a static member.
const RESERVED_STATICS: &[&str] = &[
    "constructor",
    "name",
    "length",
    "prototype",
    "caller",
    "arguments",
    "apply",
    "bind",
    "call",
];

/// The prefix of every internal name in generated code.
pub const RESERVED_PREFIX: &str = "__ffi";

/// The parameter holding keyword-only arguments (an options object), last.
pub const OPTIONS_PARAM: &str = "options";

/// The local holding the checked options object in generated bodies.
pub const CHECKED_OPTIONS: &str = "__ffiOptions";

fn escape(ident: String, extra: &[&str]) -> String {
    if KEYWORDS.contains(&ident.as_str())
        || OBJECT_MEMBERS.contains(&ident.as_str())
        || extra.contains(&ident.as_str())
    {
        format!("{ident}_")
    } else {
        ident
    }
}

/// The npm package name for `--name`: kebab-case, keeping an npm scope (`@me/my_lib` ->
/// `@me/my-lib`). `None` when nothing of a part is left to spell (`@me/`, `_`).
pub fn package(name: &str) -> Option<String> {
    let kebab = |part: &str| Some(case::snake(part).replace('_', "-")).filter(|p| !p.is_empty());
    match name.strip_prefix('@') {
        Some(scoped) => {
            let (scope, base) = scoped.split_once('/')?;
            Some(format!("@{}/{}", kebab(scope)?, kebab(base)?))
        }
        None => kebab(name),
    }
}

/// An instance member (field accessor or method).
pub fn member(name: &str) -> String {
    escape(case::sanitize(&case::camel(name)), RESERVED_MEMBERS)
}

/// A static member.
pub fn static_member(name: &str) -> String {
    escape(case::sanitize(&case::camel(name)), RESERVED_STATICS)
}

/// The member that the method giving an object's text (`lang::string_method`) becomes.
pub const TO_STRING: &str = "toString";

/// JavaScript for the naming every backend shares (`lang::naming`).
pub struct Node;

impl Spelling for Node {
    const LANG: &'static str = super::LANG;
    const RESERVED_PREFIX: &'static str = RESERVED_PREFIX;

    /// A namespace (an object of the package, a `.d.ts` namespace): the segment as registered,
    /// escaped.
    fn namespace_segment(segment: &str) -> String {
        escape(case::sanitize(segment), &[])
    }

    /// A class: `PascalCase`.
    fn type_ident(segment: &str) -> String {
        escape(case::sanitize(&case::pascal(segment)), &[])
    }

    /// A function or parameter: `camelCase`.
    fn value(name: &str) -> String {
        escape(case::sanitize(&case::camel(name)), &[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling() {
        assert_eq!(package("TvmFfiTesting").as_deref(), Some("tvm-ffi-testing"));
        assert_eq!(package("@me/testing").as_deref(), Some("@me/testing"));
        assert_eq!(
            package("@My_Org/TvmFfi").as_deref(),
            Some("@my-org/tvm-ffi")
        );
        assert_eq!(package("@me/"), None);
        assert_eq!(package("@me"), None);
        assert_eq!(package("__"), None);
        assert_eq!(Node::type_ident("TestIntPair"), "TestIntPair");
        assert_eq!(Node::namespace_segment("default"), "default_");
        assert_eq!(Node::value("add_one"), "addOne");
        assert_eq!(Node::value("delete"), "delete_");
        assert_eq!(member("constructor"), "constructor_");
        assert_eq!(static_member("name"), "name_");
        assert_eq!(static_member("constructor"), "constructor_");
        assert_eq!(member("name"), "name");
        assert_eq!(member("toString"), "toString_");
        assert_eq!(member("value_of"), "valueOf_");
        assert_eq!(static_member("has_own_property"), "hasOwnProperty_");
        assert_eq!(static_member("bind"), "bind_");
    }
}
