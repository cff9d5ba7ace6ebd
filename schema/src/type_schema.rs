//! The parsed form of a `type_schema`: the JSON document that TVM-FFI attaches (as a string) to
//! every typed function, method and field.
//!
//! Grammar (Apache TVM-FFI, `include/tvm/ffi/type_traits.h` and friends):
//!
//! ```text
//! Schema := {"type": ORIGIN [, "args": [Schema...]] [, "named_args": {"params": [Schema...],
//!            "return": [Schema]}] [, "fallback": Schema]}
//! ```
//!
//! A [`TypeSchema`] keeps the origin and its arguments as written (no normalization: `ffi.Array`
//! without arguments stays without arguments), so it prints back to the same JSON. It is
//! serialized in exactly that JSON shape, which makes a dump readable by anyone who knows
//! TVM-FFI. Parsing checks the arity of every origin, so consumers can rely on it.

use serde::de::Error as _;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// The `type` of a schema node: a builtin origin, or the key of a registered object type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    /// `None`: no value.
    None,
    /// `int`: a 64-bit signed integer.
    Int,
    /// `bool`.
    Bool,
    /// `float`: a 64-bit float.
    Float,
    /// `void*`: an opaque pointer.
    OpaquePtr,
    /// `DataType`: a `DLDataType`.
    DataType,
    /// `Device`: a `DLDevice`.
    Device,
    /// `DLTensor*`: a borrowed tensor view.
    DLTensorPtr,
    /// `const char*`: a borrowed C string.
    RawStr,
    /// `TVMFFIByteArray*`: borrowed bytes.
    ByteArrayPtr,
    /// `Any`: any value.
    Any,
    /// `ffi.String`.
    String,
    /// `ffi.SmallStr`.
    SmallStr,
    /// `ffi.Bytes`.
    Bytes,
    /// `ffi.SmallBytes`.
    SmallBytes,
    /// `ffi.BigInt`.
    BigInt,
    /// `ffi.Object`: any object.
    Object,
    /// `ffi.Error`.
    Error,
    /// `ffi.Function`: typed when it has a signature (`named_args`, or the older
    /// `"args": [return, params...]`), packed otherwise.
    Function,
    /// `ffi.Shape`.
    Shape,
    /// `ffi.Tensor`.
    Tensor,
    /// `ffi.Array[T]` (immutable sequence).
    Array,
    /// `ffi.List[T]` (mutable sequence).
    List,
    /// `ffi.Map[K, V]` (immutable map).
    Map,
    /// `ffi.Dict[K, V]` (mutable map).
    Dict,
    /// `ffi.Module`.
    Module,
    /// `ffi.OpaquePyObject`.
    OpaquePyObject,
    /// `Optional[T]`.
    Optional,
    /// `Variant[T...]`.
    Variant,
    /// `Tuple[T...]`.
    Tuple,
    /// `Expected[T, ffi.Error]`.
    Expected,
    /// `ObjectRValueRef[T]`.
    ObjectRValueRef,
    /// `UnchangedOr[T]`.
    UnchangedOr,
    /// `std::string` (crosses as a string).
    StdString,
    /// `std::vector[T]` (crosses as an array).
    StdVector,
    /// `std::optional[T]`.
    StdOptional,
    /// `std::variant[T...]`.
    StdVariant,
    /// `std::tuple[T...]`.
    StdTuple,
    /// `std::map[K, V]`.
    StdMap,
    /// `std::unordered_map[K, V]`.
    StdUnorderedMap,
    /// `std::function`: like `ffi.Function`.
    StdFunction,
    /// `std::array[T, N]`.
    StdArray,
    /// The key of a registered object type, e.g. `testing.TestIntPair`.
    TypeKey(String),
}

