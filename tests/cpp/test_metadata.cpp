// The load-time check of generated headers: a header used before its library is loaded says
// so; a header generated from different metadata (demo_stale.hpp, made by the driver from an
// edited dump of the demo) lists every difference and how to regenerate it. The golden test:
// the support library spells the manifest of the demo's and the testing library's headers from
// live reflection alone, byte for byte (the manifest's format: ADR 0020).
#include "common.hpp"
#include "demo.hpp"
#include "demo_stale.hpp"
#include "tvm_ffi_testing.hpp"

TEST_CASE(before_the_library_is_loaded) {
  CHECK_THROWS(ffihub::RuntimeError, demo::add_one(1),
               "libffihub_demo.so is not loaded (none of the functions and types of demo.hpp");
  CHECK_THROWS(ffihub::RuntimeError, demo::Point(1, 2), "call ffihub::load_library(path) first");
}

TEST_CASE(a_matching_header_works_once_loaded) {
  test::load_demo();
  CHECK_EQ(demo::add_one(1), 2);
  CHECK_EQ(demo::Point(3, 4).norm(), 5.0);
}

TEST_CASE(live_reflection_reproduces_the_manifest) {
  test::load_demo();
  test::load_testing();
  for (const ffihub::detail::Library* lib :
       {&demo::detail::ffi_library(), &tvm_ffi_testing::detail::ffi_library()}) {
    CHECK(lib->manifest().size() > 100);
    CHECK_EQ(lib->live_manifest(), lib->manifest());
  }
  // A stale header's manifest is not reproduced: the live spelling differs where it does.
  const std::string stale = demo_stale::detail::ffi_library().live_manifest();
  CHECK(stale.find("f demo.add_one (int) -> int\n") != std::string::npos);
  CHECK(stale.find("f demo.gone") == std::string::npos);
}

TEST_CASE(a_stale_header_lists_the_differences) {
  try {
    demo_stale::add_one(1.0);
    CHECK(false);
  } catch (const ffihub::RuntimeError& e) {
    std::string m = e.what();
    CHECK(m.find("demo_stale.hpp does not match the loaded library (it was generated from "
                 "libffihub_demo.so, metadata checksum fnv1a64:") != std::string::npos);
    CHECK(m.find("function demo.add_one: generated for (float) -> int, the library has (int) -> int") !=
          std::string::npos);
    CHECK(m.find("function demo.gone is not registered") != std::string::npos);
    CHECK(m.find("field demo.Counter.step: generated for rw float, the library has rw int") !=
          std::string::npos);
    CHECK(m.find("Regenerate it: ffihub generate --lang cpp --name demo_stale --lib <path of "
                 "libffihub_demo.so> --out <folder of demo_stale.hpp>") != std::string::npos);
    CHECK(m.find("demo.concat") == std::string::npos);  // unchanged items are not listed
  }
  // Every use fails, not only the first one.
  CHECK_THROWS(ffihub::RuntimeError, demo_stale::concat("a", "b"), "does not match");
  CHECK_THROWS(ffihub::RuntimeError, demo_stale::Point(1, 2), "does not match");
  // The matching header is unaffected.
  CHECK_EQ(demo::concat("a", "b"), "ab");
}

TEST_MAIN((void)0)
