// CHECK(cond) for the standalone C++ programs of other suites (tests/kernels, tests/exports,
// tests/tvm): a failed condition is printed with its place and the program exits with 1, which
// the suite's driver reports. (The behaviour tests of tests/cpp use common.hpp's cases instead.)
#pragma once

#include <cstdio>
#include <cstdlib>

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "%s:%d: CHECK(%s)\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)
