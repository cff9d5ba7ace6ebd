// Module exports whose parameters a docstring names (tests/signatures): with
// TVM_FFI_DLL_EXPORT_INCLUDE_METADATA, the export macros also write the type schema and the
// doc; ffihub takes the names from the doc's Doxygen and NumPy parameter lists.
#define TVM_FFI_DLL_EXPORT_INCLUDE_METADATA 1
#include <tvm/ffi/function.h>

#include <cstdint>

namespace {

int64_t Power(int64_t base, int64_t exponent) {
  int64_t out = 1;
  for (int64_t i = 0; i < exponent; ++i) out *= base;
  return out;
}

double Lerp(double start, double end, double t) { return start + (end - start) * t; }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(power, Power);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(power, R"(Raises `base` to `exponent`.
@param base the number to multiply
@param exponent how many times, at least 0)");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(lerp, Lerp);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(lerp, R"(Interpolates linearly.

Parameters
----------
start : float
    The value at t = 0.
end : float
    The value at t = 1.
t : float
    Where, usually in [0, 1].)");
