//! The walks over value graphs, built on the containers and reflection: access paths,
//! structural equality, hashing and traversal (`structural`), JSON text (`json`) and graphs
//! (`serialization`), deep copies, recursive hashing and comparison, and `ffi.ReprPrint`
//! (`repr`).

pub(crate) mod access_path;
pub mod deep_copy;
pub mod json;
pub mod recursive;
pub mod repr;
pub mod serialization;
pub mod structural;
