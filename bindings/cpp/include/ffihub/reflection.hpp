// ffihub C++ support: reflection. Fields are read and written through the getters and setters
// of the type registry, methods are the registry's functions (dispatched on the object's runtime
// type), constructors are `__ffi_init__`. Generated classes are built on the `detail` part;
// the free functions at the end do the same for code that works with names at run time.
#pragma once

#include <deque>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metadata.hpp"

namespace ffihub {
namespace detail {

inline constexpr char kGetKwargsObject[] = "ffi.GetKwargsObject";
inline constexpr char kReprPrint[] = "ffi.ReprPrint";

/// The type index of a registered type key; throws ffihub::TypeError if there is none.
inline int32_t required_type_index(std::string_view key) {
  int32_t index = find_type_index(key);
  if (index < 0) {
    throw TypeError("type " + std::string(key) +
                    " is not registered (is the library that defines it loaded?)");
  }
  return index;
}

/// The type infos of a type and its ancestors, most derived first.
inline std::vector<const TVMFFITypeInfo*> type_chain(int32_t type_index) {
  std::vector<const TVMFFITypeInfo*> out;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr) return out;
  out.push_back(info);
  for (int32_t d = info->type_depth; d-- > 0;) out.push_back(info->type_ancestors[d]);
  return out;
}

/// A field of a type or of one of its ancestors (most derived declaration first).
inline const TVMFFIFieldInfo* find_field(int32_t type_index, std::string_view name) {
  for (const TVMFFITypeInfo* info : type_chain(type_index)) {
    if (const TVMFFIFieldInfo* f = own_field(info, name)) return f;
  }
  return nullptr;
}

/// A method of a type or of one of its ancestors (most derived declaration first).
inline const TVMFFIMethodInfo* find_method(int32_t type_index, std::string_view name) {
  for (const TVMFFITypeInfo* info : type_chain(type_index)) {
    if (const TVMFFIMethodInfo* m = own_method(info, name)) return m;
  }
  return nullptr;
}

inline Function method_function(const TVMFFIMethodInfo& m) {
  return cast_view<Function>(m.method, "method");
}

/**
 * A reflected field: reads through the registry's getter (an owned value) and writes through
 * its setter (a C setter, or a setter function when the field says so).
 */
class Field {
 public:
  /// The field `name` of `type_key` (after the library check of generated code).
  Field(const Library& lib, const char* type_key, const char* name) : name_(name) {
    lib.ensure_checked();
    init(required_type_index(type_key), type_key);
  }
  Field(int32_t type_index, std::string_view name) : name_(name) {
    init(type_index, type_key_of_index(type_index));
  }

  template <typename T>
  T get(const ObjectRef& obj) const {
    if (info_->getter == nullptr) {
      throw AttributeError("field " + name_ + " has no getter");
    }
    TVMFFIAny out = none_any();
    check_call(info_->getter(address(obj), &out));
    return cast_owned<T>(out, name_.c_str());
  }

  template <typename V>
  void set(const ObjectRef& obj, const V& value) const {
    PackedCall<V> packed(value);
    set_raw(obj, packed.values[0]);
  }

  const std::string& name() const noexcept { return name_; }

 private:
  void set_raw(const ObjectRef& obj, const TVMFFIAny& raw) const {
    if ((info_->flags & kTVMFFIFieldFlagBitMaskWritable) == 0 || info_->setter == nullptr) {
      throw AttributeError("field " + name_ + " is read-only");
    }
    if (info_->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
      Function setter = borrow_as<Function>(static_cast<TVMFFIObject*>(info_->setter));
      setter.call<void>(address(obj), AnyAccess::view(raw));
    } else {
      auto setter = reinterpret_cast<TVMFFIFieldSetter>(info_->setter);
      check_call(setter(address(obj), &raw));
    }
  }
  void init(int32_t type_index, std::string_view type_key) {
    info_ = find_field(type_index, name_);
    if (info_ == nullptr) {
      throw AttributeError(std::string(type_key) + " has no field " + name_);
    }
  }
  void* address(const ObjectRef& obj) const {
    TVMFFIObject* ptr = handle(obj);
    if (ptr == nullptr) throw ValueError("field " + name_ + " of an empty reference");
    return reinterpret_cast<char*>(ptr) + info_->offset;
  }

