// Errors: raised errors become C++ exceptions (one class per common kind), with kind, message
// and backtrace; errors are values too.
#include "common.hpp"
#include "demo.hpp"

template <typename Exc>
static void expect_kind(const char* kind) {
  ++test::checks();
  try {
    demo::raise_error(kind, std::string("message of ") + kind);
    test::fail(__FILE__, __LINE__, std::string(kind) + " was not raised");
  } catch (const Exc& e) {
    if (e.kind() != kind || e.message() != std::string("message of ") + kind) {
      test::fail(__FILE__, __LINE__, std::string("wrong error: ") + e.what());
    }
  } catch (const std::exception& e) {
    test::fail(__FILE__, __LINE__, std::string(kind) + " raised as the wrong class: " + e.what());
  }
}

TEST_CASE(one_class_per_kind) {
  expect_kind<ffihub::ValueError>("ValueError");
  expect_kind<ffihub::TypeError>("TypeError");
  expect_kind<ffihub::IndexError>("IndexError");
  expect_kind<ffihub::KeyError>("KeyError");
  expect_kind<ffihub::AttributeError>("AttributeError");
  expect_kind<ffihub::RuntimeError>("RuntimeError");
  expect_kind<ffihub::NotImplementedError>("NotImplementedError");
  expect_kind<ffihub::InternalError>("InternalError");
  expect_kind<ffihub::MemoryError>("MemoryError");
  expect_kind<ffihub::Error>("SomethingElse");
  // Every class is an ffihub::Error and a std::exception.
  CHECK_THROWS(ffihub::Error, demo::raise_error("KeyError", "k"), "KeyError: k");
  try {
    demo::raise_error("TypeError", "t");
    CHECK(false);
  } catch (const std::exception& e) {
    CHECK_EQ(std::string(e.what()), "TypeError: t");
  }
}

TEST_CASE(errors_from_the_extension) {
  CHECK_THROWS(ffihub::ValueError, demo::checked_sqrt(-4.0), "cannot take the square root of -4");
  CHECK_THROWS(ffihub::ValueError, demo::parse_int("abc"), "invalid integer `abc`");
  // A Rust panic becomes an error too.
  CHECK_THROWS(ffihub::Error, demo::panic("oh no"), "oh no");
}

TEST_CASE(backtraces) {
  try {
    demo::checked_sqrt(-1.0);
    CHECK(false);
  } catch (const ffihub::Error& e) {
    CHECK(!e.backtrace().empty());
    CHECK(e.backtrace().find("File \"") != std::string::npos);
    CHECK(e.backtrace().find("checked_sqrt") != std::string::npos);
  }
  // An error made in C++ records where it was made.
  ffihub::ValueError mine("made here");
  CHECK(mine.backtrace().find("test_errors.cpp") != std::string::npos);
  CHECK_EQ(mine.kind(), "ValueError");
}

TEST_CASE(wrong_arguments_are_type_errors) {
  ffihub::Function add_one = ffihub::Function::get_global_required("demo.add_one");
  CHECK_THROWS(ffihub::TypeError, add_one("text"), "");
  CHECK_THROWS(ffihub::TypeError, add_one(), "");
  CHECK_THROWS(ffihub::TypeError, add_one(1, 2), "");
  CHECK_EQ(add_one(1).cast<int64_t>(), 2);
}

TEST_CASE(errors_are_values) {
  ffihub::ValueError made("as a value");
  ffihub::Any a = ffihub::Error(made);
  CHECK_EQ(a.type_key(), "ffi.Error");
  ffihub::Any back = demo::echo_any(a);
  ffihub::Error e = back.cast<ffihub::Error>();
  CHECK_EQ(e.kind(), "ValueError");
  CHECK_EQ(e.message(), "as a value");
  CHECK(e.object().same_as(made.object()));
  CHECK_THROWS(ffihub::ValueError, e.rethrow_typed(), "as a value");
}

TEST_CASE(raised_error_objects_survive_rethrow) {
  // Rethrowing through a callback keeps the very same error object.
  ffihub::ObjectRef first;
  auto inner = [&first](int64_t) -> int64_t {
    try {
      demo::raise_error("KeyError", "deep");
    } catch (const ffihub::Error& e) {
      first = e.object();
      throw;
    }
    return 0;
  };
  try {
    demo::apply_twice(inner, 1);
    CHECK(false);
  } catch (const ffihub::KeyError& e) {
    CHECK(e.object().same_as(first));
  }
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS([] {
    for (const char* kind : {"ValueError", "Custom"}) {
      try {
        demo::raise_error(kind, std::string(40, 'm'));
      } catch (const ffihub::Error&) {
      }
    }
    try {
      demo::apply_twice([](int64_t) -> int64_t { throw std::runtime_error("x"); }, 1);
    } catch (const ffihub::Error&) {
    }
  });
}

TEST_MAIN(test::load_demo())
