//! The reflection document: what `ffihub dump` writes and `ffihub generate --metadata` reads.
//!
//! It holds only facts that do not depend on the run: names, type keys, type schemas, docs, flags,
//! defaults and layouts, never type indices or addresses. Functions are sorted by name and types
//! by key, fields and methods stay in registration order (it is meaningful: constructor order,
//! overloads). Dumps of the same library on two runtimes are therefore byte-identical.

use crate::type_schema::{Signature, TypeSchema};
use crate::Error;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The newest version of the document format: this crate reads versions 1 to this one.
///
/// Version 2 added the `modules` section. A document without modules is written as version 1,
/// so readers that predate modules still read it.
pub const FORMAT_VERSION: u32 = 2;

/// The first version with the `modules` section.
pub const MODULES_VERSION: u32 = 2;

/// Extra metadata of an item: every key of its metadata JSON object except a `type_schema` that
/// was parsed into the item's typed form. Keys are sorted.
pub type Metadata = BTreeMap<String, Value>;

/// The reflection of one or more libraries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reflection {
    /// 1, or [`MODULES_VERSION`] when the document has modules.
    pub format_version: u32,
    /// `fnv1a64:<16 hex digits>` over the canonical JSON of the content (see
    /// [`Reflection::compute_checksum`]). Optional in hand-written files; verified when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// File names (without folders) of the libraries the items come from, in load order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub libraries: Vec<String>,
    /// The name prefix the dump was filtered by, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Global functions, sorted by name.
    #[serde(default)]
    pub functions: Vec<Function>,
    /// Object types, sorted by key.
    #[serde(default)]
    pub types: Vec<ObjectType>,
    /// The functions each library exports as `__tvm_ffi_<name>` symbols, one entry per library
    /// that has any, in load order (format_version 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<Module>,
}

/// The module exports of one library: what `ffi.ModuleLoadFromFile` of it offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Module {
    /// The library's file name (one of [`Reflection::libraries`]).
    pub library: String,
    /// The library embeds `__tvm_ffi__library_bin` (imported device modules, as TVM's
    /// `export_library` writes): loading it as a module also loads those imports.
    #[serde(default, skip_serializing_if = "is_false")]
    pub library_bin: bool,
    /// The exported functions (`__tvm_ffi_<name>` symbols), sorted by name. The signature comes
    /// from `__tvm_ffi__metadata_<name>` and the doc from `__tvm_ffi__doc_<name>` when the
    /// library exports them.
    #[serde(default)]
    pub functions: Vec<Function>,
}

/// A global function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Function {
    /// The registered name, e.g. `testing.add_one`.
    pub name: String,
    /// Documentation, when the library provides it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// The typed signature; absent for packed (variadic, untyped) functions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    /// Other metadata keys.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: Metadata,
}

/// A registered object type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectType {
    /// The type key, e.g. `testing.TestIntPair`.
    pub key: String,
    /// Keys of the ancestors, root (`ffi.Object`) first, direct parent last.
    #[serde(default)]
    pub ancestors: Vec<String>,
    /// Documentation of the type.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// Size in bytes of the object (header included), when the library reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_size: Option<i64>,
    /// The type is final (the `__ffi_type_final__` attribute is true): no subclasses.
    #[serde(default, rename = "final", skip_serializing_if = "is_false")]
    pub is_final: bool,
    /// How objects are constructed, if they can be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constructor: Option<Constructor>,
    /// The type's own fields (not the inherited ones), in registration order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Field>,
    /// The type's own methods, in registration order (overloads repeat a name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<Method>,
    /// Names of the well-known type attributes (`__ffi_repr__`, `__ffi_shallow_copy__`, ...)
    /// that have an entry for this type, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub type_attrs: Vec<String>,
}

impl ObjectType {
    /// The direct parent's key (`None` only for `ffi.Object` itself).
    pub fn parent(&self) -> Option<&str> {
        self.ancestors.last().map(String::as_str)
    }
}

/// How a type is constructed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Constructor {
    /// An explicit, typed constructor: the static method `__ffi_init__` (its signature is in
    /// `methods`; its return type is `ffi.Object`).
    InitMethod,
    /// The generated `__ffi_init__` type attribute: it takes the fields that are not `init_off`
    /// (ancestors' first), positionally or by keyword, the `kw_only` ones by keyword only, and
    /// those with a default may be left out.
    AutoInit,
}

/// A field of an object type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// The field name.
    pub name: String,
    /// The field type; absent when the library gave no (readable) type schema: treat as `Any`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<TypeSchema>,
    /// Documentation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// Flag bits, by name.
    #[serde(default, skip_serializing_if = "FieldFlags::is_empty")]
    pub flags: FieldFlags,
    /// The default value (when the `has_default` flag is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<DefaultValue>,
    /// Byte offset from the start of the object header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i64>,
    /// Alignment in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment: Option<i64>,
    /// Other metadata keys.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: Metadata,
}

