// Calling the runtime from the C++ layer: its C ABI and its global functions, with errors turned
// into thrown tvm::ffi::Error, and the reverse guard for C++ code the runtime calls.
#ifndef FFIHUB_RUNTIME_CXX_CALLS_H_
#define FFIHUB_RUNTIME_CXX_CALLS_H_

#include <exception>
#include <initializer_list>
#include <string>

#include "bridge.h"
#include "tvm_ffi_cxx.h"

namespace ffihub {
namespace cxx {

using tvm::ffi::Any;
using tvm::ffi::Error;
using tvm::ffi::ObjectRef;
using tvm::ffi::String;

/*! \brief The Rust side (set when the runtime is loaded, before any caller can reach us). */
const FfihubRustBridge& Bridge();

/*! \brief The error raised by the last failed call of the runtime, as an exception. */
[[noreturn]] void ThrowRaised();

/*! \brief Throws `kind: message` as a tvm::ffi::Error. */
[[noreturn]] void Throw(const char* kind, const std::string& message);

/*! \brief Throws the raised error when a runtime call failed. */
inline void Check(int32_t code) {
  if (code != 0) ThrowRaised();
}

/*! \brief An error's kind and message. */
const TVMFFIErrorCell& ErrorCell(const Error& error);

inline TVMFFIAny BoolView(bool value) {
  TVMFFIAny any{};
  any.type_index = kTVMFFIBool;
  any.v_int64 = value;
  return any;
}

inline TVMFFIAny BytesView(const TVMFFIByteArray* bytes) {
  TVMFFIAny any{};
  any.type_index = kTVMFFIByteArrayPtr;
  any.v_ptr = const_cast<TVMFFIByteArray*>(bytes);
  return any;
}

/*! \brief Calls global function `name` (a string literal); a missing function is a
 * RuntimeError. */
Any CallGlobal(const char* name, std::initializer_list<TVMFFIAny> args);

/*! \brief Result conversions (TypeError when the runtime returned something else). */
String ToString(Any&& value, const char* what);
bool ToBool(const Any& value, const char* what);
int64_t ToInt(const Any& value, const char* what);
/*! \brief An object result of type `type_index`, or null for None when `nullable`. */
ObjectRef ToObject(Any&& value, int32_t type_index, bool nullable, const char* what);

/*! \brief Runs `body` for a caller that cannot take exceptions (the runtime's Rust code):
 * returns 0, or -1 with the exception raised as a TVM-FFI error. */
template <typename Body>
int32_t Guard(Body&& body) noexcept {
  try {
    body();
    return 0;
  } catch (const Error& error) {
    TVMFFIErrorSetRaised(error.get());
  } catch (const std::exception& error) {
    TVMFFIErrorSetRaisedFromCStr("InternalError", error.what());
  } catch (...) {
    TVMFFIErrorSetRaisedFromCStr("InternalError", "a C++ exception of unknown type");
  }
  return -1;
}

}  // namespace cxx
}  // namespace ffihub

#endif  // FFIHUB_RUNTIME_CXX_CALLS_H_
