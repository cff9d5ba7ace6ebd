// ffihub C++ support: String and Bytes, TVM-FFI's immutable strings (inline up to 7 bytes,
// refcounted objects beyond). std::string converts both ways too; these classes avoid the copy.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "any.hpp"

namespace ffihub {

namespace detail {

/// An owned small string or small bytes value (at most 7 bytes), or a new object.
inline TVMFFIAny make_small_or_object(std::string_view s, bool bytes) {
  if (s.size() <= 7) {
    TVMFFIAny out = none_any();
    out.type_index = bytes ? kTVMFFISmallBytes : kTVMFFISmallStr;
    out.small_str_len = static_cast<uint32_t>(s.size());
    if (!s.empty()) std::memcpy(out.v_bytes, s.data(), s.size());
    return out;
  }
  return bytes ? ::ffihub::detail::make_bytes(s) : make_string(s);
}

}  // namespace detail

/**
 * An immutable TVM-FFI string (`ffi.String`). Converts implicitly to std::string_view; the view
 * stays valid while this String (or a copy of it) lives.
 */
class String {
 public:
  String() : data_(adopt(detail::make_small_or_object(std::string_view(), false))) {}
  String(std::string_view s)  // NOLINT: implicit like std::string
      : data_(adopt(detail::make_small_or_object(s, false))) {}
  String(const char* s) : String(std::string_view(s)) {}                  // NOLINT
  String(const std::string& s) : String(std::string_view(s)) {}           // NOLINT

  std::string_view view() const noexcept {
    std::string_view out;
    detail::bytes_view(detail::AnyAccess::raw(data_), &out);
    return out;
  }
  operator std::string_view() const noexcept { return view(); }  // NOLINT
  std::string str() const { return std::string(view()); }
  const char* data() const noexcept { return view().data(); }
  /// A NUL-terminated pointer (TVM-FFI strings keep a trailing NUL).
  const char* c_str() const noexcept { return view().data(); }
  size_t size() const noexcept { return view().size(); }
  bool empty() const noexcept { return view().empty(); }

  friend bool operator==(const String& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator!=(const String& a, std::string_view b) noexcept { return a.view() != b; }
  friend bool operator==(const String& a, const char* b) noexcept { return a.view() == b; }
  friend bool operator!=(const String& a, const char* b) noexcept { return a.view() != b; }
  friend bool operator==(const String& a, const std::string& b) noexcept { return a.view() == b; }
  friend bool operator!=(const String& a, const std::string& b) noexcept { return a.view() != b; }
  friend bool operator==(const String& a, const String& b) noexcept { return a.view() == b.view(); }
  friend bool operator!=(const String& a, const String& b) noexcept { return a.view() != b.view(); }
  friend bool operator<(const String& a, const String& b) noexcept { return a.view() < b.view(); }
  friend std::ostream& operator<<(std::ostream& os, const String& s) { return os << s.view(); }

 private:
  friend struct detail::Converter<String>;
  struct FromAny {};
  String(FromAny, Any data) noexcept : data_(std::move(data)) {}
  static Any adopt(TVMFFIAny raw) noexcept { return detail::AnyAccess::adopt(raw); }
  Any data_;
};

/**
 * Immutable TVM-FFI bytes (`ffi.Bytes`). `view()`/`data()` stay valid while this Bytes (or a
 * copy of it) lives.
 */
class Bytes {
 public:
  Bytes() : data_(adopt(detail::make_small_or_object(std::string_view(), true))) {}
  Bytes(const void* data, size_t size)
      : data_(adopt(detail::make_small_or_object(
            std::string_view(static_cast<const char*>(data), size), true))) {}
  explicit Bytes(std::string_view s) : Bytes(s.data(), s.size()) {}
  Bytes(const std::vector<uint8_t>& v) : Bytes(v.data(), v.size()) {}  // NOLINT
  Bytes(std::initializer_list<uint8_t> v) : Bytes(v.begin(), v.size()) {}

