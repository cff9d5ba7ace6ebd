//! The dynamic symbols of ffihub's `libtvm_ffi.so` against Apache's (ADR 0005): every symbol
//! Apache's library exports, except the weak instantiations of the C++ standard library it
//! happens to export too, is exported by ours with the same binding and type (`nm -D` letter:
//! T function, V weak object, u unique object...), and every exported data object has Apache's
//! size (vtables, typeinfo, the function-local statics shared across libraries). The same holds
//! for the library of every earlier release of `tests/pysuite/releases.txt`
//! (docs/compatibility.md): symbols a release exported and later ones dropped stay exported.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use ffihub_tests::{apache_releases, apache_runtime, ffihub_runtime_checked, run_ok};

/// One defined dynamic symbol: `nm` type letter, size (0 when nm shows none), demangled name.
#[derive(Debug, Clone, PartialEq)]
struct Symbol {
    kind: char,
    size: u64,
    demangled: String,
}

/// `nm -D --defined-only -S` of a library, keyed by mangled name.
fn exported_symbols(lib: &Path) -> BTreeMap<String, Symbol> {
    let nm = |demangle: bool| {
        let mut cmd = Command::new("nm");
        cmd.args(["-D", "--defined-only", "-S"]);
        if demangle {
            cmd.arg("-C");
        }
        cmd.arg(lib);
        String::from_utf8(run_ok(cmd).stdout).expect("nm prints UTF-8")
    };
    let (mangled, demangled) = (nm(false), nm(true));
    assert_eq!(mangled.lines().count(), demangled.lines().count());
    mangled
        .lines()
        .zip(demangled.lines())
        .map(|(line, pretty)| {
            // "address [size] type name"; the name never contains spaces when mangled.
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (size, kind, name) = match fields.as_slice() {
                [_, size, kind, name] => (u64::from_str_radix(size, 16).unwrap(), *kind, *name),
                [_, kind, name] => (0, *kind, *name),
                _ => panic!("unexpected nm line `{line}`"),
            };
            let prefix_len = line.len() - name.len();
            let symbol = Symbol {
                kind: kind.chars().next().unwrap(),
                size,
                demangled: pretty[prefix_len..].to_string(),
            };
            (name.to_string(), symbol)
        })
        .collect()
}

/// A weak (W, V or unique u) definition of something of the C++ standard library: an
/// instantiation Apache's library exports only because its build does not hide them.
fn is_weak_std_instantiation(symbol: &Symbol) -> bool {
    let weak = matches!(symbol.kind, 'W' | 'V' | 'u');
    let entity = symbol
        .demangled
        .trim_start_matches("typeinfo name for ")
        .trim_start_matches("typeinfo for ")
        .trim_start_matches("vtable for ")
        .trim_start_matches("guard variable for ")
        .trim_start_matches("void ");
    weak && entity.starts_with("std::")
}

/// A strong definition of a libstdc++ function (`std::ios_base_library_init()`...) in the
/// library of a release up to 0.1.12: their toolchain (gcc-toolset's `libstdc++_nonshared.a`)
/// links such functions into every binary it builds, so consumers carry their own copy.
fn is_toolchain_std_copy(symbol: &Symbol) -> bool {
    symbol.kind == 'T' && symbol.demangled.starts_with("std::")
}

/// Compares the exports of `apache` (one release's library) with `ours`, leaving out the symbols
/// `skip` accepts: (symbols compared, symbols skipped, problems).
fn compare_exports(
    apache: &BTreeMap<String, Symbol>,
    ours: &BTreeMap<String, Symbol>,
    skip: impl Fn(&Symbol) -> bool,
) -> (usize, usize, Vec<String>) {
    let (mut compared, mut skipped, mut problems) = (0, 0, Vec::new());
    for (name, theirs) in apache {
        if skip(theirs) {
            skipped += 1;
            continue;
        }
        compared += 1;
        match ours.get(name) {
            None => problems.push(format!("missing: {} ({name})", theirs.demangled)),
            Some(mine) if mine.kind != theirs.kind => problems.push(format!(
                "type/binding `{}` instead of Apache's `{}`: {}",
                mine.kind, theirs.kind, theirs.demangled
            )),
            // Data objects must have the same size (a vtable with another slot count, a
            // different static); functions' sizes are their code's.
            Some(mine) if !matches!(theirs.kind, 'T' | 'W') && mine.size != theirs.size => problems
                .push(format!(
                    "size {} instead of Apache's {}: {}",
                    mine.size, theirs.size, theirs.demangled
                )),
            Some(_) => {}
        }
    }
    (compared, skipped, problems)
}

