// ffihub C++ support, containers: what every container shares (the runtime globals that build
// and edit them, named once here and cached, and the constructor tag).
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

// The runtime globals the containers call.
inline constexpr char kArray[] = "ffi.Array";
inline constexpr char kList[] = "ffi.List";
inline constexpr char kListAppend[] = "ffi.ListAppend";
inline constexpr char kListSetItem[] = "ffi.ListSetItem";
inline constexpr char kListInsert[] = "ffi.ListInsert";
inline constexpr char kListErase[] = "ffi.ListErase";
inline constexpr char kListPop[] = "ffi.ListPop";
inline constexpr char kListClear[] = "ffi.ListClear";
inline constexpr char kMap[] = "ffi.Map";
inline constexpr char kMapSize[] = "ffi.MapSize";
inline constexpr char kMapGetItemOrMissing[] = "ffi.MapGetItemOrMissing";
inline constexpr char kMapForwardIterFunctor[] = "ffi.MapForwardIterFunctor";
inline constexpr char kDict[] = "ffi.Dict";
inline constexpr char kDictSize[] = "ffi.DictSize";
inline constexpr char kDictGetItemOrMissing[] = "ffi.DictGetItemOrMissing";
inline constexpr char kDictForwardIterFunctor[] = "ffi.DictForwardIterFunctor";
inline constexpr char kDictSetItem[] = "ffi.DictSetItem";
inline constexpr char kDictErase[] = "ffi.DictErase";
inline constexpr char kDictClear[] = "ffi.DictClear";
inline constexpr char kShape[] = "ffi.Shape";
inline constexpr char kGetInvalidObject[] = "ffi.GetInvalidObject";

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
