//! The signature overlay's model against its JSON Schema: a sample, and bad overlays rejected
//! by serde (with the entry in the message) and by the JSON Schema.

use ffihub_schema::{Signatures, SIGNATURES_JSON_SCHEMA};
use serde_json::Value;

const SAMPLE: &str = include_str!("data/signatures.yaml");

fn schema_errors(doc: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(SIGNATURES_JSON_SCHEMA).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema is a JSON Schema");
    validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn sample_reads_validates_and_round_trips() {
    let overlay: Signatures = serde_yaml::from_str(SAMPLE).expect("the sample reads");
    overlay.validate().unwrap();
    let add = &overlay.entries["sample.add"];
    let params = add.params.as_ref().unwrap();
    assert_eq!(params[0].name, "a");
    assert_eq!(params[0].default, None);
    assert_eq!(params[1].default, Some(Value::from(1)));
    let scale = &overlay.entries["sample.Base.scale"]
        .params
        .as_ref()
        .unwrap()[0];
    assert_eq!(
        scale.default,
        Some(Value::Null),
        "null is a default, not its absence"
    );
    assert!(scale.keyword_only);
    let role = overlay.entries["sample.BaseWithTag"].role.as_ref().unwrap();
    assert_eq!(role.kind, ffihub_schema::RoleKind::Method);
    assert_eq!(
        (role.of.as_str(), role.name.as_deref()),
        ("sample.Base", Some("with_tag"))
    );

    let yaml: Value = serde_yaml::from_str(SAMPLE).unwrap();
    assert_eq!(schema_errors(&yaml), Vec::<String>::new());
    let written: Value = serde_json::to_value(&overlay).unwrap();
    assert_eq!(schema_errors(&written), Vec::<String>::new());
    let again: Signatures = serde_json::from_value(written).unwrap();
    assert_eq!(again, overlay);
}

#[test]
fn bad_overlays_are_rejected_by_serde_and_by_the_json_schema() {
    let cases: &[(&str, &str)] = &[
        (
            "version: 1\nentries: {f: {params: [{name: a, defualt: 1}]}}\n",
            "unknown field `defualt`",
        ),
        (
            "version: 1\nentries: {f: {param: [a]}}\n",
            "unknown field `param`",
        ),
        (
            "version: 1\nentries: {f: {params: [{doc: x}]}}\n",
            "missing field `name`",
        ),
        ("entries: {}\n", "missing field `version`"),
        (
            "version: 1\nentries: {f: {params: [{name: a, keyword_only: 1}]}}\n",
            "invalid type",
        ),
    ];
    for (text, why) in cases {
        let err = serde_yaml::from_str::<Signatures>(text)
            .unwrap_err()
            .to_string();
        assert!(err.contains(why), "{text}: {err}");
        let value: Value = serde_yaml::from_str(text).unwrap();
        assert!(
            !schema_errors(&value).is_empty(),
            "the JSON Schema accepts {text}"
        );
    }
    // serde reads these; `validate` and the JSON Schema reject them.
    for text in [
        "version: 3\n",
        "version: 1\nentries: {f: {params: [\"a b\"]}}\n",
        "version: 2\nentries: {f: {role: {kind: constructor, of: t.T, name: make}}}\n",
        "version: 2\nentries: {f: {role: {kind: method, of: t.T}}}\n",
        "version: 2\nentries: {f: {role: {kind: property, of: t.T, name: \"a b\"}}}\n",
    ] {
        let overlay: Signatures = serde_yaml::from_str(text).unwrap();
        assert!(overlay.validate().is_err(), "{text}");
        let value: Value = serde_yaml::from_str(text).unwrap();
        assert!(
            !schema_errors(&value).is_empty(),
            "the JSON Schema accepts {text}"
        );
    }
    // A role needs version 2 (the JSON Schema does not tie keys to the version).
    let overlay: Signatures = serde_yaml::from_str(
        "version: 1\nentries: {f: {role: {kind: method, of: t.T, name: m}}}\n",
    )
    .unwrap();
    assert!(overlay.validate().unwrap_err().contains("version 2"));
    // An unknown role kind.
    assert!(serde_yaml::from_str::<Signatures>(
        "version: 2\nentries: {f: {role: {kind: field, of: t.T, name: m}}}\n"
    )
    .is_err());
    // A default that is not a literal the bindings can spell (checked against the library by
    // the generator too).
    let value: Value =
        serde_yaml::from_str("version: 1\nentries: {f: {params: [{name: a, default: [1]}]}}\n")
            .unwrap();
    assert!(!schema_errors(&value).is_empty());
}
