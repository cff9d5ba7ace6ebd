// Calls through the headers generated for tests/signatures/arg_names.cc and
// docstring_exports.cc (libsignames.so) and Apache's testing library, with the parameter names
// the libraries gave (tests/signatures/run.sh checks the declarations).
#include <signames.hpp>
#include <tvm_ffi_testing.hpp>

#include <cstdlib>
#include <iostream>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "FAILED: " << what << "\n";
    ++failures;
  }
}

}  // namespace

int main() {
  ffihub::load_library("libsignames.so");
  ffihub::load_library("libtvm_ffi_testing.so");
  check(signames::affine(/*value=*/2.0, /*scale=*/3.0, /*shift=*/1.0) == 7.0, "affine");
  signames::Vec v(/*x=*/3.0, /*y=*/4.0);
  check(v.dot(/*other_x=*/1.0, /*other_y=*/2.0) == 11.0, "Vec::dot");
  check(signames::Vec::scaled(/*vec=*/v, /*factor=*/2.0).x() == 6.0, "Vec::scaled");
  check(signames::clamp(/*value=*/15, /*low=*/0, /*high=*/10) == 10, "clamp");
  check(signames::power(/*base=*/2, /*exponent=*/10) == 1024, "power");
  check(signames::lerp(/*start=*/0.0, /*end=*/10.0, /*t=*/0.5) == 5.0, "lerp");
  check(tvm_ffi_testing::testing_dll_test_add_with_docstring(/*a=*/2, /*b=*/3) == 5,
        "testing_dll_test_add_with_docstring");
  if (failures != 0) return EXIT_FAILURE;
  std::cout << "ok: C++ calls with the libraries' parameter names\n";
  return EXIT_SUCCESS;
}
