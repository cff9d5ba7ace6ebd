// ffihub C++ support: reflection. Fields are read and written through the getters and setters
// of the type registry, methods are the registry's functions (dispatched on the object's runtime
// type), constructors are `__ffi_init__`.
//
// Generated code holds one accessor per item in a function-local static (GlobalFunction,
// FieldAccess, MethodAccess, StaticMethodAccess). They are constant-initialized and trivially
// destructible: no initialization guard, nothing to run at exit. On first use they check the
// library (detail::Library) and look the item up; afterwards a lookup costs one atomic load.
// Method and field records are owned by the type registry, which never frees them.
//
// The free functions at the end (get_field, set_field, call_method, construct, ...) do the same
// by name, for code that works with type keys at run time.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "metadata.hpp"

namespace ffihub {
namespace detail {

inline constexpr char kGetKwargsObject[] = "ffi.GetKwargsObject";
inline constexpr char kReprPrint[] = "ffi.ReprPrint";

/// The library description of a generated header (`detail::ffi_library`).
using LibraryRef = const Library& (*)();

/// The type index of a registered type key; throws ffihub::TypeError if there is none.
inline int32_t required_type_index(std::string_view key) {
  int32_t index = ::ffihub::detail::find_type_index(key);
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
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  for (int32_t d = info != nullptr ? info->type_depth : -1; d >= 0; --d) {
    const TVMFFITypeInfo* t = d == info->type_depth ? info : info->type_ancestors[d];
    if (const TVMFFIFieldInfo* f = ::ffihub::detail::own_field(t, name)) return f;
  }
  return nullptr;
}

/// A method of a type or of one of its ancestors (most derived declaration first).
inline const TVMFFIMethodInfo* find_method(int32_t type_index, std::string_view name) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  for (int32_t d = info != nullptr ? info->type_depth : -1; d >= 0; --d) {
    const TVMFFITypeInfo* t = d == info->type_depth ? info : info->type_ancestors[d];
    if (const TVMFFIMethodInfo* m = ::ffihub::detail::own_method(t, name)) return m;
  }
  return nullptr;
}

/// The function object of a method record (owned by the registry).
inline TVMFFIObject* method_object(const TVMFFIMethodInfo& m) {
  if (m.method.type_index != kTVMFFIFunction) {
    throw TypeError("method " + std::string(::ffihub::detail::view_of(m.name)) + " is not a function");
  }
  return m.method.v_obj;
}

inline void* field_address(const TVMFFIFieldInfo& f, const ObjectRef& obj) {
  TVMFFIObject* ptr = ::ffihub::detail::handle(obj);
  if (ptr == nullptr) {
    throw ValueError("field " + std::string(::ffihub::detail::view_of(f.name)) + " of an empty reference");
  }
  return reinterpret_cast<char*>(ptr) + f.offset;
}

/// Reads a field through its getter (an owned value).
template <typename T>
inline T read_field(const TVMFFIFieldInfo& f, const ObjectRef& obj) {
  if (f.getter == nullptr) {
    throw AttributeError("field " + std::string(::ffihub::detail::view_of(f.name)) + " has no getter");
  }
  TVMFFIAny out = none_any();
  ::ffihub::detail::check_call(f.getter(::ffihub::detail::field_address(f, obj), &out));
  return cast_owned<T>(out, "field");
}

/// Writes a field through its setter: a C setter, or a setter function when the field's flags
/// say so.
inline void write_field(const TVMFFIFieldInfo& f, const ObjectRef& obj, const TVMFFIAny& value) {
  if ((f.flags & kTVMFFIFieldFlagBitMaskWritable) == 0 || f.setter == nullptr) {
    throw AttributeError("field " + std::string(::ffihub::detail::view_of(f.name)) + " is read-only");
  }
  void* address = ::ffihub::detail::field_address(f, obj);
  if (f.flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
    call_typed<void>(static_cast<TVMFFIObject*>(f.setter), address, AnyAccess::view(value));
  } else {
    ::ffihub::detail::check_call(reinterpret_cast<TVMFFIFieldSetter>(f.setter)(address, &value));
  }
}

/// Whether a lookup may be inlined into a call with these arguments: only for trivially
/// copyable ones (scalars), where it matters most. With class-type arguments (std::variant,
/// std::optional temporaries built by the caller), GCC 12 reports false -Wmaybe-uninitialized
/// warnings when an atomic load is inlined after them, so the lookup is a call there.
template <typename... A>
inline constexpr bool inline_lookup_v = (std::is_trivially_copyable_v<std::decay_t<A>> && ...);

/// The call side of a function of a generated header that is looked up on first use:
/// `Derived::lookup()` finds it (and checks it); the reference it returns is kept for the life
/// of the process (as the registry does).
template <typename Derived>
class LazyFunction {
 public:
  template <typename R, typename... A>
  R call(A&&... args) const {
    return call_typed<R>(get<A...>(), std::forward<A>(args)...);
  }
  template <typename... A>
  Any operator()(A&&... args) const {
    return call_typed<Any>(get<A...>(), std::forward<A>(args)...);
  }

