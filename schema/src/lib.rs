//! Serde model of TVM-FFI reflection metadata (built in the generator-core issue).
