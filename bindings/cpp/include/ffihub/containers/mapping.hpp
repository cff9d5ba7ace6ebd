// ffihub C++ support, containers: the read side of Map and Dict (through the runtime's
// `ffi.Map*` / `ffi.Dict*` globals).
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "common.hpp"

namespace ffihub {

namespace detail {

/// The "missing" sentinel that `*GetItemOrMissing` returns.
inline const ObjectRef& missing_sentinel() {
  static const ObjectRef sentinel = builtin<kGetInvalidObject>().call<ObjectRef>();
  return sentinel;
}

/// Input iterator over a Map or Dict (through the runtime's forward-iterator functor).
template <typename K, typename V>
class MapIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = std::pair<K, V>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = value_type;
  MapIterator() = default;
  MapIterator(std::optional<Function> functor, std::size_t remaining)
      : functor_(std::move(functor)), remaining_(remaining) {}
  value_type operator*() const {
    return value_type(functor_->call<K>(int64_t{0}), functor_->call<V>(int64_t{1}));
  }
  MapIterator& operator++() {
    --remaining_;
    if (remaining_ > 0) functor_->call<bool>(int64_t{2});
    return *this;
  }
  friend bool operator==(const MapIterator& a, const MapIterator& b) noexcept {
    return a.remaining_ == b.remaining_;
  }
  friend bool operator!=(const MapIterator& a, const MapIterator& b) noexcept {
    return a.remaining_ != b.remaining_;
  }

 private:
  std::optional<Function> functor_;
  std::size_t remaining_ = 0;
};

/// Read access shared by Map and Dict (through the runtime's `ffi.Map*` / `ffi.Dict*` globals).
template <typename K, typename V, typename Self, const char* Size, const char* Get,
          const char* Iter>
class MapReader {
 public:
  using key_type = K;
  using mapped_type = V;
  using iterator = MapIterator<K, V>;
  std::size_t size() const {
    return static_cast<std::size_t>(builtin<Size>().template call<int64_t>(self()));
  }
  bool empty() const { return size() == 0; }
  /// The value of `key`, or std::nullopt.
  std::optional<V> get(const K& key) const {
    Any value = builtin<Get>()(self(), key);
    if (const std::optional<ObjectRef> obj = value.as<ObjectRef>();
        obj && obj->same_as(::ffihub::detail::missing_sentinel())) {
      return std::nullopt;
    }
    return value.cast<V>();
  }
  /// The value of `key`; throws ffihub::KeyError if it is missing.
  V at(const K& key) const {
    std::optional<V> v = get(key);
    if (!v) throw KeyError("key is not in the map");
    return std::move(*v);
  }
  bool contains(const K& key) const { return get(key).has_value(); }
  iterator begin() const {
    std::size_t n = size();
    if (n == 0) return iterator();
    return iterator(builtin<Iter>().template call<Function>(self()), n);
  }
  iterator end() const { return iterator(); }
  std::vector<std::pair<K, V>> items() const { return std::vector<std::pair<K, V>>(begin(), end()); }
  std::map<K, V> to_map() const { return std::map<K, V>(begin(), end()); }
  /// Whether every key and value converts (checked when a value is converted to this type).
  static bool ffi_accepts(TVMFFIObject* obj) {
    if constexpr (std::is_same_v<K, Any> && std::is_same_v<V, Any>) {
      return true;
    } else {
      Function functor = builtin<Iter>().template call<Function>(borrow_as<ObjectRef>(obj));
      std::size_t n = static_cast<std::size_t>(
          builtin<Size>().template call<int64_t>(borrow_as<ObjectRef>(obj)));
      for (std::size_t i = 0; i < n; ++i) {
        if (!functor(int64_t{0}).template as<K>() || !functor(int64_t{1}).template as<V>()) {
          return false;
        }
        if (i + 1 < n) functor(int64_t{2});
      }
      return true;
    }
  }

 private:
  const Self& self() const noexcept { return static_cast<const Self&>(*this); }
};

template <typename Range>
inline std::vector<Any> pairs_to_anys(const Range& pairs) {
  std::vector<Any> out;
  for (const auto& kv : pairs) {
    out.emplace_back(kv.first);
    out.emplace_back(kv.second);
  }
  return out;
}

}  // namespace detail
}  // namespace ffihub