 private:
  template <typename... A>
  TVMFFIObject* get() const {
    if constexpr (inline_lookup_v<A...>) {
      TVMFFIObject* p = ptr_.load(std::memory_order_acquire);
      return p != nullptr ? p : resolve();
    } else {
      return get_out_of_line();
    }
  }
  FFIHUB_NOINLINE TVMFFIObject* get_out_of_line() const {
    TVMFFIObject* p = ptr_.load(std::memory_order_acquire);
    return p != nullptr ? p : resolve();
  }
  FFIHUB_NOINLINE TVMFFIObject* resolve() const {
    Function f = static_cast<const Derived*>(this)->lookup();
    TVMFFIObject* p = ObjectAccess::release(f);
    TVMFFIObject* expected = nullptr;
    if (!ptr_.compare_exchange_strong(expected, p, std::memory_order_acq_rel)) {
      TVMFFIObjectDecRef(p);
      return expected;
    }
    return p;
  }
  mutable std::atomic<TVMFFIObject*> ptr_{nullptr};
};

/// A global function of a generated header, looked up on first use.
class GlobalFunction : public LazyFunction<GlobalFunction> {
 public:
  constexpr GlobalFunction(LibraryRef lib, const char* name) noexcept : lib_(lib), name_(name) {}

 private:
  friend class LazyFunction<GlobalFunction>;
  Function lookup() const {
    lib_().ensure_checked();
    return Function::get_global_required(name_);
  }
  LibraryRef lib_;
  const char* name_;
};

/// A field of a generated class: its registry record, looked up on first use.
class FieldAccess {
 public:
  constexpr FieldAccess(LibraryRef lib, const char* type_key, const char* name) noexcept
      : lib_(lib), type_key_(type_key), name_(name) {}
  template <typename T>
  T get(const ObjectRef& obj) const {
    return read_field<T>(info<>(), obj);
  }
  template <typename V>
  void set(const ObjectRef& obj, const V& value) const {
    PackedCall<V> packed(value);
    ::ffihub::detail::write_field(info<V>(), obj, packed.values[0]);
  }

