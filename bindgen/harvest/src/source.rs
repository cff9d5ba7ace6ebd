//! Reading a package's Python files: module names from paths, parsing with ruff's parser, a
//! warning (file and line) for each file that does not parse.

use crate::PackageRoot;
use ruff_python_ast::ModModule;
use std::path::{Path, PathBuf};

/// One parsed module.
pub struct Module {
    /// Dotted module name (`tvm.ir.expr`; a package's `__init__.py` is the package's name).
    pub name: String,
    /// The file, relative to the package's parent folder, with `/` separators.
    pub file: String,
    /// An `__init__.py`.
    pub is_package: bool,
    /// The source text (ranges index into it).
    pub text: String,
    /// The syntax tree.
    pub ast: ModModule,
    /// Byte offset of each line's start (for 1-based line numbers).
    line_starts: Vec<usize>,
}

impl Module {
    /// The 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset)
    }

    /// The package this module's relative imports start from.
    pub fn package(&self) -> &str {
        if self.is_package {
            &self.name
        } else {
            self.name.rsplit_once('.').map_or("", |(p, _)| p)
        }
    }
}

/// The parsed modules of every root, sorted by name, and the files that did not parse.
pub struct Files {
    /// Modules sorted by name (a name found twice keeps the first root's file).
    pub modules: Vec<Module>,
    /// `file:line: message` per file that does not parse or cannot be read.
    pub warnings: Vec<String>,
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && c.all(|c| c.is_alphanumeric() || c == '_')
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Reads and parses every `.py` file below each root. A root that is no folder is an error.
pub fn read(roots: &[PackageRoot]) -> Result<Files, String> {
    let mut paths: Vec<(String, String, bool, PathBuf)> = Vec::new();
    for root in roots {
        if !root.dir.is_dir() {
            return Err(format!(
                "--python {}: no such folder (give the folder of a Python package)",
                root.dir.display()
            ));
        }
        let top = root
            .dir
            .canonicalize()
            .map_err(|e| format!("--python {}: {e}", root.dir.display()))?;
        let Some(pkg) = top
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| is_identifier(n))
        else {
            return Err(format!(
                "--python {}: the folder's name is not a Python identifier",
                root.dir.display()
            ));
        };
        walk(&top, &[pkg.to_string()], &mut paths)
            .map_err(|e| format!("--python {}: {e}", root.dir.display()))?;
    }
    paths.sort();
    paths.dedup_by(|a, b| a.0 == b.0);
    let mut modules = Vec::new();
    let mut warnings = Vec::new();
    for (name, file, is_package, path) in paths {
        let text = match std::fs::read(&path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                warnings.push(format!("{file}: cannot read: {e}"));
                continue;
            }
        };
        let line_starts = line_starts(&text);
        match ruff_python_parser::parse_module(&text) {
            Ok(parsed) => modules.push(Module {
                name,
                file,
                is_package,
                ast: parsed.into_syntax(),
                text,
                line_starts,
            }),
            Err(e) => {
                let offset = usize::from(e.location.start());
                let line = line_starts.partition_point(|&s| s <= offset);
                warnings.push(format!(
                    "{file}:{line}: does not parse ({}); its calls are not harvested",
                    e.error
                ));
            }
        }
    }
    Ok(Files { modules, warnings })
}

/// Collects (module name, relative file, is package, path) below `dir`, whose module path is
/// `prefix`; folders and files whose names are no identifiers are not modules.
fn walk(
    dir: &Path,
    prefix: &[String],
    out: &mut Vec<(String, String, bool, PathBuf)>,
) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let path = e.path();
        if path.is_dir() {
            if is_identifier(name) {
                let mut p = prefix.to_vec();
                p.push(name.to_string());
                walk(&path, &p, out)?;
            }
        } else if let Some(stem) = name.strip_suffix(".py") {
            let file = format!("{}/{name}", prefix.join("/"));
            if stem == "__init__" {
                out.push((prefix.join("."), file, true, path));
            } else if is_identifier(stem) {
                out.push((format!("{}.{stem}", prefix.join(".")), file, false, path));
            }
        }
    }
    Ok(())
}

/// The package folder a library belongs to: from the library's folder, the nearest folder
/// with an `__init__.py` (at most two levels up: `tvm/lib/libtvm.so`), then up while the parent
/// is a package too.
pub fn package_of(lib: &Path) -> Option<PathBuf> {
    let lib = lib.canonicalize().ok()?;
    let mut dir = lib.parent()?.to_path_buf();
    let mut tries = 0;
    while !dir.join("__init__.py").is_file() {
        tries += 1;
        if tries > 2 {
            return None;
        }
        dir = dir.parent()?.to_path_buf();
    }
    while let Some(parent) = dir.parent() {
        if !parent.join("__init__.py").is_file() {
            break;
        }
        dir = parent.to_path_buf();
    }
    Some(dir)
}