  std::string name_;
  const TVMFFIFieldInfo* info_ = nullptr;
};

/**
 * A reflected instance method, dispatched on the receiver's runtime type: a subclass that
 * overrides the method gets its own version.
 */
class Method {
 public:
  Method(const Library& lib, const char* type_key, const char* name) : name_(name) {
    lib.ensure_checked();
    type_index_ = required_type_index(type_key);
    const TVMFFIMethodInfo* m = find_method(type_index_, name_);
    if (m == nullptr) throw AttributeError(std::string(type_key) + " has no method " + name_);
    declared_ = method_function(*m);
  }

  template <typename R, typename... A>
  R call(const ObjectRef& self, A&&... args) const {
    return resolve(self).template call<R>(self, std::forward<A>(args)...);
  }

 private:
  const Function& resolve(const ObjectRef& self) const {
    int32_t index = self.type_index();
    if (index == type_index_ || index < 0) return *declared_;
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : overrides_) {
      if (entry.first == index) return entry.second;
    }
    const TVMFFIMethodInfo* m = find_method(index, name_);
    overrides_.emplace_back(index, m != nullptr ? method_function(*m) : *declared_);
    return overrides_.back().second;
  }

  std::string name_;
  int32_t type_index_ = -1;
  std::optional<Function> declared_;
  mutable std::mutex mutex_;
  // Never erased, and a deque keeps references valid when it grows.
  mutable std::deque<std::pair<int32_t, Function>> overrides_;
};

/// A static method of a type (after the library check of generated code).
inline Function static_method(const Library& lib, const char* type_key, const char* name) {
  lib.ensure_checked();
  int32_t index = required_type_index(type_key);
  const TVMFFIMethodInfo* m = find_method(index, name);
  if (m == nullptr) {
    throw AttributeError(std::string(type_key) + " has no static method " + name);
  }
  return method_function(*m);
}

/// A global function (after the library check of generated code).
inline Function global_function(const Library& lib, const char* name) {
  lib.ensure_checked();
  return Function::get_global_required(name);
}

/// The `__ffi_init__` of a type: its own static method, else its `__ffi_init__` attribute.
inline Function init_function(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (const TVMFFIMethodInfo* m = own_method(info, "__ffi_init__")) return method_function(*m);
  if (const TVMFFIAny* attr = init_attribute(type_index)) return cast_view<Function>(*attr, "__ffi_init__");
  throw TypeError(type_key_of_index(type_index) + " has no __ffi_init__ constructor");
}

/// The constructor of wrapper class T (looked up once).
template <typename T>
inline const Function& constructor_of(const Library& lib) {
  static const Function init = [&lib] {
    lib.ensure_checked();
    return init_function(required_type_index(T::type_key));
  }();
  return init;
}

/// The `ffi.GetKwargsObject()` marker: in a packed argument list, the arguments after it are
/// name/value pairs.
inline const Any& kwargs_marker() {
  static const Any marker = builtin<kGetKwargsObject>()();
  return marker;
}

/// Arguments of a constructor call: positional ones, then keyword ones.
class Kwargs {
 public:
  template <typename V>
  Kwargs& positional(const V& value) {
    positional_.emplace_back(value);
    return *this;
  }
  template <typename V>
  Kwargs& add(const char* name, const V& value) {
    keywords_.emplace_back(name);
    keywords_.emplace_back(value);
    return *this;
  }
  /// Passes `value` by keyword only if it is set (the field's default applies otherwise).
  template <typename V>
  Kwargs& add_optional(const char* name, const std::optional<V>& value) {
    if (value) add(name, *value);
    return *this;
  }
  std::vector<Any> packed() const {
    std::vector<Any> out = positional_;
    if (!keywords_.empty()) {
      out.push_back(kwargs_marker());
      out.insert(out.end(), keywords_.begin(), keywords_.end());
    }
    return out;
  }