 private:
  template <typename... A>
  const TVMFFIFieldInfo& info() const {
    if constexpr (inline_lookup_v<A...>) {
      const TVMFFIFieldInfo* p = info_.load(std::memory_order_acquire);
      return p != nullptr ? *p : resolve();
    } else {
      return info_out_of_line();
    }
  }
  FFIHUB_NOINLINE const TVMFFIFieldInfo& info_out_of_line() const {
    const TVMFFIFieldInfo* p = info_.load(std::memory_order_acquire);
    return p != nullptr ? *p : resolve();
  }
  FFIHUB_NOINLINE const TVMFFIFieldInfo& resolve() const {
    lib_().ensure_checked();
    const TVMFFIFieldInfo* p = ::ffihub::detail::find_field(required_type_index(type_key_), name_);
    if (p == nullptr) {
      throw AttributeError(std::string(type_key_) + " has no field " + name_);
    }
    info_.store(p, std::memory_order_release);
    return *p;
  }
  LibraryRef lib_;
  const char* type_key_;
  const char* name_;
  mutable std::atomic<const TVMFFIFieldInfo*> info_{nullptr};
};

/// An instance method of a generated class, dispatched on the receiver's runtime type: a
/// subclass that overrides the method gets its own version.
class MethodAccess {
 public:
  constexpr MethodAccess(LibraryRef lib, const char* type_key, const char* name) noexcept
      : lib_(lib), type_key_(type_key), name_(name) {}
  template <typename R, typename... A>
  R call(const ObjectRef& self, A&&... args) const {
    return call_typed<R>(target<A...>(self), self, std::forward<A>(args)...);
  }

 private:
  template <typename... A>
  TVMFFIObject* target(const ObjectRef& self) const {
    if constexpr (inline_lookup_v<A...>) {
      TVMFFIObject* p = ptr_.load(std::memory_order_acquire);
      if (p != nullptr && self.type_index() == type_index_.load(std::memory_order_relaxed)) {
        return p;
      }
    }
    return resolve_for(self);
  }
  FFIHUB_NOINLINE TVMFFIObject* resolve_for(const ObjectRef& self) const {
    TVMFFIObject* p = ptr_.load(std::memory_order_acquire);
    if (p == nullptr) p = resolve();
    int32_t index = self.type_index();
    if (index == type_index_.load(std::memory_order_relaxed) || index < 0) return p;
    // A subclass instance: the most derived declaration of the method.
    const TVMFFIMethodInfo* m = ::ffihub::detail::find_method(index, name_);
    return m != nullptr ? method_object(*m) : p;
  }
  FFIHUB_NOINLINE TVMFFIObject* resolve() const {
    lib_().ensure_checked();
    int32_t index = ::ffihub::detail::required_type_index(type_key_);
    const TVMFFIMethodInfo* m = ::ffihub::detail::find_method(index, name_);
    if (m == nullptr) throw AttributeError(std::string(type_key_) + " has no method " + name_);
    TVMFFIObject* p = method_object(*m);
    type_index_.store(index, std::memory_order_relaxed);
    ptr_.store(p, std::memory_order_release);
    return p;
  }
  LibraryRef lib_;
  const char* type_key_;
  const char* name_;
  mutable std::atomic<int32_t> type_index_{-1};
  mutable std::atomic<TVMFFIObject*> ptr_{nullptr};
};

/// A static method of a generated class.
class StaticMethodAccess {
 public:
  constexpr StaticMethodAccess(LibraryRef lib, const char* type_key, const char* name) noexcept
      : lib_(lib), type_key_(type_key), name_(name) {}
  template <typename R, typename... A>
  R call(A&&... args) const {
    return call_typed<R>(get<A...>(), std::forward<A>(args)...);
  }
  template <typename... A>
  Any operator()(A&&... args) const {
    return call_typed<Any>(get<A...>(), std::forward<A>(args)...);
  }

