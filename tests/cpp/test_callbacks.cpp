// Callbacks: C++ lambdas, function pointers and std::function passed as TVM-FFI functions,
// functions returned by the extension, exceptions thrown by callbacks, lifetimes of captured
// state, and global registration.
#include <atomic>
#include <memory>
#include <stdexcept>

#include "common.hpp"
#include "demo.hpp"

static int64_t triple(int64_t x) { return 3 * x; }

TEST_CASE(lambdas_pointers_and_std_function) {
  CHECK_EQ(demo::apply_twice([](int64_t x) { return x + 10; }, 1), 21);
  CHECK_EQ(demo::apply_twice(&triple, 2), 18);
  std::function<int64_t(int64_t)> square = [](int64_t x) { return x * x; };
  CHECK_EQ(demo::apply_twice(square, 3), 81);
  int64_t offset = 100;
  CHECK_EQ(demo::apply_twice([offset](int64_t x) { return x + offset; }, 0), 200);
  // A lambda with other C++ parameter types: arguments convert to them.
  CHECK_EQ(demo::apply_twice([](double x) { return static_cast<int64_t>(x * 2); }, 5), 20);
}

TEST_CASE(functions_returned_by_the_extension) {
  ffihub::TypedFunction<double(double)> times = demo::make_multiplier(2.5);
  CHECK_EQ(times(4.0), 10.0);
  auto counter = demo::make_counter_fn(7);
  CHECK_EQ(counter(), 7);
  CHECK_EQ(counter(), 8);
  ffihub::TypedFunction<int64_t()> copy = counter;  // same function, same state
  CHECK_EQ(copy(), 9);
  // As an untyped Function, and as a std::function.
  ffihub::Function untyped = times;
  CHECK_EQ(untyped.call<double>(2.0), 5.0);
  CHECK_EQ(untyped(2.0).cast<double>(), 5.0);
  auto as_std = ffihub::Any(times).cast<std::function<double(double)>>();
  CHECK_EQ(as_std(1.0), 2.5);
  // A result that does not convert.
  CHECK_THROWS(ffihub::TypeError, untyped.call<std::string>(1.0), "expected str, got float");
}

TEST_CASE(map_and_compose) {
  ffihub::Function describe = [](const ffihub::Any& v) { return v.type_key(); };
  auto keys = demo::map_array(describe, std::vector<ffihub::Any>{1, "s", 2.0, nullptr});
  CHECK_EQ(keys[0].cast<std::string>(), "int");
  CHECK_EQ(keys[2].cast<std::string>(), "float");
  CHECK_EQ(keys[3].cast<std::string>(), "None");
  ffihub::Function inc = [](int64_t x) { return x + 1; };
  ffihub::Function dbl = [](int64_t x) { return x * 2; };
  ffihub::Function both = demo::compose(inc, dbl);
  CHECK_EQ(both.call<int64_t>(5), 12);
  // Composing an extension function with a C++ one.
  ffihub::Function mixed = demo::compose(demo::make_multiplier(3.0), [](double x) { return x - 1; });
  CHECK_EQ(mixed.call<double>(2.0), 5.0);
}

TEST_CASE(packed_callbacks) {
  ffihub::Function count = ffihub::Function::from_packed([](ffihub::PackedArgs args) {
    return static_cast<int64_t>(args.size());
  });
  CHECK_EQ(count.call<int64_t>(), 0);
  CHECK_EQ(count.call<int64_t>(1, "two", 3.0), 3);
  ffihub::Function second = ffihub::Function::from_packed(
      [](ffihub::PackedArgs args) { return args.get<ffihub::Any>(1); });
  CHECK_EQ(second(1, "two").cast<std::string>(), "two");
  ffihub::Function none = ffihub::Function::from_packed([](ffihub::PackedArgs) {});
  CHECK(none().is_none());
  CHECK_THROWS(ffihub::IndexError, second(1), "argument 1 requested, the call has 1");
}

TEST_CASE(exceptions_in_callbacks_become_errors) {
  auto thrower = [](int64_t x) -> int64_t {
    if (x > 1) throw ffihub::ValueError("too big: " + std::to_string(x));
    return x + 1;
  };
  CHECK_THROWS(ffihub::ValueError, demo::apply_twice(thrower, 1), "too big: 2");
  try {
    demo::apply_twice(thrower, 5);
  } catch (const ffihub::ValueError& e) {
    CHECK_EQ(e.kind(), "ValueError");
    CHECK_EQ(e.message(), "too big: 5");
    // The backtrace has the C++ frame where the error was made and the extension's frames.
    CHECK(e.backtrace().find("test_callbacks.cpp") != std::string::npos);
    CHECK(e.backtrace().find("apply_twice") != std::string::npos);
  }
  auto std_thrower = [](int64_t) -> int64_t { throw std::runtime_error("plain C++"); };
  CHECK_THROWS(ffihub::RuntimeError, demo::apply_twice(std_thrower, 1), "plain C++");
  auto range_thrower = [](int64_t) -> int64_t { throw std::out_of_range("vector index"); };
  CHECK_THROWS(ffihub::IndexError, demo::apply_twice(range_thrower, 1), "vector index");
  auto arg_thrower = [](int64_t) -> int64_t { throw std::invalid_argument("bad arg"); };
  CHECK_THROWS(ffihub::ValueError, demo::apply_twice(arg_thrower, 1), "bad arg");
  auto custom = [](int64_t) -> int64_t { throw ffihub::Error("MyCustomError", "custom kind"); };
  try {
    demo::apply_twice(custom, 1);
    CHECK(false);
  } catch (const ffihub::Error& e) {
    CHECK_EQ(e.kind(), "MyCustomError");
    CHECK_EQ(std::string(e.what()), "MyCustomError: custom kind");
  }
  // An error from the extension passing through a C++ callback keeps its kind and message.
  auto nested = [](int64_t x) { return demo::parse_int("nope" + std::to_string(x)); };
  CHECK_THROWS(ffihub::ValueError, demo::apply_twice(nested, 1), "invalid integer `nope1`");
}