/// A method of an object type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Method {
    /// The method name.
    pub name: String,
    /// Static methods take no `self`; instance methods list the class as their first parameter.
    #[serde(rename = "static", default, skip_serializing_if = "is_false")]
    pub is_static: bool,
    /// Documentation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// The typed signature (including `self` for instance methods); absent when packed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    /// Other metadata keys.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: Metadata,
}

/// A field's default value, as far as it can be spelled without the runtime.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum DefaultValue {
    /// `None`.
    None,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A finite float.
    Float(f64),
    /// A string.
    String(String),
    /// A data type, spelled like `float32`.
    DataType(String),
    /// A device.
    Device {
        /// `DLDeviceType` value.
        device_type: i32,
        /// Device ordinal.
        device_id: i32,
    },
    /// The default is computed by a factory function at construction time.
    Factory,
    /// A value that has no spelling here; the string names its type.
    Opaque(String),
}

/// The flag bits of a field, serialized as a list of names in bit order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FieldFlags(pub i64);

/// Flag names by bit, as in `TVMFFIFieldFlagBitMask`.
const FLAG_NAMES: &[&str] = &[
    "writable",
    "has_default",
    "static_method",
    "seq_hash_ignore",
    "seq_hash_def_pattern",
    "default_from_factory",
    "repr_off",
    "compare_off",
    "hash_off",
    "init_off",
    "kw_only",
    "setter_is_function",
    "seq_hash_def_simple",
];

impl FieldFlags {
    /// `kTVMFFIFieldFlagBitMaskWritable`.
    pub const WRITABLE: i64 = 1;
    /// `kTVMFFIFieldFlagBitMaskHasDefault`.
    pub const HAS_DEFAULT: i64 = 1 << 1;
    /// `kTVMFFIFieldFlagBitMaskDefaultFromFactory`.
    pub const DEFAULT_FROM_FACTORY: i64 = 1 << 5;
    /// `kTVMFFIFieldFlagBitMaskInitOff`.
    pub const INIT_OFF: i64 = 1 << 9;
    /// `kTVMFFIFieldFlagBitMaskKwOnly`.
    pub const KW_ONLY: i64 = 1 << 10;

    /// No bit set.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// Whether every bit of `mask` is set.
    pub fn has(&self, mask: i64) -> bool {
        self.0 & mask == mask
    }

    /// The names of the set bits, in bit order (`bitN` for bits without a name).
    pub fn names(&self) -> Vec<String> {
        (0..63)
            .filter(|bit| self.0 & (1i64 << bit) != 0)
            .map(|bit| match FLAG_NAMES.get(bit) {
                Some(name) => (*name).to_string(),
                None => format!("bit{bit}"),
            })
            .collect()
    }

    /// Parses one flag name.
    pub fn bit_of(name: &str) -> Option<i64> {
        if let Some(i) = FLAG_NAMES.iter().position(|n| *n == name) {
            return Some(1 << i);
        }
        let bit: u32 = name.strip_prefix("bit")?.parse().ok()?;
        (bit < 63).then(|| 1i64 << bit)
    }
}

impl Serialize for FieldFlags {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.names().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for FieldFlags {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = Vec::<String>::deserialize(deserializer)?;
        let mut bits = 0;
        for name in &names {
            bits |= FieldFlags::bit_of(name)
                .ok_or_else(|| serde::de::Error::custom(format!("unknown field flag `{name}`")))?;
        }
        Ok(FieldFlags(bits))
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The part of a document the checksum covers.
#[derive(Serialize)]
struct Content<'a> {
    format_version: u32,
    functions: &'a [Function],
    types: &'a [ObjectType],
    // Absent when empty, so that documents without modules keep their version 1 checksums.
    #[serde(skip_serializing_if = "<[Module]>::is_empty")]
    modules: &'a [Module],
}

/// 64-bit FNV-1a.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

impl Reflection {
    /// A sealed document (sorted, with its checksum).
    pub fn new(
        libraries: Vec<String>,
        prefix: Option<String>,
        functions: Vec<Function>,
        types: Vec<ObjectType>,
    ) -> Self {
        let mut doc = Reflection {
            format_version: FORMAT_VERSION,
            checksum: None,
            libraries,
            prefix,
            functions,
            types,
            modules: Vec::new(),
        };
        doc.seal();
        doc
    }

    /// Sets the module exports and reseals (libraries that export nothing are dropped).
    pub fn set_modules(&mut self, modules: Vec<Module>) {
        self.modules = modules;
        self.seal();
    }

