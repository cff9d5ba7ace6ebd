// ffihub C++ support: Any (an owned value), AnyView (a borrowed value) and the conversions of
// C++ types to and from TVM-FFI values.
//
// Conversions are defined by `ffihub::detail::Converter<T>` specializations, spread over the
// headers of each kind. A converter provides (only what makes sense for its type):
//   borrows                     true if view() needs no temporary object
//   view(const T&, TVMFFIAny*)  a borrowed view, valid while the C++ value lives
//   owned(const T&)             a new owned value
//   check(const TVMFFIAny&)     the value is exactly of this kind (used to pick Variant members)
//   from_view(const TVMFFIAny&) the C++ value (copies; IncRef for objects), std::nullopt if the
//                               value does not convert
//   from_owned(TVMFFIAny&)      the same, consuming an owned value (steals references)
//   type_name()                 the TVM-FFI spelling, for error messages
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "error.hpp"

namespace ffihub {

namespace detail {

template <typename T, typename = void>
struct Converter {
  static constexpr bool enabled = false;
};

/// The C++ types that convert to and from TVM-FFI values.
template <typename T>
inline constexpr bool convertible_v = Converter<std::decay_t<T>>::enabled;

/// Converter<T>::enabled as a trait (for short-circuiting std::conjunction).
template <typename T>
struct has_converter : std::bool_constant<Converter<T>::enabled> {};
template <typename T>
struct borrows_converter : std::bool_constant<Converter<T>::borrows> {};

/// A value type other than Any and AnyView with a conversion.
template <typename D>
inline constexpr bool is_value_v =
    std::conjunction_v<std::negation<std::is_same<D, Any>>, std::negation<std::is_same<D, AnyView>>,
                       has_converter<D>>;
template <typename D>
inline constexpr bool is_view_value_v =
    std::conjunction_v<std::negation<std::is_same<D, Any>>, std::negation<std::is_same<D, AnyView>>,
                       has_converter<D>, borrows_converter<D>>;

/// Default `from_owned`: convert from the view, then release the owned value. Contract of every
/// `from_owned`: on success the value is consumed; on failure it is left untouched.
template <typename T, typename Self>
struct ConverterBase {
  static constexpr bool enabled = true;
  static constexpr bool borrows = true;
  static std::optional<T> from_owned(TVMFFIAny& v) {
    std::optional<T> out = Self::from_view(v);
    if (out) release(v);
    return out;
  }
};

/// A TypeError for a value that does not convert to `expected`.
[[noreturn]] FFIHUB_NOINLINE inline void throw_conversion_error(const TVMFFIAny& v,
                                                                const std::string& expected,
                                                                const char* context) {
  std::string msg = *context != 0 ? std::string(context) + ": " : std::string();
  msg += "expected " + expected + ", got " + ::ffihub::detail::type_key_of(v);
  throw TypeError(msg, "<ffihub>", 0, "conversion");
}

/// The same for an owned value, which it releases (out of line: the cold path of cast_owned).
[[noreturn]] FFIHUB_NOINLINE inline void throw_owned_conversion_error(TVMFFIAny& v,
                                                                      std::string (*expected)(),
                                                                      const char* context) {
  std::string got = ::ffihub::detail::type_key_of(v);
  release(v);
  std::string msg = *context != 0 ? std::string(context) + ": " : std::string();
  throw TypeError(msg + "expected " + expected() + ", got " + got, "<ffihub>", 0, "conversion");
}

/// Converts a borrowed value to T, throwing a TypeError that names `context` on mismatch.
template <typename T>
inline T cast_view(const TVMFFIAny& v, const char* context = "") {
  std::optional<T> out = Converter<T>::from_view(v);
  if (!out) ::ffihub::detail::throw_conversion_error(v, Converter<T>::type_name(), context);
  return std::move(*out);
}

/// Converts (consumes) an owned value to T; throws a TypeError (releasing the value) on mismatch.
template <typename T>
inline T cast_owned(TVMFFIAny& v, const char* context = "") {
  if constexpr (std::is_void_v<T>) {
    release(v);
  } else {
    std::optional<T> out = Converter<T>::from_owned(v);
    if (!out) ::ffihub::detail::throw_owned_conversion_error(v, &Converter<T>::type_name, context);
    return std::move(*out);
  }
}

struct AnyAccess;

}  // namespace detail

/**
 * A borrowed TVM-FFI value: 16 bytes that point into a C++ value or an Any without owning it.
 * Like std::string_view, it must not outlive what it views. Function arguments travel as views.
 */
class AnyView {
 public:
  AnyView() noexcept : data_(detail::none_any()) {}
  AnyView(const Any& value) noexcept;  // NOLINT: views are implicit
  template <typename T, typename D = std::decay_t<T>,
            typename = std::enable_if_t<detail::is_view_value_v<D>>>
  AnyView(const T& value) {  // NOLINT: views are implicit
    detail::Converter<D>::view(value, &data_);
  }
  /// A std::string viewed as a C string; throws ffihub::ValueError if it holds a NUL byte (a C
  /// string would end there: pass an ffihub::Any or ffihub::String to keep every byte).
  AnyView(const std::string& value);  // NOLINT: views are implicit

