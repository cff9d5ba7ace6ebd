// ffihub C++ support: Function (packed and typed calls, callbacks from C++ callables, global
// functions) and TypedFunction<R(Args...)>.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "string.hpp"

namespace ffihub {

namespace detail {

// ---- argument packing --------------------------------------------------------------------------

/// One argument of a call: a borrowed view, or an owned temporary for values that need one.
template <typename T, bool Borrows = Converter<T>::borrows>
struct ArgSlot {
  void fill(const T& value, TVMFFIAny* out) { Converter<T>::view(value, out); }
};

template <typename T>
struct ArgSlot<T, false> {
  ArgSlot() = default;
  ArgSlot(const ArgSlot&) = delete;
  ArgSlot& operator=(const ArgSlot&) = delete;
  ~ArgSlot() { release(held); }
  void fill(const T& value, TVMFFIAny* out) {
    held = Converter<T>::owned(value);
    *out = held;
  }
  TVMFFIAny held = none_any();
};

/// A std::string argument: a view while it has no NUL byte (the common case: no copy), else a
/// new string value of all its bytes.
template <>
struct ArgSlot<std::string, false> {
  ArgSlot() = default;
  ArgSlot(const ArgSlot&) = delete;
  ArgSlot& operator=(const ArgSlot&) = delete;
  ~ArgSlot() { release(held); }
  void fill(const std::string& value, TVMFFIAny* out) {
    if (view_c_string(value, out)) return;
    held = make_string(value);
    *out = held;
  }
  TVMFFIAny held = none_any();
};

/// The packed arguments of one call (views, plus the temporaries some of them need).
template <typename... A>
struct PackedCall {
  static_assert((Converter<A>::enabled && ...),
                "an argument type has no TVM-FFI conversion (see ffihub/any.hpp)");
  static constexpr int32_t size = static_cast<int32_t>(sizeof...(A));
  explicit PackedCall(const A&... args) { fill(std::index_sequence_for<A...>{}, args...); }
  template <std::size_t... I>
  void fill(std::index_sequence<I...>, const A&... args) {
    (std::get<I>(slots).fill(args, &values[I]), ...);
  }
  /// The argument array (null when there are no arguments).
  TVMFFIAny* data() noexcept {
    if constexpr (sizeof...(A) == 0) {
      return nullptr;
    } else {
      return values;
    }
  }
  TVMFFIAny values[sizeof...(A) == 0 ? 1 : sizeof...(A)];
  std::tuple<ArgSlot<A>...> slots;
};

/// Calls `f` with views `args[0..n)` and returns the owned result.
inline Any call_raw(TVMFFIObject* f, TVMFFIAny* args, int32_t n) {
  TVMFFIAny result = none_any();
  int32_t rc = TVMFFIFunctionCall(f, args, n, &result);
  if (rc != 0) ::ffihub::detail::throw_raised(rc);
  return AnyAccess::adopt(result);
}

/// Calls `f` with `args` and converts the result to R (void discards it).
template <typename R, typename... Args>
inline R call_typed(TVMFFIObject* f, Args&&... args) {
  PackedCall<std::decay_t<Args>...> packed(args...);
  TVMFFIAny result = none_any();
  int32_t rc = TVMFFIFunctionCall(f, packed.data(), packed.size, &result);
  if (rc != 0) ::ffihub::detail::throw_raised(rc);
  return cast_owned<R>(result, "result");
}

/// A borrowed argument converted to T for a callback; a TypeError names the argument.
template <typename T>
inline T cast_arg(const TVMFFIAny& v, std::size_t index) {
  std::optional<T> out = Converter<T>::from_view(v);
  if (!out) {
    std::string context = "argument " + std::to_string(index);
    ::ffihub::detail::throw_conversion_error(v, Converter<T>::type_name(), context.c_str());
  }
  return std::move(*out);
}

// ---- signatures of C++ callables -------------------------------------------------------------

template <typename T>
struct signature_of;
template <typename R, typename... A>
struct signature_of<R(A...)> {
  using type = R(A...);
};
template <typename R, typename... A>
struct signature_of<R (*)(A...)> : signature_of<R(A...)> {};
template <typename C, typename R, typename... A>
struct signature_of<R (C::*)(A...)> : signature_of<R(A...)> {};
template <typename C, typename R, typename... A>
struct signature_of<R (C::*)(A...) const> : signature_of<R(A...)> {};
template <typename C, typename R, typename... A>
struct signature_of<R (C::*)(A...) noexcept> : signature_of<R(A...)> {};
template <typename C, typename R, typename... A>
struct signature_of<R (C::*)(A...) const noexcept> : signature_of<R(A...)> {};
template <typename R, typename... A>
struct signature_of<R (*)(A...) noexcept> : signature_of<R(A...)> {};

template <typename F, typename = void>
struct has_call_operator : std::false_type {};
template <typename F>
struct has_call_operator<F, std::void_t<decltype(&F::operator())>> : std::true_type {};

/// The signature R(A...) of a function pointer or a callable with one, non-template operator().
template <typename F, typename = void>
struct callable_signature {};
template <typename F>
struct callable_signature<F, std::enable_if_t<std::is_function_v<std::remove_pointer_t<F>>>>
    : signature_of<std::remove_pointer_t<F>*> {};
template <typename F>
struct callable_signature<F, std::enable_if_t<has_call_operator<F>::value>>
    : signature_of<decltype(&F::operator())> {};

template <typename F, typename = void>
struct is_deducible_callable : std::false_type {};
template <typename F>
struct is_deducible_callable<F, std::void_t<typename callable_signature<F>::type>>
    : std::true_type {};

// ---- callbacks -------------------------------------------------------------------------------

template <typename F, typename Sig>
struct TypedCallback;

template <typename F, typename R, typename... A>
struct TypedCallback<F, R(A...)> {
  F fn;