/// Every builtin origin with its spelling.
const BUILTINS: &[(Origin, &str)] = &[
    (Origin::None, "None"),
    (Origin::Int, "int"),
    (Origin::Bool, "bool"),
    (Origin::Float, "float"),
    (Origin::OpaquePtr, "void*"),
    (Origin::DataType, "DataType"),
    (Origin::Device, "Device"),
    (Origin::DLTensorPtr, "DLTensor*"),
    (Origin::RawStr, "const char*"),
    (Origin::ByteArrayPtr, "TVMFFIByteArray*"),
    (Origin::Any, "Any"),
    (Origin::String, "ffi.String"),
    (Origin::SmallStr, "ffi.SmallStr"),
    (Origin::Bytes, "ffi.Bytes"),
    (Origin::SmallBytes, "ffi.SmallBytes"),
    (Origin::BigInt, "ffi.BigInt"),
    (Origin::Object, "ffi.Object"),
    (Origin::Error, "ffi.Error"),
    (Origin::Function, "ffi.Function"),
    (Origin::Shape, "ffi.Shape"),
    (Origin::Tensor, "ffi.Tensor"),
    (Origin::Array, "ffi.Array"),
    (Origin::List, "ffi.List"),
    (Origin::Map, "ffi.Map"),
    (Origin::Dict, "ffi.Dict"),
    (Origin::Module, "ffi.Module"),
    (Origin::OpaquePyObject, "ffi.OpaquePyObject"),
    (Origin::Optional, "Optional"),
    (Origin::Variant, "Variant"),
    (Origin::Tuple, "Tuple"),
    (Origin::Expected, "Expected"),
    (Origin::ObjectRValueRef, "ObjectRValueRef"),
    (Origin::UnchangedOr, "UnchangedOr"),
    (Origin::StdString, "std::string"),
    (Origin::StdVector, "std::vector"),
    (Origin::StdOptional, "std::optional"),
    (Origin::StdVariant, "std::variant"),
    (Origin::StdTuple, "std::tuple"),
    (Origin::StdMap, "std::map"),
    (Origin::StdUnorderedMap, "std::unordered_map"),
    (Origin::StdFunction, "std::function"),
    (Origin::StdArray, "std::array"),
];

impl Origin {
    /// Parses an origin spelling; anything that is not a builtin is a type key.
    pub fn parse(s: &str) -> Origin {
        BUILTINS
            .iter()
            .find(|(_, name)| *name == s)
            .map(|(origin, _)| origin.clone())
            .unwrap_or_else(|| Origin::TypeKey(s.to_string()))
    }

    /// The spelling used in `type_schema` JSON.
    pub fn as_str(&self) -> &str {
        match self {
            Origin::TypeKey(key) => key,
            builtin => BUILTINS
                .iter()
                .find(|(origin, _)| origin == builtin)
                .map(|(_, name)| *name)
                .unwrap_or("Any"),
        }
    }

    /// Every builtin spelling (for documentation and the JSON Schema test).
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        BUILTINS.iter().map(|(_, name)| *name)
    }

    /// How many schema arguments this origin accepts, as an inclusive range.
    fn arity(&self) -> (usize, usize) {
        match self {
            Origin::Array | Origin::List | Origin::StdVector => (0, 1),
            Origin::Map | Origin::Dict | Origin::StdMap | Origin::StdUnorderedMap => (0, 2),
            Origin::Optional
            | Origin::StdOptional
            | Origin::ObjectRValueRef
            | Origin::UnchangedOr
            | Origin::StdArray => (1, 1),
            Origin::Expected => (1, 2),
            Origin::Variant | Origin::StdVariant => (1, usize::MAX),
            Origin::Tuple | Origin::StdTuple => (0, usize::MAX),
            _ => (0, 0),
        }
    }

    /// Whether the origin is a function (`ffi.Function` or `std::function`).
    pub fn is_function(&self) -> bool {
        matches!(self, Origin::Function | Origin::StdFunction)
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A typed signature: the `named_args` of a function schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    /// Parameter types in order (no names: TVM-FFI does not record them).
    #[serde(default)]
    pub params: Vec<TypeSchema>,
    /// The return type (`None` for functions that return nothing).
    #[serde(rename = "return")]
    pub ret: TypeSchema,
}

impl Signature {
    /// A signature from parameter and return types.
    pub fn new(params: Vec<TypeSchema>, ret: TypeSchema) -> Self {
        Signature { params, ret }
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, ") -> {}", self.ret)
    }
}

/// One node of a type schema.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeSchema {
    /// The `type` of the node.
    pub origin: Origin,
    /// Schema arguments (`ffi.Array[int]` has one, `ffi.Map[K, V]` two).
    pub args: Vec<TypeSchema>,
    /// The length of a `std::array` (its second, numeric, argument).
    pub array_len: Option<u64>,
    /// The signature of a typed function (`named_args`); `None` for a packed function.
    pub signature: Option<Box<Signature>>,
    /// The `fallback` schema some C++ types declare for conversions.
    pub fallback: Option<Box<TypeSchema>>,
}

/// Why a type schema could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError(pub String);

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SchemaError {}

fn schema_err<T>(msg: impl Into<String>) -> Result<T, SchemaError> {
    Err(SchemaError(msg.into()))
}