  int32_t type_index() const noexcept { return data_.type_index; }
  std::string type_key() const { return detail::type_key_of(data_); }
  bool is_none() const noexcept { return data_.type_index == kTVMFFINone; }

  /// The value as a T, or std::nullopt if it does not convert.
  template <typename T>
  std::optional<T> as() const {
    return detail::Converter<T>::from_view(data_);
  }
  /// The value as a T; throws ffihub::TypeError if it does not convert.
  template <typename T>
  T cast() const {
    return detail::cast_view<T>(data_);
  }

 private:
  friend struct detail::AnyAccess;
  TVMFFIAny data_;
};

/**
 * An owned TVM-FFI value of any kind: None, bool, int, float, string, bytes, data type, device,
 * opaque pointer or an object (copy = IncRef, move = steal, destroy = DecRef).
 *
 * Every C++ type with a conversion converts implicitly into an Any (`Any a = 42;`,
 * `Any s = "text";`, `Any p = point;`); getting a typed value back is explicit:
 * `a.as<int64_t>()` (std::optional) or `a.cast<int64_t>()` (throws ffihub::TypeError).
 */
class Any {
 public:
  Any() noexcept : data_(detail::none_any()) {}
  Any(const Any& other) noexcept : data_(other.data_) { detail::retain(data_); }
  Any(Any&& other) noexcept : data_(std::exchange(other.data_, detail::none_any())) {}
  /// An owned copy of a view (raw strings become string objects).
  explicit Any(const AnyView& view);
  template <typename T, typename D = std::decay_t<T>,
            typename = std::enable_if_t<detail::is_value_v<D>>>
  Any(T&& value)  // NOLINT: values convert implicitly
      : data_(make<D>(std::forward<T>(value))) {}
  Any& operator=(const Any& other) noexcept {
    Any(other).swap(*this);
    return *this;
  }
  Any& operator=(Any&& other) noexcept {
    Any(std::move(other)).swap(*this);
    return *this;
  }
  ~Any() { detail::release(data_); }

  int32_t type_index() const noexcept { return data_.type_index; }
  /// The type key of the value: "None", "int", "ffi.String", "demo.Point", ...
  std::string type_key() const { return detail::type_key_of(data_); }
  bool is_none() const noexcept { return data_.type_index == kTVMFFINone; }
  bool has_value() const noexcept { return !is_none(); }

  /// The value as a T, or std::nullopt if it does not convert.
  template <typename T>
  std::optional<T> as() const {
    return detail::Converter<T>::from_view(data_);
  }
  /// The value as a T; throws ffihub::TypeError if it does not convert.
  template <typename T>
  T cast() const {
    return detail::cast_view<T>(data_);
  }

  void swap(Any& other) noexcept { std::swap(data_, other.data_); }

