// A C++ library built against Apache's headers (the wheel's) that does what real libraries do
// with the callbacks and arrays they are given: it calls back from threads of its own and keeps
// tensors after the call returned. Loaded by tests/julia/test_threads.jl, on both runtimes.
//
// - threads_lib.call_from_thread(f) -> Any: runs f() on a std::thread, joins it, returns its result
//   (an error f raised is raised again by this call);
// - threads_lib.call_from_threads(f, n) -> int: four std::threads call f(i) for i in 0..n-1
//   between them; returns how many calls succeeded (raises the first error after joining);
// - threads_lib.call_later(f, ms): a detached std::thread calls f() after `ms` milliseconds,
//   after this call returned; its outcome is recorded for call_later_result;
// - threads_lib.call_later_result() -> str: "" while the detached call has not finished, else
//   "ok" or the error it got ("<kind>: <message>");
// - threads_lib.keep(t) / kept_sum() -> float / kept_size() -> int / release(): the library keeps
//   one float64 tensor, reads all of it, and lets it go;
// - threads_lib.release_on_thread(): lets the kept tensor go on a thread of the library (its
//   deleter runs there);
// - threads_lib.wait_signal(ms) -> bool / signal(): the first blocks until another thread calls
//   the second (true) or `ms` milliseconds pass (false), as a library waiting for its own work.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

namespace {

std::mutex later_mutex;
std::string later_result;

std::mutex kept_mutex;
std::optional<ffi::Tensor> kept;

std::string Describe(const ffi::Error& e) { return e.kind() + ": " + e.message(); }

ffi::Any CallFromThread(ffi::Function f) {
  ffi::Any result;
  std::optional<ffi::Error> error;
  std::thread worker([&] {
    try {
      result = f();
    } catch (const ffi::Error& e) {
      error = e;
    }
  });
  worker.join();
  if (error) throw *error;
  return result;
}

int64_t CallFromThreads(ffi::Function f, int64_t n) {
  std::atomic<int64_t> next{0}, done{0};
  std::mutex error_mutex;
  std::optional<ffi::Error> error;
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      for (int64_t i = next++; i < n; i = next++) {
        try {
          f(i);
          ++done;
        } catch (const ffi::Error& e) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!error) error = e;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  if (error) throw *error;
  return done;
}

void CallLater(ffi::Function f, int64_t ms) {
  {
    std::lock_guard<std::mutex> lock(later_mutex);
    later_result.clear();
  }
  std::thread([f, ms] {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    std::string outcome = "ok";
    try {
      f();
    } catch (const ffi::Error& e) {
      outcome = Describe(e);
    }
    std::lock_guard<std::mutex> lock(later_mutex);
    later_result = outcome;
  }).detach();
}

std::string CallLaterResult() {
  std::lock_guard<std::mutex> lock(later_mutex);
  return later_result;
}

void Keep(ffi::Tensor t) {
  const DLTensor* dl = t.GetDLTensorPtr();
  if (dl->dtype.code != kDLFloat || dl->dtype.bits != 64 || dl->dtype.lanes != 1) {
    TVM_FFI_THROW(TypeError) << "threads_lib.keep takes a float64 tensor";
  }
  std::lock_guard<std::mutex> lock(kept_mutex);
  kept = std::move(t);
}

int64_t Elements(const DLTensor* dl) {
  int64_t n = 1;
  for (int i = 0; i < dl->ndim; ++i) n *= dl->shape[i];
  return n;
}

int64_t KeptSize() {
  std::lock_guard<std::mutex> lock(kept_mutex);
  return kept ? Elements(kept->GetDLTensorPtr()) : -1;
}

double KeptSum() {
  std::lock_guard<std::mutex> lock(kept_mutex);
  if (!kept) TVM_FFI_THROW(ValueError) << "threads_lib keeps no tensor";
  const DLTensor* dl = kept->GetDLTensorPtr();
  const double* data =
      reinterpret_cast<const double*>(static_cast<const char*>(dl->data) + dl->byte_offset);
  int64_t n = Elements(dl);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += data[i];
  return sum;
}

void Release() {
  std::lock_guard<std::mutex> lock(kept_mutex);
  kept.reset();
}

void ReleaseOnThread() {
  std::optional<ffi::Tensor> t;
  {
    std::lock_guard<std::mutex> lock(kept_mutex);
    t.swap(kept);
  }
  std::thread([t = std::move(t)]() mutable { t.reset(); }).join();
}

std::mutex signal_mutex;
std::condition_variable signal_cv;
bool signalled = false;

bool WaitSignal(int64_t ms) {
  std::unique_lock<std::mutex> lock(signal_mutex);
  bool got = signal_cv.wait_for(lock, std::chrono::milliseconds(ms), [] { return signalled; });
  signalled = false;
  return got;
}

void Signal() {
  {
    std::lock_guard<std::mutex> lock(signal_mutex);
    signalled = true;
  }
  signal_cv.notify_all();
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::GlobalDef()
      .def("threads_lib.call_from_thread", CallFromThread)
      .def("threads_lib.call_from_threads", CallFromThreads)
      .def("threads_lib.call_later", CallLater)
      .def("threads_lib.call_later_result", CallLaterResult)
      .def("threads_lib.keep", Keep)
      .def("threads_lib.kept_size", KeptSize)
      .def("threads_lib.kept_sum", KeptSum)
      .def("threads_lib.release", Release)
      .def("threads_lib.release_on_thread", ReleaseOnThread)
      .def("threads_lib.wait_signal", WaitSignal)
      .def("threads_lib.signal", Signal);
}
