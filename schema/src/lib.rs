//! `ffihub-schema`: the serde model of a TVM-FFI library's reflection, as written by
//! `ffihub dump` and read by `ffihub generate`.
//!
//! - [`Reflection`] is the document: global functions, object types (fields, methods,
//!   constructor), module exports ([`Module`]), a format version and a checksum. `reflection.schema.json` next to this crate's
//!   manifest is its JSON Schema ([`JSON_SCHEMA`]).
//! - [`TypeSchema`] is a parsed `type_schema`, kept in TVM-FFI's own JSON shape.
//! - [`Signatures`] is the signature overlay (parameter names, defaults, keyword-only
//!   parameters, narrower types); `signatures.schema.json` is its JSON Schema
//!   ([`SIGNATURES_JSON_SCHEMA`]).
//!
//! The crate depends on serde, serde_json and serde_yaml only, so other tools can read dumps
//! without pulling in the generator.

mod document;
mod signatures;
mod type_schema;

pub use document::{
    Constructor, DefaultValue, Field, FieldFlags, Function, Metadata, Method, Module, ObjectType,
    Reflection, TypingReport, UntypedReason, FORMAT_VERSION, MODULES_VERSION,
};
pub use signatures::{
    ParamEntry, RoleEntry, RoleKind, SignatureEntry, Signatures, SIGNATURES_VERSION,
};
pub use type_schema::{Origin, SchemaError, Signature, TypeSchema};

use std::fmt;

/// The JSON Schema (draft 2020-12) of a [`Reflection`] document.
pub const JSON_SCHEMA: &str = include_str!("../reflection.schema.json");

/// The JSON Schema (draft 2020-12) of the [`Signatures`] overlay (the `signatures:` section of
/// the generator's `--config` file).
pub const SIGNATURES_JSON_SCHEMA: &str = include_str!("../signatures.schema.json");

/// Why a document could not be read or written.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The text is not valid YAML/JSON for the model.
    Parse {
        /// `"YAML"` or `"JSON"`.
        format: &'static str,
        /// The parser's message (with line and column).
        message: String,
    },
    /// The document has another `format_version`.
    Version(u32),
    /// The stored checksum does not match the content.
    Checksum {
        /// The checksum written in the document.
        stored: String,
        /// The checksum of its content.
        actual: String,
    },
    /// The document breaks a rule the serde model cannot express.
    Invalid(String),
    /// Serialization failed.
    Write(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse { format, message } => write!(f, "invalid {format}: {message}"),
            Error::Version(v) => write!(
                f,
                "unsupported format_version {v} (this ffihub reads format_version 1 to {FORMAT_VERSION})"
            ),
            Error::Checksum { stored, actual } => write!(
                f,
                "checksum mismatch: the document says {stored} but its content hashes to {actual} \
                 (was it edited? regenerate it with `ffihub dump`, or delete the checksum line)"
            ),
            Error::Invalid(msg) => f.write_str(msg),
            Error::Write(msg) => write!(f, "cannot serialize the document: {msg}"),
        }
    }
}

impl std::error::Error for Error {}