 private:
  friend struct detail::AnyAccess;
  template <typename D, typename T>
  static TVMFFIAny make(T&& value) {
    if constexpr (std::is_base_of_v<ObjectRef, D> && std::is_rvalue_reference_v<T&&>) {
      // Steal the reference of an rvalue object wrapper.
      TVMFFIAny out = detail::none_any();
      TVMFFIObject* ptr = detail::ObjectAccess::release(value);
      if (ptr != nullptr) {
        out.type_index = ptr->type_index;
        out.v_obj = ptr;
      }
      return out;
    } else {
      return detail::Converter<D>::owned(value);
    }
  }
  TVMFFIAny data_;
};

namespace detail {

/// Internal access to the raw values of Any and AnyView.
struct AnyAccess {
  static const TVMFFIAny& raw(const Any& a) noexcept { return a.data_; }
  static const TVMFFIAny& raw(const AnyView& a) noexcept { return a.data_; }
  /// Adopts an owned raw value (takes the reference).
  static Any adopt(TVMFFIAny& owned) noexcept {
    Any out;
    out.data_ = std::exchange(owned, none_any());
    return out;
  }
  /// Views a raw value.
  static AnyView view(const TVMFFIAny& raw) noexcept {
    AnyView out;
    out.data_ = raw;
    return out;
  }
  /// Releases the value of an Any into a raw owned value.
  static TVMFFIAny release(Any& a) noexcept { return std::exchange(a.data_, none_any()); }
};

}  // namespace detail

inline AnyView::AnyView(const Any& value) noexcept : data_(detail::AnyAccess::raw(value)) {}

inline Any::Any(const AnyView& view) : data_(detail::none_any()) {
  detail::check_call(TVMFFIAnyViewToOwnedAny(&detail::AnyAccess::raw(view), &data_));
}

namespace detail {

// ---- Any and AnyView themselves ------------------------------------------------------------

template <>
struct Converter<Any> : ConverterBase<Any, Converter<Any>> {
  static void view(const Any& v, TVMFFIAny* out) noexcept { *out = AnyAccess::raw(v); }
  static TVMFFIAny owned(const Any& v) noexcept {
    TVMFFIAny out = AnyAccess::raw(v);
    ::ffihub::detail::retain(out);
    return out;
  }
  static bool check(const TVMFFIAny&) noexcept { return true; }
  static std::optional<Any> from_view(const TVMFFIAny& v) { return Any(AnyAccess::view(v)); }
  static std::optional<Any> from_owned(TVMFFIAny& v) noexcept { return AnyAccess::adopt(v); }
  static std::string type_name() { return "Any"; }
};

template <>
struct Converter<AnyView> : ConverterBase<AnyView, Converter<AnyView>> {
  static void view(const AnyView& v, TVMFFIAny* out) noexcept { *out = AnyAccess::raw(v); }
  static TVMFFIAny owned(const AnyView& v) {
    Any copy(v);
    return AnyAccess::release(copy);
  }
  static bool check(const TVMFFIAny&) noexcept { return true; }
  static std::optional<AnyView> from_view(const TVMFFIAny& v) noexcept {
    return AnyAccess::view(v);
  }
  static std::string type_name() { return "Any"; }
};

// ---- None ------------------------------------------------------------------------------------

template <>
struct Converter<std::nullptr_t> : ConverterBase<std::nullptr_t, Converter<std::nullptr_t>> {
  static void view(std::nullptr_t, TVMFFIAny* out) noexcept { *out = none_any(); }
  static TVMFFIAny owned(std::nullptr_t) noexcept { return none_any(); }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFINone; }
  static std::optional<std::nullptr_t> from_view(const TVMFFIAny& v) noexcept {
    if (v.type_index == kTVMFFINone) return std::optional<std::nullptr_t>(nullptr);
    return std::nullopt;
  }
  static std::string type_name() { return "None"; }
};

template <>
struct Converter<std::nullopt_t> {
  static constexpr bool enabled = true;
  static constexpr bool borrows = true;
  static void view(std::nullopt_t, TVMFFIAny* out) noexcept { *out = none_any(); }
  static TVMFFIAny owned(std::nullopt_t) noexcept { return none_any(); }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFINone; }
  static std::string type_name() { return "None"; }
};

// ---- bool, integers, floats ------------------------------------------------------------------

template <>
struct Converter<bool> : ConverterBase<bool, Converter<bool>> {
  static void view(bool v, TVMFFIAny* out) noexcept {
    *out = none_any();
    out->type_index = kTVMFFIBool;
    out->v_int64 = v ? 1 : 0;
  }
  static TVMFFIAny owned(bool v) noexcept {
    TVMFFIAny out;
    view(v, &out);
    return out;
  }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIBool; }
  static std::optional<bool> from_view(const TVMFFIAny& v) noexcept {
    if (v.type_index == kTVMFFIBool || v.type_index == kTVMFFIInt) return v.v_int64 != 0;
    return std::nullopt;
  }
  static std::string type_name() { return "bool"; }
};

