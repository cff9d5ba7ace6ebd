// Threads: generated wrappers initialize their cached lookups safely when first used from many
// threads at once; calls, objects, method dispatch and callbacks work concurrently.
#include <atomic>
#include <thread>

#include "common.hpp"
#include "demo.hpp"

template <typename F>
static int run_threads(int n, F&& body) {
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&errors, &body, t] {
      try {
        if (!body(t)) ++errors;
      } catch (const std::exception& e) {
        std::cout << "thread " << t << ": " << e.what() << std::endl;
        ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();
  return errors.load();
}

TEST_CASE(first_use_from_many_threads) {
  // Nothing of demo.hpp has been used yet in this process.
  CHECK_EQ(run_threads(8, [](int t) {
             demo::Point3D p(t, 0, 0);
             demo::Point base = p;
             return demo::add_one(t) == t + 1 && base.norm() == t && p.x() == t &&
                    demo::concat("t", std::to_string(t)) == "t" + std::to_string(t);
           }),
           0);
}

TEST_CASE(concurrent_calls_objects_and_callbacks) {
  CHECK_EQ(run_threads(6, [](int t) {
             bool ok = true;
             demo::Counter shared("shared", 0, 1);
             for (int i = 0; i < 500 && ok; ++i) {
               ok = ok && demo::echo_int(i * t) == i * t;
               demo::Counter c("c" + std::to_string(i), i, t);
               ok = ok && c.increment() == i + t;
               int64_t doubled = demo::apply_twice([t](int64_t x) { return x + t; }, i);
               ok = ok && doubled == i + 2 * t;
               auto arr = demo::make_range(i % 10);
               ok = ok && arr.size() == static_cast<std::size_t>(i % 10);
               demo::Point p = (i % 2 != 0) ? demo::Point(3, 4) : demo::Point3D(2, 3, 6);
               ok = ok && p.norm() == ((i % 2 != 0) ? 5.0 : 7.0);
               shared.increment();
             }
             return ok && shared.count() == 500;
           }),
           0);
}

TEST_CASE(one_cpp_function_called_from_many_threads) {
  std::atomic<int64_t> calls{0};
  ffihub::Function f = [&calls](int64_t x) {
    ++calls;
    return x * 2;
  };
  CHECK_EQ(run_threads(4, [&f](int t) {
             for (int i = 0; i < 1000; ++i) {
               if (demo::apply_twice(f, t) != 4 * t) return false;
             }
             return true;
           }),
           0);
  CHECK_EQ(calls.load(), 8000);
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS(
      [] {
        run_threads(3, [](int t) {
          demo::Counter c("x", t, 1);
          c.increment();
          return demo::apply_twice([](int64_t x) { return x; }, t) == t;
        });
      },
      [] { return demo::live_object_count(); }, 5);
}

TEST_MAIN(test::load_demo())
