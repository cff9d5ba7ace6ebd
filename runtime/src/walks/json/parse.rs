//! `ffi.json.Parse`: JSON text to values (null, bool, int, float, String, Array, Map), with the
//! extensions and error messages of Apache's parser (`NaN`, `Infinity`, `-Infinity`; Python's
//! `json` wording with line, column and byte offset).
//!
//! The parser keeps its open containers on a heap stack, so no input can exhaust the thread's
//! stack; nesting deeper than [`MAX_DEPTH`] is refused with a ValueError, because values that
//! deep could not be dropped or printed safely by recursive code elsewhere.

use crate::containers::map::Map;
use crate::containers::seq::Array;
use crate::value::any::Any;
use crate::value::error::Error;
use std::marker::PhantomData;

/// The deepest nesting of arrays and objects a document may have.
pub const MAX_DEPTH: usize = 1000;

/// What the parser builds its values with.
pub trait Sink {
    type Value: Default;
    fn null() -> Self::Value;
    fn boolean(value: bool) -> Self::Value;
    fn int(value: i64) -> Self::Value;
    fn float(value: f64) -> Self::Value;
    fn string(bytes: &[u8]) -> Self::Value;
    fn array(items: Vec<Self::Value>) -> Self::Value;
    /// An object from its members in order (keys are values made by [`Sink::string`]).
    fn object(members: Vec<(Self::Value, Self::Value)>) -> Result<Self::Value, Error>;
}

/// Builds FFI values: `ffi.Array`, `ffi.Map` with String keys, scalars.
struct AnySink;

impl Sink for AnySink {
    type Value = Any;
    fn null() -> Any {
        Any::none()
    }
    fn boolean(value: bool) -> Any {
        Any::bool(value)
    }
    fn int(value: i64) -> Any {
        Any::int(value)
    }
    fn float(value: f64) -> Any {
        Any::float(value)
    }
    fn string(bytes: &[u8]) -> Any {
        Any::string(bytes)
    }
    fn array(items: Vec<Any>) -> Any {
        Array::from_vec(items).into_any()
    }
    fn object(members: Vec<(Any, Any)>) -> Result<Any, Error> {
        Ok(Map::from_pairs(members)?.into_any())
    }
}

/// Parses a JSON document into FFI values.
pub fn parse(text: &[u8]) -> Result<Any, Error> {
    parse_with::<AnySink>(text)
}

/// Parses a JSON document with `S`.
pub fn parse_with<S: Sink>(text: &[u8]) -> Result<S::Value, Error> {
    let mut parser = Parser::<S> {
        text,
        pos: 0,
        line: 1,
        line_begin: 0,
        error: None,
        sink: PhantomData,
    };
    match parser.document() {
        Some(value) => Ok(value),
        None => {
            let message = match parser.error.take() {
                Some(message) => message,
                None => parser.context("Syntax error near"),
            };
            Err(Error::new("ValueError", message))
        }
    }
}

/// A container being filled.
enum Open<V> {
    Array(Vec<V>),
    Object(Vec<(V, V)>, V),
}

struct Parser<'a, S: Sink> {
    text: &'a [u8],
    pos: usize,
    line: usize,
    line_begin: usize,
    /// The first error found (None with a failed parse means "Syntax error near").
    error: Option<String>,
    sink: PhantomData<S>,
}