template <typename T>
inline constexpr bool is_integer_v =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
    !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t>;

/// A ValueError for an unsigned value above INT64_MAX (out of line: the cold path).
[[noreturn]] FFIHUB_NOINLINE inline void throw_int_overflow(uint64_t v) {
  throw ValueError("the integer " + std::to_string(v) + " does not fit in a TVM-FFI int (int64)",
                   "<ffihub>", 0, "conversion");
}

template <typename T>
struct Converter<T, std::enable_if_t<is_integer_v<T>>> : ConverterBase<T, Converter<T>> {
  /// Only unsigned types of 64 bits can hold values that int64 cannot.
  static constexpr bool may_overflow = std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t);
  static void view(T v, TVMFFIAny* out) noexcept(!may_overflow) {
    if constexpr (may_overflow) {
      if (v > static_cast<T>(std::numeric_limits<int64_t>::max())) throw_int_overflow(v);
    }
    out->type_index = kTVMFFIInt;
    out->zero_padding = 0;
    out->v_int64 = static_cast<int64_t>(v);
  }
  static TVMFFIAny owned(T v) noexcept(!may_overflow) {
    TVMFFIAny out;
    view(v, &out);
    return out;
  }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIInt; }
  static std::optional<T> from_view(const TVMFFIAny& v) noexcept {
    if (v.type_index != kTVMFFIInt && v.type_index != kTVMFFIBool) return std::nullopt;
    int64_t x = v.v_int64;
    if constexpr (std::is_signed_v<T>) {
      if (x < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          x > static_cast<int64_t>(std::numeric_limits<T>::max())) {
        return std::nullopt;
      }
    } else {
      if (x < 0 || static_cast<uint64_t>(x) > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        return std::nullopt;
      }
    }
    return static_cast<T>(x);
  }
  static std::string type_name() { return "int"; }
};

template <typename T>
struct Converter<T, std::enable_if_t<std::is_floating_point_v<T>>>
    : ConverterBase<T, Converter<T>> {
  static void view(T v, TVMFFIAny* out) noexcept {
    out->type_index = kTVMFFIFloat;
    out->zero_padding = 0;
    out->v_float64 = static_cast<double>(v);
  }
  static TVMFFIAny owned(T v) noexcept {
    TVMFFIAny out;
    view(v, &out);
    return out;
  }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIFloat; }
  static std::optional<T> from_view(const TVMFFIAny& v) noexcept {
    if (v.type_index == kTVMFFIFloat) return static_cast<T>(v.v_float64);
    if (v.type_index == kTVMFFIInt || v.type_index == kTVMFFIBool) {
      return static_cast<T>(v.v_int64);
    }
    return std::nullopt;
  }
  static std::string type_name() { return "float"; }
};

// ---- opaque pointers, data types, devices ----------------------------------------------------

template <>
struct Converter<void*> : ConverterBase<void*, Converter<void*>> {
  static void view(void* v, TVMFFIAny* out) noexcept {
    *out = none_any();
    if (v != nullptr) {
      out->type_index = kTVMFFIOpaquePtr;
      out->v_ptr = v;
    }
  }
  static TVMFFIAny owned(void* v) noexcept {
    TVMFFIAny out;
    view(v, &out);
    return out;
  }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIOpaquePtr; }
  static std::optional<void*> from_view(const TVMFFIAny& v) noexcept {
    if (v.type_index == kTVMFFIOpaquePtr) return v.v_ptr;
    if (v.type_index == kTVMFFINone) return std::optional<void*>(nullptr);
    return std::nullopt;
  }
  static std::string type_name() { return "void*"; }
};

template <>
struct Converter<DLDataType> : ConverterBase<DLDataType, Converter<DLDataType>> {
  static void view(DLDataType v, TVMFFIAny* out) noexcept {
    *out = none_any();
    out->type_index = kTVMFFIDataType;
    out->v_dtype = v;
  }
  static TVMFFIAny owned(DLDataType v) noexcept {
    TVMFFIAny out;
    view(v, &out);
    return out;
  }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIDataType; }
  static std::optional<DLDataType> from_view(const TVMFFIAny& v) noexcept {
    if (v.type_index == kTVMFFIDataType) return v.v_dtype;
    std::string_view text;
    if ((v.type_index == kTVMFFISmallStr || v.type_index == kTVMFFIStr ||
         v.type_index == kTVMFFIRawStr) &&
        bytes_view(v, &text)) {
      TVMFFIByteArray b = ::ffihub::detail::byte_array(text);
      DLDataType out;
      if (TVMFFIDataTypeFromString(&b, &out) == 0) return out;
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      if (err != nullptr) TVMFFIObjectDecRef(err);
    }
    return std::nullopt;
  }
  static std::string type_name() { return "DataType"; }
};

