//! Parameter lists in docstrings: where a library documents the names that its metadata lacks.
//!
//! Three conventions are read, the first one found wins:
//! - NumPy: a `Parameters` line underlined with dashes, then `name : type` lines with indented
//!   descriptions (Apache's `TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC` examples, xgrammar's Python);
//! - Google: an `Args:` (or `Arguments:`, `Parameters:`) line, then indented
//!   `name (type): description` lines;
//! - Doxygen: `@param name description` or `\param[in] name description` lines.
//!
//! A name list is only used when it has as many names as the signature has parameters (the IR
//! checks), so a docstring that documents some parameters only, or lists `self`, is ignored.

/// One documented parameter: its name and description (lines joined by spaces).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocParam {
    /// The parameter's name.
    pub name: String,
    /// Its description, on one line.
    pub doc: String,
}

/// A docstring's parameter list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamList {
    /// The parameters, in order.
    pub params: Vec<DocParam>,
    /// The docstring without the list (bindings show the parameters in their own way).
    pub rest: String,
}

/// The parameters a docstring lists, in order; `None` when it has no parameter list, or one
/// whose names are not all distinct identifiers.
pub fn params(doc: &str) -> Option<ParamList> {
    let lines: Vec<&str> = doc.lines().collect();
    let (found, listed) = numpy(&lines)
        .or_else(|| google(&lines))
        .or_else(|| doxygen(&lines))?;
    let distinct = found
        .iter()
        .enumerate()
        .all(|(i, p)| found[..i].iter().all(|q| q.name != p.name));
    if !distinct || found.is_empty() || !found.iter().all(|p| is_identifier(&p.name)) {
        return None;
    }
    let mut kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| !listed.contains(i))
        .map(|(_, l)| *l)
        .collect();
    // No run of blank lines where the list was, none at the end.
    kept.dedup_by(|a, b| a.trim().is_empty() && b.trim().is_empty());
    while kept.last().is_some_and(|l| l.trim().is_empty()) {
        kept.pop();
    }
    Some(ParamList {
        params: found,
        rest: kept.join("\n"),
    })
}

/// What a parser found: the parameters, and the numbers of the lines that list them.
type Found = (Vec<DocParam>, Vec<usize>);

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_underline(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && t.chars().all(|c| c == '-')
}

/// Appends a continuation line to the description of the last parameter.
fn continue_doc(params: &mut [DocParam], text: &str) {
    if let Some(last) = params.last_mut() {
        if !last.doc.is_empty() {
            last.doc.push(' ');
        }
        last.doc.push_str(text.trim());
    }
}

/// `Parameters` / `----------` / `name : type` / `    description`.
fn numpy(lines: &[&str]) -> Option<Found> {
    let start = (0..lines.len().saturating_sub(1))
        .find(|&i| lines[i].trim() == "Parameters" && is_underline(lines[i + 1]))?;
    let base = indent(lines[start]);
    let mut params: Vec<DocParam> = Vec::new();
    let mut i = start + 2;
    let mut end = i;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        // The next section: a title at the same indentation, underlined.
        if indent(line) <= base && lines.get(i + 1).is_some_and(|l| is_underline(l)) {
            break;
        }
        if indent(line) < base {
            break;
        }
        end = i + 1;
        if indent(line) == base {
            let head = line.trim();
            let names = head.split_once(" :").map_or(head, |(n, _)| n);
            let names = names.split_once(':').map_or(names, |(n, _)| n);
            // `x, y : int` documents two parameters at once.
            for name in names.split(',') {
                params.push(DocParam {
                    name: name.trim().trim_start_matches('*').to_string(),
                    doc: String::new(),
                });
            }
        } else {
            continue_doc(&mut params, line);
        }
        i += 1;
    }
    Some((params, (start..end).collect()))
}

/// `Args:` / `    name (type): description` / `        continued`.
fn google(lines: &[&str]) -> Option<Found> {
    let start = lines
        .iter()
        .position(|l| matches!(l.trim(), "Args:" | "Arguments:" | "Parameters:" | "Params:"))?;
    let base = indent(lines[start]);
    let mut entry_indent = None;
    let mut params: Vec<DocParam> = Vec::new();
    let mut end = start + 1;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if line.trim().is_empty() {
            continue;
        }
        let at = indent(line);
        if at <= base {
            break;
        }
        end = i + 1;
        let entry = *entry_indent.get_or_insert(at);
        if at > entry {
            continue_doc(&mut params, line);
            continue;
        }
        let text = line.trim();
        let (head, doc) = text.split_once(':').unwrap_or((text, ""));
        let name = head.split_once('(').map_or(head, |(n, _)| n).trim();
        params.push(DocParam {
            name: name.trim_start_matches('*').to_string(),
            doc: doc.trim().to_string(),
        });
    }
    Some((params, (start..end).collect()))
}

