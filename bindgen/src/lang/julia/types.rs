//! How a TVM-FFI type appears in Julia ([`TypeNames`]):
//! - `accepts`: the annotation of a parameter (what callers may pass), e.g. `Integer`,
//!   `AbstractString`, `TVMFFI.SequenceLike`, or nothing for `Any`;
//! - `descriptor`: the type given to `TVMFFI.to_ffi` to convert an argument by its declared type
//!   (`TVMFFI.ArrayOf{Float64}`: an `ffi.Array`, not a tensor, with floats);
//! - `returns`: the Julia type of a result, given to `TVMFFI.call_typed` / `TVMFFI.get_field`
//!   (scalars are then read without allocating).

use super::names;
use super::place::Place;
use crate::ir::{self, Type};
use crate::lang::params::Layout;
use std::collections::BTreeMap;

/// Maps type keys of this library to Julia type names, and TVM-FFI types to Julia's.
pub struct TypeNames(pub BTreeMap<String, Place>);

impl TypeNames {
    pub(super) fn abstract_of(&self, key: &str) -> String {
        match self.0.get(key) {
            Some(p) => format!("{}{}", p.prefix, names::abstract_type_name(&p.ident)),
            None => "TVMFFI.FFIObject".into(),
        }
    }

    /// The annotation of a parameter of type `ty` (what it accepts); `None` for anything.
    pub fn accepts(&self, ty: &Type) -> Option<String> {
        Some(match ty {
            Type::None => "Nothing".into(),
            Type::Bool => "Bool".into(),
            Type::Int | Type::BigInt => "Integer".into(),
            Type::Float => "Real".into(),
            Type::OpaquePtr => "Ptr".into(),
            Type::DataType => "TVMFFI.DataTypeLike".into(),
            Type::Device => "TVMFFI.DeviceLike".into(),
            Type::String => "AbstractString".into(),
            Type::Bytes => "AbstractVector{UInt8}".into(),
            Type::Tensor => "TVMFFI.TensorLike".into(),
            Type::Shape => "TVMFFI.ShapeLike".into(),
            Type::Module => "TVMFFI.FFIModule".into(),
            Type::Error => "TVMFFI.FFIError".into(),
            Type::Array(_) | Type::List(_) | Type::Tuple(_) => "TVMFFI.SequenceLike".into(),
            Type::Map(..) | Type::Dict(..) => "AbstractDict".into(),
            Type::Class(key) => self.abstract_of(key),
            Type::Optional(inner) => format!("Union{{Nothing, {}}}", self.accepts(inner)?),
            Type::Any | Type::Object | Type::Variant(_) | Type::Function(_) => return None,
        })
    }

