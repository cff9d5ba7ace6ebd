//! `ffi.json.Stringify`: values to JSON text, byte for byte as Apache's writer prints them
//! (floats with `%.17g`, integral floats with a `.0`, `NaN`/`Infinity`, `\/` and `\u00XX`
//! escapes, optional indentation).
//!
//! Containers are walked with a heap stack, so deep values cannot exhaust the thread's stack.

use crate::abi::TVMFFIAny;
use crate::containers::map::MapView;
use crate::containers::seq::seq_elements;
use crate::registry::types::type_key_of;
use crate::tindex;
use crate::value::error::Error;

/// Appends the JSON text of `value` to `out`; `indent` 0 writes compact text, others put each
/// item on its own line, indented by `indent` spaces per level.
///
/// # Safety
/// `value` is a valid value (its objects are live).
pub unsafe fn write_value(out: &mut Vec<u8>, value: &TVMFFIAny, indent: i32) -> Result<(), Error> {
    Writer {
        out,
        indent: indent.into(),
        total_indent: 0,
        open_lists: Vec::new(),
    }
    .run(value)
}

/// The JSON text of `value` (see [`write_value`]).
///
/// # Safety
/// As for [`write_value`].
pub unsafe fn stringify(value: &TVMFFIAny, indent: i32) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    write_value(&mut out, value, indent)?;
    Ok(out)
}

/// A container being written: its items (map entries flattened to key, value, key, ...) as
/// views that the container keeps alive.
struct Open {
    /// Owns the buffer `items` points into when the container is a map (its entries, copied
    /// out as views).
    _entries: Vec<TVMFFIAny>,
    items: *const TVMFFIAny,
    len: usize,
    next: usize,
    is_map: bool,
    /// The List object this frame writes (for cycle detection), if it is one.
    list: Option<usize>,
}

struct Writer<'o> {
    out: &'o mut Vec<u8>,
    indent: i64,
    total_indent: i64,
    open_lists: Vec<usize>,
}

impl Writer<'_> {
    unsafe fn run(&mut self, root: &TVMFFIAny) -> Result<(), Error> {
        let mut stack: Vec<Open> = Vec::new();
        let mut pending: Option<&TVMFFIAny> = Some(root);
        loop {
            if let Some(value) = pending.take() {
                if let Some(open) = self.scalar_or_open(value)? {
                    stack.push(open);
                }
            }
            let Some(top) = stack.last_mut() else {
                return Ok(());
            };
            if top.next == top.len {
                let open = stack.pop().expect("a frame is open");
                self.close(&open);
                continue;
            }
            let i = top.next;
            top.next += 1;
            let is_map = top.is_map;
            // SAFETY: `i < len`; the container holding the items is alive (see `Open`).
            let item = &*top.items.add(i);
            if is_map && i % 2 == 1 {
                self.out.push(b':');
                if self.indent != 0 {
                    self.out.push(b' ');
                }
                pending = Some(item);
                continue;
            }
            let position = if is_map { i / 2 } else { i };
            if position != 0 {
                self.out.push(b',');
            }
            if self.indent != 0 {
                self.newline();
            }
            if is_map {
                let key = crate::value::string::str_bytes(item).ok_or_else(|| {
                    Error::new(
                        "ValueError",
                        format!(
                            "Expect key to be string, got `{}`",
                            type_key_of(item.type_index)
                        ),
                    )
                })?;
                escape_into(self.out, key);
            } else {
                pending = Some(item);
            }
        }
    }

    /// Writes a scalar, or opens a container and returns its frame.
    unsafe fn scalar_or_open(&mut self, value: &TVMFFIAny) -> Result<Option<Open>, Error> {
        let out = &mut *self.out;
        match value.type_index {
            tindex::NONE => out.extend_from_slice(b"null"),
            tindex::BOOL => out.extend_from_slice(if value.value.v_int64 != 0 {
                b"true"
            } else {
                b"false"
            }),
            tindex::INT => write_int(out, value.value.v_int64),
            tindex::FLOAT => write_float(out, value.value.v_float64),
            tindex::SMALL_STR | tindex::STR => escape_into(
                out,
                crate::value::string::str_bytes(value).expect("a string"),
            ),
            tindex::ARRAY | tindex::LIST => {
                let obj = value.value.v_obj;
                let list = (value.type_index == tindex::LIST).then_some(obj as usize);
                if let Some(list) = list {
                    if self.open_lists.contains(&list) {
                        return Err(Error::new(
                            "ValueError",
                            "Cycle detected: List contains itself",
                        ));
                    }
                    self.open_lists.push(list);
                }
                self.open(b'[');
                let items = seq_elements(obj);
                return Ok(Some(Open {
                    _entries: Vec::new(),
                    items: items.as_ptr(),
                    len: items.len(),
                    next: 0,
                    is_map: false,
                    list,
                }));
            }
            tindex::MAP => {
                let view = MapView::from_raw(value.value.v_obj).expect("a map");
                let mut entries = Vec::with_capacity(view.len() * 2);
                for (key, val) in view.iter() {
                    // The map keeps its keys and values alive; views suffice.
                    entries.push(*key.as_raw());
                    entries.push(*val.as_raw());
                }
                self.open(b'{');
                return Ok(Some(Open {
                    items: entries.as_ptr(),
                    len: entries.len(),
                    _entries: entries,
                    next: 0,
                    is_map: true,
                    list: None,
                }));
            }
            other => {
                return Err(Error::new(
                    "ValueError",
                    format!("Unsupported type: `{}`", type_key_of(other)),
                ))
            }
        }
        Ok(None)
    }

    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.total_indent += self.indent;
    }

    fn close(&mut self, open: &Open) {
        if self.indent != 0 {
            self.total_indent -= self.indent;
            self.newline();
        }
        if let Some(list) = open.list {
            self.open_lists.retain(|&l| l != list);
        }
        self.out.push(if open.is_map { b'}' } else { b']' });
    }

    fn newline(&mut self) {
        self.out.push(b'\n');
        let spaces = usize::try_from(self.total_indent).unwrap_or(0);
        self.out.resize(self.out.len() + spaces, b' ');
    }
}

