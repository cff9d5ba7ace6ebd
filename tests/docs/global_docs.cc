// Globals with docs, written against Apache's headers as any C++ extension is (tests/docs/main.rs):
// the two ways Apache's GlobalDef takes a doc. `ffihub dump` reads a doc given as a `doc`
// metadata entry on every runtime, and one given as GlobalDef's doc string argument on
// ffihub's runtime (Apache's keeps that one in a private table).
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdint>

namespace {

int64_t Add(int64_t a, int64_t b) { return a + b; }

double Scale(double x, double factor) { return x * factor; }

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::GlobalDef()
      .def("kdocs.add", Add, "Adds two integers.\n\nOverflow wraps around, as in C++.")
      .def("kdocs.scale", Scale, refl::Metadata({{"doc", "Multiplies `x` by `factor`."}}));
}