 private:
  template <typename... A>
  TVMFFIObject* get() const {
    if constexpr (inline_lookup_v<A...>) {
      TVMFFIObject* p = ptr_.load(std::memory_order_acquire);
      return p != nullptr ? p : resolve();
    } else {
      return get_out_of_line();
    }
  }
  FFIHUB_NOINLINE TVMFFIObject* get_out_of_line() const {
    TVMFFIObject* p = ptr_.load(std::memory_order_acquire);
    return p != nullptr ? p : resolve();
  }
  FFIHUB_NOINLINE TVMFFIObject* resolve() const {
    lib_().ensure_checked();
    const TVMFFIMethodInfo* m = ::ffihub::detail::find_method(required_type_index(type_key_), name_);
    if (m == nullptr) {
      throw AttributeError(std::string(type_key_) + " has no static method " + name_);
    }
    TVMFFIObject* p = method_object(*m);
    ptr_.store(p, std::memory_order_release);
    return p;
  }
  LibraryRef lib_;
  const char* type_key_;
  const char* name_;
  mutable std::atomic<TVMFFIObject*> ptr_{nullptr};
};

/// The `__ffi_init__` of a type: its own static method, else its `__ffi_init__` attribute
/// (both owned by the registry).
inline TVMFFIObject* init_object(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (const TVMFFIMethodInfo* m = ::ffihub::detail::own_method(info, "__ffi_init__")) return method_object(*m);
  if (const TVMFFIAny* attr = init_attribute(type_index)) {
    if (attr->type_index == kTVMFFIFunction) return attr->v_obj;
  }
  throw TypeError(type_key_of_index(type_index) + " has no __ffi_init__ constructor");
}

/// The constructor of wrapper class T, looked up once.
template <typename T>
struct ConstructorOf {
  FFIHUB_NOINLINE static TVMFFIObject* get(LibraryRef lib) {
    TVMFFIObject* p = ptr.load(std::memory_order_acquire);
    return p != nullptr ? p : resolve(lib);
  }
  FFIHUB_NOINLINE static TVMFFIObject* resolve(LibraryRef lib) {
    lib().ensure_checked();
    TVMFFIObject* p = ::ffihub::detail::init_object(required_type_index(T::type_key));
    ptr.store(p, std::memory_order_release);
    return p;
  }
  static inline std::atomic<TVMFFIObject*> ptr{nullptr};
};

/// The `ffi.GetKwargsObject()` marker: in a packed argument list, the arguments after it are
/// name/value pairs.
inline const Any& kwargs_marker() {
  static const Any marker = builtin<kGetKwargsObject>()();
  return marker;
}

/// Arguments of a constructor call assembled at run time: positional ones (some of which may
/// be left out at the end), then keyword ones.
class Kwargs {
 public:
  template <typename V>
  Kwargs& positional(const char* name, const V& value) {
    check_no_gap(name);
    positional_.emplace_back(value);
    return *this;
  }
  /// A positional argument passed only if it is set; once one is left out, no later positional
  /// argument may be given (positions cannot have holes).
  template <typename V>
  Kwargs& positional_optional(const char* name, const std::optional<V>& value) {
    if (value) {
      positional(name, *value);
    } else if (gap_ == nullptr) {
      gap_ = name;
    }
    return *this;
  }
  template <typename V>
  Kwargs& add(const char* name, const V& value) {
    keywords_.emplace_back(name);
    keywords_.emplace_back(value);
    return *this;
  }
  /// A keyword argument passed only if it is set (the field's default applies otherwise).
  template <typename V>
  Kwargs& add_optional(const char* name, const std::optional<V>& value) {
    if (value) add(name, *value);
    return *this;
  }
  std::vector<Any> packed() const {
    std::vector<Any> out = positional_;
    if (!keywords_.empty()) {
      out.push_back(::ffihub::detail::kwargs_marker());
      out.insert(out.end(), keywords_.begin(), keywords_.end());
    }
    return out;
  }

