//! Type schemas: the `type_schema` metadata of functions, methods and fields, rendered exactly as
//! Apache TVM-FFI's C++ registration renders them, plus the short type names used in errors.

use std::borrow::Cow;
use std::fmt::Write;

type StdString = std::string::String;

/// A type in a signature or a field declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schema {
    /// A type named by its schema origin: `int`, `ffi.String`, `demo.Point`...
    Named(Cow<'static, str>),
    /// A generic origin with arguments: `ffi.Array` of `int`, `Optional` of `ffi.String`...
    Generic(&'static str, Vec<Schema>),
    /// A packed function (`{"type":"ffi.Function"}`).
    PackedFunction,
    /// A typed function: return type and parameter types.
    Function(Box<Schema>, Vec<Schema>),
}

impl Schema {
    /// A named schema.
    pub const fn named(origin: &'static str) -> Schema {
        Schema::Named(Cow::Borrowed(origin))
    }

    /// The schema as compact JSON with Apache's key order
    /// (`{"type":"ffi.Array","args":[{"type":"int"}]}`).
    pub fn to_json(&self) -> StdString {
        let mut out = StdString::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut StdString) {
        match self {
            Schema::Named(origin) => {
                out.push_str(r#"{"type":"#);
                write_json_string(out, origin);
                out.push('}');
            }
            Schema::Generic(origin, args) => {
                out.push_str(r#"{"type":"#);
                write_json_string(out, origin);
                out.push_str(r#","args":["#);
                write_list(out, args);
                out.push_str("]}");
            }
            Schema::PackedFunction => out.push_str(r#"{"type":"ffi.Function"}"#),
            Schema::Function(ret, params) => {
                out.push_str(r#"{"type":"ffi.Function","named_args":{"return":["#);
                ret.write_json(out);
                out.push_str(r#"],"params":["#);
                write_list(out, params);
                out.push_str("]}}");
            }
        }
    }

    /// The short name used in error messages (`int`, `str`, `Array<int>`, `Map<str, float>`).
    pub fn display_name(&self) -> StdString {
        match self {
            Schema::Named(origin) => match origin.as_ref() {
                "ffi.String" => "str".into(),
                "ffi.Bytes" => "bytes".into(),
                other => other.into(),
            },
            Schema::Generic(origin, args) => {
                let short = origin.strip_prefix("ffi.").unwrap_or(origin);
                let args: Vec<StdString> = args.iter().map(Schema::display_name).collect();
                format!("{short}<{}>", args.join(", "))
            }
            Schema::PackedFunction => "ffi.Function".into(),
            Schema::Function(ret, params) => signature_text(ret, params),
        }
    }
}

fn write_list(out: &mut StdString, items: &[Schema]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item.write_json(out);
    }
}

/// Appends `text` as a JSON string literal.
pub(crate) fn write_json_string(out: &mut StdString, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `(0: int, 1: str) -> bool`, as in Apache's argument-mismatch errors.
pub fn signature_text(ret: &Schema, params: &[Schema]) -> StdString {
    let params: Vec<StdString> = params
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{i}: {}", p.display_name()))
        .collect();
    format!("({}) -> {}", params.join(", "), ret.display_name())
}

/// A metadata JSON object: `{"type_schema":"<schema JSON>", <extra entries>}`, the flat form
/// Apache's `Metadata::ToJSON` writes (values are JSON strings, ints or bools).
pub fn metadata_json(schema: &Schema, extra: &[(&str, StdString)]) -> StdString {
    let mut out = StdString::from(r#"{"type_schema":"#);
    write_json_string(&mut out, &schema.to_json());
    for (key, value) in extra {
        out.push(',');
        write_json_string(&mut out, key);
        out.push(':');
        write_json_string(&mut out, value);
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_apache_forms() {
        let load = Schema::Function(
            Box::new(Schema::named("ffi.Module")),
            vec![Schema::named("ffi.String")],
        );
        assert_eq!(
            metadata_json(&load, &[]),
            r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"ffi.Module\"}],\"params\":[{\"type\":\"ffi.String\"}]}}"}"#
        );
        assert_eq!(
            metadata_json(&Schema::PackedFunction, &[]),
            r#"{"type_schema":"{\"type\":\"ffi.Function\"}"}"#
        );
        let map = Schema::Generic(
            "ffi.Map",
            vec![Schema::named("ffi.String"), Schema::named("int")],
        );
        assert_eq!(
            map.to_json(),
            r#"{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"int"}]}"#
        );
        assert_eq!(map.display_name(), "Map<str, int>");
    }

    #[test]
    fn extra_metadata_entries_are_json_strings() {
        assert_eq!(
            metadata_json(&Schema::named("int"), &[("arg_names", r#"["x"]"#.into())]),
            r#"{"type_schema":"{\"type\":\"int\"}","arg_names":"[\"x\"]"}"#
        );
    }
}
