/*
 * Driver of tests/c/legacy_producer.cc (built against the headers of release 0.1.7), itself
 * built against ffihub's headers: code of the current layout receiving what early header code
 * produces, on ffihub's runtime (docs/compatibility.md). Usage:
 *
 *   legacy_driver <liblegacy_producer.so>
 *
 * - An error raised by 0.1.7 header code (whose std::string members sit where later error cells
 *   have `cause_chain` and `extra_context`) reads, once fetched, with the current cell layout:
 *   its kind, message and backtrace, no cause, no extra context, a working backtrace update;
 *   the runtime reads it too (ffi.ReprPrint).
 * - Objects allocated by that code (no allocation header before them) are released by the
 *   runtime: held in the runtime's containers, walked (repr, deep copy, structural hash) and
 *   released, with no object left behind (ffihub.LiveObjectCount) and no invalid access
 *   (valgrind).
 * - Type-attribute columns read the way 0.1.7's header code reads them (a size_t size, entries
 *   from type index 0) hold what the current layout (int32 size, begin_index) holds.
 *
 * Prints "ok <check> <detail>" per passed check and FAIL lines otherwise, then the summary line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#include "any_values.h"
#include "check.h"

static TVMFFIObjectHandle global(const char* name) {
  TVMFFIByteArray b = bytes_of(name);
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&b, &f) != 0 || f == NULL) {
    printf("FAIL no global function %s\n", name);
    ++g_failures;
  }
  return f;
}

static TVMFFIErrorCell* cell_of(TVMFFIObjectHandle error) {
  return (TVMFFIErrorCell*)((char*)error + sizeof(TVMFFIObject));
}

/* Calls global `name`; returns the call's status, the result in `rv` (None on failure). */
static int call(const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  TVMFFIObjectHandle f = global(name);
  *rv = any_none();
  if (f == NULL) return -1;
  int status = TVMFFIFunctionCall(f, args, n, rv);
  TVMFFIObjectDecRef(f);
  return status;
}

/* Calls global `name`, which must succeed; a raised error is printed and released. */
static int call_ok(const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  int status = call(name, args, n, rv);
  if (status != 0) {
    TVMFFIObjectHandle error = NULL;
    TVMFFIErrorMoveFromRaised(&error);
    if (error != NULL) {
      TVMFFIErrorCell* cell = cell_of(error);
      printf("   %s raised %.*s: %.*s\n", name, (int)cell->kind.size, cell->kind.data,
             (int)cell->message.size, cell->message.data);
      TVMFFIObjectDecRef(error);
    }
  }
  return status;
}

static int text_is(TVMFFIByteArray text, const char* expected) {
  return text.size == strlen(expected) && memcmp(text.data, expected, text.size) == 0;
}

static int64_t live_objects(void) {
  TVMFFIAny rv;
  call("ffihub.LiveObjectCount", NULL, 0, &rv);
  return rv.v_int64;
}

/* The legacy error, fetched by a caller of the current layout. */
static void test_raised_error(void) {
  TVMFFIAny args[2] = {any_raw_str("ValueError"), any_raw_str("raised by 0.1.7 header code")};
  TVMFFIAny rv;
  int status = call("legacy.raise", args, 2, &rv);
  CHECK(status == -1, "legacy.raise fails", "status %d", status);
  TVMFFIObjectHandle error = NULL;
  TVMFFIErrorMoveFromRaised(&error);
  CHECK(error != NULL, "the error is raised", "%s", error != NULL ? "yes" : "no");
  if (error == NULL) return;
  TVMFFIErrorCell* cell = cell_of(error);
  CHECK(text_is(cell->kind, "ValueError"), "kind", "%.*s", (int)cell->kind.size, cell->kind.data);
  CHECK(text_is(cell->message, "raised by 0.1.7 header code"), "message", "%.*s",
        (int)cell->message.size, cell->message.data);
  CHECK(strstr(cell->backtrace.data, "legacy_producer.cc: Raise") != NULL, "backtrace",
        "keeps the raiser's frames");
  CHECK(cell->cause_chain == NULL, "cause_chain", "%s", cell->cause_chain ? "set" : "NULL");
  CHECK(cell->extra_context == NULL, "extra_context", "%s",
        cell->extra_context ? "set" : "NULL");
  /* The current layout's backtrace update (as Python's packages call it). */
  TVMFFIByteArray more = bytes_of("appended frame\n");
  cell->update_backtrace(error, &more, kTVMFFIBacktraceUpdateModeAppend);
  CHECK(strstr(cell->backtrace.data, "appended frame") != NULL, "update_backtrace", "appends");
  /* The runtime reads it too (ffi.ReprPrint prints the cell). */
  TVMFFIAny repr_args[1] = {any_obj(error)};
  TVMFFIAny repr;
  int repr_status = call("ffi.ReprPrint", repr_args, 1, &repr);
  CHECK(repr_status == 0, "ffi.ReprPrint(error)", "status %d", repr_status);
  any_release(&repr);
  TVMFFIObjectDecRef(error);
}

