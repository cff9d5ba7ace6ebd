// ffihub C++ support: the basics shared by every other header (C ABI, raw Any helpers).
//
// Everything here talks to the runtime only through the TVM-FFI C ABI (<tvm/ffi/c_api.h>), so
// the same program runs on ffihub's libtvm_ffi.so and on Apache's. Names in `ffihub::detail`
// are internal: they may change without notice.
#pragma once

#include <tvm/ffi/c_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#if defined(__GNUC__) || defined(__clang__)
#define FFIHUB_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define FFIHUB_NOINLINE __declspec(noinline)
#else
#define FFIHUB_NOINLINE
#endif

namespace ffihub {

class Any;
class AnyView;
class ObjectRef;
class Error;
class Function;

namespace detail {

/// An owned object pointer handed to a wrapper's constructor (the wrapper takes the reference).
/// Generated classes forward it to their base; user code never needs it.
struct Owned {
  TVMFFIObject* ptr;
};

/// A TVMFFIAny holding None.
inline TVMFFIAny none_any() noexcept {
  TVMFFIAny a;
  std::memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFINone;
  return a;
}

/// Whether a type index denotes a heap object (refcounted).
inline bool is_object_index(int32_t type_index) noexcept {
  return type_index >= kTVMFFIStaticObjectBegin;
}

/// Releases the reference an owned TVMFFIAny holds (if it holds an object) and resets it to None.
inline void release(TVMFFIAny& a) noexcept {
  if (is_object_index(a.type_index) && a.v_obj != nullptr) {
    TVMFFIObjectDecRef(a.v_obj);
  }
  a = none_any();
}

/// Adds a reference to the object a TVMFFIAny holds, if any.
inline void retain(const TVMFFIAny& a) noexcept {
  if (is_object_index(a.type_index) && a.v_obj != nullptr) {
    TVMFFIObjectIncRef(a.v_obj);
  }
}

inline TVMFFIByteArray byte_array(std::string_view s) noexcept {
  TVMFFIByteArray b;
  b.data = s.data();
  b.size = s.size();
  return b;
}

inline std::string_view view_of(const TVMFFIByteArray& b) noexcept {
  return b.size == 0 ? std::string_view() : std::string_view(b.data, b.size);
}

/// The bytes of a string or bytes value (small, heap or raw), viewed without a copy.
inline bool bytes_view(const TVMFFIAny& a, std::string_view* out) noexcept {
  switch (a.type_index) {
    case kTVMFFISmallStr:
    case kTVMFFISmallBytes:
      *out = std::string_view(a.v_bytes, a.small_str_len);
      return true;
    case kTVMFFIStr:
    case kTVMFFIBytes:
      *out = view_of(*TVMFFIBytesGetByteArrayPtr(a.v_obj));
      return true;
    case kTVMFFIRawStr:
      *out = std::string_view(a.v_c_str);
      return true;
    case kTVMFFIByteArrayPtr:
      *out = view_of(*static_cast<const TVMFFIByteArray*>(a.v_ptr));
      return true;
    default:
      return false;
  }
}

/// The type key of a type index ("int", "ffi.String", "demo.Point", ...).
inline std::string type_key_of_index(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr) {
    return "<type index " + std::to_string(type_index) + ">";
  }
  return std::string(::ffihub::detail::view_of(info->type_key));
}

/// The type key of the value held by `a`.
inline std::string type_key_of(const TVMFFIAny& a) {
  if (is_object_index(a.type_index) && a.v_obj != nullptr) {
    return type_key_of_index(a.v_obj->type_index);
  }
  return type_key_of_index(a.type_index);
}

/// Whether an object of runtime type `type_index` is an instance of `target` (itself or a
/// subclass), using the ancestor table of the type registry.
inline bool is_instance_of(int32_t type_index, int32_t target) noexcept {
  if (type_index == target || target == kTVMFFIObject) {
    return true;
  }
  const TVMFFITypeInfo* want = TVMFFIGetTypeInfo(target);
  const TVMFFITypeInfo* have = TVMFFIGetTypeInfo(type_index);
  if (want == nullptr || have == nullptr || have->type_depth <= want->type_depth) {
    return false;
  }
  const TVMFFITypeInfo* ancestor = have->type_ancestors[want->type_depth];
  return ancestor != nullptr && ancestor->type_index == target;
}

/// Calls `f(std::integral_constant<size_t, I>{})` for I in [0, N).
template <typename F, std::size_t... I>
inline void for_each_index(F&& f, std::index_sequence<I...>) {
  (f(std::integral_constant<std::size_t, I>{}), ...);
}

/// 64-bit FNV-1a, the hash of ffihub's metadata checksums.
inline uint64_t fnv1a64(std::string_view text) noexcept {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace detail
}  // namespace ffihub
