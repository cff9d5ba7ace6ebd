//! The registries and what describes their entries: the global function table (`globals`), the
//! type table (`types`), reflected fields and methods (`reflection`), type schemas and data
//! types, and the helpers every area uses to define typed `ffi.*` functions (`define`, `args`).
//! The tables are created on first use and take their initial contents from the crate root
//! (the built-ins), so nothing here names a higher layer.

pub mod args;
pub(crate) mod define;
pub mod dtype;
pub mod globals;
pub mod reflection;
pub mod type_schema;
pub mod types;
