//! Unit tests of module objects (layout, imports, lookups) with Rust-implemented kinds.
