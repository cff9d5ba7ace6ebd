//! The container globals carry exactly Apache's `type_schema` metadata
//! (`runtime/tests/reference/container_metadata.tsv`, captured from Apache's runtime with
//! `ffi.GetGlobalFuncMetadata`).

use std::collections::BTreeMap;

fn reference() -> BTreeMap<String, String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/container_metadata.tsv"
    );
    let text = std::fs::read_to_string(path).expect("read container_metadata.tsv");
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, metadata) = l.split_once('\t').expect("name<TAB>metadata");
            (name.to_string(), metadata.to_string())
        })
        .collect()
}

#[test]
fn container_globals_have_apaches_metadata() {
    let expected = reference();
    assert_eq!(
        expected.len(),
        20,
        "the reference lists the 20 container globals"
    );
    let mut mismatches = Vec::new();
    for (name, want) in &expected {
        match tvm_ffi::registry::globals::get(name.as_bytes()) {
            None => mismatches.push(format!("{name}: not registered")),
            Some(entry) => {
                let got = String::from_utf8_lossy(&entry.metadata);
                if got != *want {
                    mismatches.push(format!("{name}:\n  apache: {want}\n  ffihub: {got}"));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn metadata_is_served_by_get_global_func_metadata() {
    let getter = tvm_ffi::registry::globals::get(b"ffi.GetGlobalFuncMetadata").expect("registered");
    for (name, want) in reference() {
        let arg = tvm_ffi::value::any::Any::string(&name);
        // SAFETY: a live Function and a valid argument.
        let got =
            unsafe { tvm_ffi::value::function::call(getter.function.as_ptr(), &[*arg.as_raw()]) }
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        // SAFETY: the result is a string value.
        let bytes = unsafe { tvm_ffi::value::string::str_bytes(got.as_raw()) }.expect("a string");
        assert_eq!(String::from_utf8_lossy(bytes), want, "{name}");
    }
}
