//! Type schemas of the functions this runtime registers, rendered the way Apache's C++
//! registration renders them (the `type_schema` key of function metadata), plus the short
//! signature text used in argument-mismatch errors.

use std::fmt::Write;

/// A type in a signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A type named by its schema origin (`int`, `ffi.String`, `testing.TestIntPair`...).
    Named(&'static str),
    /// A generic origin with arguments (`ffi.Array` of `int`, `Optional` of `ffi.String`...).
    Generic(&'static str, Vec<Ty>),
    /// A function: typed with (return, params), or packed when `None`.
    Function(Option<Box<(Ty, Vec<Ty>)>>),
}

pub const ANY: Ty = Ty::Named("Any");
pub const NONE: Ty = Ty::Named("None");
pub const INT: Ty = Ty::Named("int");
pub const BOOL: Ty = Ty::Named("bool");
pub const FLOAT: Ty = Ty::Named("float");
pub const OPAQUE_PTR: Ty = Ty::Named("void*");
pub const DEVICE: Ty = Ty::Named("Device");
pub const STRING: Ty = Ty::Named("ffi.String");
pub const BYTES: Ty = Ty::Named("ffi.Bytes");
pub const OBJECT: Ty = Ty::Named("ffi.Object");
pub const PACKED_FUNCTION: Ty = Ty::Function(None);

/// A typed function type.
pub fn function(ret: Ty, params: Vec<Ty>) -> Ty {
    Ty::Function(Some(Box::new((ret, params))))
}

impl Ty {
    /// The schema JSON (`{"type":"ffi.Array","args":[{"type":"int"}]}`), compact, keys in
    /// Apache's order.
    pub fn schema_json(&self) -> String {
        let mut out = String::new();
        self.write_schema(&mut out);
        out
    }

    fn write_schema(&self, out: &mut String) {
        match self {
            Ty::Named(origin) => {
                let _ = write!(out, r#"{{"type":"{origin}"}}"#);
            }
            Ty::Generic(origin, args) => {
                let _ = write!(out, r#"{{"type":"{origin}","args":["#);
                write_list(out, args);
                out.push_str("]}");
            }
            Ty::Function(None) => out.push_str(r#"{"type":"ffi.Function"}"#),
            Ty::Function(Some(sig)) => {
                out.push_str(r#"{"type":"ffi.Function","named_args":{"return":["#);
                sig.0.write_schema(out);
                out.push_str(r#"],"params":["#);
                write_list(out, &sig.1);
                out.push_str("]}}");
            }
        }
    }

    /// The short name used in error messages (Apache's `TypeStr`: `str` for strings, `Array<int>`...).
    pub fn display_name(&self) -> String {
        match self {
            Ty::Named("ffi.String") => "str".into(),
            Ty::Named("ffi.Bytes") => "bytes".into(),
            Ty::Named(origin) => (*origin).into(),
            Ty::Generic(origin, args) => {
                let short = origin.strip_prefix("ffi.").unwrap_or(origin);
                let args: Vec<String> = args.iter().map(Ty::display_name).collect();
                format!("{short}<{}>", args.join(", "))
            }
            Ty::Function(None) => "ffi.Function".into(),
            Ty::Function(Some(sig)) => signature_text(&sig.0, &sig.1),
        }
    }
}

fn write_list(out: &mut String, items: &[Ty]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item.write_schema(out);
    }
}

/// `(0: int, 1: str) -> bool`, as in argument-mismatch errors (a None result reads `void`, as
/// Apache prints C++ signatures).
pub fn signature_text(ret: &Ty, params: &[Ty]) -> String {
    let params: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{i}: {}", p.display_name()))
        .collect();
    let ret = if *ret == NONE {
        "void".to_string()
    } else {
        ret.display_name()
    };
    format!("({}) -> {ret}", params.join(", "))
}

/// Function metadata: a flat JSON object whose `type_schema` holds the schema as a JSON string.
pub fn function_metadata(ty: &Ty) -> String {
    let schema = ty.schema_json();
    let escaped = schema.replace('\\', "\\\\").replace('"', "\\\"");
    format!(r#"{{"type_schema":"{escaped}"}}"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_apache_metadata() {
        let load = function(Ty::Named("ffi.Module"), vec![STRING]);
        assert_eq!(
            function_metadata(&load),
            r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"ffi.Module\"}],\"params\":[{\"type\":\"ffi.String\"}]}}"}"#
        );
        assert_eq!(
            function_metadata(&PACKED_FUNCTION),
            r#"{"type_schema":"{\"type\":\"ffi.Function\"}"}"#
        );
        let keys = function(Ty::Generic("ffi.Array", vec![STRING]), vec![]);
        assert_eq!(
            keys.schema_json(),
            r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Array","args":[{"type":"ffi.String"}]}],"params":[]}}"#
        );
    }

    #[test]
    fn signature_text_uses_short_names() {
        assert_eq!(
            signature_text(&STRING, &[STRING, INT]),
            "(0: str, 1: int) -> str"
        );
        assert_eq!(
            Ty::Generic("ffi.Map", vec![STRING, INT]).display_name(),
            "Map<str, int>"
        );
    }
}
