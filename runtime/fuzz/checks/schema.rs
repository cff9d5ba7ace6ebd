//! The properties of the `type_schema` and `dump` fuzz targets (the schema crate reads both from
//! libraries and files it does not trust), shared with the corpus replay test
//! (`schema/tests/fuzz_corpus.rs`).
// Each fuzz target uses only one of the checks.
#![allow(dead_code)]

use ffihub_schema::{Reflection, TypeSchema};

/// `TypeSchema::from_json_str`: any text parses or is an error; what parses prints JSON that
/// parses to the same schema.
pub fn check_type_schema(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(schema) = TypeSchema::from_json_str(text) {
        let printed = schema.to_json_string();
        let again = TypeSchema::from_json_str(&printed)
            .unwrap_or_else(|e| panic!("printed schema {printed} does not parse: {e}"));
        assert_eq!(again.to_json_string(), printed, "printing is stable");
    }
}

/// The dump reader: any text reads (as YAML, JSON, or either) or is an error; a document read
/// writes YAML and JSON that read back to the same document.
pub fn check_dump(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let readers: [fn(&str) -> Result<Reflection, _>; 3] = [
        Reflection::from_yaml_str,
        Reflection::from_json_str,
        Reflection::from_str_auto,
    ];
    for read in readers {
        if let Ok(doc) = read(text) {
            let json = doc.to_json_string().expect("a read document writes JSON");
            let yaml = doc.to_yaml_string().expect("a read document writes YAML");
            let from_json = Reflection::from_json_str(&json)
                .unwrap_or_else(|e| panic!("written JSON does not read: {e}\n{json}"));
            let from_yaml = Reflection::from_yaml_str(&yaml)
                .unwrap_or_else(|e| panic!("written YAML does not read: {e}\n{yaml}"));
            assert_eq!(from_json.to_json_string().ok(), Some(json.clone()));
            assert_eq!(from_yaml.to_json_string().ok(), Some(json));
        }
    }
}
