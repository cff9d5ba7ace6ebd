//! The names Julia's `Base` and `Core` export on each supported Julia version, as data: one file
//! per minor version in `base_names/` (`1.5.txt`, written by scripts/julia-base-names.py from the
//! release's `base/exports.jl`, `base/deprecated.jl` and `base/boot.jl`), `later.txt`, the
//! names later versions add, kept by hand until their files are written by the same script, and
//! `builtins.txt`. tests/julia/generated/test_base_names.jl checks them against the running
//! Julia's `names(Base)` and `names(Core)`. A generated type with one of these names would shadow Base's inside the package,
//! and an exported function would clash with Base's in every module that does `using` the
//! package: `names.rs` escapes or qualifies them, over the union of the versions.
//!
//! Which names extend `Base`: a name every version exports, directly (`Base.sum`: these are
//! generic functions on 1.5.3, and Julia keeps an export's kind); any other only where the running
//! Julia's Base has it as a generic function (`TVMFFI.@extend_base`, decided when the package is
//! precompiled); builtins (`builtins.txt`) never, as they take no methods.

use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The supported minor versions whose export lists are known, with their lists.
const VERSIONS: &[(&str, &str)] = &[("1.5", include_str!("base_names/1.5.txt"))];

/// Exports of later supported versions, and of development snapshots, that none of [`VERSIONS`] has.
const LATER: &str = include_str!("base_names/later.txt");

/// Names every version exports that are builtin functions, which take no methods.
const BUILTINS: &str = include_str!("base_names/builtins.txt");

/// The names of a list file: one per line, `#` starts a comment line.
fn names(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

struct Exports {
    /// Exported by some supported version.
    some: BTreeSet<&'static str>,
    /// Exported by every supported version.
    every: BTreeSet<&'static str>,
}

fn exports() -> &'static Exports {
    static EXPORTS: OnceLock<Exports> = OnceLock::new();
    EXPORTS.get_or_init(|| {
        let mut some: BTreeSet<&str> = names(LATER).collect();
        let mut every: Option<BTreeSet<&str>> = None;
        for (_, list) in VERSIONS {
            let version: BTreeSet<&str> = names(list).collect();
            some.extend(&version);
            every = Some(match every {
                None => version,
                Some(e) => e.intersection(&version).copied().collect(),
            });
        }
        let every = every
            .unwrap_or_default()
            .into_iter()
            .filter(|n| !names(LATER).any(|l| l == *n))
            .collect();
        Exports { some, every }
    })
}

/// Whether `Base` or `Core` exports `ident` on some supported Julia version.
pub fn is_export(ident: &str) -> bool {
    exports().some.contains(ident)
}

/// Whether `Base` or `Core` exports `ident` on every supported Julia version.
pub fn is_export_everywhere(ident: &str) -> bool {
    exports().every.contains(ident)
}

/// Whether `ident` is one of Core's builtin functions (`base_names/builtins.txt`).
pub fn is_builtin(ident: &str) -> bool {
    names(BUILTINS).any(|n| n == ident)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_and_distinct() {
        for list in VERSIONS.iter().map(|(_, l)| *l).chain([LATER, BUILTINS]) {
            let names: Vec<&str> = names(list).collect();
            assert!(names.windows(2).all(|w| w[0] < w[1]), "{:?}", &names[..3]);
        }
    }

    #[test]
    fn later_names_are_not_in_every_version_and_builtins_are() {
        for name in names(LATER) {
            assert!(is_export(name) && !is_export_everywhere(name), "{name}");
        }
        for name in names(BUILTINS) {
            assert!(is_export_everywhere(name), "{name}");
        }
        assert!(is_export_everywhere("sum") && is_export("stack") && !is_export("plain"));
    }
}
