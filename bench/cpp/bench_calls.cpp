// Benchmark (not a test): a generated typed call vs a raw TVMFFIFunctionCall of the same
// function, measured side by side in one run (interleaved rounds, median of each). Target: the
// generated call within 10% of the raw one.
//
//   bench/cpp/run.sh      builds what it needs and runs this on ffihub's and Apache's runtime
#include <tvm_ffi_testing.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace t = tvm_ffi_testing;

// The result of each timed loop goes here, so the loops cannot be optimized away.
static volatile int64_t g_sink = 0;

template <typename F>
static double ns_per_call(F&& body, int64_t iterations) {
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < iterations; ++i) body(i);
  auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count() / static_cast<double>(iterations);
}

static TVMFFIObjectHandle global(const char* name) {
  TVMFFIByteArray b{name, std::strlen(name)};
  TVMFFIObjectHandle f = nullptr;
  if (TVMFFIFunctionGetGlobal(&b, &f) != 0 || f == nullptr) {
    std::fprintf(stderr, "global %s not found\n", name);
    std::exit(1);
  }
  return f;
}

struct Pair {
  const char* name;
  double raw;
  double generated;
};

template <typename Raw, typename Gen>
static Pair measure(const char* name, Raw&& raw, Gen&& gen, int64_t iterations, int rounds) {
  std::vector<double> r, g;
  for (int k = 0; k < rounds; ++k) {  // interleaved: both see the same machine noise
    r.push_back(ns_per_call(raw, iterations));
    g.push_back(ns_per_call(gen, iterations));
  }
  std::sort(r.begin(), r.end());
  std::sort(g.begin(), g.end());
  return {name, r[r.size() / 2], g[g.size() / 2]};
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s path/to/libtvm_ffi_testing.so [iterations]\n", argv[0]);
    return 2;
  }
  ffihub::load_library(argv[1]);
  int64_t iterations = argc > 2 ? std::atoll(argv[2]) : 2000000;
  const int rounds = 15;

  TVMFFIObjectHandle noop = global("testing.schema_no_args_no_return");
  TVMFFIObjectHandle add_one = global("testing.add_one");
  TVMFFIObjectHandle id_float = global("testing.schema_id_float");

  // Warm up (first use checks the header against the library and caches the lookups).
  t::schema_no_args_no_return();
  g_sink = t::add_one(1) + static_cast<int64_t>(t::schema_id_float(1.0));

  std::vector<Pair> results;
  results.push_back(measure(
      "no-op, 0 args (testing.schema_no_args_no_return)",
      [noop](int64_t) {
        TVMFFIAny result;
        result.type_index = kTVMFFINone;
        result.zero_padding = 0;
        result.v_int64 = 0;
        if (TVMFFIFunctionCall(noop, nullptr, 0, &result) != 0) std::abort();
      },
      [](int64_t) { t::schema_no_args_no_return(); }, iterations, rounds));
  results.push_back(measure(
      "int -> int (testing.add_one)",
      [add_one](int64_t i) {
        TVMFFIAny arg;
        arg.type_index = kTVMFFIInt;
        arg.zero_padding = 0;
        arg.v_int64 = i;
        TVMFFIAny result;
        result.type_index = kTVMFFINone;
        result.zero_padding = 0;
        result.v_int64 = 0;
        if (TVMFFIFunctionCall(add_one, &arg, 1, &result) != 0 || result.type_index != kTVMFFIInt) {
          std::abort();
        }
        g_sink = result.v_int64;
      },
      [](int64_t i) { g_sink = t::add_one(i); }, iterations, rounds));
  results.push_back(measure(
      "float -> float (testing.schema_id_float)",
      [id_float](int64_t i) {
        TVMFFIAny arg;
        arg.type_index = kTVMFFIFloat;
        arg.zero_padding = 0;
        arg.v_float64 = static_cast<double>(i);
        TVMFFIAny result;
        result.type_index = kTVMFFINone;
        result.zero_padding = 0;
        result.v_int64 = 0;
        if (TVMFFIFunctionCall(id_float, &arg, 1, &result) != 0 || result.type_index != kTVMFFIFloat) {
          std::abort();
        }
        g_sink = static_cast<int64_t>(result.v_float64);
      },
      [](int64_t i) { g_sink = static_cast<int64_t>(t::schema_id_float(static_cast<double>(i))); },
      iterations, rounds));

  if (const char* rows = std::getenv("BENCH_ROWS"); rows != nullptr && std::strcmp(rows, "1") == 0) {
    // bench/run.sh table rows.
    for (const Pair& p : results) {
      std::printf("| c++: %s, generated vs raw TVMFFIFunctionCall | %.1f ns | %.1f ns | %.2fx | ≤ 1.1x |\n",
                  p.name, p.generated, p.raw, p.generated / p.raw);
    }
    return 0;
  }
  std::printf("runtime %s, %lld calls x %d interleaved rounds, medians\n",
              ffihub::runtime_version().c_str(), static_cast<long long>(iterations), rounds);
  std::printf("%-50s %10s %12s %8s\n", "call", "raw ns", "generated ns", "ratio");
  for (const Pair& p : results) {
    std::printf("%-50s %10.2f %12.2f %7.3fx\n", p.name, p.raw, p.generated, p.generated / p.raw);
  }
  TVMFFIObjectDecRef(noop);
  TVMFFIObjectDecRef(add_one);
  TVMFFIObjectDecRef(id_float);
  return 0;
}