template <>
struct Converter<DLDevice> : ConverterBase<DLDevice, Converter<DLDevice>> {
  static void view(DLDevice v, TVMFFIAny* out) noexcept {
    *out = none_any();
    out->type_index = kTVMFFIDevice;
    out->v_device = v;
  }
  static TVMFFIAny owned(DLDevice v) noexcept {
    TVMFFIAny out;
    view(v, &out);
    return out;
  }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIDevice; }
  static std::optional<DLDevice> from_view(const TVMFFIAny& v) noexcept {
    if (v.type_index == kTVMFFIDevice) return v.v_device;
    return std::nullopt;
  }
  static std::string type_name() { return "Device"; }
};

// ---- strings -----------------------------------------------------------------------------------

/// A new owned string value (inline small string for up to 7 bytes).
inline TVMFFIAny make_string(std::string_view s) {
  TVMFFIAny out = none_any();
  TVMFFIByteArray b = ::ffihub::detail::byte_array(s);
  ::ffihub::detail::check_call(TVMFFIStringFromByteArray(&b, &out));
  return out;
}

/// A new owned bytes value.
inline TVMFFIAny make_bytes(std::string_view s) {
  TVMFFIAny out = none_any();
  TVMFFIByteArray b = ::ffihub::detail::byte_array(s);
  ::ffihub::detail::check_call(TVMFFIBytesFromByteArray(&b, &out));
  return out;
}

inline bool is_string_index(int32_t i) noexcept {
  return i == kTVMFFISmallStr || i == kTVMFFIStr || i == kTVMFFIRawStr;
}

/// Views `v` as a C string (no copy) unless it holds a NUL byte, which would end the C string
/// early; returns whether it did.
inline bool view_c_string(const std::string& v, TVMFFIAny* out) noexcept {
  if (std::memchr(v.data(), 0, v.size()) != nullptr) return false;
  out->type_index = kTVMFFIRawStr;
  out->zero_padding = 0;
  out->v_c_str = v.c_str();
  return true;
}

/// std::string: an argument is viewed as a C string when it has no NUL byte and passed as a new
/// string value otherwise (see ArgSlot<std::string>), so its length always holds.
template <>
struct Converter<std::string> : ConverterBase<std::string, Converter<std::string>> {
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const std::string& v) { return make_string(v); }
  static bool check(const TVMFFIAny& v) noexcept {
    return v.type_index == kTVMFFISmallStr || v.type_index == kTVMFFIStr;
  }
  static std::optional<std::string> from_view(const TVMFFIAny& v) {
    std::string_view s;
    if (::ffihub::detail::is_string_index(v.type_index) && bytes_view(v, &s)) return std::string(s);
    return std::nullopt;
  }
  static std::string type_name() { return "str"; }
};

template <>
struct Converter<const char*> {
  static constexpr bool enabled = true;
  static constexpr bool borrows = true;
  static void view(const char* v, TVMFFIAny* out) noexcept {
    out->type_index = kTVMFFIRawStr;
    out->zero_padding = 0;
    out->v_c_str = v;
  }
  static TVMFFIAny owned(const char* v) { return make_string(v); }
  static bool check(const TVMFFIAny& v) noexcept { return Converter<std::string>::check(v); }
  static std::string type_name() { return "str"; }
};

template <>
struct Converter<char*> : Converter<const char*> {};

}  // namespace detail

inline AnyView::AnyView(const std::string& value) : data_(detail::none_any()) {
  if (!detail::view_c_string(value, &data_)) {
    throw ValueError("a std::string with a NUL byte cannot be viewed as a C string; pass an "
                     "ffihub::Any or ffihub::String instead",
                     "<ffihub>", 0, "conversion");
  }
}

