// ffihub C++ support library: header-only C++17 bindings to the TVM-FFI C ABI.
//
// Include this header (generated headers do) and link `-ltvm_ffi` (ffihub's or Apache's
// runtime, chosen by the library path at run time). Only <tvm/ffi/c_api.h> and
// <dlpack/dlpack.h> are needed from the runtime side. Everything lives in `namespace ffihub`;
// `ffihub::detail` is internal.
//
//   ffihub::Any / AnyView            owned / borrowed values of any kind (any.hpp)
//   ffihub::ObjectRef                refcounted handles, checked downcasts (object.hpp)
//   ffihub::Error (+ ValueError...)  exceptions for raised errors (error.hpp)
//   ffihub::String / Bytes           immutable strings and bytes (string.hpp)
//   ffihub::BigInt                   arbitrary-precision integers (bigint.hpp)
//   ffihub::Function / TypedFunction calls, callbacks, globals (function.hpp)
//   ffihub::Array / List / Map / Dict / Shape   containers (containers.hpp)
//   ffihub::Tensor / TensorView      DLPack tensors without copies (tensor.hpp)
//   ffihub::Module, load_library     modules and libraries (module.hpp)
//   get_field / set_field / call_method / construct / repr   reflection (reflection.hpp)
#pragma once

#include "any.hpp"
#include "base.hpp"
#include "bigint.hpp"
#include "containers.hpp"
#include "error.hpp"
#include "exports.hpp"
#include "function.hpp"
#include "metadata.hpp"
#include "module.hpp"
#include "object.hpp"
#include "reflection.hpp"
#include "string.hpp"
#include "tensor.hpp"
