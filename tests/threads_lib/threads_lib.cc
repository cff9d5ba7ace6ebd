// A small C++ library, built against Apache's headers (the wheel's), that calls the functions it
// is given from threads of its own, the way thread pools and background workers do. The binding
// suites load it to check what happens when a library thread calls back into a language whose
// thread may be waiting (tests/node/threads.test.mjs; built by `ffihub_tests::build_threads_lib`).
//
// Globals (registered names):
// - testing_threads.call_from_thread(f) -> Any: calls f() on a new std::thread, joins it and
//   returns f's result (f's error is raised in the caller's thread, after the join);
// - testing_threads.call_from_threads(f, n) -> int: four std::threads call f(i) for i in
//   0..n (thread t takes i = t, t + 4, ...; a thread stops at its first error), joins them and
//   returns the sum of the results (ints); the first error by thread order is raised after the
//   join;
// - testing_threads.call_later(f, ms) -> None: calls f() on a detached std::thread after ms
//   milliseconds and returns at once (f's result and error are dropped).
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/tvm_ffi.h>

#include <chrono>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

namespace {

ffi::Any CallFromThread(ffi::Function f) {
  ffi::Any result;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      result = f();
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error) std::rethrow_exception(error);
  return result;
}

int64_t CallFromThreads(ffi::Function f, int64_t n) {
  constexpr int kThreads = 4;
  std::vector<int64_t> sums(kThreads, 0);
  std::vector<std::exception_ptr> errors(kThreads);
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      try {
        for (int64_t i = t; i < n; i += kThreads) sums[t] += f(i).cast<int64_t>();
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& w : workers) w.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  int64_t total = 0;
  for (int64_t s : sums) total += s;
  return total;
}

void CallLater(ffi::Function f, int64_t ms) {
  std::thread([f, ms] {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    try {
      f();
    } catch (...) {
    }
  }).detach();
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::GlobalDef()
      .def("testing_threads.call_from_thread", CallFromThread)
      .def("testing_threads.call_from_threads", CallFromThreads)
      .def("testing_threads.call_later", CallLater);
}