#[test]
fn exports_every_apache_symbol_with_its_binding_type_and_size() {
    let apache = exported_symbols(&apache_runtime().lib_dir.join("libtvm_ffi.so"));
    let ours = exported_symbols(&ffihub_runtime_checked().lib_dir.join("libtvm_ffi.so"));
    let (compared, skipped, problems) = compare_exports(&apache, &ours, is_weak_std_instantiation);
    assert!(
        problems.is_empty(),
        "{} of Apache's {compared} exported symbols (std:: instantiations skipped: {skipped}) \
         differ in ffihub's libtvm_ffi.so:\n{}",
        problems.len(),
        problems.join("\n")
    );
    let cxx = apache
        .iter()
        .filter(|(name, s)| name.starts_with("_Z") && !is_weak_std_instantiation(s))
        .count();
    println!(
        "{compared} symbols compared ({cxx} C++, {} C), {skipped} std:: instantiations skipped",
        compared - cxx
    );
    // The comparison must cover the C++ API TVM imports, not just the C functions.
    for needed in [
        "_ZTVN3tvm3ffi9ModuleObjE",
        "_ZTIN3tvm3ffi9ModuleObjE",
        "_ZN3tvm3ffi9ModuleObj11GetFunctionERKNS0_6StringEb",
        "_ZN3tvm3ffi4json5ParseERKNS0_6StringEPS2_",
        "_ZZN3tvm3ffi9ModuleObj27_GetOrAllocRuntimeTypeIndexEvE6tindex",
    ] {
        assert!(
            apache.contains_key(needed) && ours.contains_key(needed),
            "{needed}"
        );
    }
}

#[test]
fn exports_every_symbol_of_every_earlier_release() {
    let ours = exported_symbols(&ffihub_runtime_checked().lib_dir.join("libtvm_ffi.so"));
    let mut failures = Vec::new();
    for release in apache_releases() {
        let theirs = exported_symbols(&release.runtime().lib_dir.join("libtvm_ffi.so"));
        let (compared, _, problems) = compare_exports(&theirs, &ours, |symbol| {
            is_weak_std_instantiation(symbol) || is_toolchain_std_copy(symbol)
        });
        println!("{}: {compared} symbols compared", release.version);
        failures.extend(
            problems
                .into_iter()
                .map(|p| format!("{}: {p}", release.version)),
        );
    }
    assert!(
        failures.is_empty(),
        "exports of earlier releases that ffihub's libtvm_ffi.so lacks or differs in:\n{}",
        failures.join("\n")
    );
    // The by-value `json::Stringify` of 0.1.0 to 0.1.12, which 0.1.13 replaced.
    assert!(ours.contains_key("_ZN3tvm3ffi4json9StringifyERKNS0_3AnyENS0_8OptionalIivEE"));
}

#[test]
fn std_instantiations_are_recognized() {
    let symbol = |kind, demangled: &str| Symbol {
        kind,
        size: 0,
        demangled: demangled.to_string(),
    };
    assert!(is_weak_std_instantiation(&symbol(
        'W',
        "void std::vector<unsigned long>::_M_realloc_append<unsigned long>(unsigned long&&)"
    )));
    assert!(is_weak_std_instantiation(&symbol(
        'V',
        "typeinfo name for std::_Sp_make_shared_tag"
    )));
    assert!(is_weak_std_instantiation(&symbol(
        'u',
        "std::_Sp_make_shared_tag::_S_ti()::__tag"
    )));
    assert!(!is_weak_std_instantiation(&symbol(
        'V',
        "typeinfo for tvm::ffi::ModuleObj"
    )));
    assert!(!is_weak_std_instantiation(&symbol(
        'T',
        "std::this_would_be_a_strong_definition()"
    )));
}