/// An integer in decimal.
pub fn write_int(out: &mut Vec<u8>, value: i64) {
    let mut buffer = itoa_buffer();
    out.extend_from_slice(format_int(&mut buffer, value));
}

fn itoa_buffer() -> [u8; 20] {
    [0; 20]
}

fn format_int(buffer: &mut [u8; 20], value: i64) -> &[u8] {
    let mut magnitude = value.unsigned_abs();
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    if value < 0 {
        at -= 1;
        buffer[at] = b'-';
    }
    &buffer[at..]
}

/// A float as the reference prints it: `NaN`, `Infinity`, `-Infinity`; integral values below
/// 2^53 with one decimal (`3.0`), others with 17 significant digits (`%.17g`).
pub fn write_float(out: &mut Vec<u8>, value: f64) {
    if value.is_nan() {
        out.extend_from_slice(b"NaN");
    } else if value.is_infinite() {
        out.extend_from_slice(if value < 0.0 {
            b"-Infinity"
        } else {
            b"Infinity"
        });
    } else if value.abs() < (1u64 << 53) as f64 && value.fract() == 0.0 {
        // Integral and exact: the digits are the integer's (keeping the sign of -0.0).
        if value.is_sign_negative() && value == 0.0 {
            out.extend_from_slice(b"-0.0");
        } else {
            write_int(out, value as i64);
            out.extend_from_slice(b".0");
        }
    } else {
        c_format_g17(out, value);
    }
}

/// `printf("%.17g", value)`, through the C library for identical digits and exponent spelling.
fn c_format_g17(out: &mut Vec<u8>, value: f64) {
    extern "C" {
        fn snprintf(
            buffer: *mut std::ffi::c_char,
            size: usize,
            format: *const std::ffi::c_char,
            ...
        ) -> std::ffi::c_int;
    }
    let mut buffer = [0u8; 32];
    // SAFETY: the buffer is large enough for any `%.17g` output and snprintf truncates anyway.
    let written = unsafe {
        snprintf(
            buffer.as_mut_ptr().cast(),
            buffer.len(),
            c"%.17g".as_ptr(),
            value,
        )
    };
    let written = (written.max(0) as usize).min(buffer.len() - 1);
    out.extend_from_slice(&buffer[..written]);
}

/// A JSON string literal of `bytes` (the reference escapes `/` and DEL too; other bytes are
/// copied as they are).
pub fn escape_into(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    let mut plain_from = 0;
    for (i, &c) in bytes.iter().enumerate() {
        let escape: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'/' => b"\\/",
            0x08 => b"\\b",
            0x0c => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            c if c < 0x20 || c == 0x7f => {
                out.extend_from_slice(&bytes[plain_from..i]);
                plain_from = i + 1;
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(c >> 4) as usize]);
                out.push(HEX[(c & 0xf) as usize]);
                continue;
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[plain_from..i]);
        plain_from = i + 1;
        out.extend_from_slice(escape);
    }
    out.extend_from_slice(&bytes[plain_from..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float_text(v: f64) -> String {
        let mut out = Vec::new();
        write_float(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_print_like_the_reference() {
        assert_eq!(float_text(3.0), "3.0");
        assert_eq!(float_text(-0.0), "-0.0");
        assert_eq!(float_text(0.1), "0.10000000000000001");
        assert_eq!(float_text(1e300), "1.0000000000000001e+300");
        assert_eq!(float_text(9007199254740992.0), "9007199254740992");
        assert_eq!(float_text(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn strings_escape_like_the_reference() {
        let mut out = Vec::new();
        escape_into(&mut out, b"a/\"\x01\x7f\xc3\xa9");
        assert_eq!(out, b"\"a\\/\\\"\\u0001\\u007f\xc3\xa9\"");
    }

    #[test]
    fn ints_print_in_decimal() {
        let mut out = Vec::new();
        write_int(&mut out, i64::MIN);
        assert_eq!(out, b"-9223372036854775808");
    }
}
