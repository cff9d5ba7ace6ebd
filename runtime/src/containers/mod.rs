//! Container objects with Apache's exact layouts: Array and List (`TVMFFISeqCell`), Map and Dict
//! (Apache's hash table), Shape.

pub mod map;
pub mod seq;
pub mod shape;
