// ffihub C++ support: errors. An error raised by a TVM-FFI call becomes a C++ exception (one
// class per common kind, all deriving from ffihub::Error); a C++ exception thrown inside a
// callback becomes a raised error for the caller.
#pragma once

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "object.hpp"

namespace ffihub {

/**
 * A TVM-FFI error: `kind()` ("ValueError", ...), `message()` and `backtrace()` (TVM-FFI's text
 * form, most recent call first, with frames from every language the error passed through).
 *
 * It wraps an `ffi.Error` object, so rethrowing it across another FFI boundary keeps its
 * backtrace. Constructing one in C++ records the construction site and the native backtrace.
 * `what()` is "<kind>: <message>".
 */
class Error : public std::exception {
 public:
  static constexpr const char* type_key = "ffi.Error";
  static constexpr int32_t static_type_index = kTVMFFIError;

  /// A new error of `kind` with `message`; the backtrace starts at the construction site.
  Error(std::string_view kind, std::string_view message,
        const char* file = __builtin_FILE(), int line = __builtin_LINE(),
        const char* function = __builtin_FUNCTION())
      : object_(create(kind, message, file, line, function)) {
    init_what();
  }

  /// Wraps an existing `ffi.Error` object (takes the reference).
  explicit Error(detail::Owned owned) : object_(owned) { init_what(); }

  std::string kind() const { return std::string(cell().kind.data, cell().kind.size); }
  std::string message() const { return std::string(cell().message.data, cell().message.size); }
  std::string backtrace() const {
    return std::string(cell().backtrace.data, cell().backtrace.size);
  }
  const char* what() const noexcept override { return what_.c_str(); }

  /// The `ffi.Error` object (to pass the error as a value).
  const ObjectRef& object() const noexcept { return object_; }

  /// Throws the C++ exception class that matches this error's kind (ValueError, ...).
  [[noreturn]] void rethrow_typed() const;

 private:
  static ObjectRef create(std::string_view kind, std::string_view message, const char* file,
                          int line, const char* function) {
    TVMFFIByteArray k = detail::byte_array(kind);
    TVMFFIByteArray m = detail::byte_array(message);
    const TVMFFIByteArray* bt = TVMFFIBacktrace(file, line, function, 0);
    TVMFFIByteArray empty = detail::byte_array("");
    TVMFFIObjectHandle out = nullptr;
    if (TVMFFIErrorCreate(&k, &m, bt != nullptr ? bt : &empty, &out) != 0 || out == nullptr) {
      throw std::bad_alloc();
    }
    return ObjectRef(detail::Owned{static_cast<TVMFFIObject*>(out)});
  }
  const TVMFFIErrorCell& cell() const noexcept {
    return *TVMFFIErrorGetCellPtr(detail::handle(object_));
  }
  void init_what() { what_ = kind() + ": " + message(); }

  ObjectRef object_;
  std::string what_;
};

#define FFIHUB_DEFINE_ERROR_KIND(Name)                                                    \
  /** An error of kind #Name. */                                                          \
  class Name : public Error {                                                             \
   public:                                                                                \
    explicit Name(std::string_view message, const char* file = __builtin_FILE(),          \
                  int line = __builtin_LINE(), const char* function = __builtin_FUNCTION()) \
        : Error(#Name, message, file, line, function) {}                                  \
    explicit Name(detail::Owned owned) : Error(owned) {}                                  \
  };

FFIHUB_DEFINE_ERROR_KIND(ValueError)
FFIHUB_DEFINE_ERROR_KIND(TypeError)
FFIHUB_DEFINE_ERROR_KIND(IndexError)
FFIHUB_DEFINE_ERROR_KIND(KeyError)
FFIHUB_DEFINE_ERROR_KIND(AttributeError)
FFIHUB_DEFINE_ERROR_KIND(RuntimeError)
FFIHUB_DEFINE_ERROR_KIND(NotImplementedError)
FFIHUB_DEFINE_ERROR_KIND(InternalError)
FFIHUB_DEFINE_ERROR_KIND(MemoryError)

#undef FFIHUB_DEFINE_ERROR_KIND

inline void Error::rethrow_typed() const {
  TVMFFIObject* ptr = detail::handle(object_);
  TVMFFIObjectIncRef(ptr);
  detail::Owned owned{ptr};
  const std::string k = kind();
  if (k == "ValueError") throw ValueError(owned);
  if (k == "TypeError") throw TypeError(owned);
  if (k == "IndexError") throw IndexError(owned);
  if (k == "KeyError") throw KeyError(owned);
  if (k == "AttributeError") throw AttributeError(owned);
  if (k == "RuntimeError") throw RuntimeError(owned);
  if (k == "NotImplementedError") throw NotImplementedError(owned);
  if (k == "InternalError") throw InternalError(owned);
  if (k == "MemoryError") throw MemoryError(owned);
  throw Error(owned);
}

namespace detail {

/// Throws the error raised by the last failed C API call on this thread.
[[noreturn]] inline void throw_raised(int32_t code = -1) {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) {
    throw RuntimeError("a TVM-FFI call failed with code " + std::to_string(code) +
                       " without raising an error");
  }
  Error(Owned{static_cast<TVMFFIObject*>(err)}).rethrow_typed();
}

/// Checks the return code of a C API call.
inline void check_call(int32_t code) {
  if (code != 0) {
    ::ffihub::detail::throw_raised(code);
  }
}

/// Turns the exception being handled into the thread's raised error (inside a `catch`).
inline void set_raised_from_current_exception() noexcept {
  try {
    try {
      throw;
    } catch (const Error& e) {
      TVMFFIErrorSetRaised(::ffihub::detail::handle(e.object()));
    } catch (const std::bad_alloc& e) {
      throw MemoryError(e.what(), "<C++>", 0, "ffihub callback");
    } catch (const std::invalid_argument& e) {
      throw ValueError(e.what(), "<C++>", 0, "ffihub callback");
    } catch (const std::domain_error& e) {
      throw ValueError(e.what(), "<C++>", 0, "ffihub callback");
    } catch (const std::out_of_range& e) {
      throw IndexError(e.what(), "<C++>", 0, "ffihub callback");
    } catch (const std::exception& e) {
      throw RuntimeError(e.what(), "<C++>", 0, "ffihub callback");
    } catch (...) {
      throw RuntimeError("unknown C++ exception", "<C++>", 0, "ffihub callback");
    }
  } catch (const Error& e) {
    TVMFFIErrorSetRaised(::ffihub::detail::handle(e.object()));
  } catch (...) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "a C++ exception could not be converted");
  }
}

}  // namespace detail
}  // namespace ffihub
