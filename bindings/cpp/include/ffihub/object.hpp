// ffihub C++ support: ObjectRef, the refcounted handle every object wrapper derives from.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "base.hpp"

namespace ffihub {

namespace detail {
struct ObjectAccess;
}  // namespace detail

/**
 * A counted reference to a TVM-FFI object: copy = IncRef, move = steal, destroy = DecRef.
 *
 * A default-constructed (or moved-from) ObjectRef is empty (`defined()` is false). Wrappers of
 * specific types (generated classes, Array, Function, ...) derive from it and are never empty
 * unless moved from. `as<T>()` is a checked downcast returning std::nullopt on mismatch,
 * `downcast<T>()` throws a TypeError instead.
 */
class ObjectRef {
 public:
  /// The type key of this wrapper (subclasses redefine it).
  static constexpr const char* type_key = "ffi.Object";
  /// The static type index of builtin wrappers (-1 for types looked up by key).
  static constexpr int32_t static_type_index = kTVMFFIObject;

  ObjectRef() noexcept = default;
  explicit ObjectRef(detail::Owned owned) noexcept : ptr_(owned.ptr) {}
  ObjectRef(const ObjectRef& other) noexcept : ptr_(other.ptr_) {
    if (ptr_ != nullptr) {
      TVMFFIObjectIncRef(ptr_);
    }
  }
  ObjectRef(ObjectRef&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  ObjectRef& operator=(const ObjectRef& other) noexcept {
    ObjectRef(other).swap(*this);
    return *this;
  }
  ObjectRef& operator=(ObjectRef&& other) noexcept {
    ObjectRef(std::move(other)).swap(*this);
    return *this;
  }
  ~ObjectRef() {
    if (ptr_ != nullptr) {
      TVMFFIObjectDecRef(ptr_);
    }
  }

  /// Whether this reference holds an object.
  bool defined() const noexcept { return ptr_ != nullptr; }
  explicit operator bool() const noexcept { return defined(); }

  /// The runtime type index of the object (-1 when empty).
  int32_t type_index() const noexcept { return ptr_ != nullptr ? ptr_->type_index : -1; }

  /// The runtime type key of the object ("demo.Point3D"); "None" when empty.
  std::string runtime_type_key() const {
    return ptr_ != nullptr ? detail::type_key_of_index(ptr_->type_index) : "None";
  }

  /// Whether both references point to the same object.
  bool same_as(const ObjectRef& other) const noexcept { return ptr_ == other.ptr_; }

  /// The object's strong reference count (for tests and debugging).
  uint32_t use_count() const noexcept {
    return ptr_ != nullptr ? static_cast<uint32_t>(ptr_->combined_ref_count & 0xffffffffu) : 0;
  }

  /// A reference of type T if the object is a T (or a subclass), else std::nullopt.
  template <typename T>
  std::optional<T> as() const;

  /// A reference of type T; throws ffihub::TypeError if the object is not a T.
  template <typename T>
  T downcast() const;

 protected:
  void swap(ObjectRef& other) noexcept { std::swap(ptr_, other.ptr_); }

 private:
  friend struct detail::ObjectAccess;
  TVMFFIObject* ptr_ = nullptr;
};

namespace detail {

/// Internal access to the handle of an ObjectRef.
struct ObjectAccess {
  static TVMFFIObject* get(const ObjectRef& ref) noexcept { return ref.ptr_; }
  static TVMFFIObject* release(ObjectRef& ref) noexcept { return std::exchange(ref.ptr_, nullptr); }
};

inline TVMFFIObject* handle(const ObjectRef& ref) noexcept { return ObjectAccess::get(ref); }

/// A new reference of wrapper type T to `ptr` (IncRef).
template <typename T>
inline T borrow_as(TVMFFIObject* ptr) {
  TVMFFIObjectIncRef(ptr);
  return T(Owned{ptr});
}

}  // namespace detail
}  // namespace ffihub