    /// Sorts functions by name, types by key and each module's functions by name, sets the
    /// format version (1 without modules) and the checksum.
    pub fn seal(&mut self) {
        self.functions.sort_by(|a, b| a.name.cmp(&b.name));
        self.types.sort_by(|a, b| a.key.cmp(&b.key));
        self.modules
            .retain(|m| !m.functions.is_empty() || m.library_bin);
        for m in &mut self.modules {
            m.functions.sort_by(|a, b| a.name.cmp(&b.name));
        }
        self.format_version = if self.modules.is_empty() {
            1
        } else {
            MODULES_VERSION
        };
        self.checksum = Some(self.compute_checksum());
    }

    /// `fnv1a64:<hex>` of the canonical (compact, ordered) JSON of the format version, the
    /// functions and the types. Library names and the prefix are not part of it.
    pub fn compute_checksum(&self) -> String {
        let content = Content {
            format_version: self.format_version,
            functions: &self.functions,
            types: &self.types,
            modules: &self.modules,
        };
        // Serializing plain data to a Vec cannot fail; an empty hash input would only make the
        // checksum weaker, never wrong output.
        let json = serde_json::to_vec(&content).unwrap_or_default();
        format!("fnv1a64:{:016x}", fnv1a64(&json))
    }

    /// The checksum, computed when the document does not carry one.
    pub fn checksum(&self) -> String {
        self.checksum
            .clone()
            .unwrap_or_else(|| self.compute_checksum())
    }

    /// Reads a YAML document (JSON is YAML too) and checks it ([`Reflection::check`]).
    pub fn from_yaml_str(text: &str) -> Result<Self, Error> {
        let doc: Reflection = serde_yaml::from_str(text).map_err(|e| Error::Parse {
            format: "YAML",
            message: e.to_string(),
        })?;
        doc.check()?;
        Ok(doc)
    }

    /// Reads a JSON document and checks it ([`Reflection::check`]).
    pub fn from_json_str(text: &str) -> Result<Self, Error> {
        let doc: Reflection = serde_json::from_str(text).map_err(|e| Error::Parse {
            format: "JSON",
            message: e.to_string(),
        })?;
        doc.check()?;
        Ok(doc)
    }

    /// Reads JSON if the text starts with `{`, YAML otherwise.
    pub fn from_str_auto(text: &str) -> Result<Self, Error> {
        if text.trim_start().starts_with('{') {
            Self::from_json_str(text)
        } else {
            Self::from_yaml_str(text)
        }
    }

    /// Checks what serde cannot: the format version, the checksum (when present), unique
    /// function names and type keys, unique field names per type, unique libraries and export
    /// names in modules.
    pub fn check(&self) -> Result<(), Error> {
        if !(1..=FORMAT_VERSION).contains(&self.format_version) {
            return Err(Error::Version(self.format_version));
        }
        if !self.modules.is_empty() && self.format_version < MODULES_VERSION {
            return Err(Error::Invalid(format!(
                "`modules` needs format_version {MODULES_VERSION} (the document says {})",
                self.format_version
            )));
        }
        if let Some(sum) = &self.checksum {
            let actual = self.compute_checksum();
            if *sum != actual {
                return Err(Error::Checksum {
                    stored: sum.clone(),
                    actual,
                });
            }
        }
        let mut seen = BTreeSet::new();
        for f in &self.functions {
            if !seen.insert(f.name.as_str()) {
                return Err(Error::Invalid(format!(
                    "function `{}` is listed twice",
                    f.name
                )));
            }
        }
        let mut libraries = BTreeSet::new();
        for m in &self.modules {
            if !libraries.insert(m.library.as_str()) {
                return Err(Error::Invalid(format!(
                    "module `{}` is listed twice",
                    m.library
                )));
            }
            let mut names = BTreeSet::new();
            for f in &m.functions {
                if !names.insert(f.name.as_str()) {
                    return Err(Error::Invalid(format!(
                        "export `{}` of module `{}` is listed twice",
                        f.name, m.library
                    )));
                }
            }
        }
        let mut seen = BTreeSet::new();
        for t in &self.types {
            if !seen.insert(t.key.as_str()) {
                return Err(Error::Invalid(format!("type `{}` is listed twice", t.key)));
            }
            let mut fields = BTreeSet::new();
            for f in &t.fields {
                if !fields.insert(f.name.as_str()) {
                    return Err(Error::Invalid(format!(
                        "field `{}` of type `{}` is listed twice",
                        f.name, t.key
                    )));
                }
            }
        }
        Ok(())
    }

    /// The document as YAML.
    pub fn to_yaml_string(&self) -> Result<String, Error> {
        serde_yaml::to_string(self).map_err(|e| Error::Write(e.to_string()))
    }