impl TypeSchema {
    /// A node without arguments.
    pub fn new(origin: Origin) -> Self {
        TypeSchema {
            origin,
            args: Vec::new(),
            array_len: None,
            signature: None,
            fallback: None,
        }
    }

    /// A node with arguments (not checked: use [`TypeSchema::validate`]).
    pub fn with_args(origin: Origin, args: Vec<TypeSchema>) -> Self {
        TypeSchema {
            args,
            ..TypeSchema::new(origin)
        }
    }

    /// The schema of a registered object type.
    pub fn type_key(key: &str) -> Self {
        TypeSchema::new(Origin::parse(key))
    }

    /// A typed `ffi.Function`.
    pub fn function(signature: Signature) -> Self {
        TypeSchema {
            signature: Some(Box::new(signature)),
            ..TypeSchema::new(Origin::Function)
        }
    }

    /// Parses a `type_schema` string.
    pub fn from_json_str(text: &str) -> Result<Self, SchemaError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| SchemaError(format!("type_schema is not JSON: {e}")))?;
        Self::from_json_value(&value)
    }

    /// Parses a `type_schema` JSON value (checking every origin's arity).
    pub fn from_json_value(value: &Value) -> Result<Self, SchemaError> {
        let Some(obj) = value.as_object() else {
            return schema_err(format!("a type schema must be an object, got {value}"));
        };
        let Some(origin) = obj.get("type").and_then(Value::as_str) else {
            return schema_err("a type schema needs a string \"type\"");
        };
        let mut node = TypeSchema::new(Origin::parse(origin));
        if let Some(args) = obj.get("args") {
            let Some(args) = args.as_array() else {
                return schema_err(format!("\"args\" of {origin} must be a list"));
            };
            // Legacy `std::function` spelling: "args": [ret, [params...]].
            if node.origin == Origin::StdFunction && args.len() == 2 && args[1].is_array() {
                let ret = Self::from_json_value(&args[0])?;
                let params = args[1]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(Self::from_json_value)
                    .collect::<Result<_, _>>()?;
                node.signature = Some(Box::new(Signature::new(params, ret)));
            } else if node.origin.is_function() && !obj.contains_key("named_args") {
                // The older function form (TVM's headers before `named_args`):
                // "args": [return, params...], read as Apache's Python reads it.
                let mut types = args
                    .iter()
                    .map(Self::from_json_value)
                    .collect::<Result<Vec<_>, _>>()?;
                if !types.is_empty() {
                    let ret = types.remove(0);
                    node.signature = Some(Box::new(Signature::new(types, ret)));
                }
            } else {
                for arg in args {
                    match arg {
                        Value::Number(n) if node.origin == Origin::StdArray => {
                            let len = n.as_u64().ok_or_else(|| {
                                SchemaError(format!("std::array length {n} is not a count"))
                            })?;
                            node.array_len = Some(len);
                        }
                        _ => node.args.push(Self::from_json_value(arg)?),
                    }
                }
            }
        }
        if let Some(named) = obj.get("named_args") {
            node.signature = Some(Box::new(parse_named_args(origin, named)?));
        }
        if let Some(fallback) = obj.get("fallback") {
            node.fallback = Some(Box::new(Self::from_json_value(fallback)?));
        }
        node.validate()?;
        Ok(node)
    }

    /// Parses the compact spelling that [`TypeSchema`]'s `Display` writes (`int`,
    /// `Optional[ffi.Array[int]]`, `testing.TestIntPair`), checking every origin's arity. Function
    /// types with a signature have no compact form here (`ffi.Function` alone is a packed one).
    pub fn from_compact(text: &str) -> Result<Self, SchemaError> {
        let mut rest = text;
        let node = Self::compact_node(&mut rest)?;
        if !rest.trim().is_empty() {
            return schema_err(format!("unexpected `{}` in the type `{text}`", rest.trim()));
        }
        node.validate()?;
        Ok(node)
    }

    /// One node of the compact spelling at the start of `rest`, which moves past it.
    fn compact_node(rest: &mut &str) -> Result<Self, SchemaError> {
        let end = rest.find(['[', ']', ',']).unwrap_or(rest.len());
        let name = rest[..end].trim();
        if name.is_empty() {
            return schema_err("a type name is missing");
        }
        let mut node = TypeSchema::new(Origin::parse(name));
        *rest = &rest[end..];
        if let Some(args) = rest.strip_prefix('[') {
            *rest = args;
            loop {
                node.args.push(Self::compact_node(rest)?);
                match rest.trim_start().chars().next() {
                    Some(',') => *rest = &rest.trim_start()[1..],
                    Some(']') => {
                        *rest = &rest.trim_start()[1..];
                        break;
                    }
                    _ => return schema_err(format!("`[` after {name} is not closed")),
                }
            }
        }
        Ok(node)
    }

    /// Checks the arity of this node and of every node below it.
    pub fn validate(&self) -> Result<(), SchemaError> {
        let (min, max) = self.origin.arity();
        let n = self.args.len();
        if n < min || n > max {
            let expected = match (min, max) {
                (a, b) if a == b => format!("{a}"),
                (a, usize::MAX) => format!("at least {a}"),
                (0, 1) => "0 or 1".to_string(),
                (0, 2) => "0 or 2".to_string(),
                (a, b) => format!("{a} to {b}"),
            };
            return schema_err(format!(
                "{} takes {expected} type argument(s), got {n}",
                self.origin
            ));
        }
        if matches!(self.origin, Origin::Map | Origin::Dict) && n == 1 {
            return schema_err(format!(
                "{} takes 0 or 2 type arguments, got 1",
                self.origin
            ));
        }
        if (self.origin == Origin::StdArray) != self.array_len.is_some() {
            return schema_err(format!(
                "only std::array has a length, and it needs one ({})",
                self.origin
            ));
        }
        if self.signature.is_some() && !self.origin.is_function() {
            return schema_err(format!("{} cannot have a signature", self.origin));
        }
        for arg in &self.args {
            arg.validate()?;
        }
        if let Some(sig) = &self.signature {
            sig.ret.validate()?;
            for p in &sig.params {
                p.validate()?;
            }
        }
        if let Some(fallback) = &self.fallback {
            fallback.validate()?;
        }
        Ok(())
    }

    /// The canonical compact JSON text of this node: keys in the order type, args, named_args
    /// (params, return), fallback — TVM-FFI's own order, except that params precede return.
    pub fn to_json_string(&self) -> String {
        // Serializing this tree into a String cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

fn parse_named_args(origin: &str, named: &Value) -> Result<Signature, SchemaError> {
    let Some(groups) = named.as_object() else {
        return schema_err(format!("\"named_args\" of {origin} must be an object"));
    };
    if let Some(extra) = groups.keys().find(|k| *k != "params" && *k != "return") {
        return schema_err(format!("unknown named_args group \"{extra}\" in {origin}"));
    }
    let list = |key: &str| -> Result<Vec<TypeSchema>, SchemaError> {
        match groups.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items.iter().map(TypeSchema::from_json_value).collect(),
            Some(_) => schema_err(format!("named_args \"{key}\" of {origin} must be a list")),
        }
    };
    let mut ret = list("return")?;
    if ret.len() != 1 {
        return schema_err(format!(
            "a function schema needs exactly one return type, {origin} has {}",
            ret.len()
        ));
    }
    Ok(Signature::new(list("params")?, ret.remove(0)))
}