/* Objects allocated by the legacy code, used and released by the runtime. */
static void test_objects(void) {
  TVMFFIAny values;
  int status = call("legacy.make_values", NULL, 0, &values);
  CHECK(status == 0 && values.type_index == kTVMFFIArray, "legacy.make_values", "an Array");
  if (status != 0) return;
  TVMFFIAny size;
  TVMFFIAny size_args[1] = {values};
  call("ffi.ArraySize", size_args, 1, &size);
  CHECK(size.v_int64 == 4, "four values", "%lld", (long long)size.v_int64);
  /* The runtime's own containers hold them, then drop them. */
  TVMFFIAny items[4];
  for (int i = 0; i < 4; ++i) {
    TVMFFIAny get_args[2] = {values, any_int(i)};
    call("ffi.ArrayGetItem", get_args, 2, &items[i]);
  }
  TVMFFIAny list;
  call("ffi.List", items, 4, &list);
  TVMFFIAny map_args[2] = {any_raw_str("box"), items[0]};
  TVMFFIAny map;
  call("ffi.Map", map_args, 2, &map);
  /* Walks over the legacy objects' reflected fields and containers (0.1.7 registers no shallow
   * copy for its types: the deep copy is of the Map). */
  TVMFFIAny walk_args[1] = {values};
  TVMFFIAny copy_args[1] = {items[1]};
  TVMFFIAny repr, copy, hash;
  CHECK(call_ok("ffi.ReprPrint", walk_args, 1, &repr) == 0, "ffi.ReprPrint", "of the values");
  CHECK(call_ok("ffi.DeepCopy", copy_args, 1, &copy) == 0, "ffi.DeepCopy", "of the Map");
  TVMFFIAny hash_args[3] = {items[0], any_none(), any_none()};
  hash_args[1].type_index = kTVMFFIBool;
  hash_args[2].type_index = kTVMFFIBool;
  CHECK(call_ok("ffi.StructuralHash", hash_args, 3, &hash) == 0, "ffi.StructuralHash",
        "of the Box");
  /* The legacy Function, called by the runtime's caller. */
  TVMFFIAny one[1] = {any_int(41)};
  TVMFFIAny sum = any_none();
  int call_status = TVMFFIFunctionCall(items[3].v_obj, one, 1, &sum);
  CHECK(call_status == 0 && sum.v_int64 == 42, "the legacy Function", "returns %lld",
        (long long)sum.v_int64);
  any_release(&repr);
  any_release(&copy);
  any_release(&hash);
  any_release(&map);
  any_release(&list);
  for (int i = 0; i < 4; ++i) any_release(&items[i]);
  any_release(&values);
}

/* Every column entry read the 0.1.7 way equals the entry read the current way. */
static void test_columns(void) {
  static const char* columns[] = {"__ffi_repr__", "__ffi_type_final__", "__ffi_new__",
                                  "__ffi_shallow_copy__", "__ffi_init__", "__any_hash__",
                                  "__data_to_json__"};
  for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); ++c) {
    TVMFFIByteArray name = bytes_of(columns[c]);
    const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name);
    if (column == NULL) {
      CHECK(0, "column", "%s is missing", columns[c]);
      continue;
    }
    int entries = 0, mismatches = 0;
    int32_t end = column->begin_index + column->size;
    for (int32_t index = 0; index < end + 8; ++index) {
      int32_t offset = index - column->begin_index;
      int64_t expected = -1;
      if (offset >= 0 && offset < column->size &&
          column->data[offset].type_index != kTVMFFINone) {
        expected = column->data[offset].type_index;
        ++entries;
      }
      TVMFFIAny args[2] = {any_raw_str(columns[c]), any_int(index)};
      TVMFFIAny got;
      call("legacy.column_entry", args, 2, &got);
      if (got.v_int64 != expected) ++mismatches;
    }
    CHECK(column->begin_index == 0 && mismatches == 0 && entries > 0, "column read the 0.1.7 way",
          "%s: %d entries, begin_index %d, %d mismatches", columns[c], entries,
          column->begin_index, mismatches);
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <liblegacy_producer.so>\n", argv[0]);
    return 2;
  }
  /* Counting starts before the library makes anything. */
  live_objects();
  if (dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  /* Serving the older code changes nothing of what the runtime reports. */
  TVMFFIVersion version;
  TVMFFIGetVersion(&version);
  CHECK(version.major == TVM_FFI_VERSION_MAJOR && version.minor == TVM_FFI_VERSION_MINOR &&
            version.patch == TVM_FFI_VERSION_PATCH,
        "TVMFFIGetVersion", "%u.%u.%u, the release the headers declare", version.major,
        version.minor, version.patch);
  int64_t live_before = live_objects();
  test_raised_error();
  test_objects();
  int64_t live_after = live_objects();
  CHECK(live_before == live_after, "leaks", "no objects left behind (%lld before, %lld after)",
        (long long)live_before, (long long)live_after);
  test_columns();
  return check_summary();
}
