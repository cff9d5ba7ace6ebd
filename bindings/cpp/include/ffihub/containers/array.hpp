// ffihub C++ support, containers: Array<T> (immutable), and std::vector and std::tuple, which
// cross as one.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sequence.hpp"

namespace ffihub {

/**
 * An immutable array (`ffi.Array`) of T. Reads are direct (no call); elements convert to T when
 * read. Builds from an initializer list, a std::vector or an iterator range.
 */
template <typename T = Any>
class Array : public ObjectRef, public detail::SeqReader<T, Array<T>> {
 public:
  static constexpr const char* type_key = "ffi.Array";
  explicit Array(detail::Owned owned) noexcept : ObjectRef(owned) {}
  Array() : Array(detail::FromElements{}, {}) {}
  Array(std::initializer_list<T> values)
      : Array(detail::FromElements{}, detail::to_anys(values.begin(), values.end())) {}
  Array(const std::vector<T>& values)  // NOLINT: vectors convert implicitly
      : Array(detail::FromElements{}, detail::to_anys(values.begin(), values.end())) {}
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  Array(It first, It last) : Array(detail::FromElements{}, detail::to_anys(first, last)) {}
  /// Internal: an array of the given elements.
  Array(detail::FromElements, const std::vector<Any>& values)
      : ObjectRef(detail::call_packed_as<ObjectRef>(detail::builtin<detail::kArray>(), values)) {}
  using detail::SeqReader<T, Array<T>>::ffi_accepts;
};

namespace detail {

/// std::vector<T> crosses as an Array (copied both ways).
template <typename T>
struct Converter<std::vector<T>, std::enable_if_t<!std::is_same_v<T, uint8_t> && Converter<T>::enabled>>
    : ConverterBase<std::vector<T>, Converter<std::vector<T>>> {
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const std::vector<T>& v) {
    Array<T> a(v);
    return Converter<ObjectRef>::owned(a);
  }
  static bool check(const TVMFFIAny& v) {
    return (v.type_index == kTVMFFIArray || v.type_index == kTVMFFIList) &&
           elements_convert<T>(v.v_obj);
  }
  static std::optional<std::vector<T>> from_view(const TVMFFIAny& v) {
    if (v.type_index != kTVMFFIArray && v.type_index != kTVMFFIList) return std::nullopt;
    const TVMFFISeqCell& cell = ::ffihub::detail::seq_cell(v.v_obj);
    const TVMFFIAny* data = static_cast<const TVMFFIAny*>(cell.data);
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(cell.size));
    for (int64_t i = 0; i < cell.size; ++i) {
      std::optional<T> x = Converter<T>::from_view(data[i]);
      if (!x) return std::nullopt;
      out.push_back(std::move(*x));
    }
    return out;
  }
  static std::string type_name() { return "ffi.Array[" + Converter<T>::type_name() + "]"; }
};

/// std::tuple<Ts...> crosses as an Array of its members.
template <typename... Ts>
struct Converter<std::tuple<Ts...>> : ConverterBase<std::tuple<Ts...>, Converter<std::tuple<Ts...>>> {
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const std::tuple<Ts...>& t) {
    std::vector<Any> values =
        std::apply([](const auto&... x) { return std::vector<Any>{Any(x)...}; }, t);
    return Converter<ObjectRef>::owned(call_packed_as<ObjectRef>(builtin<kArray>(), values));
  }
  static bool check(const TVMFFIAny& v) { return from_view(v).has_value(); }
  static std::optional<std::tuple<Ts...>> from_view(const TVMFFIAny& v) {
    if (v.type_index != kTVMFFIArray && v.type_index != kTVMFFIList) return std::nullopt;
    const TVMFFISeqCell& cell = ::ffihub::detail::seq_cell(v.v_obj);
    if (cell.size != static_cast<int64_t>(sizeof...(Ts))) return std::nullopt;
    const TVMFFIAny* data = static_cast<const TVMFFIAny*>(cell.data);
    return convert(data, std::index_sequence_for<Ts...>{});
  }
  static std::string type_name() {
    std::string out = "Tuple[";
    bool first = true;
    ((out += (first ? "" : ", ") + Converter<Ts>::type_name(), first = false), ...);
    return out + "]";
  }

 private:
  template <std::size_t... I>
  static std::optional<std::tuple<Ts...>> convert(const TVMFFIAny* data,
                                                  std::index_sequence<I...>) {
    // Braces: with parentheses clang reads this line as a function declaration.
    std::tuple<std::optional<Ts>...> parts{Converter<Ts>::from_view(data[I])...};
    if (!(std::get<I>(parts).has_value() && ...)) return std::nullopt;
    return std::tuple<Ts...>(std::move(*std::get<I>(parts))...);
  }
};

}  // namespace detail
}  // namespace ffihub