impl fmt::Display for TypeSchema {
    /// A compact spelling: `ffi.Map[ffi.String, int]`, `ffi.Function[(int) -> None]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.origin.as_str())?;
        if let Some(sig) = &self.signature {
            write!(f, "[{sig}]")?;
        } else if !self.args.is_empty() {
            f.write_str("[")?;
            for (i, a) in self.args.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{a}")?;
            }
            if let Some(len) = self.array_len {
                write!(f, ", {len}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

impl Serialize for TypeSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let len = 1
            + usize::from(!self.args.is_empty() || self.array_len.is_some())
            + usize::from(self.signature.is_some())
            + usize::from(self.fallback.is_some());
        let mut map = serializer.serialize_map(Some(len))?;
        map.serialize_entry("type", self.origin.as_str())?;
        if !self.args.is_empty() || self.array_len.is_some() {
            map.serialize_entry("args", &Args(self))?;
        }
        if let Some(sig) = &self.signature {
            map.serialize_entry("named_args", &NamedArgs(sig))?;
        }
        if let Some(fallback) = &self.fallback {
            map.serialize_entry("fallback", fallback)?;
        }
        map.end()
    }
}

/// Serializes the `args` list: the schema arguments, then a `std::array` length.
struct Args<'a>(&'a TypeSchema);

impl Serialize for Args<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let node = self.0;
        let len = node.args.len() + usize::from(node.array_len.is_some());
        let mut seq = serializer.serialize_seq(Some(len))?;
        for arg in &node.args {
            seq.serialize_element(arg)?;
        }
        if let Some(n) = node.array_len {
            seq.serialize_element(&n)?;
        }
        seq.end()
    }
}

