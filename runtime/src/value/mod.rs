//! The values layer, below everything else: objects and their reference counts, `Any`, strings
//! and bytes, errors with their backtraces, functions, the recursion guards, the hashes whose
//! values are part of the ABI, and the process state kernels share (`env`). An `Any` holds
//! strings and errors, which are objects holding text, so these modules use one another; none of
//! them names a module outside this folder.

pub mod any;
pub mod backtrace;
pub mod env;
pub mod error;
pub mod function;
pub mod hash;
pub(crate) mod live_count;
pub mod object;
pub(crate) mod stack;
pub mod string;
