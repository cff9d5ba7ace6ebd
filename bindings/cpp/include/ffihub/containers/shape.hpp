// ffihub C++ support, containers: Shape (immutable int64_t extents).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common.hpp"

namespace ffihub {

/**
 * An immutable shape (`ffi.Shape`): a sequence of int64_t extents, read directly.
 */
class Shape : public ObjectRef {
 public:
  static constexpr const char* type_key = "ffi.Shape";
  using value_type = int64_t;
  explicit Shape(detail::Owned owned) noexcept : ObjectRef(owned) {}
  Shape() : Shape(std::vector<int64_t>()) {}
  Shape(std::initializer_list<int64_t> dims) : Shape(std::vector<int64_t>(dims)) {}
  Shape(const std::vector<int64_t>& dims)  // NOLINT
      : ObjectRef(make(dims)) {}

  std::size_t size() const noexcept { return cell().size; }
  bool empty() const noexcept { return size() == 0; }
  int64_t operator[](std::size_t i) const noexcept { return cell().data[i]; }
  int64_t at(std::size_t i) const {
    if (i >= size()) throw IndexError("shape index " + std::to_string(i) + " out of range");
    return cell().data[i];
  }
  const int64_t* data() const noexcept { return cell().data; }
  const int64_t* begin() const noexcept { return cell().data; }
  const int64_t* end() const noexcept { return cell().data + cell().size; }
  /// The product of the extents.
  int64_t numel() const noexcept {
    int64_t n = 1;
    for (int64_t d : *this) n *= d;
    return n;
  }
  std::vector<int64_t> to_vector() const { return std::vector<int64_t>(begin(), end()); }

 private:
  const TVMFFIShapeCell& cell() const noexcept { return *TVMFFIShapeGetCellPtr(detail::handle(*this)); }
  static ObjectRef make(const std::vector<int64_t>& dims) {
    std::vector<Any> values(dims.begin(), dims.end());
    return detail::call_packed_as<ObjectRef>(detail::builtin<detail::kShape>(), values);
  }
};
}  // namespace ffihub
