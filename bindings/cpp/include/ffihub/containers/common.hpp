// ffihub C++ support, containers: what every container shares (the cached runtime globals
// that build and edit them, the constructor tag).
#pragma once

#include <vector>

#include "../function.hpp"

namespace ffihub {

namespace detail {

/// A cached runtime global function (`ffi.Array`, ...); one static per name.
template <const char* Name>
inline const Function& builtin() {
  static const Function f = Function::get_global_required(Name);
  return f;
}

/// Tag of the constructors that build a container from its packed elements.
struct FromElements {};

/// Calls `f` with a run-time list of arguments and converts the result to T.
template <typename T>
inline T call_packed_as(const Function& f, const std::vector<Any>& values) {
  Any result = f.call_packed(values);
  TVMFFIAny raw = AnyAccess::release(result);
  return cast_owned<T>(raw, "result");
}

}  // namespace detail
}  // namespace ffihub
