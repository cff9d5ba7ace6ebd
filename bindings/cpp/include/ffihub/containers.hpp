// ffihub C++ support: containers. Array<T> and Shape are immutable, List<T> and Dict<K, V> are
// mutable, Map<K, V> is immutable. Elements are stored as TVM-FFI values and converted to T when
// read; std::vector, std::tuple, std::map and std::unordered_map convert into them.
// The umbrella of the per-container headers in containers/; include it, or one of them.
#pragma once

#include "containers/array.hpp"
#include "containers/dict.hpp"
#include "containers/list.hpp"
#include "containers/map.hpp"
#include "containers/shape.hpp"
#include "containers/std_maps.hpp"
