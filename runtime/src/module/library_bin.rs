//! Parser of `__tvm_ffi__library_bin`, the blob a compiled library may embed to describe the
//! modules it carries (custom modules serialized by their `SaveToBytes`) and how they import each
//! other.
//!
//! Layout (all integers little-endian `u64`):
//!
//! ```text
//! <nbytes> <indptr: vec> <child_indices: vec> { <kind: str> [<payload: str>] } * (indptr.len - 1)
//! vec = <len> <u64 * len>        str = <len> <bytes * len>
//! ```
//!
//! `nbytes` counts the bytes after itself. The import tree is stored in CSR form: the children of
//! module `i` are `child_indices[indptr[i]..indptr[i + 1]]`. A kind of `"_lib"` stands for the
//! library itself and has no payload; every other kind carries its serialized bytes. Module 0 is
//! the root.
//!
//! The parser trusts nothing: every length is checked against the bytes that remain before
//! anything is allocated, indices are range-checked, and an import tree with a cycle is rejected
//! (it would make lookups recurse forever). It never panics on any input.

use std::fmt;

/// The kind that marks the library itself in the module list.
pub const LIB_KIND: &[u8] = b"_lib";

/// One module of the blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry<'a> {
    /// The library that embeds the blob.
    Lib,
    /// A custom module: its kind and the bytes `ffi.Module.load_from_bytes.<kind>` turns back into
    /// a module.
    Custom { kind: &'a [u8], payload: &'a [u8] },
}

/// A parsed blob: the modules in order (0 is the root) and the children of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryBin<'a> {
    pub modules: Vec<Entry<'a>>,
    /// `imports[i]` lists the indices of the modules that module `i` imports, in order.
    pub imports: Vec<Vec<usize>>,
}

/// Why a blob was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The data ended before a field could be read.
    Truncated {
        what: &'static str,
        offset: usize,
        needed: u64,
        available: usize,
    },
    /// The `nbytes` header claims more bytes than the blob holds.
    SizeMismatch { declared: u64, available: usize },
    /// `indptr` is empty, or declares no modules.
    NoModules,
    /// `indptr` decreases or points past the child list.
    BadIndptr {
        module: usize,
        start: u64,
        end: u64,
        children: usize,
    },
    /// A child index names no module.
    BadChildIndex {
        module: usize,
        child: u64,
        modules: usize,
    },
    /// The import tree has a cycle through this module.
    Cycle { module: usize },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Truncated {
                what,
                offset,
                needed,
                available,
            } => write!(
                f,
                "truncated while reading {what} at byte {offset}: needs {needed} bytes, {available} left"
            ),
            ParseError::SizeMismatch {
                declared,
                available,
            } => write!(
                f,
                "the header declares {declared} bytes but only {available} follow it"
            ),
            ParseError::NoModules => write!(f, "the import tree declares no modules"),
            ParseError::BadIndptr {
                module,
                start,
                end,
                children,
            } => write!(
                f,
                "import tree row {module} spans [{start}, {end}) which is not a valid range of the {children} child indices"
            ),
            ParseError::BadChildIndex {
                module,
                child,
                modules,
            } => write!(
                f,
                "module {module} imports module {child} but there are only {modules} modules"
            ),
            ParseError::Cycle { module } => {
                write!(f, "the import tree has a cycle through module {module}")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Reads the `nbytes` header at the start of `blob` (which must hold at least 8 bytes).
pub fn declared_size(blob: &[u8]) -> Result<u64, ParseError> {
    Reader::new(blob).u64("the size header")
}

/// Parses a whole blob, starting at its `nbytes` header. Bytes after the declared size are
/// ignored, as are bytes after the last module.
pub fn parse(blob: &[u8]) -> Result<LibraryBin<'_>, ParseError> {
    let declared = declared_size(blob)?;
    let body = &blob[8..];
    if declared > body.len() as u64 {
        return Err(ParseError::SizeMismatch {
            declared,
            available: body.len(),
        });
    }
    parse_body(&body[..declared as usize], 8)
}

