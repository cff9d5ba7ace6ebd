// ffihub C++ support, containers: Dict<K, V> (mutable).
#pragma once

#include <initializer_list>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mapping.hpp"

namespace ffihub {

/**
 * A mutable dictionary (`ffi.Dict`) from K to V: reads like Map, plus set, erase and clear
 * (visible through every reference to the dict).
 */
template <typename K = Any, typename V = Any>
class Dict : public ObjectRef,
             public detail::MapReader<K, V, Dict<K, V>, detail::kDictSize,
                                      detail::kDictGetItemOrMissing,
                                      detail::kDictForwardIterFunctor> {
 public:
  static constexpr const char* type_key = "ffi.Dict";
  explicit Dict(detail::Owned owned) noexcept : ObjectRef(owned) {}
  Dict() : Dict(detail::FromElements{}, {}) {}
  Dict(std::initializer_list<std::pair<K, V>> pairs)
      : Dict(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  template <typename C, typename A>
  Dict(const std::map<K, V, C, A>& pairs)  // NOLINT
      : Dict(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  template <typename H, typename E, typename A>
  Dict(const std::unordered_map<K, V, H, E, A>& pairs)  // NOLINT
      : Dict(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  /// Internal: a map of the given keys and values, alternating.
  Dict(detail::FromElements, const std::vector<Any>& kv)
      : ObjectRef(detail::call_packed_as<ObjectRef>(detail::builtin<detail::kDict>(), kv)) {}

  void set(const K& key, const V& value) {
    detail::builtin<detail::kDictSetItem>().call<void>(*this, Any(key), Any(value));
  }
  void erase(const K& key) { detail::builtin<detail::kDictErase>().call<void>(*this, Any(key)); }
  void clear() { detail::builtin<detail::kDictClear>().call<void>(*this); }
};
}  // namespace ffihub