    /// The document as pretty JSON with a trailing newline.
    pub fn to_json_string(&self) -> Result<String, Error> {
        let mut text =
            serde_json::to_string_pretty(self).map_err(|e| Error::Write(e.to_string()))?;
        text.push('\n');
        Ok(text)
    }

    /// Looks a type up by key.
    pub fn type_by_key(&self, key: &str) -> Option<&ObjectType> {
        self.types
            .binary_search_by(|t| t.key.as_str().cmp(key))
            .ok()
            .map(|i| &self.types[i])
            .or_else(|| self.types.iter().find(|t| t.key == key))
    }
}

/// Why an item has no type: the library registered it without a `type_schema`, or with one
/// that this reader cannot parse (the parser's message).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum UntypedReason {
    /// No `type_schema` in the item's metadata.
    NoSchema,
    /// A `type_schema` that does not parse (or, for a function, is not a function schema).
    Unreadable(String),
}

impl UntypedReason {
    fn of(metadata: &Metadata) -> Self {
        match metadata.get("type_schema") {
            None => UntypedReason::NoSchema,
            Some(Value::String(text)) => match TypeSchema::from_json_str(text) {
                Err(e) => UntypedReason::Unreadable(e.to_string()),
                Ok(s) => {
                    UntypedReason::Unreadable(format!("{} is not a function schema", s.origin))
                }
            },
            Some(other) => {
                UntypedReason::Unreadable(format!("type_schema is not a string: {other}"))
            }
        }
    }
}

/// How many items of a document are typed, and why the others are not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypingReport {
    /// Global functions: (total, typed).
    pub functions: (usize, usize),
    /// Fields: (total, typed).
    pub fields: (usize, usize),
    /// Methods: (total, typed).
    pub methods: (usize, usize),
    /// Untyped items counted by reason.
    pub reasons: BTreeMap<UntypedReason, usize>,
}

impl TypingReport {
    /// Every untyped item.
    pub fn untyped(&self) -> usize {
        self.reasons.values().sum()
    }
}

impl std::fmt::Display for TypingReport {
    /// One line: `typed: 1640 of 1830 functions, 949 of 951 fields, 0 of 0 methods; untyped:
    /// 190 registered without a type_schema, 2 unreadable (NestedMsg takes ...)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (fa, ft) = self.functions;
        let (da, dt) = self.fields;
        let (ma, mt) = self.methods;
        write!(
            f,
            "typed: {ft} of {fa} functions, {dt} of {da} fields, {mt} of {ma} methods"
        )?;
        if self.reasons.is_empty() {
            return Ok(());
        }
        f.write_str("; untyped: ")?;
        let mut unreadable: BTreeMap<&str, usize> = BTreeMap::new();
        let mut parts = Vec::new();
        for (reason, n) in &self.reasons {
            match reason {
                UntypedReason::NoSchema => {
                    parts.push(format!("{n} registered without a type_schema (packed)"))
                }
                UntypedReason::Unreadable(why) => *unreadable.entry(why).or_default() += n,
            }
        }
        for (why, n) in unreadable {
            parts.push(format!("{n} with an unreadable type_schema ({why})"));
        }
        f.write_str(&parts.join(", "))
    }
}

impl Reflection {
    /// Counts typed items and the reasons of the untyped ones.
    pub fn typing_report(&self) -> TypingReport {
        let mut r = TypingReport::default();
        let mut count = |typed: bool, meta: &Metadata, slot: &mut (usize, usize)| {
            slot.0 += 1;
            if typed {
                slot.1 += 1;
            } else {
                *r.reasons.entry(UntypedReason::of(meta)).or_default() += 1;
            }
        };
        let (mut functions, mut fields, mut methods) = ((0, 0), (0, 0), (0, 0));
        for f in self
            .functions
            .iter()
            .chain(self.modules.iter().flat_map(|m| &m.functions))
        {
            count(f.signature.is_some(), &f.metadata, &mut functions);
        }
        for t in &self.types {
            for f in &t.fields {
                count(f.ty.is_some(), &f.metadata, &mut fields);
            }
            for m in &t.methods {
                count(m.signature.is_some(), &m.metadata, &mut methods);
            }
        }
        r.functions = functions;
        r.fields = fields;
        r.methods = methods;
        r
    }

    /// Keeps only the functions and types whose name starts with `prefix` (as `dump --prefix`
    /// does), and reseals the document. Module exports are kept: their names have no
    /// namespace.
    pub fn retain_prefix(&mut self, prefix: &str) {
        self.functions.retain(|f| f.name.starts_with(prefix));
        self.types.retain(|t| t.key.starts_with(prefix));
        self.prefix = Some(prefix.to_string());
        self.seal();
    }
}
