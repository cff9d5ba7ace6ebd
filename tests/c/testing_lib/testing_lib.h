/*
 * Hosting Apache's libtvm_ffi_testing.so: one C program (the files of tests/c/testing_lib/, one
 * per area) that dlopens the wheel's testing library
 * (its path is argv[1]) and drives it through the TVM-FFI C ABI only, printing a deterministic
 * transcript, one line per check:
 *
 *     ok <check-name> <observed facts>
 *     FAIL <check-name> <observed facts> [<file>.c:<line>]
 *
 * The testing library has DT_NEEDED libtvm_ffi.so, so it binds to whichever runtime the library
 * path selects: the same binary (compiled against Apache's headers, linked with -ltvm_ffi, no
 * rpath) hosts it on Apache's runtime and on ffihub's. The Rust driver
 * (tests/conformance/testing_lib.rs) asserts that both runs pass, that their transcripts are
 * identical, and that a valgrind run on ffihub's runtime is clean.
 *
 * What is covered:
 *   - the testing.* global functions, called by name (TVMFFIFunctionGetGlobal +
 *     TVMFFIFunctionCall) with checked results; the table `g_testing_fns` below lists every one
 *     of the 59, and the run checks that each listed function was really called;
 *   - the object types: type info (key, depth, ancestors, fields, methods, metadata) read
 *     through TVMFFIGetTypeInfo, construction through the `__ffi_init__` type attribute
 *     (positional, keyword arguments via the ffi.GetKwargsObject sentinel, defaults, errors),
 *     field getters and setters, instance and static methods;
 *   - containers in both directions: Array/List/Map/Dict/Shape built by the runtime's ffi.*
 *     constructors are read by the library's C++ code (typed conversions, Map lookups, copies),
 *     and containers built by C++ are read back through ffi.ArrayGetItem, ffi.MapGetItem,
 *     ffi.MapForwardIterFunctor, ...; maps above Apache's small-map limit (4 entries) are dense
 *     in both directions;
 *   - tensors made with TVMFFITensorFromDLPack over a C buffer, with a counted deleter;
 *   - callbacks (TVMFFIFunctionCreate), errors raised by C++ and by callbacks;
 *   - the library as a DSO module (ffi.ModuleLoadFromFile, ffi.ModuleGetFunction/...Metadata/
 *     ...Doc) and its system-library symbol (ffi.SystemLib("testing."));
 *   - ffi.ReprPrint of testing objects, C++-built containers, floats, escaped strings, cycles;
 *   - on ffihub's runtime, which offers `ffihub.LiveObjectCount`, every section must release all
 *     the runtime-allocated objects it created (the transcript line is the same on both).
 *
 * Run-specific values never appear: dynamic type indices are printed as type keys (or relative
 * to the first testing type, as the library registers them in a fixed order), pointers as
 * "same"/"other", backtraces not at all. Exit status 1 if any check failed, 2 on a setup error.
 */
/* What the files of the program share: the table of testing.* functions, the reporting, text and
 * ABI helpers, describe(), the result checks, and each area's test function, which main.c runs
 * in order. */
#ifndef FFIHUB_TESTS_C_TESTING_LIB_H_
#define FFIHUB_TESTS_C_TESTING_LIB_H_

#define _GNU_SOURCE
#include <dlfcn.h>
#include <dlpack/dlpack.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <unistd.h>

#define CHECK_SHARED
#include "../any_values.h"
#include "../check.h"

/* ---- shared helpers (common.c) ---- */

typedef struct {
  const char* name; /* without the "testing." prefix */
  const char* skip; /* reason, or NULL when covered */
  int calls;
} TestingFn;

extern TestingFn g_testing_fns[];
extern const int g_num_testing_fns;
#define NUM_TESTING_FNS g_num_testing_fns
void die(const char* what);
typedef struct {
  char* data;
  size_t len;
  size_t cap;
} Buf;