 private:
  std::vector<Any> positional_;
  std::vector<Any> keywords_;
};

/// Constructs a T with positional arguments.
template <typename T, typename... A>
inline T construct(const Library& lib, A&&... args) {
  return constructor_of<T>(lib).template call<T>(std::forward<A>(args)...);
}

/// Constructs a T with positional and keyword arguments.
template <typename T>
inline T construct_kw(const Library& lib, const Kwargs& args) {
  Any result = constructor_of<T>(lib).call_packed(args.packed());
  TVMFFIAny raw = AnyAccess::release(result);
  return cast_owned<T>(raw, "constructor result");
}

}  // namespace detail

// ---- reflection by name ----------------------------------------------------------------------

/// Reads the field `name` of `obj` (its own or inherited).
template <typename T = Any>
inline T get_field(const ObjectRef& obj, std::string_view name) {
  return detail::Field(obj.type_index(), name).get<T>(obj);
}

/// Writes the writable field `name` of `obj`; throws ffihub::AttributeError if it is read-only.
inline void set_field(const ObjectRef& obj, std::string_view name, const Any& value) {
  detail::Field(obj.type_index(), name).set(obj, value);
}

/// The names of the fields of `obj`'s type, inherited ones first.
inline std::vector<std::string> field_names(const ObjectRef& obj) {
  std::vector<std::string> out;
  std::vector<const TVMFFITypeInfo*> chain = detail::type_chain(obj.type_index());
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    for (int32_t i = 0; i < (*it)->num_fields; ++i) {
      out.emplace_back(detail::view_of((*it)->fields[i].name));
    }
  }
  return out;
}

/// Calls method `name` of `obj` (instance methods get `obj` first; static ones do not).
template <typename R = Any, typename... A>
inline R call_method(const ObjectRef& obj, std::string_view name, A&&... args) {
  const TVMFFIMethodInfo* m = detail::find_method(obj.type_index(), name);
  if (m == nullptr) {
    throw AttributeError(obj.runtime_type_key() + " has no method " + std::string(name));
  }
  Function f = detail::method_function(*m);
  if (m->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod) {
    return f.call<R>(std::forward<A>(args)...);
  }
  return f.call<R>(obj, std::forward<A>(args)...);
}

/// Constructs an object of type `type_key` with its `__ffi_init__` (positional arguments).
template <typename T = ObjectRef, typename... A>
inline T construct(std::string_view type_key, A&&... args) {
  return detail::init_function(detail::required_type_index(type_key))
      .call<T>(std::forward<A>(args)...);
}

/// The text form of a value (`ffi.ReprPrint`).
inline std::string repr(const Any& value) {
  return detail::builtin<detail::kReprPrint>().call<std::string>(value);
}

inline std::ostream& operator<<(std::ostream& os, const Any& value) { return os << repr(value); }
inline std::ostream& operator<<(std::ostream& os, const ObjectRef& value) {
  return os << repr(Any(value));
}

/// The number of objects the runtime has allocated and not freed, if the runtime reports it
/// (ffihub's `ffihub.LiveObjectCount`; Apache's runtime has no such counter).
inline std::optional<int64_t> live_object_count() {
  static const std::optional<Function> f = Function::get_global("ffihub.LiveObjectCount");
  if (!f) return std::nullopt;
  return f->call<int64_t>();
}

/// The C ABI version of the loaded runtime ("0.1.16").
inline std::string runtime_version() {
  TVMFFIVersion v;
  TVMFFIGetVersion(&v);
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

}  // namespace ffihub