    /// What a parameter of type `ty` takes, as a Julia type (`AbstractVector{<:Integer}`), for
    /// error messages: `accepts` with the element types of containers.
    pub fn expected(&self, ty: &Type) -> String {
        let list = |ts: &[Type]| {
            ts.iter()
                .map(|t| self.expected(t))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match ty {
            Type::Array(t) | Type::List(t) => format!("AbstractVector{{<:{}}}", self.expected(t)),
            Type::Map(k, v) | Type::Dict(k, v) => format!(
                "AbstractDict{{<:{}, <:{}}}",
                self.expected(k),
                self.expected(v)
            ),
            Type::Tuple(ts) => format!("Tuple{{{}}}", list(ts)),
            Type::Variant(ts) => format!("Union{{{}}}", list(ts)),
            Type::Optional(t) => format!("Union{{Nothing, {}}}", self.expected(t)),
            Type::Function(_) => "Function".into(),
            other => self.accepts(other).unwrap_or_else(|| "Any".into()),
        }
    }

    /// The `TVMFFI.to_ffi` descriptor of `ty`.
    pub fn descriptor(&self, ty: &Type) -> String {
        let list = |ts: &[Type]| {
            ts.iter()
                .map(|t| self.descriptor(t))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match ty {
            Type::None => "Nothing".into(),
            Type::Any => "Any".into(),
            Type::Bool => "Bool".into(),
            Type::Int => "Int64".into(),
            Type::BigInt => "Integer".into(),
            Type::Float => "Float64".into(),
            Type::OpaquePtr => "Ptr{Cvoid}".into(),
            Type::DataType => "TVMFFI.DLDataType".into(),
            Type::Device => "TVMFFI.DLDevice".into(),
            Type::String => "String".into(),
            Type::Bytes => "Vector{UInt8}".into(),
            Type::Tensor => "TVMFFI.FFITensor".into(),
            Type::Shape => "TVMFFI.FFIShape".into(),
            Type::Object => "TVMFFI.FFIObject".into(),
            Type::Module => "TVMFFI.FFIModule".into(),
            Type::Error => "TVMFFI.FFIError".into(),
            Type::Array(t) => format!("TVMFFI.ArrayOf{{{}}}", self.descriptor(t)),
            Type::List(t) => format!("TVMFFI.ListOf{{{}}}", self.descriptor(t)),
            Type::Map(k, v) => format!(
                "TVMFFI.MapOf{{{}, {}}}",
                self.descriptor(k),
                self.descriptor(v)
            ),
            Type::Dict(k, v) => format!(
                "TVMFFI.DictOf{{{}, {}}}",
                self.descriptor(k),
                self.descriptor(v)
            ),
            Type::Optional(t) => format!("Union{{Nothing, {}}}", self.descriptor(t)),
            Type::Variant(ts) => format!("TVMFFI.VariantOf{{Tuple{{{}}}}}", list(ts)),
            Type::Tuple(ts) => format!("TVMFFI.TupleOf{{Tuple{{{}}}}}", list(ts)),
            Type::Function(_) => "TVMFFI.FFIFunction".into(),
            Type::Class(key) => self.abstract_of(key),
        }
    }

    /// Whether a value of type `ty` must be converted by its declared type before the call.
    fn needs_conversion(ty: &Type) -> bool {
        match ty {
            Type::Optional(t) => Self::needs_conversion(t),
            Type::Float
            | Type::Bytes
            | Type::DataType
            | Type::Device
            | Type::Tensor
            | Type::Shape
            | Type::Array(_)
            | Type::List(_)
            | Type::Map(..)
            | Type::Dict(..)
            | Type::Tuple(_)
            | Type::Variant(_)
            | Type::Function(_) => true,
            _ => false,
        }
    }

    /// The expression that passes `ident` as a value of type `ty`.
    pub fn convert(&self, ty: &Type, ident: &str) -> String {
        match ty {
            Type::Float => format!("Float64({ident})"),
            t if Self::needs_conversion(t) => {
                format!("TVMFFI.to_ffi({}, {ident})", self.descriptor(t))
            }
            _ => ident.to_string(),
        }
    }

    /// The Julia type of a result of type `ty` (`Any` when nothing more precise is known).
    pub fn returns(&self, ty: &Type) -> String {
        match ty {
            Type::None => "Nothing".into(),
            Type::Any | Type::Object => "Any".into(),
            Type::Bool => "Bool".into(),
            Type::Int => "Int64".into(),
            Type::BigInt => "Integer".into(),
            Type::Float => "Float64".into(),
            Type::OpaquePtr => "Ptr{Cvoid}".into(),
            Type::DataType => "TVMFFI.DLDataType".into(),
            Type::Device => "TVMFFI.DLDevice".into(),
            Type::String => "String".into(),
            Type::Bytes => "Vector{UInt8}".into(),
            Type::Tensor => "TVMFFI.TensorLike".into(),
            Type::Shape => "TVMFFI.FFIShape".into(),
            Type::Module => "TVMFFI.FFIModule".into(),
            Type::Error => "TVMFFI.FFIError".into(),
            // Containers carry the element types they declare: `Array[int]` is an
            // `FFIArray{Int64}` (its elements read as `Int64`, `collect` gives a `Vector{Int64}`).
            Type::Array(t) => format!("TVMFFI.FFIArray{{{}}}", self.returns(t)),
            Type::Tuple(ts) => format!("TVMFFI.FFIArray{{{}}}", self.union(ts)),
            Type::List(t) => format!("TVMFFI.FFIList{{{}}}", self.returns(t)),
            Type::Map(k, v) => format!("TVMFFI.FFIMap{{{}, {}}}", self.returns(k), self.returns(v)),
            Type::Dict(k, v) => {
                format!("TVMFFI.FFIDict{{{}, {}}}", self.returns(k), self.returns(v))
            }
            Type::Function(_) => "TVMFFI.FFIFunction".into(),
            Type::Class(key) => self.abstract_of(key),
            Type::Optional(inner) => match self.returns(inner) {
                any if any == "Any" => any,
                r => format!("Union{{Nothing, {r}}}"),
            },
            Type::Variant(ts) => self.union(ts),
        }
    }

    /// The Julia type of a value of one of `ts` (`Any` if one of them is, or for none).
    fn union(&self, ts: &[Type]) -> String {
        let mut members: Vec<String> = Vec::new();
        for t in ts {
            let r = self.returns(t);
            if r == "Any" {
                return r;
            }
            if !members.contains(&r) {
                members.push(r);
            }
        }
        match members.as_slice() {
            [] => "Any".into(),
            [one] => one.clone(),
            _ => format!("Union{{{}}}", members.join(", ")),
        }
    }

    /// `-> R` for a docstring's signature line (nothing for `Any`).
    pub(super) fn arrow(ret: &str) -> String {
        if ret == "Any" {
            String::new()
        } else {
            format!(" -> {ret}")
        }
    }

    /// The layout of a signature's parameters with Julia identifiers (`self` is the receiver's).
    pub(super) fn layout<'a>(params: &'a [ir::Param], item: &str) -> Layout<'a> {
        Layout::new(params, &["self"], names::param_name, item)
    }
}
