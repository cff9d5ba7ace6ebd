//! Julia text the templates print as is: string and tuple literals, escaped docstrings and
//! generated prose.

use crate::lang::comment_line;

/// Escapes text for a `"""` docstring (no interpolation, no early end, no line breaks).
pub fn doc_escape(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| {
            comment_line(&l)
                .replace('\\', "\\\\")
                .replace('$', "\\$")
                .replace("\"\"\"", "\\\"\\\"\\\"")
        })
        .collect()
}

/// A Julia string literal. Control characters become `\u` escapes with all four digits (so a
/// following hex digit is not taken in).
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '$' => out.push_str("\\$"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A docstring: the signature lines (indented four spaces), then the paragraphs that are not
/// empty, separated by blank lines.
pub fn docstring(signature: &[String], paragraphs: &[Vec<String>]) -> Vec<String> {
    let mut out: Vec<String> = signature.iter().map(|s| format!("    {s}")).collect();
    for p in paragraphs.iter().filter(|p| !p.is_empty()) {
        out.push(String::new());
        out.extend(p.iter().cloned());
    }
    doc_escape(out)
}

/// Generated prose, wrapped at spaces into lines of at most 96 characters.
pub fn prose(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 96 {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

/// A Julia tuple literal of already spelled items (`(:a, :b)`, `(:a,)`, `()`).
pub fn tuple_literal(items: &[&str]) -> String {
    match items {
        [] => "()".into(),
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}
