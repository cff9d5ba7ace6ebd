// Benchmark (not a test) of modules across the C++/runtime boundary, built against Apache's
// headers: the same binary runs on ffihub's runtime and on Apache's (library path swapped, see
// run.sh). Prints one "operation<TAB>nanoseconds per call" line per operation.
//   bench_modules <libcxx_extension.so> <iterations>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/tvm_ffi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ffi = tvm::ffi;

template <typename Body>
void Measure(const char* operation, long iterations, Body body) {
  body();  // warm-up (caches, first-time registrations)
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i) body();
  std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  std::printf("%s\t%.1f\n", operation, elapsed.count() / static_cast<double>(iterations));
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <libcxx_extension.so> <iterations>\n", argv[0]);
    return 2;
  }
  long iterations = std::atol(argv[2]);
  ffi::Module lib = ffi::Module::LoadFromFile(argv[1]);
  ffi::Module counter = (*lib->GetFunction("make_counter"))(0).cast<ffi::Module>();
  ffi::Function get_function = ffi::Function::GetGlobalRequired("ffi.ModuleGetFunction");
  ffi::String name("make_counter");
  ffi::String add("add");
  ffi::Array<ffi::Any> array{1, 2.5, "three"};
  Measure("C++ calls the runtime's module: mod->GetFunction(name)", iterations,
          [&] { lib->GetFunction(name); });
  Measure("C++ calls ModuleObj::GetFunction(name, query_imports) (exported)", iterations,
          [&] { lib->GetFunction(name, true); });
  Measure("the runtime calls a C++ module: ffi.ModuleGetFunction", iterations,
          [&] { get_function(counter, add, false); });
  Measure("ffi::ReprPrint(array of 3) (exported)", iterations, [&] { ffi::ReprPrint(array); });
  return 0;
}