  static int32_t safe_call(void* self, const TVMFFIAny* args, int32_t num_args,
                           TVMFFIAny* result) noexcept {
    try {
      if (num_args != static_cast<int32_t>(sizeof...(A))) {
        throw TypeError("expected " + std::to_string(sizeof...(A)) + " argument(s), got " +
                            std::to_string(num_args),
                        "<ffihub>", 0, "callback");
      }
      invoke(static_cast<TypedCallback*>(self)->fn, args, result,
             std::index_sequence_for<A...>{});
      return 0;
    } catch (...) {
      ::ffihub::detail::set_raised_from_current_exception();
      return -1;
    }
  }

  template <std::size_t... I>
  static void invoke(F& fn, const TVMFFIAny* args, TVMFFIAny* result,
                     std::index_sequence<I...>) {
    if constexpr (std::is_void_v<R>) {
      fn(cast_arg<std::decay_t<A>>(args[I], I)...);
      *result = none_any();
    } else {
      Any out(static_cast<R>(fn(cast_arg<std::decay_t<A>>(args[I], I)...)));
      *result = AnyAccess::release(out);
    }
  }

  static void deleter(void* self) { delete static_cast<TypedCallback*>(self); }
};

template <typename Callback>
inline TVMFFIObject* create_function(Callback* cb) {
  TVMFFIObjectHandle out = nullptr;
  int32_t rc = TVMFFIFunctionCreate(cb, &Callback::safe_call, &Callback::deleter, &out);
  if (rc != 0) {
    delete cb;
    ::ffihub::detail::throw_raised(rc);
  }
  return static_cast<TVMFFIObject*>(out);
}

template <typename Sig>
struct TypedMaker;
template <typename R, typename... A>
struct TypedMaker<R(A...)> {
  template <typename F>
  static TVMFFIObject* make(F&& f) {
    using Cb = TypedCallback<std::decay_t<F>, R(A...)>;
    return create_function(new Cb{std::forward<F>(f)});
  }
};

}  // namespace detail

namespace detail {
template <typename F>
struct PackedCallback;
}  // namespace detail

/**
 * The arguments of a packed callback: `args.size()`, `args[i]` (an AnyView valid during the
 * call) and `args.get<T>(i)` (converted; a TypeError names the argument).
 */
class PackedArgs {
 public:
  std::size_t size() const noexcept { return static_cast<std::size_t>(size_); }
  /// Argument `i`; throws ffihub::IndexError when there is none.
  AnyView operator[](std::size_t i) const {
    check(i);
    return detail::AnyAccess::view(args_[i]);
  }
  template <typename T>
  T get(std::size_t i) const {
    check(i);
    return detail::cast_arg<T>(args_[i], i);
  }

