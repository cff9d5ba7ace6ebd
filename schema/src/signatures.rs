//! The signature overlay: what a library's authors (or its users) add to its reflection so that
//! generated bindings read like a hand-written API. It is the `signatures:` section of the
//! generator's `--config` file; `signatures.schema.json` next to this crate's manifest is its
//! JSON Schema ([`crate::SIGNATURES_JSON_SCHEMA`]).
//!
//! ```yaml
//! signatures:
//!   version: 1
//!   entries:
//!     mylib.Grammar.from_json_schema:        # pkg.func, pkg.Type.method or pkg.Type.__init__
//!       params:                              # every parameter, in the library's order
//!         - schema                           # a name alone
//!         - name: any_whitespace
//!           default: true                    # null, a bool, an int, a float, a string, [] or {}
//!           keyword_only: true
//!           doc: Whether to allow any whitespace.
//!         - name: indent
//!           type: Optional[int]              # narrower than the library's type
//!           default: null
//!           keyword_only: true
//!       returns: mylib.Grammar               # narrower than the library's return type
//!     mylib.GrammarVocabSize:                # a global the Python API reads as a property
//!       role: { kind: property, of: mylib.Grammar, name: vocab_size, doc: The vocabulary size. }
//! ```
//!
//! `role` (version 2) says what the library's Python API makes of a global function or a
//! method: the constructor of a type, a method or a property of it (the receiver is the first
//! parameter of a global), under its Python name, with the Python function's doc.
//!
//! This module only reads the file; `ffihub-bindgen` checks it against the library (names,
//! arity, types, defaults) and applies it.

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// The overlay format version this crate writes; it reads this one and version 1 (which has no
/// `role`).
pub const SIGNATURES_VERSION: u32 = 2;

/// The `signatures:` section.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signatures {
    /// The format version: [`SIGNATURES_VERSION`].
    pub version: u32,
    /// Registered name (`pkg.func`, `pkg.Type.method`, `pkg.Type.__init__`) -> what to add.
    #[serde(default)]
    pub entries: BTreeMap<String, SignatureEntry>,
}

/// What the overlay says about one function, method or constructor.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureEntry {
    /// Every parameter in the library's order (without the receiver of a method); absent to
    /// leave them as the library has them.
    #[serde(
        default,
        deserialize_with = "read_params",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Vec<ParamEntry>>,
    /// A narrower return type, in the compact type spelling (`mylib.Grammar`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<String>,
    /// What the library's Python API makes of it (version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<RoleEntry>,
}

/// The role of a global function or method in the library's Python API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleEntry {
    /// Constructor, method or property.
    pub kind: RoleKind,
    /// The type key of the class it belongs to.
    pub of: String,
    /// The Python name of the method or property (none for a constructor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The member's documentation: the docstring of the Python function that defines it (the
    /// method, the property, the constructor's `__init__` or its class), without its parameter
    /// list. Bindings show it in place of the global's, with a note naming the global.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

/// What a role makes of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleKind {
    /// Constructs the class: its parameters are the constructor's, its result the instance.
    Constructor,
    /// A method: a global's first parameter is the receiver.
    Method,
    /// A read-only property: a global's only parameter is the receiver.
    Property,
}

/// One parameter: its name, and optionally a narrower type, a default, keyword-only, a doc.
/// Written as a map, or as its name alone.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamEntry {
    /// The parameter's name (spelled by each language: `any_whitespace`, `anyWhitespace`).
    pub name: String,
    /// A narrower type than the library's, in the compact type spelling (`Optional[int]`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    /// The value used when the caller leaves the parameter out: null, a bool, an integer, a
    /// float, a string, `[]` or `{}`. `Some(Value::Null)` is a default of null; `None` is none.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub default: Option<Value>,
    /// Callers pass it by name only (after the positional parameters).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keyword_only: bool,
    /// Its documentation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
}

/// A field that is present, even as `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Reads the `params` list, where each entry is a map or a name alone.
fn read_params<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<ParamEntry>>, D::Error> {
    let list: Option<Vec<ParamEntryOrName>> = Option::deserialize(d)?;
    Ok(list.map(|l| l.into_iter().map(|p| p.0).collect()))
}

/// A [`ParamEntry`] read from either of its spellings.
struct ParamEntryOrName(ParamEntry);

impl<'de> Deserialize<'de> for ParamEntryOrName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = ParamEntryOrName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a parameter name, or a map with `name` and optionally `type`, `default`, `keyword_only`, `doc`")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
                Ok(ParamEntryOrName(ParamEntry {
                    name: name.to_string(),
                    ..ParamEntry::default()
                }))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                ParamEntry::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(ParamEntryOrName)
            }
        }
        deserializer.deserialize_any(EntryVisitor)
    }
}

impl Signatures {
    /// Checks what the serde model cannot: the version, and that parameter names are
    /// identifiers.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=SIGNATURES_VERSION).contains(&self.version) {
            return Err(format!(
                "signatures.version {} is not supported (this ffihub reads versions 1 to {SIGNATURES_VERSION})",
                self.version
            ));
        }
        for (key, entry) in &self.entries {
            if let Some(role) = &entry.role {
                if self.version < 2 {
                    return Err(format!(
                        "signatures: `{key}`: `role` needs signatures.version 2"
                    ));
                }
                let named = role.name.as_deref().is_some_and(is_identifier);
                match (role.kind, &role.name) {
                    (RoleKind::Constructor, Some(_)) => {
                        return Err(format!(
                            "signatures: `{key}`: a constructor's role has no `name`"
                        ))
                    }
                    (RoleKind::Method | RoleKind::Property, _) if !named => {
                        return Err(format!(
                            "signatures: `{key}`: the role's `name` must be an identifier"
                        ))
                    }
                    _ => {}
                }
            }
            for (i, p) in entry.params.iter().flatten().enumerate() {
                if !is_identifier(&p.name) {
                    return Err(format!(
                        "signatures: `{key}`: parameter {} is named `{}`, not an identifier \
                         (letters, digits and `_`)",
                        i + 1,
                        p.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Letters, digits and `_`, not starting with a digit.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
