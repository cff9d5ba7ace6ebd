//! What ffihub serves to consumers built for older 0.1.x releases of Apache TVM-FFI, beyond the
//! release it implements (docs/compatibility.md): the global functions later releases removed,
//! and the older layouts of error objects and enum types. The C++ entries whose argument layout
//! changed are in `runtime/cxx/legacy.cc`.

mod globals;

pub(crate) use globals::register as register_globals;
pub use globals::REMOVED_GLOBALS;
