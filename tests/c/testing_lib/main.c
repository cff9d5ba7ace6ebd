/* The testing-library host's entry point: loads the library, runs every area with its
 * live-object check, then the coverage table and the end-of-run checks. */
#include "testing_lib.h"
#include "../live_objects.h"

/* ffihub's live-object counter, NULL on Apache's runtime. */
static void* g_live_fn = NULL;

int g_failures = 0;

/* ------------------------------------------------------------------------------------------ */

/* Runs one section and checks that it released every runtime-allocated object it created
   (same transcript line on both runtimes; the numbers go to stderr). */
static void run_section(const char* name, void (*fn)(void)) {
  int64_t before = live_object_count(g_live_fn);
  fn();
  int64_t after = live_object_count(g_live_fn);
  if (after != before) fprintf(stderr, "live objects in %s: %lld -> %lld\n", name, (long long)before, (long long)after);
  CHECK(after == before, fmt("live objects balanced after %s", name), "%s", after == before ? "yes" : "no");
}

static const char* g_lib_path = NULL;
static void test_modules_section(void) { test_modules(g_lib_path); }

static void test_coverage_table(void) {
  int covered = 0, skipped = 0;
  for (int i = 0; i < NUM_TESTING_FNS; ++i) {
    const TestingFn* f = &g_testing_fns[i];
    if (f->skip) {
      ++skipped;
      CHECK(f->calls == 0, fmt("table testing.%s", f->name), "skipped: %s", f->skip);
    } else {
      ++covered;
      CHECK(f->calls > 0, fmt("table testing.%s", f->name), "called %d time(s)", f->calls);
    }
  }
  CHECK(covered >= 50 && covered + skipped == NUM_TESTING_FNS, "table summary", "%d of %d called, %d skipped",
        covered, NUM_TESTING_FNS, skipped);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/libtvm_ffi_testing.so\n", argv[0]);
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen(%s) failed: %s\n", argv[1], dlerror());
    return 2;
  }
  CHECK(type_index_of("testing.TestIntPair") >= kTVMFFIDynObjectBegin, "load: testing types registered", "%s",
        "testing.TestIntPair");
  TVMFFIAny kw;
  if (G0("ffi.GetKwargsObject", &kw) != 0 || kw.type_index != kTVMFFIObject) die("ffi.GetKwargsObject");
  g_kwargs = kw;

  g_lib_path = argv[1];
  g_live_fn = live_counter();
  /* warm-up: the system-library modules are process-lifetime singletons */
  TVMFFIAny warm;
  if (G0("ffi.SystemLib", &warm) == 0) any_release(&warm);
  if (G("ffi.SystemLib", &warm, any_raw_str("testing.")) == 0) any_release(&warm);
  void* err = take_raised();
  if (err) TVMFFIObjectDecRef(err);

  run_section("globals", test_global_table);
  run_section("scalars", test_scalars);
  run_section("run_check_signal", test_run_check_signal);
  run_section("errors", test_errors);
  run_section("callbacks", test_callbacks);
  run_section("arrays and lists", test_arrays_and_lists);
  run_section("maps", test_maps);
  run_section("container mutations", test_container_mutations);
  run_section("tensors", test_tensors);
  run_section("type info", test_type_info);
  run_section("TestIntPair", test_int_pair);
  run_section("TestObjectBase", test_object_base);
  run_section("TestCxxClass*", test_cxx_classes);
  run_section("auto init", test_auto_init);
  run_section("SchemaAllTypes", test_schema_all_types);
  run_section("other objects", test_other_objects);
  run_section("more objects", test_more_objects);
  run_section("repr", test_repr);
  run_section("modules", test_modules_section);
  test_coverage_table();
  if (g_live_fn) TVMFFIObjectDecRef(g_live_fn);

  any_release(&g_kwargs);
  void* leftover = take_raised();
  CHECK(leftover == NULL, "end: error slot empty", "slot=%s", leftover ? "set" : "empty");
  if (leftover) TVMFFIObjectDecRef(leftover);
  for (int i = 0; i < RING_SIZE; ++i) free(g_ring[i]);
  /* the library stays loaded: its registrations live in the runtime's registries */
  return check_summary();
}
