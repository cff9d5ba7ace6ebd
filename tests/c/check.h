/* Reporting for the C test programs: one line per check,
 *
 *     ok <check-name> <observed facts>
 *     FAIL <check-name> <observed facts> [<file>.c:<line>]
 *
 * then check_summary()'s last line, "PASSED: 0 check(s) failed" when all passed, which the Rust
 * drivers look for (tests/src/lib.rs, PASSED_LINE). */
#ifndef FFIHUB_TESTS_C_CHECK_H_
#define FFIHUB_TESTS_C_CHECK_H_

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A program of several files defines CHECK_SHARED before including this header in each file,
 * and `int g_failures = 0;` in one of them. */
#ifdef CHECK_SHARED
extern int g_failures;
#else
static int g_failures = 0;
#endif

/* Prints one check's line; a failure names `file` (without its folder) and `line`. */
static inline void check_at(int ok, const char* file, int line, const char* name, const char* fmt, ...) {
  va_list ap;
  const char* base = strrchr(file, '/');
  printf("%s %s ", ok ? "ok" : "FAIL", name);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  if (!ok) {
    printf(" [%s:%d]", base ? base + 1 : file, line);
    ++g_failures;
  }
  printf("\n");
  fflush(stdout);
}

/* check_impl(ok, line, name, printf-format, args...): for helpers that check on their caller's
 * behalf and pass its line along. */
#define check_impl(ok, line, ...) check_at(ok, __FILE__, line, __VA_ARGS__)

/* CHECK(condition, name, printf-format, args...): the format describes the observed values. */
#define CHECK(cond, name, ...) check_impl((cond) ? 1 : 0, __LINE__, name, __VA_ARGS__)

/* Prints the summary line; returns the program's exit status. */
static inline int check_summary(void) {
  printf("%s: %d check(s) failed\n", g_failures ? "FAILED" : "PASSED", g_failures);
  return g_failures ? 1 : 0;
}

#endif /* FFIHUB_TESTS_C_CHECK_H_ */
