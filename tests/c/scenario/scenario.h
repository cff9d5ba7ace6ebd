/*
 * Conformance scenario: one C program (the files of tests/c/scenario/, one per area) that drives every core function of the TVM-FFI C ABI
 * (c_api.h + extra/c_env_api.h, version 0.1.16) and prints a deterministic transcript, one line
 * per check:
 *
 *     ok <check-name> <observed facts>
 *     FAIL <check-name> <observed facts> [<file>.c:<line>]
 *
 * The same binary (compiled once against Apache's headers, linked with -ltvm_ffi, no rpath) is
 * run against Apache's libtvm_ffi.so and against ffihub's, selected by LD_LIBRARY_PATH; the
 * Rust driver (tests/conformance/scenario.rs) asserts that both runs pass and that their
 * transcripts are identical. Run-specific values never appear verbatim: dynamic type indices
 * are printed as labels (<Point>, <Point>+1, ...), pointers as "same"/"other", backtraces not
 * at all. Exit status is 1 if any check failed.
 *
 * Every error check compares the exact kind and message. The comment "Apache:" next to a check
 * records what Apache's runtime (apache-tvm-ffi 0.1.15.post2, ABI 0.1.16) produced, so that
 * ffihub's runtime can match it.
 *
 * What the scenario leaves behind in the registries at exit (relevant for the live-object check
 * at the end, which only runs when the runtime offers the global `ffihub.LiveObjectCount`):
 * the registered type keys, field/method names, docs and metadata (registry-internal copies),
 * POD or small-string values (type attributes, field defaults) and C-allocated (foreign)
 * function objects. Every object allocated by the runtime on the scenario's behalf is released
 * again, including the global functions (removed with `ffi.FunctionRemoveGlobal`).

 */
/* What the files of the scenario share: the reporting helpers, the small helpers over the ABI, the
 * C-side objects, and each area's test function, which main.c calls in order. */
#ifndef FFIHUB_TESTS_C_SCENARIO_H_
#define FFIHUB_TESTS_C_SCENARIO_H_

#define _GNU_SOURCE
#include <dlpack/dlpack.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#define CHECK_SHARED
#include "../any_values.h"
#include "../check.h"
#include <tvm/ffi/extra/c_env_api.h>

/* ---- reporting and helpers (common.c) ---- */

void register_dyn(int32_t index, const char* label);
char* next_buf(void);
const char* tidx(int32_t index);
const char* quote(const char* data, size_t size);
const char* qba(TVMFFIByteArray a);
const char* same(const void* a, const void* b);
TVMFFIByteArray ba(const char* s);
int ba_eq(TVMFFIByteArray a, const char* s);
int ba_eq_n(TVMFFIByteArray a, const char* s, size_t n);
uint64_t refcount_word(void* obj);
uint32_t strong_of(void* obj);
uint32_t weak_of(void* obj);
TVMFFIByteArray any_bytes(const TVMFFIAny* a);
TVMFFIAny make_string(const char* s);
TVMFFIErrorCell* error_cell(void* err);
TVMFFIFunctionCell* function_cell(void* f);
void* take_raised(void);
void expect_error(const char* name, int rc, const char* kind, const char* message, const char* file,
                  int line);
#define EXPECT_ERROR(name, rc, kind, message) expect_error(name, rc, kind, message, __FILE__, __LINE__)
void expect_ok(const char* name, int rc, const char* fmt_detail, const char* file, int line);
#define EXPECT_OK(name, rc) expect_ok(name, rc, #rc, __FILE__, __LINE__)
void* get_global(const char* name);
int call_global_str(const char* fname, const char* arg, TVMFFIAny* rv);
void run_in_thread(void* (*fn)(void*), void* arg);
typedef struct {
  TVMFFIObject header;
  int64_t payload;
} CObj;

extern int g_cobj_flags[16];
extern int g_cobj_num_flags;
void cobj_record(int flags);
const char* cobj_flag_list(void);
void cobj_deleter(void* self, int flags);
void cobj_deleter_drop_weak(void* self, int flags);
CObj* cobj_new(void (*deleter)(void*, int));
typedef struct {
  TVMFFIObject header;
  TVMFFIFunctionCell cell;
} CFunctionObj;

extern int g_cfunc_deleted;
void cfunc_deleter(void* self, int flags);

/* ---- the areas, in the order main.c runs them ---- */

/* values.c */
void test_version(void);
void test_refcount(void);
void test_opaque(void);
void test_strings(void);
void test_any_view_to_owned(void);
void test_bigint(void);
void test_dtype(void);
/* errors.c */
void test_errors(void);
void test_backtrace(void);
/* functions.c */
void test_functions(void);
void test_globals(void);
/* types.c */
void test_type_indices(void);
void test_type_info(void);
void test_fields(void);
void test_metadata_and_accessors(void);
void test_attrs(void);
/* env.c */
void test_streams(void);
void test_dlpack_allocator(void);
void test_env_misc(void);
void test_custom_allocator(void);
void test_init_once(void);

#endif /* FFIHUB_TESTS_C_SCENARIO_H_ */