 private:
  template <typename F>
  friend struct detail::PackedCallback;
  PackedArgs(const TVMFFIAny* args, int32_t size) noexcept : args_(args), size_(size) {}
  void check(std::size_t i) const {
    if (i >= size()) {
      throw IndexError("argument " + std::to_string(i) + " requested, the call has " +
                       std::to_string(size_));
    }
  }
  const TVMFFIAny* args_;
  int32_t size_;
};

namespace detail {

template <typename F>
struct PackedCallback {
  F fn;
  static int32_t safe_call(void* self, const TVMFFIAny* args, int32_t num_args,
                           TVMFFIAny* result) noexcept {
    try {
      F& fn = static_cast<PackedCallback*>(self)->fn;
      PackedArgs packed(args, num_args);
      using R = decltype(fn(packed));
      if constexpr (std::is_void_v<R>) {
        fn(packed);
        *result = none_any();
      } else {
        Any out(fn(packed));
        *result = AnyAccess::release(out);
      }
      return 0;
    } catch (...) {
      ::ffihub::detail::set_raised_from_current_exception();
      return -1;
    }
  }
  static void deleter(void* self) { delete static_cast<PackedCallback*>(self); }
};

template <typename F>
inline constexpr bool is_callable_value_v =
    !std::is_base_of_v<ObjectRef, std::decay_t<F>> && !std::is_same_v<std::decay_t<F>, Any> &&
    !std::is_same_v<std::decay_t<F>, AnyView> && is_deducible_callable<std::decay_t<F>>::value;

}  // namespace detail

/**
 * A TVM-FFI function (`ffi.Function`): a global looked up by name, a value returned by a call,
 * or a C++ callable turned into one.
 *
 *     auto add_one = ffihub::Function::get_global_required("demo.add_one");
 *     int64_t y = add_one.call<int64_t>(41);        // typed result
 *     ffihub::Any r = add_one(41);                  // packed call
 *     ffihub::Function twice = [](int64_t x) { return 2 * x; };   // from a lambda
 *
 * C++ exceptions thrown by a callable become raised errors for the caller (ffihub::Error keeps
 * its kind; std::invalid_argument -> ValueError, std::out_of_range -> IndexError, other
 * exceptions -> RuntimeError).
 */
class Function : public ObjectRef {
 public:
  static constexpr const char* type_key = "ffi.Function";

  explicit Function(detail::Owned owned) noexcept : ObjectRef(owned) {}
  /// A function over a C++ callable with a deducible signature (lambda, function pointer,
  /// std::function); arguments are converted to its parameter types.
  template <typename F, typename = std::enable_if_t<detail::is_callable_value_v<F>>>
  Function(F&& f)  // NOLINT: callables convert implicitly
      : ObjectRef(detail::Owned{detail::TypedMaker<typename detail::callable_signature<
                      std::decay_t<F>>::type>::make(std::forward<F>(f))}) {}

  /// A function over `f(ffihub::PackedArgs) -> R` (R convertible, or void): any arguments.
  template <typename F>
  static Function from_packed(F&& f) {
    using Cb = detail::PackedCallback<std::decay_t<F>>;
    return Function(detail::Owned{detail::create_function(new Cb{std::forward<F>(f)})});
  }

  /// The global function `name`, or std::nullopt if none is registered.
  static std::optional<Function> get_global(std::string_view name) {
    TVMFFIByteArray b = detail::byte_array(name);
    TVMFFIObjectHandle out = nullptr;
    detail::check_call(TVMFFIFunctionGetGlobal(&b, &out));
    if (out == nullptr) return std::nullopt;
    return Function(detail::Owned{static_cast<TVMFFIObject*>(out)});
  }

