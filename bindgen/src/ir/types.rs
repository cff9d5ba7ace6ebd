//! Normalized value types.

use super::{NameSource, Param, Signature};
use ffihub_schema::{Origin, TypeSchema};
use serde::Serialize;
use std::fmt;

/// A value type as the bindings see it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Type {
    /// No value (`None`, a function returning nothing).
    None,
    /// Any value (`Any`, `ffi.OpaquePyObject`).
    Any,
    /// `bool`.
    Bool,
    /// 64-bit integer.
    Int,
    /// Arbitrary-precision integer (`ffi.BigInt`).
    BigInt,
    /// 64-bit float.
    Float,
    /// Opaque pointer (`void*`).
    OpaquePtr,
    /// Data type (`DataType`).
    DataType,
    /// Device (`Device`).
    Device,
    /// A string (`ffi.String`, small strings, `const char*`, `std::string`).
    String,
    /// Bytes (`ffi.Bytes`, small bytes, `TVMFFIByteArray*`).
    Bytes,
    /// A tensor (`ffi.Tensor`, `DLTensor*`).
    Tensor,
    /// A shape (`ffi.Shape`).
    Shape,
    /// Any object (`ffi.Object`).
    Object,
    /// A module (`ffi.Module`).
    Module,
    /// An error object (`ffi.Error`).
    Error,
    /// Immutable sequence (`ffi.Array`, `std::vector`, `std::array`).
    Array(Box<Type>),
    /// Mutable sequence (`ffi.List`).
    List(Box<Type>),
    /// Immutable map (`ffi.Map`, `std::map`, `std::unordered_map`).
    Map(Box<Type>, Box<Type>),
    /// Mutable map (`ffi.Dict`).
    Dict(Box<Type>, Box<Type>),
    /// `T` or None.
    Optional(Box<Type>),
    /// One of several types.
    Variant(Vec<Type>),
    /// A fixed-size heterogeneous tuple (crosses as an array).
    Tuple(Vec<Type>),
    /// A function: typed, or packed (`None`).
    Function(Option<Box<Signature>>),
    /// A registered object type, by key.
    Class(String),
}

fn boxed(t: Type) -> Box<Type> {
    Box::new(t)
}

impl Type {
    /// Whether its values are objects (heap values with an object header: what `ffi.Object`
    /// holds).
    pub fn is_object(&self) -> bool {
        matches!(
            self,
            Type::Class(_)
                | Type::Object
                | Type::Module
                | Type::Error
                | Type::String
                | Type::Bytes
                | Type::Tensor
                | Type::Shape
                | Type::Array(_)
                | Type::List(_)
                | Type::Map(..)
                | Type::Dict(..)
                | Type::Function(_)
                | Type::BigInt
        )
    }

    /// Normalizes a parsed type schema.
    pub fn from_schema(s: &TypeSchema) -> Type {
        let arg = |i: usize| s.args.get(i).map(Type::from_schema).unwrap_or(Type::Any);
        let all = || s.args.iter().map(Type::from_schema).collect::<Vec<_>>();
        match &s.origin {
            Origin::None => Type::None,
            Origin::Any | Origin::OpaquePyObject => Type::Any,
            Origin::Bool => Type::Bool,
            Origin::Int => Type::Int,
            Origin::BigInt => Type::BigInt,
            Origin::Float => Type::Float,
            Origin::OpaquePtr => Type::OpaquePtr,
            Origin::DataType => Type::DataType,
            Origin::Device => Type::Device,
            Origin::String | Origin::SmallStr | Origin::RawStr | Origin::StdString => Type::String,
            Origin::Bytes | Origin::SmallBytes | Origin::ByteArrayPtr => Type::Bytes,
            Origin::Tensor | Origin::DLTensorPtr => Type::Tensor,
            Origin::Shape => Type::Shape,
            Origin::Object => Type::Object,
            Origin::Module => Type::Module,
            Origin::Error => Type::Error,
            Origin::Array | Origin::StdVector | Origin::StdArray => Type::Array(boxed(arg(0))),
            Origin::List => Type::List(boxed(arg(0))),
            Origin::Map | Origin::StdMap | Origin::StdUnorderedMap => {
                Type::Map(boxed(arg(0)), boxed(arg(1)))
            }
            Origin::Dict => Type::Dict(boxed(arg(0)), boxed(arg(1))),
            Origin::Optional | Origin::StdOptional => match arg(0) {
                inner @ (Type::Optional(_) | Type::Any | Type::None) => inner,
                inner => Type::Optional(boxed(inner)),
            },
            Origin::Variant | Origin::StdVariant => {
                let mut members = all();
                if members.len() == 1 {
                    members.remove(0)
                } else {
                    Type::Variant(members)
                }
            }
            Origin::Tuple | Origin::StdTuple => Type::Tuple(all()),
            Origin::Function | Origin::StdFunction => {
                Type::Function(s.signature.as_ref().map(|sig| {
                    Box::new(Signature {
                        params: sig
                            .params
                            .iter()
                            .enumerate()
                            .map(|(i, p)| {
                                Param::new(
                                    format!("arg{i}"),
                                    NameSource::Positional,
                                    Type::from_schema(p),
                                )
                            })
                            .collect(),
                        ret: Type::from_schema(&sig.ret),
                        library_ret: None,
                    })
                }))
            }
            Origin::Expected | Origin::ObjectRValueRef | Origin::UnchangedOr => arg(0),
            Origin::TypeKey(key) => Type::Class(key.clone()),
        }
    }
}

impl fmt::Display for Signature {
    /// The library's signature (types before any narrowing by the overlay): what load-time
    /// checks compare and docs call the TVM-FFI signature.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", p.declared_ty())?;
        }
        write!(f, ") -> {}", self.declared_ret())
    }
}

impl fmt::Display for Type {
    /// The TVM-FFI-flavoured spelling used in generated docs: `Array[int]`, `Optional[str]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, name: &str, items: &[&Type]| {
            write!(f, "{name}[")?;
            for (i, t) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{t}")?;
            }
            f.write_str("]")
        };
        match self {
            Type::None => f.write_str("None"),
            Type::Any => f.write_str("Any"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::BigInt => f.write_str("bigint"),
            Type::Float => f.write_str("float"),
            Type::OpaquePtr => f.write_str("void*"),
            Type::DataType => f.write_str("dtype"),
            Type::Device => f.write_str("Device"),
            Type::String => f.write_str("str"),
            Type::Bytes => f.write_str("bytes"),
            Type::Tensor => f.write_str("Tensor"),
            Type::Shape => f.write_str("Shape"),
            Type::Object => f.write_str("Object"),
            Type::Module => f.write_str("Module"),
            Type::Error => f.write_str("Error"),
            Type::Array(t) => list(f, "Array", &[t]),
            Type::List(t) => list(f, "List", &[t]),
            Type::Map(k, v) => list(f, "Map", &[k, v]),
            Type::Dict(k, v) => list(f, "Dict", &[k, v]),
            Type::Optional(t) => list(f, "Optional", &[t]),
            Type::Variant(ts) => list(f, "Variant", &ts.iter().collect::<Vec<_>>()),
            Type::Tuple(ts) => list(f, "Tuple", &ts.iter().collect::<Vec<_>>()),
            Type::Function(None) => f.write_str("Callable[..., Any]"),
            Type::Function(Some(sig)) => write!(f, "Callable[{sig}]"),
            Type::Class(key) => f.write_str(key),
        }
    }
}
