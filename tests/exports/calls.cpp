// Module exports through the generated C++ headers (tests/exports/run.sh): typed, documented
// functions of libexports.so (with metadata), packed ones of libexports_plain.so (without) and
// add_one_c.so, found through FFIHUB_LIBRARY_PATH and loaded once as modules.
#include <exports.hpp>
#include <exports_plain.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../cpp/check.hpp"

// `calls_cpp stale`: the libraries found are the ones built without metadata; the first call of
// a typed export must fail with the load-time check's message.
static int expect_stale() {
  try {
    exports::add_one(41);
  } catch (const ffihub::RuntimeError& e) {
    std::string what = e.what();
    CHECK(what.find("export add_one of libexports.so: generated for (int) -> int, the library has "
                    "packed") != std::string::npos);
    std::printf("ok: C++ stale exports refused\n");
    return 0;
  }
  std::fprintf(stderr, "a stale export was called\n");
  return 1;
}

// `calls_cpp missing`: no library to find; the error names each place tried.
static int expect_missing() {
  try {
    exports::add_one(41);
  } catch (const ffihub::RuntimeError& e) {
    std::string what = e.what();
    CHECK(what.find("cannot load libexports.so as a module: tried the loaded libraries (not "
                    "loaded), /nonexistent/libexports.so (no such file), the system loader (") !=
          std::string::npos);
    CHECK(what.find("add its folder to FFIHUB_LIBRARY_PATH") != std::string::npos);
    std::printf("ok: C++ missing library reported\n");
    return 0;
  }
  std::fprintf(stderr, "an export of a missing library was called\n");
  return 1;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "stale") return expect_stale();
  if (argc > 1 && std::string(argv[1]) == "missing") return expect_missing();
  // Typed exports (the signatures come from __tvm_ffi__metadata_<name>).
  CHECK(exports::add_one(41) == 42);
  CHECK(exports::greet("ffi", 2) == "hello ffi, hello ffi");
  CHECK(exports::sum(ffihub::Array<double>({1.5, 2.5, 3.0})) == 7.0);
  std::vector<float> x = {1, 2, 3}, y = {10, 20, 30};
  ffihub::Tensor tx = ffihub::Tensor::from_buffer(x.data(), {3});
  ffihub::Tensor ty = ffihub::Tensor::from_buffer(y.data(), {3});
  exports::axpy(2.0, tx, ty);
  CHECK(y[0] == 12 && y[1] == 24 && y[2] == 36);
  // Errors raised by an export arrive as C++ exceptions of their kind.
  std::vector<float> z = {0, 0};
  ffihub::Tensor tz = ffihub::Tensor::from_buffer(z.data(), {2});
  bool raised = false;
  try {
    exports::axpy(1.0, tx, tz);
  } catch (const ffihub::ValueError& e) {
    raised = std::string(e.what()).find("same length") != std::string::npos;
  }
  CHECK(raised);
  // add_one_c (the C example, no metadata): packed, on zero-copy float32 tensors.
  std::vector<float> in = {1, 2, 3, 4}, out(4, 0);
  ffihub::Tensor tin = ffihub::Tensor::from_buffer(in.data(), {4});
  ffihub::Tensor tout = ffihub::Tensor::from_buffer(out.data(), {4});
  exports::add_one_c(tin, tout);
  CHECK(out[0] == 2 && out[3] == 5);
  // The same library without metadata: packed functions, same results.
  CHECK(exports_plain::add_one(int64_t{41}).cast<int64_t>() == 42);
  CHECK(exports_plain::greet(std::string("x"), int64_t{1}).cast<std::string>() == "hello x");
  std::printf("ok: C++ module exports (typed, packed, add_one_c)\n");
  return 0;
}
