//! Fallible allocation: a failed allocation becomes a `MemoryError`, never an abort.
//!
//! Rust aborts the process when an infallible allocation (`Vec::with_capacity`, `vec![..; n]`,
//! `push` past the capacity, `[T]::repeat`, `format!`) fails, and the hook that could turn this into
//! a panic (`std::alloc::set_alloc_error_hook`, `-Zoom=panic`) is unstable. An extension loaded
//! into a host must not take the host down because one call asked for too much memory, so every
//! allocation in this crate whose size comes from a caller (array lengths, string contents, tensor
//! element counts, collected iterators) goes through the functions here, and so should an
//! extension's own allocations whose size comes from its arguments:
//!
//! ```no_run
//! # use ffihub::Result;
//! /// `times` copies of `text`.
//! #[ffihub::function(name = "demo.repeat_bytes")]
//! fn repeat_bytes(text: ffihub::Bytes, times: u32) -> Result<ffihub::Bytes> {
//!     let mut out = ffihub::alloc::try_vec(ffihub::alloc::checked_len(text.len(), times as usize)?)?;
//!     for _ in 0..times {
//!         out.extend_from_slice(text.as_slice()); // within the reserved capacity: no allocation
//!     }
//!     ffihub::Bytes::new(out)
//! }
//! ```
//!
//! `Vec::try_reserve` / `String::try_reserve` errors convert into [`Error`] with `?` (kind
//! `MemoryError`, which Python's `tvm_ffi` raises as `MemoryError`). Allocations the crate cannot
//! see (an infallible `Vec::with_capacity(n)` in user code, a dependency's) still abort on failure.

use crate::error::{Error, Result};
use std::collections::TryReserveError;

/// An empty `Vec` with room for `capacity` elements, or a `MemoryError`.
pub fn try_vec<T>(capacity: usize) -> Result<Vec<T>> {
    let mut vec = Vec::new();
    vec.try_reserve_exact(capacity)?;
    Ok(vec)
}

/// `items` collected into a `Vec`, growing fallibly (a `MemoryError` instead of an abort).
pub fn try_collect<T>(items: impl IntoIterator<Item = T>) -> Result<Vec<T>> {
    let items = items.into_iter();
    let mut vec = try_vec(items.size_hint().0)?;
    for item in items {
        try_push(&mut vec, item)?;
    }
    Ok(vec)
}

/// `items` (each a `Result`) collected into a `Vec`: the first error, or a `MemoryError`.
pub fn try_collect_results<T>(items: impl IntoIterator<Item = Result<T>>) -> Result<Vec<T>> {
    let items = items.into_iter();
    let mut vec = try_vec(items.size_hint().0)?;
    for item in items {
        try_push(&mut vec, item?)?;
    }
    Ok(vec)
}

/// Pushes `item`, growing the capacity fallibly (amortized like `push`).
#[inline]
pub fn try_push<T>(vec: &mut Vec<T>, item: T) -> Result<()> {
    if vec.len() == vec.capacity() {
        vec.try_reserve(1)?;
    }
    vec.push(item);
    Ok(())
}

/// A copy of `bytes`, or a `MemoryError`.
pub fn try_copy<T: Copy>(items: &[T]) -> Result<Vec<T>> {
    let mut vec = try_vec(items.len())?;
    vec.extend_from_slice(items);
    Ok(vec)
}

/// `count` items of `size` elements each: the total, or a `MemoryError` when it overflows.
pub fn checked_len(size: usize, count: usize) -> Result<usize> {
    size.checked_mul(count).ok_or_else(|| {
        Error::memory_error(format!(
            "cannot allocate {count} x {size} elements: the size overflows"
        ))
    })
}

impl From<TryReserveError> for Error {
    fn from(error: TryReserveError) -> Error {
        Error::memory_error(format!("cannot allocate memory: {error}"))
    }
}