void buf_reserve(Buf* b, size_t extra);
void buf_putn(Buf* b, const char* s, size_t n);
void buf_puts(Buf* b, const char* s);
void buf_printf(Buf* b, const char* fmt, ...);
void buf_quoted(Buf* b, const char* data, size_t size);
#define RING_SIZE 64
extern char* g_ring[RING_SIZE];
extern int g_ring_next;
const char* ring_take(Buf* b);
const char* fmt(const char* f, ...);
const char* quote_n(const char* data, size_t size);
const char* qba(TVMFFIByteArray a);
const char* same(const void* a, const void* b);
TVMFFIByteArray ba(const char* s);
int ba_eq(TVMFFIByteArray a, const char* s);
uint32_t strong_of(void* obj);
TVMFFIAny any_bool(int v);
TVMFFIAny any_ptr(void* p);
TVMFFIAny any_device(int32_t type, int32_t id);
TVMFFIAny any_dtype(uint8_t code, uint8_t bits, uint16_t lanes);
TVMFFIAny any_dltensor(DLTensor* t);
int is_obj(const TVMFFIAny* a);
TVMFFIByteArray any_bytes(const TVMFFIAny* a);
int any_str_eq(const TVMFFIAny* a, const char* s);
TVMFFIAny make_string(const char* s);
TVMFFIAny make_bytes(const char* data, size_t n);
TVMFFIErrorCell* error_cell(void* err);
void* take_raised(void);
const char* type_key_of(int32_t index);
int32_t type_index_of(const char* key);
void* get_global(const char* name);
TVMFFIAny get_global_any(const char* name);
int call_fn(void* f, TVMFFIAny* args, int n, TVMFFIAny* rv);
int call_global(const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv);
int call_testing(const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv);
#define ARGS(...) ((TVMFFIAny[]){__VA_ARGS__})
#define NARGS(...) ((int)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny)))
#define T(name, rv, ...) call_testing(name, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)
#define T0(name, rv) call_testing(name, NULL, 0, rv)
#define G(name, rv, ...) call_global(name, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)
#define G0(name, rv) call_global(name, NULL, 0, rv)
#define F(fn, rv, ...) call_fn(fn, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)
void buf_raised(Buf* b, int rc);
int64_t seq_size(const char* size_fn, const TVMFFIAny* v, Buf* b);
void describe_seq(Buf* b, const TVMFFIAny* v, const char* size_fn, const char* get_fn, int depth);
void describe_map(Buf* b, const TVMFFIAny* v, const char* size_fn, const char* iter_fn, int depth);
int collect_fields(const TVMFFITypeInfo* info, const TVMFFIFieldInfo** out, int cap);
int get_field(void* obj, const TVMFFIFieldInfo* f, TVMFFIAny* out);
void describe_object(Buf* b, void* obj, int depth);
void describe_into(Buf* b, const TVMFFIAny* v, int depth);
const char* describe(const TVMFFIAny* v);
const char* map_layout(const TVMFFIAny* v);
int expect_value(const char* name, int rc, const TVMFFIAny* rv, const char* expected, const char* file, int line);
#define EXPECT_VALUE(name, rc, rv, expected) expect_value(name, rc, rv, expected, __FILE__, __LINE__)
#define EXPECT_VALUE_REL(name, rc, rv, expected)      \
  do {                                                \
    expect_value(name, rc, rv, expected, __FILE__, __LINE__);   \
    any_release(rv);                                  \
  } while (0)
void expect_error(const char* name, int rc, TVMFFIAny* rv, const char* kind, const char* message, const char* file, int line);
#define EXPECT_ERROR(name, rc, rv, kind, message) expect_error(name, rc, rv, kind, message, __FILE__, __LINE__)
void expect_error_kind(const char* name, int rc, TVMFFIAny* rv, const char* kind, const char* file, int line);
#define EXPECT_ERROR_KIND(name, rc, rv, kind) expect_error_kind(name, rc, rv, kind, __FILE__, __LINE__)
int expect_ok(const char* name, int rc, const char* file, int line);
#define EXPECT_OK(name, rc) expect_ok(name, rc, __FILE__, __LINE__)
TVMFFIAny build(const char* ctor, TVMFFIAny* args, int n);
#define BUILD(ctor, ...) build(ctor, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__))
typedef struct {
  TVMFFIAny* items;
  int n;
  int cap;
} Pool;

TVMFFIAny pool_add(Pool* p, TVMFFIAny v);
TVMFFIAny pstr(Pool* p, const char* s);
void pool_release(Pool* p);
TVMFFIAny build_str_int_map(const char* ctor, Pool* p, const char* prefix, int n);
TVMFFIAny map_get(const char* getter, const TVMFFIAny* m, const char* key, int* rc);
int cmp_str(const void* a, const void* b);
const TVMFFIAny* type_attr(const char* column, int32_t ti);
/* the ffi.GetKwargsObject sentinel (objects.c), set by main.c */
extern TVMFFIAny g_kwargs;

/* ---- the areas, in the order main.c runs them ---- */

/* functions.c */
void test_global_table(void);
void test_scalars(void);
void test_run_check_signal(void);
void test_errors(void);
void test_callbacks(void);
/* containers.c */
void test_arrays_and_lists(void);
void test_maps(void);
void test_container_mutations(void);
/* tensors.c */
void test_tensors(void);
/* types.c */
void test_type_info(void);
/* objects.c */
void test_int_pair(void);
void test_object_base(void);
void test_cxx_classes(void);
void test_auto_init(void);
void test_schema_all_types(void);
void test_other_objects(void);
void test_more_objects(void);
void test_repr(void);
/* modules.c */
void test_modules(const char* path);

#endif /* FFIHUB_TESTS_C_TESTING_LIB_H_ */