  /// The global function `name`; throws ffihub::AttributeError if none is registered.
  static Function get_global_required(std::string_view name) {
    std::optional<Function> f = get_global(name);
    if (!f) {
      throw AttributeError("global function " + std::string(name) + " is not registered");
    }
    return std::move(*f);
  }

  /// Registers `f` as the global function `name`.
  static void set_global(std::string_view name, const Function& f, bool allow_override = false) {
    TVMFFIByteArray b = detail::byte_array(name);
    detail::check_call(TVMFFIFunctionSetGlobal(&b, detail::handle(f), allow_override ? 1 : 0));
  }

  /// Packed call: any arguments, the result as an Any.
  template <typename... Args>
  Any operator()(Args&&... args) const {
    detail::PackedCall<std::decay_t<Args>...> packed(args...);
    return detail::call_raw(detail::handle(*this), packed.data(), packed.size);
  }

  /// Typed call: the result converted to R (void discards it); a TypeError if it does not
  /// convert.
  template <typename R, typename... Args>
  R call(Args&&... args) const {
    return detail::call_typed<R>(detail::handle(*this), std::forward<Args>(args)...);
  }

  /// Packed call with a run-time list of arguments.
  Any call_packed(const std::vector<Any>& args) const {
    std::vector<TVMFFIAny> views;
    views.reserve(args.size());
    for (const Any& a : args) views.push_back(detail::AnyAccess::raw(a));
    return detail::call_raw(detail::handle(*this), views.data(), static_cast<int32_t>(views.size()));
  }
};

template <typename Sig>
class TypedFunction;

/**
 * A Function with a C++ signature: `R operator()(A...)`. Converts implicitly from a Function
 * (checked at call time) and from C++ callables (whose arguments are converted from A...).
 */
template <typename R, typename... A>
class TypedFunction<R(A...)> : public Function {
 public:
  explicit TypedFunction(detail::Owned owned) noexcept : Function(owned) {}
  TypedFunction(const Function& f) : Function(f) {}              // NOLINT
  TypedFunction(Function&& f) noexcept : Function(std::move(f)) {}  // NOLINT
  template <typename F, typename = std::enable_if_t<
                            !std::is_base_of_v<ObjectRef, std::decay_t<F>> &&
                            std::is_invocable_v<std::decay_t<F>&, A...>>>
  TypedFunction(F&& f)  // NOLINT: callables convert implicitly
      : Function(detail::Owned{detail::TypedMaker<R(A...)>::make(std::forward<F>(f))}) {}

  R operator()(const A&... args) const { return Function::call<R>(args...); }
};

/// Registers a C++ callable (or a Function) as the global function `name`.
template <typename F>
inline void register_global(std::string_view name, F&& f, bool allow_override = false) {
  Function::set_global(name, Function(std::forward<F>(f)), allow_override);
}

namespace detail {

/// std::function<R(A...)> converts from Function values (and into Function).
template <typename R, typename... A>
struct Converter<std::function<R(A...)>>
    : ConverterBase<std::function<R(A...)>, Converter<std::function<R(A...)>>> {
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const std::function<R(A...)>& f) {
    Function fn(detail::Owned{TypedMaker<R(A...)>::make(f)});
    return Converter<ObjectRef>::owned(fn);
  }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIFunction; }
  static std::optional<std::function<R(A...)>> from_view(const TVMFFIAny& v) {
    std::optional<TypedFunction<R(A...)>> f = Converter<TypedFunction<R(A...)>>::from_view(v);
    if (!f) return std::nullopt;
    return std::function<R(A...)>(*f);
  }
  static std::string type_name() { return "ffi.Function"; }
};

/// Other C++ callables (lambdas) convert into Function values.
template <typename F>
struct Converter<F, std::enable_if_t<!std::is_base_of_v<ObjectRef, F> &&
                                     is_deducible_callable<F>::value &&
                                     !std::is_same_v<F, std::function<typename callable_signature<
                                                            F>::type>>>> {
  static constexpr bool enabled = true;
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const F& f) {
    Function fn(f);
    return Converter<ObjectRef>::owned(fn);
  }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIFunction; }
  static std::string type_name() { return "ffi.Function"; }
};

}  // namespace detail
}  // namespace ffihub