/// Serializes a signature in the `named_args` shape (`return` is a one-element list).
struct NamedArgs<'a>(&'a Signature);

impl Serialize for NamedArgs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("params", &self.0.params)?;
        map.serialize_entry("return", std::slice::from_ref(&self.0.ret))?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for TypeSchema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        TypeSchema::from_json_value(&value).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_back() {
        let text = r#"{"type":"ffi.Function","named_args":{"params":[{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"int"}]}],"return":[{"type":"Optional","args":[{"type":"testing.TestIntPair"}]}]}}"#;
        let schema = TypeSchema::from_json_str(text).unwrap();
        assert_eq!(schema.to_json_string(), text);
        assert_eq!(
            schema.to_string(),
            "ffi.Function[(ffi.Map[ffi.String, int]) -> Optional[testing.TestIntPair]]"
        );
        let sig = schema.signature.as_ref().unwrap();
        assert_eq!(
            sig.ret.args[0].origin,
            Origin::TypeKey("testing.TestIntPair".into())
        );
    }

    #[test]
    fn every_builtin_round_trips() {
        for name in Origin::builtin_names() {
            assert_eq!(Origin::parse(name).as_str(), name);
            assert!(!matches!(Origin::parse(name), Origin::TypeKey(_)), "{name}");
        }
    }

    #[test]
    fn std_array_and_legacy_std_function() {
        let arr = TypeSchema::from_json_str(r#"{"type":"std::array","args":[{"type":"int"},3]}"#)
            .unwrap();
        assert_eq!(arr.array_len, Some(3));
        assert_eq!(arr.to_string(), "std::array[int, 3]");
        let f = TypeSchema::from_json_str(
            r#"{"type":"std::function","args":[{"type":"int"},[{"type":"float"}]]}"#,
        )
        .unwrap();
        assert_eq!(f.to_string(), "std::function[(float) -> int]");
    }

    #[test]
    fn older_function_form_reads_as_a_signature() {
        let old = TypeSchema::from_json_str(
            r#"{"type":"ffi.Function","args":[{"type":"ir.IntImm"},{"type":"DataType"},{"type":"int"},{"type":"ffi.Function","args":[{"type":"None"}]}]}"#,
        )
        .unwrap();
        assert_eq!(
            old.to_string(),
            "ffi.Function[(DataType, int, ffi.Function[() -> None]) -> ir.IntImm]"
        );
        // It is written back in the `named_args` form, which reads back to the same schema.
        assert_eq!(
            TypeSchema::from_json_str(&old.to_json_string()).unwrap(),
            old
        );
        let packed = TypeSchema::from_json_str(r#"{"type":"ffi.Function","args":[]}"#).unwrap();
        assert!(packed.signature.is_none());
    }

    #[test]
    fn compact_spelling_round_trips() {
        for text in [
            "int",
            "Optional[ffi.Array[int]]",
            "ffi.Map[ffi.String, testing.TestIntPair]",
            "Tuple[ffi.String, ffi.String]",
            "ffi.Array",
        ] {
            let parsed = TypeSchema::from_compact(text).unwrap();
            assert_eq!(parsed.to_string(), text);
        }
        assert_eq!(
            TypeSchema::from_compact(" Optional[ int ] ")
                .unwrap()
                .to_string(),
            "Optional[int]"
        );
        for (bad, why) in [
            ("Optional", "takes 1 type argument(s), got 0"),
            ("Optional[int", "is not closed"),
            ("int]", "unexpected `]`"),
            ("", "a type name is missing"),
            ("ffi.Array[]", "a type name is missing"),
        ] {
            let err = TypeSchema::from_compact(bad).unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn rejects_bad_schemas() {
        for bad in [
            "nope",
            "[]",
            r#"{"args":[]}"#,
            r#"{"type":"Optional"}"#,
            r#"{"type":"ffi.Map","args":[{"type":"int"}]}"#,
            r#"{"type":"ffi.Array","args":[{"type":"int"},{"type":"int"}]}"#,
            r#"{"type":"int","args":[{"type":"int"}]}"#,
            r#"{"type":"ffi.Function","named_args":{"params":[]}}"#,
            r#"{"type":"ffi.Function","named_args":{"other":[]}}"#,
            r#"{"type":"int","named_args":{"return":[{"type":"int"}]}}"#,
            r#"{"type":"std::array","args":[{"type":"int"}]}"#,
        ] {
            assert!(TypeSchema::from_json_str(bad).is_err(), "{bad}");
        }
    }
}