  std::string_view view() const noexcept {
    std::string_view out;
    detail::bytes_view(detail::AnyAccess::raw(data_), &out);
    return out;
  }
  const uint8_t* data() const noexcept {
    return reinterpret_cast<const uint8_t*>(view().data());
  }
  size_t size() const noexcept { return view().size(); }
  bool empty() const noexcept { return view().empty(); }
  uint8_t operator[](size_t i) const noexcept { return data()[i]; }
  const uint8_t* begin() const noexcept { return data(); }
  const uint8_t* end() const noexcept { return data() + size(); }
  std::vector<uint8_t> to_vector() const { return std::vector<uint8_t>(begin(), end()); }

  friend bool operator==(const Bytes& a, const Bytes& b) noexcept { return a.view() == b.view(); }
  friend bool operator!=(const Bytes& a, const Bytes& b) noexcept { return a.view() != b.view(); }

 private:
  friend struct detail::Converter<Bytes>;
  struct FromAny {};
  Bytes(FromAny, Any data) noexcept : data_(std::move(data)) {}
  static Any adopt(TVMFFIAny raw) noexcept { return detail::AnyAccess::adopt(raw); }
  Any data_;
};

namespace detail {

inline bool is_bytes_index(int32_t i) noexcept {
  return i == kTVMFFISmallBytes || i == kTVMFFIBytes || i == kTVMFFIByteArrayPtr;
}

template <>
struct Converter<String> : ConverterBase<String, Converter<String>> {
  static void view(const String& v, TVMFFIAny* out) noexcept { *out = AnyAccess::raw(v.data_); }
  static TVMFFIAny owned(const String& v) noexcept { return Converter<Any>::owned(v.data_); }
  static bool check(const TVMFFIAny& v) noexcept { return Converter<std::string>::check(v); }
  static std::optional<String> from_view(const TVMFFIAny& v) {
    if (v.type_index == kTVMFFISmallStr || v.type_index == kTVMFFIStr) {
      return String(String::FromAny{}, Any(AnyAccess::view(v)));
    }
    if (v.type_index == kTVMFFIRawStr) return String(std::string_view(v.v_c_str));
    return std::nullopt;
  }
  static std::string type_name() { return "str"; }
};

template <>
struct Converter<Bytes> : ConverterBase<Bytes, Converter<Bytes>> {
  static void view(const Bytes& v, TVMFFIAny* out) noexcept { *out = AnyAccess::raw(v.data_); }
  static TVMFFIAny owned(const Bytes& v) noexcept { return Converter<Any>::owned(v.data_); }
  static bool check(const TVMFFIAny& v) noexcept {
    return v.type_index == kTVMFFISmallBytes || v.type_index == kTVMFFIBytes;
  }
  static std::optional<Bytes> from_view(const TVMFFIAny& v) {
    if (v.type_index == kTVMFFISmallBytes || v.type_index == kTVMFFIBytes) {
      return Bytes(Bytes::FromAny{}, Any(AnyAccess::view(v)));
    }
    std::string_view s;
    if (v.type_index == kTVMFFIByteArrayPtr && bytes_view(v, &s)) return Bytes(s);
    return std::nullopt;
  }
  static std::string type_name() { return "bytes"; }
};

/// std::vector<uint8_t> crosses as bytes (copied both ways).
template <>
struct Converter<std::vector<uint8_t>> {
  static constexpr bool enabled = true;
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const std::vector<uint8_t>& v) {
    return make_small_or_object(
        std::string_view(reinterpret_cast<const char*>(v.data()), v.size()), true);
  }
  static bool check(const TVMFFIAny& v) noexcept { return Converter<Bytes>::check(v); }
  static std::optional<std::vector<uint8_t>> from_view(const TVMFFIAny& v) {
    std::string_view s;
    if (::ffihub::detail::is_bytes_index(v.type_index) && bytes_view(v, &s)) {
      return std::vector<uint8_t>(s.begin(), s.end());
    }
    return std::nullopt;
  }
  static std::optional<std::vector<uint8_t>> from_owned(TVMFFIAny& v) {
    std::optional<std::vector<uint8_t>> out = from_view(v);
    if (out) release(v);
    return out;
  }
  static std::string type_name() { return "bytes"; }
};

}  // namespace detail
}  // namespace ffihub