TEST_CASE(argument_errors_name_the_argument) {
  ffihub::Function f = [](int64_t x, const std::string& s) { return s + std::to_string(x); };
  CHECK_EQ(f.call<std::string>(1, "a"), "a1");
  CHECK_THROWS(ffihub::TypeError, f.call<std::string>(1, 2), "argument 1: expected str, got int");
  CHECK_THROWS(ffihub::TypeError, f.call<std::string>(1), "expected 2 argument(s), got 1");
}

struct Tracker {
  explicit Tracker(std::atomic<int>* alive) : alive_(alive) { ++*alive_; }
  Tracker(const Tracker& o) : alive_(o.alive_) { ++*alive_; }
  ~Tracker() { --*alive_; }
  std::atomic<int>* alive_;
};

TEST_CASE(captured_state_is_freed_with_the_function) {
  std::atomic<int> alive{0};
  {
    Tracker t(&alive);
    ffihub::Function f = [t](int64_t x) { return x; };
    CHECK(alive.load() >= 2);
    ffihub::Function g = demo::compose(f, f);  // the extension keeps references
    CHECK_EQ(g.call<int64_t>(4), 4);
  }
  CHECK_EQ(alive.load(), 0);
  // A function kept by the extension lives as long as the extension needs it.
  ffihub::Function kept = [](int64_t x) { return x; };
  ffihub::Function composed = demo::compose(kept, kept);
  CHECK(kept.use_count() >= 3);
}

TEST_CASE(global_registration) {
  ffihub::register_global("cpp_test.square", [](int64_t x) { return x * x; });
  std::optional<ffihub::Function> f = ffihub::Function::get_global("cpp_test.square");
  CHECK(f.has_value());
  CHECK_EQ(f->call<int64_t>(9), 81);
  CHECK_THROWS(ffihub::Error, ffihub::register_global("cpp_test.square", [](int64_t x) { return x; }),
               "");
  ffihub::register_global("cpp_test.square", [](int64_t x) { return -x; }, true);
  CHECK_EQ(ffihub::Function::get_global_required("cpp_test.square").call<int64_t>(3), -3);
  CHECK(!ffihub::Function::get_global("cpp_test.nothing").has_value());
  CHECK_THROWS(ffihub::AttributeError, ffihub::Function::get_global_required("cpp_test.nothing"),
               "is not registered");
  // The extension can call a C++ global through a Function value.
  CHECK_EQ(demo::apply_twice(*f, 2), 16);  // f is still the first registration
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS(
      [] {
        demo::apply_twice([](int64_t x) { return x + 1; }, 1);
        demo::make_multiplier(2.0)(3.0);
        demo::compose([](int64_t x) { return x; }, [](int64_t x) { return x; }).call<int64_t>(1);
        try {
          demo::apply_twice([](int64_t) -> int64_t { throw ffihub::ValueError("x"); }, 1);
        } catch (const ffihub::Error&) {
        }
      },
      [] { return demo::live_object_count(); });
}

TEST_CASE(deep_reentry_raises_instead_of_crashing) {
  // A callback that calls itself through the runtime: C++ -> native -> C++ -> ... n levels.
  std::optional<ffihub::Function> self;
  self.emplace([&self](int64_t n) -> int64_t { return n == 0 ? 0 : 1 + self->call<int64_t>(n - 1); });
  CHECK_EQ(self->call<int64_t>(1000), 1000);
  // Apache's runtime has no stack guard: 10,000 levels and more overflow the native stack there
  // and the process crashes, so the deep cases run on ffihub's runtime only.
  if (ffihub::live_object_count()) {
    // 10,000 levels fit in an 8 MB stack in some builds and not in others (AddressSanitizer's
    // frames are larger): either the result or the error, never a crash.
    try {
      CHECK_EQ(self->call<int64_t>(10000), 10000);
    } catch (const ffihub::Error& e) {
      CHECK(std::string(e.what()).find("call nesting too deep") != std::string::npos);
    }
    CHECK_NO_LEAKS(
        [&] {
          CHECK_THROWS(ffihub::Error, self->call<int64_t>(1000000),
                       "RecursionError: call nesting too deep: the native stack is nearly exhausted");
        },
        {}, 3);
    CHECK_EQ(self->call<int64_t>(1000), 1000);  // the thread is usable afterwards
  }
}

TEST_MAIN(test::load_demo())
