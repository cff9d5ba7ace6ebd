// The harness of the C++ behaviour tests (one program per feature): CHECK macros, test cases,
// library loading and leak checks. The Rust driver (tests/cpp/driver.rs) compiles each program
// against the generated headers and runs it on ffihub's and Apache's runtime, and under
// AddressSanitizer. A program prints one line per case and "PASSED: <n> checks" at the end.
#pragma once

#include <ffihub/ffihub.hpp>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <type_traits>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace test {

inline int& failures() {
  static int n = 0;
  return n;
}
inline int& checks() {
  static int n = 0;
  return n;
}

struct Case {
  const char* name;
  std::function<void()> body;
};
inline std::vector<Case>& cases() {
  static std::vector<Case> all;
  return all;
}
struct Register {
  Register(const char* name, std::function<void()> body) { cases().push_back({name, std::move(body)}); }
};

inline void fail(const char* file, int line, const std::string& what) {
  ++failures();
  std::cout << "FAILED " << file << ":" << line << ": " << what << std::endl;
}

/// The path of a library from the environment (set by the driver).
inline std::string env_path(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == 0) {
    std::cerr << "environment variable " << name << " is not set (the Rust driver sets it)\n";
    std::exit(2);
  }
  return v;
}

inline void load_demo() { ffihub::load_library(env_path("FFIHUB_DEMO_LIB")); }
inline void load_testing() { ffihub::load_library(env_path("FFIHUB_TESTING_LIB")); }

/// Runs every case; a case that throws fails with the exception's text.
inline int run_all() {
  for (const Case& c : cases()) {
    int before = failures();
    try {
      c.body();
    } catch (const ffihub::Error& e) {
      fail(c.name, 0, std::string("unexpected ffihub::Error: ") + e.what() + "\n" + e.backtrace());
    } catch (const std::exception& e) {
      fail(c.name, 0, std::string("unexpected exception: ") + e.what());
    }
    std::cout << (failures() == before ? "ok " : "FAILED ") << c.name << std::endl;
  }
  if (failures() != 0) {
    std::cout << "FAILED: " << failures() << " of " << checks() << " checks" << std::endl;
    return 1;
  }
  std::cout << "PASSED: " << checks() << " checks" << std::endl;
  return 0;
}

/// Runs `body` once (to fill caches), then `rounds` times, and checks that the runtime's
/// live-object count (ffihub's runtime only) and `extra()` (another counter, e.g. the demo's
/// live Rust objects) end where they started.
inline void check_no_leaks(const char* file, int line, const std::function<void()>& body,
                           const std::function<int64_t()>& extra = {}, int rounds = 20) {
  body();
  std::optional<int64_t> runtime_before = ffihub::live_object_count();
  int64_t extra_before = extra ? extra() : 0;
  for (int i = 0; i < rounds; ++i) body();
  std::optional<int64_t> runtime_after = ffihub::live_object_count();
  int64_t extra_after = extra ? extra() : 0;
  ++checks();
  if (runtime_before != runtime_after) {
    fail(file, line, "runtime live objects " + std::to_string(runtime_before.value_or(-1)) +
                         " -> " + std::to_string(runtime_after.value_or(-1)));
  }
  ++checks();
  if (extra_before != extra_after) {
    fail(file, line, "extension live objects " + std::to_string(extra_before) + " -> " +
                         std::to_string(extra_after));
  }
}

template <typename T, typename = void>
struct printable : std::false_type {};
template <typename T>
struct printable<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>>
    : std::true_type {};

template <typename T>
std::string show(const T& v);

template <typename T>
std::string show_vector(const std::vector<T>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + show(v[i]);
  return out + "]";
}

template <typename T>
std::string show(const T& v) {
  if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>> ||
                std::is_same_v<T, std::vector<float>> || std::is_same_v<T, std::vector<std::string>> ||
                std::is_same_v<T, std::vector<uint8_t>>) {
    return show_vector(v);
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return std::to_string(v);
  } else if constexpr (printable<T>::value) {
    std::ostringstream os;
    os << v;
    return os.str();
  } else {
    return "<value>";
  }
}

}  // namespace test

#define TEST_CASE(name)                                        \
  static void name();                                          \
  static const test::Register register_##name(#name, &name); \
  static void name()

#define CHECK(cond)                                        \
  do {                                                     \
    ++test::checks();                                      \
    if (!(cond)) test::fail(__FILE__, __LINE__, #cond);    \
  } while (0)

#define CHECK_EQ(a, b)                                                                  \
  do {                                                                                  \
    ++test::checks();                                                                   \
    const auto check_a_ = (a);                                                          \
    const auto check_b_ = (b);                                                          \
    if (!(check_a_ == check_b_)) {                                                      \
      test::fail(__FILE__, __LINE__,                                                    \
                 std::string(#a " == " #b ": ") + test::show(check_a_) + " vs " +      \
                     test::show(check_b_));                                             \
    }                                                                                   \
  } while (0)

#define CHECK_NEAR(a, b)                                                                \
  do {                                                                                  \
    ++test::checks();                                                                   \
    double check_a_ = (a);                                                              \
    double check_b_ = (b);                                                              \
    if (std::fabs(check_a_ - check_b_) > 1e-9 * (1 + std::fabs(check_b_))) {           \
      test::fail(__FILE__, __LINE__,                                                    \
                 std::string(#a " ~ " #b ": ") + std::to_string(check_a_) + " vs " +   \
                     std::to_string(check_b_));                                         \
    }                                                                                   \
  } while (0)

/// Checks that `expr` throws `Exc` whose what() contains `text`.
#define CHECK_THROWS(Exc, expr, text)                                                   \
  do {                                                                                  \
    ++test::checks();                                                                   \
    bool check_thrown_ = false;                                                         \
    try {                                                                               \
      (void)(expr);                                                                     \
    } catch (const Exc& check_e_) {                                                     \
      check_thrown_ = true;                                                             \
      if (std::string(check_e_.what()).find(text) == std::string::npos) {               \
        test::fail(__FILE__, __LINE__,                                                  \
                   std::string(#expr " threw " #Exc " without \"") + (text) +          \
                       "\": " + check_e_.what());                                       \
      }                                                                                 \
    } catch (const std::exception& check_e_) {                                          \
      check_thrown_ = true;                                                             \
      test::fail(__FILE__, __LINE__,                                                    \
                 std::string(#expr " threw another exception: ") + check_e_.what());   \
    }                                                                                   \
    if (!check_thrown_) test::fail(__FILE__, __LINE__, #expr " did not throw " #Exc);   \
  } while (0)

#define CHECK_NO_LEAKS(...) test::check_no_leaks(__FILE__, __LINE__, __VA_ARGS__)

#define TEST_MAIN(setup)  \
  int main() {            \
    setup;                \
    return test::run_all(); \
  }
