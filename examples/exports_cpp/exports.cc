// A library that exports functions the way Apache TVM-FFI's quick start and compilers do: as
// `__tvm_ffi_<name>` symbols made by TVM_FFI_DLL_EXPORT_TYPED_FUNC, built against Apache's
// headers only. Build it twice (see README.md): plain, and with
// -DTVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1, which adds `__tvm_ffi__metadata_<name>` (the typed
// signature) and, for TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC, `__tvm_ffi__doc_<name>`.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>

namespace {

using tvm::ffi::Array;
using tvm::ffi::String;
using tvm::ffi::TensorView;

int64_t AddOne(int64_t x) { return x + 1; }

String Greet(String name, int64_t times) {
  std::string out;
  for (int64_t i = 0; i < times; ++i) out += "hello " + std::string(name) + (i + 1 < times ? ", " : "");
  return String(out);
}

double Sum(Array<double> xs) {
  double total = 0;
  for (double x : xs) total += x;
  return total;
}

// y[i] = a * x[i] + y[i] on float32 vectors, in place: a kernel-shaped export.
void Axpy(double a, TensorView x, TensorView y) {
  if (x.ndim() != 1 || y.ndim() != 1 || x.size(0) != y.size(0)) {
    TVM_FFI_THROW(ValueError) << "axpy: x and y must be vectors of the same length";
  }
  if (x.dtype().code != kDLFloat || x.dtype().bits != 32 || y.dtype().code != kDLFloat ||
      y.dtype().bits != 32) {
    TVM_FFI_THROW(TypeError) << "axpy: x and y must be float32";
  }
  const float* xs = static_cast<const float*>(x.data_ptr());
  float* ys = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) ys[i] += static_cast<float>(a) * xs[i];
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add_one, R"(Add one to an integer.

Returns x + 1.)");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(greet, Greet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(greet, "Greet `name` `times` times, comma-separated.");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum, Sum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy, Axpy);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(axpy, "y += a * x on float32 vectors, in place.");