namespace detail {

/// string_view: borrowed from strings when read (valid while the viewed value lives); passed as
/// a new string value (it need not be NUL-terminated).
template <>
struct Converter<std::string_view> {
  static constexpr bool enabled = true;
  static constexpr bool borrows = false;
  static TVMFFIAny owned(std::string_view v) { return make_string(v); }
  static bool check(const TVMFFIAny& v) noexcept { return Converter<std::string>::check(v); }
  static std::optional<std::string_view> from_view(const TVMFFIAny& v) noexcept {
    std::string_view s;
    if (::ffihub::detail::is_string_index(v.type_index) && bytes_view(v, &s)) return s;
    return std::nullopt;
  }
  static std::string type_name() { return "str"; }
};

// ---- Optional and Variant ------------------------------------------------------------------

template <typename T>
struct Converter<std::optional<T>> : ConverterBase<std::optional<T>, Converter<std::optional<T>>> {
  static constexpr bool borrows = Converter<T>::borrows;
  static void view(const std::optional<T>& v, TVMFFIAny* out) {
    if (v) {
      Converter<T>::view(*v, out);
    } else {
      *out = none_any();
    }
  }
  static TVMFFIAny owned(const std::optional<T>& v) {
    return v ? Converter<T>::owned(*v) : none_any();
  }
  static bool check(const TVMFFIAny& v) {
    return v.type_index == kTVMFFINone || Converter<T>::check(v);
  }
  static std::optional<std::optional<T>> from_view(const TVMFFIAny& v) {
    if (v.type_index == kTVMFFINone) return std::optional<std::optional<T>>(std::in_place);
    std::optional<T> inner = Converter<T>::from_view(v);
    if (!inner) return std::nullopt;
    return std::optional<std::optional<T>>(std::move(inner));
  }
  static std::optional<std::optional<T>> from_owned(TVMFFIAny& v) {
    if (v.type_index == kTVMFFINone) return std::optional<std::optional<T>>(std::in_place);
    std::optional<T> inner = Converter<T>::from_owned(v);
    if (!inner) return std::nullopt;
    return std::optional<std::optional<T>>(std::move(inner));
  }
  static std::string type_name() { return "Optional[" + Converter<T>::type_name() + "]"; }
};

template <typename... Ts>
struct Converter<std::variant<Ts...>>
    : ConverterBase<std::variant<Ts...>, Converter<std::variant<Ts...>>> {
  using V = std::variant<Ts...>;
  static constexpr bool borrows = (Converter<Ts>::borrows && ...);
  static void view(const V& v, TVMFFIAny* out) {
    *out = none_any();
    view_member(v, out, std::index_sequence_for<Ts...>{});
  }
  static TVMFFIAny owned(const V& v) { return owned_member(v, std::index_sequence_for<Ts...>{}); }
  static bool check(const TVMFFIAny& v) { return (Converter<Ts>::check(v) || ...); }
  static std::optional<V> from_view(const TVMFFIAny& v) {
    std::optional<V> out;
    // A member of exactly the value's kind first, then the first member it converts to.
    (void)((Converter<Ts>::check(v) && (out = try_member<Ts>(v), out.has_value())) || ...);
    if (!out) {
      (void)((out = try_member<Ts>(v), out.has_value()) || ...);
    }
    return out;
  }
  static std::string type_name() {
    std::string out = "Variant[";
    bool first = true;
    ((out += (first ? "" : ", ") + Converter<Ts>::type_name(), first = false), ...);
    return out + "]";
  }

 private:
  // Dispatch on the index with get_if (not std::visit, whose jump table makes GCC 12 report
  // false -Wmaybe-uninitialized warnings in callers).
  template <std::size_t... I>
  static void view_member(const V& v, TVMFFIAny* out, std::index_sequence<I...>) {
    (void)((std::get_if<I>(&v) != nullptr &&
            (Converter<std::variant_alternative_t<I, V>>::view(*std::get_if<I>(&v), out), true)) ||
           ...);
  }
  template <std::size_t... I>
  static TVMFFIAny owned_member(const V& v, std::index_sequence<I...>) {
    TVMFFIAny out = none_any();
    (void)((std::get_if<I>(&v) != nullptr &&
            (out = Converter<std::variant_alternative_t<I, V>>::owned(*std::get_if<I>(&v)), true)) ||
           ...);
    return out;
  }
  template <typename M>
  static std::optional<V> try_member(const TVMFFIAny& v) {
    std::optional<M> m = Converter<M>::from_view(v);
    if (!m) return std::nullopt;
    return V(std::in_place_type<M>, std::move(*m));
  }
};

// ---- objects ---------------------------------------------------------------------------------

/// The runtime type index of wrapper T (looked up from T::type_key once).
template <typename T>
inline int32_t type_index_of() {
  static const int32_t index = [] {
    std::string_view key = T::type_key;
    TVMFFIByteArray b = ::ffihub::detail::byte_array(key);
    int32_t out = -1;
    if (TVMFFITypeKeyToIndex(&b, &out) != 0) {
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      if (err != nullptr) TVMFFIObjectDecRef(err);
      throw TypeError("type " + std::string(key) +
                          " is not registered (is the library that defines it loaded?)",
                      "<ffihub>", 0, "type lookup");
    }
    return out;
  }();
  return index;
}

/// Wrappers may check their content beyond the type (Array<T> checks its elements):
/// `static bool ffi_accepts(TVMFFIObject*)`.
template <typename T, typename = void>
struct has_accepts : std::false_type {};
template <typename T>
struct has_accepts<T, std::void_t<decltype(T::ffi_accepts(std::declval<TVMFFIObject*>()))>>
    : std::true_type {};

/// Whether `obj` (not null) can be wrapped as a T.
template <typename T>
inline bool accepts(TVMFFIObject* obj) {
  if (!::ffihub::detail::is_instance_of(obj->type_index, type_index_of<T>())) return false;
  if constexpr (has_accepts<T>::value) {
    return T::ffi_accepts(obj);
  } else {
    return true;
  }
}

template <typename T>
struct Converter<T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>>>
    : ConverterBase<T, Converter<T>> {
  static void view(const T& v, TVMFFIAny* out) noexcept {
    TVMFFIObject* ptr = ::ffihub::detail::handle(v);
    *out = none_any();
    if (ptr != nullptr) {
      out->type_index = ptr->type_index;
      out->v_obj = ptr;
    }
  }
  static TVMFFIAny owned(const T& v) noexcept {
    TVMFFIAny out;
    view(v, &out);
    ::ffihub::detail::retain(out);
    return out;
  }
  static bool check(const TVMFFIAny& v) {
    return is_object_index(v.type_index) && accepts<T>(v.v_obj);
  }
  static std::optional<T> from_view(const TVMFFIAny& v) {
    if (is_object_index(v.type_index)) {
      if (!accepts<T>(v.v_obj)) return std::nullopt;
      return borrow_as<T>(v.v_obj);
    }
    if constexpr (std::is_same_v<T, ObjectRef>) {
      if (v.type_index == kTVMFFINone) return std::optional<T>(std::in_place);
    }
    return std::nullopt;
  }
  static std::optional<T> from_owned(TVMFFIAny& v) {
    if (is_object_index(v.type_index) && accepts<T>(v.v_obj)) {
      TVMFFIObject* ptr = std::exchange(v, none_any()).v_obj;
      return T(Owned{ptr});
    }
    std::optional<T> out = from_view(v);
    if (out) release(v);
    return out;
  }
  static std::string type_name() { return T::type_key; }
};

template <>
struct Converter<Error> : ConverterBase<Error, Converter<Error>> {
  static void view(const Error& v, TVMFFIAny* out) noexcept {
    Converter<ObjectRef>::view(v.object(), out);
  }
  static TVMFFIAny owned(const Error& v) noexcept { return Converter<ObjectRef>::owned(v.object()); }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIError; }
  static std::optional<Error> from_view(const TVMFFIAny& v) {
    if (v.type_index != kTVMFFIError) return std::nullopt;
    TVMFFIObjectIncRef(v.v_obj);
    return Error(Owned{v.v_obj});
  }
  static std::string type_name() { return "ffi.Error"; }
};

}  // namespace detail

template <typename T>
std::optional<T> ObjectRef::as() const {
  if (ptr_ == nullptr || !detail::accepts<T>(ptr_)) return std::nullopt;
  return detail::borrow_as<T>(ptr_);
}

template <typename T>
T ObjectRef::downcast() const {
  std::optional<T> out = as<T>();
  if (!out) {
    throw TypeError("cannot downcast " + runtime_type_key() + " to " + std::string(T::type_key),
                    "<ffihub>", 0, "downcast");
  }
  return std::move(*out);
}

}  // namespace ffihub
