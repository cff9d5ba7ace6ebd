//! The heap value types with Apache's exact layouts: Array and List (`TVMFFISeqCell`), Map and
//! Dict (Apache's hash table, keyed by `any_hash`), Shape, Tensor, and BigInt's value operations.

pub mod any_hash;
pub mod bigint;
pub mod map;
pub mod seq;
pub mod shape;
pub mod tensor;