 private:
  void check_no_gap(const char* name) const {
    if (gap_ != nullptr) {
      throw TypeError(std::string("argument ") + name + " is given but " + gap_ +
                      ", which comes before it, is not (positional arguments cannot be left "
                      "out in the middle)");
    }
  }
  std::vector<Any> positional_;
  std::vector<Any> keywords_;
  const char* gap_ = nullptr;
};

/// Whether the arguments `A...` may go to a packed constructor of `Class` (a variadic template
/// constructor that calls a packed global, ADR 0019): at least one argument (no argument would
/// make it a default constructor), and not a single one of `Class` or of a class derived from
/// it, from an lvalue, a const lvalue or an rvalue: that is a copy or a move, which the copy and
/// move constructors do (unconstrained, the template would be the better match for a non-const
/// lvalue or a derived class and take their place).
template <typename Class, typename... A>
inline constexpr bool packed_constructor_args_v = sizeof...(A) > 0;
template <typename Class, typename A>
inline constexpr bool packed_constructor_args_v<Class, A> =
    !std::is_base_of_v<Class, std::remove_cv_t<std::remove_reference_t<A>>>;

/// The argument counts that the other constructors of a class take: a packed constructor is
/// not viable for them (a forwarding template would be the better match for any argument they
/// take through a conversion, `"x"` for a `std::string`).
template <std::size_t... Taken>
struct TakenCounts {
  static constexpr bool contains(std::size_t n) { return ((n == Taken) || ...); }
};

/// The constraint of a packed constructor: `template <typename... A,
/// enable_packed_constructor<Class, TakenCounts<...>, A...> = 0>`.
template <typename Class, typename Taken, typename... A>
using enable_packed_constructor =
    std::enable_if_t<packed_constructor_args_v<Class, A...> && !Taken::contains(sizeof...(A)), int>;

/// Constructs a T with positional arguments.
template <typename T, typename... A>
inline T construct(LibraryRef lib, A&&... args) {
  return call_typed<T>(ConstructorOf<T>::get(lib), std::forward<A>(args)...);
}

/// Constructs a T with positional and keyword arguments.
template <typename T>
inline T construct_kw(LibraryRef lib, const Kwargs& args) {
  TVMFFIObject* init = ConstructorOf<T>::get(lib);
  std::vector<Any> values = args.packed();
  std::vector<TVMFFIAny> views;
  views.reserve(values.size());
  for (const Any& v : values) views.push_back(AnyAccess::raw(v));
  Any result = ::ffihub::detail::call_raw(init, views.data(), static_cast<int32_t>(views.size()));
  TVMFFIAny raw = AnyAccess::release(result);
  return cast_owned<T>(raw, "constructor result");
}

}  // namespace detail

// ---- reflection by name ----------------------------------------------------------------------

namespace detail {
inline const TVMFFIFieldInfo& required_field(const ObjectRef& obj, std::string_view name) {
  const TVMFFIFieldInfo* f = ::ffihub::detail::find_field(obj.type_index(), name);
  if (f == nullptr) {
    throw AttributeError(obj.runtime_type_key() + " has no field " + std::string(name));
  }
  return *f;
}
}  // namespace detail

/// Reads the field `name` of `obj` (its own or inherited).
template <typename T = Any>
inline T get_field(const ObjectRef& obj, std::string_view name) {
  return detail::read_field<T>(detail::required_field(obj, name), obj);
}

/// Writes the writable field `name` of `obj`; throws ffihub::AttributeError if it is read-only.
inline void set_field(const ObjectRef& obj, std::string_view name, const Any& value) {
  detail::write_field(detail::required_field(obj, name), obj, detail::AnyAccess::raw(value));
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
  TVMFFIObject* f = detail::method_object(*m);
  if (m->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod) {
    return detail::call_typed<R>(f, std::forward<A>(args)...);
  }
  return detail::call_typed<R>(f, obj, std::forward<A>(args)...);
}

/// Constructs an object of type `type_key` with its `__ffi_init__` (positional arguments).
template <typename T = ObjectRef, typename... A>
inline T construct(std::string_view type_key, A&&... args) {
  return detail::call_typed<T>(detail::init_object(detail::required_type_index(type_key)),
                               std::forward<A>(args)...);
}

/// The text form of a value (`ffi.ReprPrint`).
inline std::string repr(const Any& value) {
  return detail::builtin<detail::kReprPrint>().call<std::string>(value);
}

inline std::ostream& operator<<(std::ostream& os, const Any& value) { return os << ::ffihub::repr(value); }
inline std::ostream& operator<<(std::ostream& os, const ObjectRef& value) {
  return os << ::ffihub::repr(Any(value));
}

/// The number of objects the runtime has allocated since the first call and not freed, if the
/// runtime reports it (ffihub's `ffihub.LiveObjectCount`; Apache's runtime has no such counter).
/// For leak checks: take a baseline before the work.
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