impl<S: Sink> Parser<'_, S> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_spaces(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' => {}
                b'\n' => {
                    self.line += 1;
                    self.line_begin = self.pos + 1;
                }
                _ => break,
            }
            self.pos += 1;
        }
    }

    /// `prefix: line L column C (char P)` at the current position.
    fn context(&self, prefix: &str) -> String {
        format!(
            "{prefix}: line {} column {} (char {})",
            self.line,
            self.pos as i64 - self.line_begin as i64 + 1,
            self.pos
        )
    }

    /// Records an error at the current position; always returns None.
    fn fail<T>(&mut self, prefix: &str) -> Option<T> {
        self.error = Some(self.context(prefix));
        None
    }

    /// Records an error at `pos`.
    fn fail_at<T>(&mut self, pos: usize, prefix: &str) -> Option<T> {
        self.pos = pos;
        self.fail(prefix)
    }

    /// Advances over `literal` as far as it matches; true if all of it did.
    fn match_literal(&mut self, literal: &[u8]) -> bool {
        for &expected in literal {
            if self.peek() != Some(expected) {
                return false;
            }
            self.pos += 1;
        }
        true
    }

    fn document(&mut self) -> Option<S::Value> {
        let value = self.value()?;
        self.skip_spaces();
        if self.peek().is_some() {
            return self.fail("Extra data");
        }
        Some(value)
    }

    /// One value, with its nested containers parsed iteratively.
    fn value(&mut self) -> Option<S::Value> {
        let mut stack: Vec<Open<S::Value>> = Vec::new();
        'value: loop {
            self.skip_spaces();
            let start = self.pos;
            let mut value = match self.peek() {
                None => return self.fail("Expecting value"),
                Some(b'{') => {
                    self.pos += 1;
                    self.skip_spaces();
                    match self.peek() {
                        None => {
                            return self.fail("Expecting property name enclosed in double quotes")
                        }
                        Some(b'}') => {
                            self.pos += 1;
                            match S::object(Vec::new()) {
                                Ok(value) => value,
                                Err(e) => return self.fail(&String::from_utf8_lossy(e.message())),
                            }
                        }
                        Some(_) => {
                            self.check_depth(&stack)?;
                            let key = self.property_name()?;
                            stack.push(Open::Object(Vec::new(), key));
                            continue 'value;
                        }
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    self.skip_spaces();
                    match self.peek() {
                        None => return self.fail("Expecting value"),
                        Some(b']') => {
                            self.pos += 1;
                            S::array(Vec::new())
                        }
                        Some(_) => {
                            self.check_depth(&stack)?;
                            stack.push(Open::Array(Vec::new()));
                            continue 'value;
                        }
                    }
                }
                Some(b'"') => self.string()?,
                Some(c @ (b't' | b'f' | b'n')) => {
                    self.pos += 1;
                    let (rest, value): (&[u8], S::Value) = match c {
                        b't' => (b"rue", S::boolean(true)),
                        b'f' => (b"alse", S::boolean(false)),
                        _ => (b"ull", S::null()),
                    };
                    if !self.match_literal(rest) {
                        return self.fail_at(start, "Expecting value");
                    }
                    value
                }
                Some(_) => self.number()?,
            };
            // Hand the finished value to the containers it closes.
            loop {
                match stack.last_mut() {
                    None => return Some(value),
                    Some(Open::Array(items)) => {
                        items.push(value);
                        self.skip_spaces();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_spaces();
                                // End of input after a comma: no specific message ("Syntax error near").
                                self.peek()?;
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                let Some(Open::Array(items)) = stack.pop() else {
                                    unreachable!("the top of the stack is an array")
                                };
                                value = S::array(items);
                            }
                            _ => return self.fail("Expecting ',' delimiter"),
                        }
                    }
                    Some(Open::Object(items, key)) => {
                        items.push((std::mem::take(key), value));
                        self.skip_spaces();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_spaces();
                                // End of input after a comma: no specific message ("Syntax error near").
                                self.peek()?;
                                *key = self.property_name()?;
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                let Some(Open::Object(items, _)) = stack.pop() else {
                                    unreachable!("the top of the stack is an object")
                                };
                                value = match S::object(items) {
                                    Ok(object) => object,
                                    Err(e) => {
                                        self.error =
                                            Some(String::from_utf8_lossy(e.message()).into());
                                        return None;
                                    }
                                };
                            }
                            _ => return self.fail("Expecting ',' delimiter"),
                        }
                    }
                }
            }
        }
    }

    fn check_depth(&mut self, stack: &[Open<S::Value>]) -> Option<()> {
        if stack.len() >= MAX_DEPTH {
            let prefix = format!("Nesting deeper than {MAX_DEPTH} levels");
            return self.fail(&prefix);
        }
        Some(())
    }

    /// `"key"` followed by `:`.
    fn property_name(&mut self) -> Option<S::Value> {
        if self.peek() != Some(b'"') {
            return self.fail("Expecting property name enclosed in double quotes");
        }
        let key = self.string()?;
        self.skip_spaces();
        if self.peek() != Some(b':') {
            return self.fail("Expecting ':' delimiter");
        }
        self.pos += 1;
        Some(key)
    }

    /// A string starting at the opening quote.
    fn string(&mut self) -> Option<S::Value> {
        let start = self.pos;
        self.pos += 1;
        // Fast path: no escapes and no control characters.
        while let Some(c) = self.peek() {
            if c == b'"' {
                let value = S::string(&self.text[start + 1..self.pos]);
                self.pos += 1;
                return Some(value);
            }
            if c < b' ' || c == b'\\' {
                return self.escaped_string(start);
            }
            self.pos += 1;
        }
        self.fail_at(start, "Unterminated string starting at")
    }

    fn escaped_string(&mut self, start: usize) -> Option<S::Value> {
        let mut out = self.text[start + 1..self.pos].to_vec();
        while let Some(c) = self.peek() {
            if c < b' ' {
                return self.fail("Invalid control character at");
            }
            match c {
                b'"' => {
                    self.pos += 1;
                    return Some(S::string(&out));
                }
                b'\\' => {
                    self.pos += 1;
                    let unescaped = match self.peek() {
                        Some(b'"') => b'"',
                        Some(b'\\') => b'\\',
                        Some(b'/') => b'/',
                        Some(b'b') => 0x08,
                        Some(b'f') => 0x0c,
                        Some(b'n') => b'\n',
                        Some(b'r') => b'\r',
                        Some(b't') => b'\t',
                        Some(b'u') => {
                            let code_point = self.unicode_escape()?;
                            push_utf8(&mut out, code_point);
                            continue;
                        }
                        _ => return self.fail("Invalid \\escape"),
                    };
                    self.pos += 1;
                    out.push(unescaped);
                }
                _ => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
        self.fail_at(start, "Unterminated string starting at")
    }

    /// `\uXXXX` (or a surrogate pair of them), with the position at the `u`.
    fn unicode_escape(&mut self) -> Option<u32> {
        let escape = self.pos;
        self.pos += 1;
        let Some(first) = self.hex4() else {
            return self.fail_at(escape, "Invalid \\uXXXX escape");
        };
        if !(0xD800..=0xDFFF).contains(&first) {
            return Some(first);
        }
        if first >= 0xDC00 || !self.match_literal(b"\\u") {
            return self.fail_at(escape, "Invalid surrogate pair of \\uXXXX escapes");
        }
        let second_at = self.pos;
        let Some(second) = self.hex4() else {
            return self.fail_at(second_at, "Invalid \\uXXXX escape");
        };
        if !(0xDC00..=0xDFFF).contains(&second) {
            return self.fail_at(second_at, "Invalid surrogate pair of \\uXXXX escapes");
        }
        Some(((first - 0xD800) << 10) + (second - 0xDC00) + 0x10000)
    }

    fn hex4(&mut self) -> Option<u32> {
        let mut value = 0;
        for _ in 0..4 {
            let digit = (self.peek()? as char).to_digit(16)?;
            value = value * 16 + digit;
            self.pos += 1;
        }
        Some(value)
    }

    /// A number, `NaN`, `Infinity` or `-Infinity`.
    fn number(&mut self) -> Option<S::Value> {
        let start = self.pos;
        let special: Option<(&[u8], f64)> = match self.peek() {
            Some(b'-') if self.text.get(start + 1) == Some(&b'I') => {
                self.pos += 1;
                Some((b"Infinity", f64::NEG_INFINITY))
            }
            Some(b'I') => Some((b"Infinity", f64::INFINITY)),
            Some(b'N') => Some((b"NaN", f64::NAN)),
            _ => None,
        };
        if let Some((literal, value)) = special {
            if self.match_literal(literal) {
                return Some(S::float(value));
            }
            return self.fail_at(start, "Expecting value");
        }
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let mut maybe_int = true;
        while let Some(c) = self.peek() {
            match c {
                b'0'..=b'9' | b'+' | b'-' => {}
                b'.' | b'e' | b'E' => maybe_int = false,
                _ => break,
            }
            self.pos += 1;
        }
        let token = &self.text[start..self.pos];
        if token.is_empty() {
            return self.fail("Expecting value");
        }
        // SAFETY of from_utf8: the token holds only ASCII characters.
        let token = std::str::from_utf8(token).expect("ASCII number token");
        if maybe_int {
            if let Ok(value) = token.parse::<i64>() {
                return Some(S::int(value));
            }
        }
        match c_strtod(token) {
            Some(value) => Some(S::float(value)),
            None => self.fail_at(start, "Expecting value"),
        }
    }
}

/// C's `strtod` on the whole token (the reference parser's rules: overflow and underflow are
/// errors, as is any unparsed tail).
fn c_strtod(token: &str) -> Option<f64> {
    extern "C" {
        fn strtod(text: *const std::ffi::c_char, end: *mut *mut std::ffi::c_char) -> f64;
        fn __errno_location() -> *mut std::ffi::c_int;
    }
    let text = std::ffi::CString::new(token).ok()?;
    let mut end = std::ptr::null_mut();
    // SAFETY: `text` is NUL-terminated; errno is thread-local.
    unsafe {
        *__errno_location() = 0;
        let value = strtod(text.as_ptr(), &mut end);
        let consumed = end.offset_from(text.as_ptr()) as usize;
        (*__errno_location() == 0 && consumed == token.len()).then_some(value)
    }
}

fn push_utf8(out: &mut Vec<u8>, code_point: u32) {
    // The reference encodes every code point, lone surrogates and NUL included.
    let cp = code_point;
    if cp < 0x80 {
        out.push(cp as u8);
    } else if cp < 0x800 {
        out.extend([0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else if cp < 0x10000 {
        out.extend([
            0xE0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    } else {
        out.extend([
            0xF0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    }
}