/// `@param name description`, `\param[in] name description`.
fn doxygen(lines: &[&str]) -> Option<Found> {
    let mut params: Vec<DocParam> = Vec::new();
    let mut listed = Vec::new();
    let mut in_param = false;
    for (i, line) in lines.iter().enumerate() {
        let text = line.trim().trim_start_matches(['*', '/']).trim();
        let command = text
            .strip_prefix("@param")
            .or_else(|| text.strip_prefix("\\param"));
        match command {
            Some(rest) if rest.starts_with([' ', '\t', '[']) => {
                let rest = match rest.trim_start().strip_prefix('[') {
                    Some(dir) => dir.split_once(']').map_or("", |(_, r)| r),
                    None => rest,
                };
                let rest = rest.trim_start();
                let (name, doc) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                params.push(DocParam {
                    name: name.to_string(),
                    doc: doc.trim().to_string(),
                });
                listed.push(i);
                in_param = true;
            }
            _ if text.is_empty() || text.starts_with(['@', '\\']) => in_param = false,
            _ if in_param => {
                continue_doc(&mut params, text);
                listed.push(i);
            }
            _ => {}
        }
    }
    (!params.is_empty()).then_some((params, listed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(doc: &str) -> Vec<String> {
        params(doc)
            .map(|l| l.params.into_iter().map(|p| p.name).collect())
            .unwrap_or_default()
    }

    #[test]
    fn numpy_sections() {
        // Apache's testing library (`testing_dll_test_add_with_docstring`).
        let doc = "Add two integers and return the sum.\n\nParameters\n----------\na : int\n    \
                   First integer\nb : int\n    Second integer\n\nReturns\n-------\nresult : \
                   int\n    Sum of a and b";
        let found = params(doc).unwrap();
        assert_eq!(
            found.rest,
            "Add two integers and return the sum.\n\nReturns\n-------\nresult : int\n    Sum of a and b"
        );
        assert_eq!(
            found.params,
            vec![
                DocParam {
                    name: "a".into(),
                    doc: "First integer".into()
                },
                DocParam {
                    name: "b".into(),
                    doc: "Second integer".into()
                },
            ]
        );
        // Indented (a Python method's docstring), blank lines between entries, a description
        // over several lines, two names on one line, no type.
        let doc = "    Build it.\n\n    Parameters\n    ----------\n    schema : str\n        The \
                   schema.\n\n        More on it.\n\n    x, y : int\n        Coordinates.\n    \
                   flag\n\n    Returns\n    -------\n    out : Grammar\n";
        assert_eq!(names(doc), ["schema", "x", "y", "flag"]);
        let found = params(doc).unwrap();
        assert_eq!(found.params[0].doc, "The schema. More on it.");
        assert_eq!(
            found.rest,
            "    Build it.\n\n    Returns\n    -------\n    out : Grammar"
        );
    }

    #[test]
    fn google_sections() {
        let doc = "Scale it.\n\nArgs:\n    factor (float): How much.\n        Positive.\n    \
                   *rest: The others.\n\nReturns:\n    The result.";
        let found = params(doc).unwrap();
        assert_eq!(names(doc), ["factor", "rest"]);
        assert_eq!(found.params[0].doc, "How much. Positive.");
        assert_eq!(found.rest, "Scale it.\n\nReturns:\n    The result.");
    }

    #[test]
    fn doxygen_commands() {
        let doc = "\\brief Adds.\n\\param a the first\n   operand\n\\param[in] b the second\n\
                   \\return the sum";
        let found = params(doc).unwrap();
        assert_eq!(names(doc), ["a", "b"]);
        assert_eq!(found.params[0].doc, "the first operand");
        assert_eq!(found.rest, "\\brief Adds.\n\\return the sum");
        assert_eq!(names(" * @param x the x\n * @param y\n"), ["x", "y"]);
    }

    #[test]
    fn no_list_or_an_unusable_one() {
        assert_eq!(params("Get sum of the pair"), None);
        assert_eq!(params("@parameter x is not a command"), None);
        // Repeated or non-identifier names: the list is not used.
        assert_eq!(params("@param x a\n@param x b"), None);
        assert_eq!(params("Args:\n    a b: no\n"), None);
    }
}
