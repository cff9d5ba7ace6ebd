// ffihub C++ support, containers: Map<K, V> (immutable).
#pragma once

#include <initializer_list>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mapping.hpp"

namespace ffihub {

/**
 * An immutable map (`ffi.Map`) from K to V. Builds from an initializer list of pairs, a std::map
 * or a std::unordered_map; iterates as std::pair<K, V>.
 */
template <typename K = Any, typename V = Any>
class Map : public ObjectRef,
            public detail::MapReader<K, V, Map<K, V>, detail::kMapSize,
                                     detail::kMapGetItemOrMissing,
                                     detail::kMapForwardIterFunctor> {
 public:
  static constexpr const char* type_key = "ffi.Map";
  explicit Map(detail::Owned owned) noexcept : ObjectRef(owned) {}
  Map() : Map(detail::FromElements{}, {}) {}
  Map(std::initializer_list<std::pair<K, V>> pairs)
      : Map(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  template <typename C, typename A>
  Map(const std::map<K, V, C, A>& pairs)  // NOLINT
      : Map(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  template <typename H, typename E, typename A>
  Map(const std::unordered_map<K, V, H, E, A>& pairs)  // NOLINT
      : Map(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  /// Internal: a map of the given keys and values, alternating.
  Map(detail::FromElements, const std::vector<Any>& kv)
      : ObjectRef(detail::call_packed_as<ObjectRef>(detail::builtin<detail::kMap>(), kv)) {}
};
}  // namespace ffihub
