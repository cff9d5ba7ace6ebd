// ffihub C++ support, containers: the read side of Array and List (both hold an
// `ffi.Array`-layout cell of TVM-FFI values, read directly without a call).
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "common.hpp"

namespace ffihub {

namespace detail {

inline const TVMFFISeqCell& seq_cell(TVMFFIObject* obj) noexcept {
  return *reinterpret_cast<const TVMFFISeqCell*>(reinterpret_cast<const char*>(obj) +
                                                 sizeof(TVMFFIObject));
}

/// Whether every element of a sequence object converts to T.
template <typename T>
inline bool elements_convert(TVMFFIObject* obj) {
  if constexpr (std::is_same_v<T, Any>) {
    return true;
  } else {
    const TVMFFISeqCell& cell = ::ffihub::detail::seq_cell(obj);
    const TVMFFIAny* data = static_cast<const TVMFFIAny*>(cell.data);
    for (int64_t i = 0; i < cell.size; ++i) {
      if (!Converter<T>::from_view(data[i])) return false;
    }
    return true;
  }
}

/// Input iterator over a sequence object, yielding converted values.
template <typename T>
class SeqIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  SeqIterator(const TVMFFIAny* data, std::size_t i) noexcept : data_(data), i_(i) {}
  T operator*() const { return cast_view<T>(data_[i_], "element"); }
  SeqIterator& operator++() noexcept {
    ++i_;
    return *this;
  }
  SeqIterator operator++(int) noexcept {
    SeqIterator old = *this;
    ++i_;
    return old;
  }
  friend bool operator==(const SeqIterator& a, const SeqIterator& b) noexcept {
    return a.i_ == b.i_;
  }
  friend bool operator!=(const SeqIterator& a, const SeqIterator& b) noexcept {
    return a.i_ != b.i_;
  }

 private:
  const TVMFFIAny* data_;
  std::size_t i_;
};

/// Read access shared by Array and List.
template <typename T, typename Self>
class SeqReader {
 public:
  using value_type = T;
  using iterator = SeqIterator<T>;
  std::size_t size() const noexcept { return static_cast<std::size_t>(cell().size); }
  bool empty() const noexcept { return size() == 0; }
  /// Element `i` (unchecked index).
  T operator[](std::size_t i) const { return cast_view<T>(data()[i], "element"); }
  /// Element `i`; throws ffihub::IndexError when out of range.
  T at(std::size_t i) const {
    if (i >= size()) {
      throw IndexError("index " + std::to_string(i) + " out of range for size " +
                       std::to_string(size()));
    }
    return (*this)[i];
  }
  T front() const { return at(0); }
  T back() const { return at(size() - 1); }
  iterator begin() const noexcept { return iterator(data(), 0); }
  iterator end() const noexcept { return iterator(data(), size()); }
  std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }
  /// Whether every element converts to T (checked when a value is converted to this type).
  static bool ffi_accepts(TVMFFIObject* obj) { return elements_convert<T>(obj); }

 private:
  const TVMFFISeqCell& cell() const noexcept {
    return ::ffihub::detail::seq_cell(::ffihub::detail::handle(static_cast<const Self&>(*this)));
  }
  const TVMFFIAny* data() const noexcept { return static_cast<const TVMFFIAny*>(cell().data); }
};

template <typename It>
inline std::vector<Any> to_anys(It first, It last) {
  std::vector<Any> out;
  for (; first != last; ++first) out.emplace_back(*first);
  return out;
}

}  // namespace detail
}  // namespace ffihub
