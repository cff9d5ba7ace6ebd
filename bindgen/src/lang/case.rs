//! Case conversion shared by the backends' `names.rs` (which alone decide which case to use).

/// Splits an identifier into words: at `_`, `-`, `.`, spaces, lower-to-upper changes
/// (`fooBar`), and before the last capital of an acronym (`HTTPServer` -> HTTP, Server).
/// Digits stay with the word before them (`v_i64` -> v, i64).
pub fn words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `snake_case`.
pub fn snake(s: &str) -> String {
    words(s)
        .iter()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join("_")
}

fn capitalize(w: &str) -> String {
    if w.chars().all(|c| !c.is_lowercase()) {
        return w.to_string(); // acronyms and numbers stay as they are
    }
    let mut chars = w.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// `PascalCase` (acronyms kept: `DLTensor` stays `DLTensor`).
pub fn pascal(s: &str) -> String {
    words(s).iter().map(|w| capitalize(w)).collect()
}

/// `camelCase`.
pub fn camel(s: &str) -> String {
    let ws = words(s);
    let mut out = String::new();
    for (i, w) in ws.iter().enumerate() {
        if i == 0 {
            out.push_str(&w.to_lowercase());
        } else {
            out.push_str(&capitalize(w));
        }
    }
    out
}

/// Makes `s` a plain identifier (`[A-Za-z_][A-Za-z0-9_]*`): other characters become `_`, and a
/// leading digit gets an `n` in front.
pub fn sanitize(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(words("HTTPServer2Go"), ["HTTP", "Server2", "Go"]);
        assert_eq!(snake("TestIntPairSum"), "test_int_pair_sum");
        assert_eq!(snake("v_i64"), "v_i64");
        assert_eq!(snake("schema_id_arr_int"), "schema_id_arr_int");
        assert_eq!(pascal("test_int_pair"), "TestIntPair");
        assert_eq!(pascal("DLTensor"), "DLTensor");
        assert_eq!(camel("add_one"), "addOne");
        assert_eq!(camel("TestIntPairSum"), "testIntPairSum");
        assert_eq!(camel("v_i64"), "vI64");
        assert_eq!(sanitize("3d-thing"), "n3d_thing");
    }
}