/// Parses the bytes that follow the header (`base` is their offset in the blob, for messages).
fn parse_body(body: &[u8], base: usize) -> Result<LibraryBin<'_>, ParseError> {
    let mut r = Reader {
        data: body,
        pos: 0,
        base,
    };
    let indptr = r.u64_vec("the import tree indptr")?;
    let children = r.u64_vec("the import tree child indices")?;
    if indptr.len() < 2 {
        return Err(ParseError::NoModules);
    }
    let count = indptr.len() - 1;
    let mut imports = Vec::with_capacity(count);
    for module in 0..count {
        let (start, end) = (indptr[module], indptr[module + 1]);
        if start > end || end > children.len() as u64 {
            return Err(ParseError::BadIndptr {
                module,
                start,
                end,
                children: children.len(),
            });
        }
        let mut row = Vec::with_capacity((end - start) as usize);
        for &child in &children[start as usize..end as usize] {
            if child >= count as u64 {
                return Err(ParseError::BadChildIndex {
                    module,
                    child,
                    modules: count,
                });
            }
            row.push(child as usize);
        }
        imports.push(row);
    }
    check_acyclic(&imports)?;
    let mut modules = Vec::with_capacity(count);
    for _ in 0..count {
        let kind = r.str("a module kind")?;
        if kind == LIB_KIND {
            modules.push(Entry::Lib);
        } else {
            let payload = r.str("a module payload")?;
            modules.push(Entry::Custom { kind, payload });
        }
    }
    Ok(LibraryBin { modules, imports })
}

/// Rejects import trees with a cycle (iterative depth-first search, so deep trees cannot
/// overflow the stack).
fn check_acyclic(imports: &[Vec<usize>]) -> Result<(), ParseError> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; imports.len()];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..imports.len() {
        if state[root] != NEW {
            continue;
        }
        state[root] = OPEN;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&child) = imports[node].get(next) {
                top.1 += 1;
                match state[child] {
                    NEW => {
                        state[child] = OPEN;
                        stack.push((child, 0));
                    }
                    OPEN => return Err(ParseError::Cycle { module: child }),
                    _ => {}
                }
            } else {
                state[node] = DONE;
                stack.pop();
            }
        }
    }
    Ok(())
}

/// A bounds-checked little-endian reader.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Offset of `data` in the whole blob (for messages).
    base: usize,
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            base: 0,
        }
    }

    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn take(&mut self, what: &'static str, len: u64) -> Result<&'a [u8], ParseError> {
        if len > self.remaining() as u64 {
            return Err(ParseError::Truncated {
                what,
                offset: self.base + self.pos,
                needed: len,
                available: self.remaining(),
            });
        }
        let bytes = &self.data[self.pos..self.pos + len as usize];
        self.pos += len as usize;
        Ok(bytes)
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, ParseError> {
        let bytes = self.take(what, 8)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(word))
    }

    fn u64_vec(&mut self, what: &'static str) -> Result<Vec<u64>, ParseError> {
        let len = self.u64(what)?;
        // Checked before allocating: a huge count fails here instead of exhausting memory.
        let bytes = self.take(what, len.saturating_mul(8))?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| {
                let mut word = [0u8; 8];
                word.copy_from_slice(c);
                u64::from_le_bytes(word)
            })
            .collect())
    }

    fn str(&mut self, what: &'static str) -> Result<&'a [u8], ParseError> {
        let len = self.u64(what)?;
        self.take(what, len)
    }
}

