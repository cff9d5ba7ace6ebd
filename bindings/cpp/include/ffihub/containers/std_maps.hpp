// ffihub C++ support, containers: std::map and std::unordered_map, which cross as a Map and
// are read from a Map or a Dict.
#pragma once

#include <map>
#include <string>
#include <unordered_map>

#include "dict.hpp"
#include "map.hpp"

namespace ffihub {

namespace detail {

/// std::map and std::unordered_map cross as a Map (copied both ways).
template <typename M, typename K, typename V>
struct StdMapConverter : ConverterBase<M, StdMapConverter<M, K, V>> {
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const M& m) {
    Map<K, V> map(FromElements{}, ::ffihub::detail::pairs_to_anys(m));
    return Converter<ObjectRef>::owned(map);
  }
  static bool accepts(const TVMFFIAny& v) {
    if (v.type_index == kTVMFFIMap) return Map<K, V>::ffi_accepts(v.v_obj);
    if (v.type_index == kTVMFFIDict) return Dict<K, V>::ffi_accepts(v.v_obj);
    return false;
  }
  static bool check(const TVMFFIAny& v) { return accepts(v); }
  static std::optional<M> from_view(const TVMFFIAny& v) {
    if (!accepts(v)) return std::nullopt;
    M out;
    if (v.type_index == kTVMFFIMap) {
      for (auto&& kv : borrow_as<Map<K, V>>(v.v_obj)) out.emplace(kv.first, kv.second);
    } else {
      for (auto&& kv : borrow_as<Dict<K, V>>(v.v_obj)) out.emplace(kv.first, kv.second);
    }
    return out;
  }
  static std::string type_name() {
    return "ffi.Map[" + Converter<K>::type_name() + ", " + Converter<V>::type_name() + "]";
  }
};

template <typename K, typename V, typename C, typename A>
struct Converter<std::map<K, V, C, A>> : StdMapConverter<std::map<K, V, C, A>, K, V> {};
template <typename K, typename V, typename H, typename E, typename A>
struct Converter<std::unordered_map<K, V, H, E, A>>
    : StdMapConverter<std::unordered_map<K, V, H, E, A>, K, V> {};

}  // namespace detail
}  // namespace ffihub
