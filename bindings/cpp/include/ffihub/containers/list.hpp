// ffihub C++ support, containers: List<T> (mutable).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "sequence.hpp"

namespace ffihub {

/**
 * A mutable list (`ffi.List`) of T: reads like Array, plus push_back, set, insert, erase,
 * pop_back and clear (visible through every reference to the list).
 */
template <typename T = Any>
class List : public ObjectRef, public detail::SeqReader<T, List<T>> {
 public:
  static constexpr const char* type_key = "ffi.List";
  explicit List(detail::Owned owned) noexcept : ObjectRef(owned) {}
  List() : List(detail::FromElements{}, {}) {}
  List(std::initializer_list<T> values)
      : List(detail::FromElements{}, detail::to_anys(values.begin(), values.end())) {}
  List(const std::vector<T>& values)  // NOLINT
      : List(detail::FromElements{}, detail::to_anys(values.begin(), values.end())) {}
  /// Internal: a list of the given elements.
  List(detail::FromElements, const std::vector<Any>& values)
      : ObjectRef(detail::call_packed_as<ObjectRef>(detail::builtin<detail::kList>(), values)) {}
  using detail::SeqReader<T, List<T>>::ffi_accepts;

  void push_back(const T& value) {
    detail::builtin<detail::kListAppend>().call<void>(*this, Any(value));
  }
  void set(std::size_t i, const T& value) {
    detail::builtin<detail::kListSetItem>().call<void>(*this, static_cast<int64_t>(i), Any(value));
  }
  void insert(std::size_t i, const T& value) {
    detail::builtin<detail::kListInsert>().call<void>(*this, static_cast<int64_t>(i), Any(value));
  }
  void erase(std::size_t i) {
    detail::builtin<detail::kListErase>().call<void>(*this, static_cast<int64_t>(i));
  }
  T pop_back() {
    return detail::builtin<detail::kListPop>().call<T>(*this, static_cast<int64_t>(this->size()) - 1);
  }
  void clear() { detail::builtin<detail::kListClear>().call<void>(*this); }
};
}  // namespace ffihub