/// Builds a blob (the inverse of [`parse`]); used by tests and by tools that embed modules.
pub fn serialize(modules: &[Entry<'_>], imports: &[Vec<usize>]) -> Vec<u8> {
    let mut body = Vec::new();
    let push = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes());
    let mut indptr = vec![0u64];
    let mut children = Vec::new();
    for row in imports {
        children.extend(row.iter().map(|&c| c as u64));
        indptr.push(children.len() as u64);
    }
    push(&mut body, indptr.len() as u64);
    indptr.iter().for_each(|&v| push(&mut body, v));
    push(&mut body, children.len() as u64);
    children.iter().for_each(|&v| push(&mut body, v));
    for module in modules {
        match module {
            Entry::Lib => {
                push(&mut body, LIB_KIND.len() as u64);
                body.extend_from_slice(LIB_KIND);
            }
            Entry::Custom { kind, payload } => {
                push(&mut body, kind.len() as u64);
                body.extend_from_slice(kind);
                push(&mut body, payload.len() as u64);
                body.extend_from_slice(payload);
            }
        }
    }
    let mut blob = (body.len() as u64).to_le_bytes().to_vec();
    blob.extend_from_slice(&body);
    blob
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u64s(words: &[u64]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// A header + body blob from raw words and trailing bytes.
    fn blob_of(body: &[u8]) -> Vec<u8> {
        let mut blob = (body.len() as u64).to_le_bytes().to_vec();
        blob.extend_from_slice(body);
        blob
    }

    fn sample() -> Vec<u8> {
        serialize(
            &[
                Entry::Lib,
                Entry::Custom {
                    kind: b"testkind",
                    payload: b"p1.",
                },
                Entry::Custom {
                    kind: b"other",
                    payload: b"",
                },
            ],
            &[vec![1, 2], vec![2], vec![]],
        )
    }

    #[test]
    fn round_trip() {
        let blob = sample();
        let parsed = parse(&blob).unwrap();
        assert_eq!(parsed.modules.len(), 3);
        assert_eq!(parsed.modules[0], Entry::Lib);
        assert_eq!(
            parsed.modules[1],
            Entry::Custom {
                kind: b"testkind",
                payload: b"p1."
            }
        );
        assert_eq!(parsed.imports, vec![vec![1, 2], vec![2], vec![]]);
    }

    #[test]
    fn layout_matches_the_documented_format() {
        // One "_lib" module, no imports: indptr [0, 0], no children.
        let blob = serialize(&[Entry::Lib], &[vec![]]);
        let mut expected = u64s(&[2, 0, 0, 0, 4]);
        expected.extend_from_slice(b"_lib");
        assert_eq!(blob, blob_of(&expected));
    }

    #[test]
    fn trailing_bytes_are_ignored() {
        let mut body = u64s(&[2, 0, 0, 0, 4]);
        body.extend_from_slice(b"_libEXTRA");
        assert_eq!(parse(&blob_of(&body)).unwrap().modules, vec![Entry::Lib]);
        // Bytes past the declared size too.
        let mut blob = sample();
        blob.extend_from_slice(&[0xff; 32]);
        assert!(parse(&blob).is_ok());
    }

    #[test]
    fn every_truncation_is_an_error() {
        let blob = sample();
        for len in 0..blob.len() {
            let cut = &blob[..len];
            assert!(parse(cut).is_err(), "prefix of {len} bytes parsed");
            // The same prefix with a header that matches its length: truncated inside the body.
            if len >= 8 {
                let body = &blob[8..len];
                assert!(parse(&blob_of(body)).is_err(), "body of {len} bytes parsed");
            }
        }
    }

    #[test]
    fn header_larger_than_the_blob() {
        let mut blob = sample();
        let real = blob.len() as u64 - 8;
        blob[..8].copy_from_slice(&(real + 1).to_le_bytes());
        assert_eq!(
            parse(&blob),
            Err(ParseError::SizeMismatch {
                declared: real + 1,
                available: real as usize
            })
        );
        blob[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(parse(&blob), Err(ParseError::SizeMismatch { .. })));
    }

    #[test]
    fn length_fields_larger_than_the_blob() {
        // indptr length
        let body = u64s(&[u64::MAX, 0]);
        assert!(matches!(
            parse(&blob_of(&body)),
            Err(ParseError::Truncated {
                needed: u64::MAX,
                ..
            })
        ));
        let body = u64s(&[1 << 61, 0]);
        assert!(matches!(
            parse(&blob_of(&body)),
            Err(ParseError::Truncated { .. })
        ));
        // child list length
        let body = u64s(&[2, 0, 0, 1 << 40]);
        assert!(matches!(
            parse(&blob_of(&body)),
            Err(ParseError::Truncated { .. })
        ));
        // kind length
        let body = u64s(&[2, 0, 0, 0, 1 << 50]);
        assert!(matches!(
            parse(&blob_of(&body)),
            Err(ParseError::Truncated {
                what: "a module kind",
                ..
            })
        ));
        // payload length
        let mut body = u64s(&[2, 0, 0, 0, 1]);
        body.push(b'k');
        body.extend_from_slice(&u64s(&[u64::MAX]));
        assert!(matches!(
            parse(&blob_of(&body)),
            Err(ParseError::Truncated {
                what: "a module payload",
                ..
            })
        ));
    }

    #[test]
    fn huge_module_counts_fail_without_allocating() {
        // indptr declares 2^40 entries but the blob holds 3.
        let body = u64s(&[1 << 40, 0, 0, 0]);
        assert!(matches!(
            parse(&blob_of(&body)),
            Err(ParseError::Truncated { .. })
        ));
        // A valid-looking indptr of many rows, but only one module entry follows.
        let mut words = vec![1001];
        words.extend_from_slice(&[0; 1001]);
        words.extend([0, 4]);
        let mut body = u64s(&words);
        body.extend_from_slice(b"_lib");
        assert!(matches!(
            parse(&blob_of(&body)),
            Err(ParseError::Truncated {
                what: "a module kind",
                ..
            })
        ));
    }

    #[test]
    fn empty_or_single_indptr_declares_no_modules() {
        assert_eq!(parse(&blob_of(&u64s(&[0, 0]))), Err(ParseError::NoModules));
        assert_eq!(
            parse(&blob_of(&u64s(&[1, 0, 0]))),
            Err(ParseError::NoModules)
        );
    }

    #[test]
    fn bad_indices_in_the_import_tree() {
        // child index 5 with 2 modules
        let mut body = u64s(&[3, 0, 1, 1, 1, 5, 4]);
        body.extend_from_slice(b"_lib");
        body.extend_from_slice(&u64s(&[4]));
        body.extend_from_slice(b"_lib");
        assert_eq!(
            parse(&blob_of(&body)),
            Err(ParseError::BadChildIndex {
                module: 0,
                child: 5,
                modules: 2
            })
        );
        // indptr pointing past the child list
        let body = u64s(&[2, 0, 3, 1, 0]);
        assert!(matches!(
            parse(&blob_of(&body)),
            Err(ParseError::BadIndptr { end: 3, .. })
        ));
        // decreasing indptr
        let body = u64s(&[3, 1, 0, 1, 1, 0]);
        assert!(matches!(
            parse(&blob_of(&body)),
            Err(ParseError::BadIndptr {
                start: 1,
                end: 0,
                ..
            })
        ));
    }

    #[test]
    fn cycles_are_rejected() {
        let lib = Entry::Lib;
        let blob = serialize(std::slice::from_ref(&lib), &[vec![0]]);
        assert_eq!(parse(&blob), Err(ParseError::Cycle { module: 0 }));
        let blob = serialize(
            &[lib.clone(), lib.clone(), lib.clone()],
            &[vec![1], vec![2], vec![1]],
        );
        assert!(matches!(parse(&blob), Err(ParseError::Cycle { .. })));
        // A diamond is not a cycle.
        let blob = serialize(
            &[lib.clone(), lib.clone(), lib.clone(), lib],
            &[vec![1, 2], vec![3], vec![3], vec![]],
        );
        assert!(parse(&blob).is_ok());
    }

    #[test]
    fn deep_chains_do_not_overflow_the_stack() {
        let n = 100_000;
        let modules = vec![Entry::Lib; n];
        let imports: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        assert!(parse(&serialize(&modules, &imports)).is_ok());
    }

    /// xorshift64*: a tiny deterministic generator, so failures reproduce.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            if n == 0 {
                0
            } else {
                self.next() % n
            }
        }
    }

    /// Feeds thousands of random, mutated and truncated blobs to the parser: it must return
    /// (Ok or Err) every time, and what it accepts must round-trip.
    #[test]
    fn random_and_mutated_blobs_never_panic() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let seeds = [
            sample(),
            serialize(&[Entry::Lib], &[vec![]]),
            serialize(
                &[
                    Entry::Custom {
                        kind: b"a",
                        payload: b"xyz",
                    },
                    Entry::Lib,
                ],
                &[vec![1], vec![]],
            ),
        ];
        let interesting = [0u64, 1, 2, 3, 4, 7, 8, 255, 1 << 32, 1 << 61, u64::MAX];
        let mut accepted = 0;
        for round in 0..6000 {
            let mut blob = match round % 3 {
                // pure noise
                0 => (0..rng.below(200))
                    .map(|_| rng.next() as u8)
                    .collect::<Vec<u8>>(),
                // a valid blob with a few mutations
                _ => {
                    let mut b = seeds[rng.below(seeds.len() as u64) as usize].clone();
                    for _ in 0..=rng.below(4) {
                        if b.is_empty() {
                            break;
                        }
                        let at = rng.below(b.len() as u64) as usize;
                        match rng.below(3) {
                            0 => b[at] = rng.next() as u8,
                            1 => {
                                // overwrite an aligned word with an interesting value
                                let at = at / 8 * 8;
                                let v = interesting[rng.below(interesting.len() as u64) as usize];
                                let end = (at + 8).min(b.len());
                                b[at..end].copy_from_slice(&v.to_le_bytes()[..end - at]);
                            }
                            _ => b.truncate(at),
                        }
                    }
                    b
                }
            };
            if round % 5 == 0 && blob.len() >= 8 {
                // keep the header honest so the body parser is exercised
                let len = blob.len() as u64 - 8;
                blob[..8].copy_from_slice(&len.to_le_bytes());
            }
            if let Ok(parsed) = parse(&blob) {
                accepted += 1;
                let again = serialize(&parsed.modules, &parsed.imports);
                assert_eq!(parse(&again).unwrap(), parsed, "round {round}");
            }
        }
        assert!(accepted > 0, "some mutated blobs should still be valid");
    }
}
