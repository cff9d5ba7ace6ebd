//! The document model against its JSON Schema: round trips, validation, and bad input.

use ffihub_schema::{Error, Reflection, JSON_SCHEMA};
use serde_json::Value;

const SAMPLE: &str = include_str!("data/sample.yaml");

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(JSON_SCHEMA).expect("reflection.schema.json is JSON");
    jsonschema::validator_for(&schema).expect("reflection.schema.json is a valid JSON Schema")
}

fn schema_errors(doc: &Value) -> Vec<String> {
    validator()
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn sample_validates_and_round_trips() {
    let doc = Reflection::from_yaml_str(SAMPLE).expect("sample parses");
    let json: Value = serde_json::from_str(&doc.to_json_string().unwrap()).unwrap();
    assert_eq!(schema_errors(&json), Vec::<String>::new());

    // YAML and JSON both round-trip to the same model.
    let again = Reflection::from_yaml_str(&doc.to_yaml_string().unwrap()).unwrap();
    assert_eq!(again, doc);
    let again = Reflection::from_json_str(&doc.to_json_string().unwrap()).unwrap();
    assert_eq!(again, doc);
}

#[test]
fn sealing_sorts_and_checksums() {
    let mut doc = Reflection::from_yaml_str(SAMPLE).unwrap();
    doc.functions.reverse();
    doc.types.reverse();
    doc.seal();
    assert_eq!(doc.functions[0].name, "sample.add");
    assert_eq!(doc.types[0].key, "sample.Base");
    let sum = doc.checksum.clone().unwrap();
    assert!(sum.starts_with("fnv1a64:") && sum.len() == 24, "{sum}");
    // The checksum covers the content, not the library names.
    let mut renamed = doc.clone();
    renamed.libraries = vec!["other.so".into()];
    assert_eq!(renamed.compute_checksum(), sum);
    let mut edited = doc.clone();
    edited.functions[0].doc.push('!');
    assert_ne!(edited.compute_checksum(), sum);
    // A sealed document reads back (its checksum verifies), in both formats.
    Reflection::from_yaml_str(&doc.to_yaml_string().unwrap()).unwrap();
    Reflection::from_json_str(&doc.to_json_string().unwrap()).unwrap();
}

#[test]
fn edited_document_fails_its_checksum() {
    let mut doc = Reflection::from_yaml_str(SAMPLE).unwrap();
    doc.seal();
    let text = doc
        .to_yaml_string()
        .unwrap()
        .replace("Adds two integers.", "Adds two numbers.");
    match Reflection::from_yaml_str(&text) {
        Err(Error::Checksum { .. }) => {}
        other => panic!("expected a checksum error, got {other:?}"),
    }
}

#[test]
fn bad_documents_are_rejected_by_serde_and_by_the_json_schema() {
    let cases: &[(&str, &str)] = &[
        ("format_version: 3\n", "format_version"),
        (
            "format_version: 1\nmodules: [{library: liba.so, functions: [{name: f}]}]\n",
            "needs format_version 2",
        ),
        (
            "format_version: 2\nmodules: [{functions: [{name: f}]}]\n",
            "missing field `library`",
        ),
        ("format_version: 1\nextra: 1\n", "unknown field"),
        ("format_version: 1\nfunctions: [{doc: x}]\n", "missing field `name`"),
        (
            "format_version: 1\nfunctions: [{name: f, signature: {params: [], return: {type: Optional}}}]\n",
            "Optional takes 1",
        ),
        (
            "format_version: 1\nfunctions: [{name: f, signature: {params: [{type: ffi.Map, args: [{type: int}]}], return: {type: int}}}]\n",
            "ffi.Map takes 0 or 2",
        ),
        (
            "format_version: 1\ntypes: [{key: T, ancestors: [], fields: [{name: a, flags: [shiny]}]}]\n",
            "unknown field flag",
        ),
        (
            "format_version: 1\ntypes: [{key: T, ancestors: [], constructor: magic}]\n",
            "unknown variant",
        ),
        (
            "format_version: 1\ntypes: [{key: T, ancestors: [], fields: [{name: a, default: {kind: int, value: x}}]}]\n",
            "invalid type",
        ),
        ("format_version: 1\nchecksum: fnv1a64:0000000000000000\n", "checksum mismatch"),
    ];
    for (text, expected) in cases {
        let err = Reflection::from_yaml_str(text).expect_err(text).to_string();
        assert!(err.contains(expected), "{text}: `{err}` lacks `{expected}`");
        assert!(!err.contains('\n'), "error messages are one line: {err}");
        // Structural errors are also caught by the JSON Schema (the checksum is not its job).
        if !expected.contains("checksum") {
            let value: Value = serde_yaml::from_str(text).unwrap();
            assert!(
                !schema_errors(&value).is_empty(),
                "JSON Schema accepts {text}"
            );
        }
    }
    assert!(Reflection::from_yaml_str("functions: [").is_err());
    assert!(Reflection::from_json_str("{").is_err());
}

/// Module exports (format_version 2) round-trip, are checksummed, and a document without them
/// is still written as version 1.
#[test]
fn modules_section_round_trips_and_is_versioned() {
    let text = r#"
format_version: 2
libraries: [libk.so]
modules:
- library: libk.so
  functions:
  - name: twice
    doc: Doubles x.
    signature: {params: [{type: int}], return: {type: int}}
  - name: add_one_c
"#;
    let doc = Reflection::from_yaml_str(text).unwrap();
    assert_eq!(doc.modules[0].functions.len(), 2);
    let mut sealed = doc.clone();
    sealed.seal();
    assert_eq!(sealed.format_version, 2);
    // Exports are sorted by name; the checksum covers them.
    assert_eq!(sealed.modules[0].functions[0].name, "add_one_c");
    let again = Reflection::from_yaml_str(&sealed.to_yaml_string().unwrap()).unwrap();
    assert_eq!(again, sealed);
    let value: Value = serde_yaml::from_str(&sealed.to_yaml_string().unwrap()).unwrap();
    assert!(
        schema_errors(&value).is_empty(),
        "{:?}",
        schema_errors(&value)
    );
    let edited = sealed
        .to_yaml_string()
        .unwrap()
        .replace("Doubles x.", "Triples x.");
    assert!(matches!(
        Reflection::from_yaml_str(&edited),
        Err(Error::Checksum { .. })
    ));
    // Without modules: version 1 and the same checksum as before modules existed.
    let mut plain = sealed.clone();
    plain.set_modules(Vec::new());
    assert_eq!(plain.format_version, 1);
    assert!(!plain.to_yaml_string().unwrap().contains("modules"));
    // A module listed twice is an error.
    let twice = "format_version: 2\nmodules: [{library: a.so, functions: [{name: f}]}, {library: a.so, functions: [{name: g}]}]\n";
    assert!(Reflection::from_yaml_str(twice)
        .unwrap_err()
        .to_string()
        .contains("listed twice"));
}

#[test]
fn duplicates_are_rejected() {
    let text = "format_version: 1\nfunctions: [{name: f}, {name: f}]\n";
    assert!(Reflection::from_yaml_str(text)
        .unwrap_err()
        .to_string()
        .contains("listed twice"));
}

/// The typing report counts typed items and names why the others are not.
#[test]
fn typing_report_names_the_reasons() {
    let doc = ffihub_schema::Reflection::from_yaml_str(
        r#"
format_version: 1
functions:
- name: a.typed
  signature: {params: [{type: int}], return: {type: None}}
- name: a.packed
- name: a.odd
  metadata: {type_schema: '{"type":"Thing","args":[{"type":"int"}]}'}
types:
- key: a.T
  ancestors: [ffi.Object]
  fields:
  - {name: x, type: {type: int}}
  - {name: y}
"#,
    )
    .unwrap();
    let report = doc.typing_report();
    assert_eq!(report.functions, (3, 1));
    assert_eq!(report.fields, (2, 1));
    assert_eq!(report.untyped(), 3);
    assert_eq!(
        report.to_string(),
        "typed: 1 of 3 functions, 1 of 2 fields, 0 of 0 methods; untyped: 2 registered without \
         a type_schema (packed), 1 with an unreadable type_schema (Thing takes 0 type \
         argument(s), got 1)"
    );
}
