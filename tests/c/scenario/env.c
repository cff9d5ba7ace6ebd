/* The scenario's checks of the environment (streams, the DLPack allocator, signals, the C API
 * registry), the custom object allocator, init once. */
#include "scenario.h"

/* ------------------------------------------------------------------------------------------ */
/* 14. environment: streams, DLPack allocator, signals, C API registry                        */
/* ------------------------------------------------------------------------------------------ */

static int g_stream_a, g_stream_b, g_stream_c;

typedef struct {
  void* seen_before;
  void* seen_after;
  void* old;
  int rc;
} StreamThread;

static void* stream_thread(void* arg) {
  StreamThread* s = (StreamThread*)arg;
  s->seen_before = TVMFFIEnvGetStream(kDLCUDA, 0);
  s->old = (void*)0x1;
  s->rc = TVMFFIEnvSetStream(kDLCUDA, 0, &g_stream_c, &s->old);
  s->seen_after = TVMFFIEnvGetStream(kDLCUDA, 0);
  TVMFFIEnvSetStream(kDLCUDA, 0, NULL, NULL);
  return NULL;
}

static const char* stream_name(void* s) {
  if (s == NULL) return "null";
  if (s == &g_stream_a) return "A";
  if (s == &g_stream_b) return "B";
  if (s == &g_stream_c) return "C";
  return "other";
}

void test_streams(void) {
  void* s = TVMFFIEnvGetStream(kDLCUDA, 0);
  CHECK(s == NULL, "stream.initial", "stream=%s", stream_name(s));
  void* old = (void*)0x1;
  int rc = TVMFFIEnvSetStream(kDLCUDA, 0, &g_stream_a, &old);
  CHECK(rc == 0 && old == NULL && TVMFFIEnvGetStream(kDLCUDA, 0) == &g_stream_a, "stream.set",
        "rc=%d previous=%s current=%s", rc, stream_name(old),
        stream_name(TVMFFIEnvGetStream(kDLCUDA, 0)));
  rc = TVMFFIEnvSetStream(kDLCUDA, 0, &g_stream_b, &old);
  CHECK(rc == 0 && old == &g_stream_a && TVMFFIEnvGetStream(kDLCUDA, 0) == &g_stream_b,
        "stream.set-returns-previous", "rc=%d previous=%s current=%s", rc, stream_name(old),
        stream_name(TVMFFIEnvGetStream(kDLCUDA, 0)));
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 1) == NULL && TVMFFIEnvGetStream(kDLCPU, 0) == NULL &&
            TVMFFIEnvGetStream(kDLROCM, 0) == NULL,
        "stream.per-device", "cuda:1=%s cpu:0=%s rocm:0=%s",
        stream_name(TVMFFIEnvGetStream(kDLCUDA, 1)), stream_name(TVMFFIEnvGetStream(kDLCPU, 0)),
        stream_name(TVMFFIEnvGetStream(kDLROCM, 0)));
  rc = TVMFFIEnvSetStream(kDLCUDA, 7, &g_stream_c, NULL);
  CHECK(rc == 0 && TVMFFIEnvGetStream(kDLCUDA, 7) == &g_stream_c &&
            TVMFFIEnvGetStream(kDLCUDA, 0) == &g_stream_b,
        "stream.set-without-previous", "rc=%d cuda:7=%s cuda:0=%s", rc,
        stream_name(TVMFFIEnvGetStream(kDLCUDA, 7)), stream_name(TVMFFIEnvGetStream(kDLCUDA, 0)));

  StreamThread st = {NULL, NULL, NULL, -1};
  run_in_thread(stream_thread, &st);
  CHECK(st.seen_before == NULL && st.rc == 0 && st.old == NULL && st.seen_after == &g_stream_c &&
            TVMFFIEnvGetStream(kDLCUDA, 0) == &g_stream_b,
        "stream.per-thread", "worker_before=%s worker_previous=%s worker_after=%s main=%s",
        stream_name(st.seen_before), stream_name(st.old), stream_name(st.seen_after),
        stream_name(TVMFFIEnvGetStream(kDLCUDA, 0)));

  TVMFFIEnvSetStream(kDLCUDA, 0, NULL, &old);
  TVMFFIEnvSetStream(kDLCUDA, 7, NULL, NULL);
  CHECK(old == &g_stream_b && TVMFFIEnvGetStream(kDLCUDA, 0) == NULL, "stream.reset",
        "previous=%s current=%s", stream_name(old), stream_name(TVMFFIEnvGetStream(kDLCUDA, 0)));
}

static int alloc_one(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                     void (*set_error)(void* error_ctx, const char* kind, const char* message)) {
  (void)prototype;
  (void)out;
  set_error(error_ctx, "RuntimeError", "alloc_one is not meant to be called");
  return -1;
}

static int alloc_two(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                     void (*set_error)(void* error_ctx, const char* kind, const char* message)) {
  (void)prototype;
  (void)out;
  set_error(error_ctx, "RuntimeError", "alloc_two is not meant to be called");
  return -1;
}

static const char* alloc_name(DLPackManagedTensorAllocator a) {
  if (a == NULL) return "null";
  if (a == alloc_one) return "one";
  if (a == alloc_two) return "two";
  return "other";
}

static void* alloc_thread(void* arg) {
  *(DLPackManagedTensorAllocator*)arg = TVMFFIEnvGetDLPackManagedTensorAllocator();
  return NULL;
}

void test_dlpack_allocator(void) {
  DLPackManagedTensorAllocator a = TVMFFIEnvGetDLPackManagedTensorAllocator();
  CHECK(a == NULL, "allocator.initial", "allocator=%s", alloc_name(a));
  DLPackManagedTensorAllocator old = alloc_two;
  int rc = TVMFFIEnvSetDLPackManagedTensorAllocator(alloc_one, 0, &old);
  a = TVMFFIEnvGetDLPackManagedTensorAllocator();
  CHECK(rc == 0 && old == NULL && a == alloc_one, "allocator.set-local",
        "rc=%d previous=%s current=%s", rc, alloc_name(old), alloc_name(a));
  DLPackManagedTensorAllocator seen = alloc_two;
  run_in_thread(alloc_thread, &seen);
  CHECK(seen == NULL, "allocator.local-not-on-other-thread", "worker_sees=%s", alloc_name(seen));

  rc = TVMFFIEnvSetDLPackManagedTensorAllocator(alloc_two, 1, &old);
  a = TVMFFIEnvGetDLPackManagedTensorAllocator();
  CHECK(rc == 0 && old == alloc_one && a == alloc_two, "allocator.set-global",
        "rc=%d previous=%s current=%s", rc, alloc_name(old), alloc_name(a));
  seen = NULL;
  run_in_thread(alloc_thread, &seen);
  CHECK(seen == alloc_two, "allocator.global-on-other-thread", "worker_sees=%s", alloc_name(seen));

  rc = TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 1, &old);
  a = TVMFFIEnvGetDLPackManagedTensorAllocator();
  CHECK(rc == 0 && old == alloc_two && a == NULL, "allocator.reset", "rc=%d previous=%s current=%s",
        rc, alloc_name(old), alloc_name(a));
  rc = TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 0, NULL);
  CHECK(rc == 0, "allocator.set-without-previous", "rc=%d", rc);
}

void test_env_misc(void) {
  int rc = TVMFFIEnvCheckSignals();
  CHECK(rc == 0, "env.check-signals", "rc=%d", rc);
  rc = TVMFFIEnvRegisterCAPI("NoSuchAPI", (void*)test_env_misc);
  /* Apache: ValueError "Unknown env API NoSuchAPI" */
  EXPECT_ERROR("env.register-capi-unknown", rc, "ValueError", "Unknown env API NoSuchAPI");
  rc = TVMFFIEnvCheckSignals();
  CHECK(rc == 0, "env.check-signals-after", "rc=%d", rc);
}

/* ------------------------------------------------------------------------------------------ */
/* 15. custom object allocator                                                                 */
/* ------------------------------------------------------------------------------------------ */

static int g_my_alloc_context;
static void* my_allocate(size_t size, size_t alignment, int32_t type_index, void* context) {
  (void)size;
  (void)alignment;
  (void)type_index;
  (void)context;
  return NULL;
}

void test_custom_allocator(void) {
  TVMFFICustomAllocator* builtin = TVMFFIGetCustomAllocator();
  CHECK(builtin != NULL && builtin->allocate != NULL, "allocator.builtin", "allocator=%s allocate=%s",
        builtin ? "set" : "null", builtin && builtin->allocate ? "set" : "null");
  if (builtin == NULL || builtin->allocate == NULL) return;
  size_t aligns[2] = {8, 16};
  for (int i = 0; i < 2; ++i) {
    void* p = builtin->allocate(48, aligns[i], kTVMFFIObject, builtin->context);
    TVMFFIObjectAllocHeader* h = p ? (TVMFFIObjectAllocHeader*)p - 1 : NULL;
    int aligned = p != NULL && ((uintptr_t)p % aligns[i]) == 0;
    CHECK(p != NULL && aligned && h->delete_space != NULL,
          i == 0 ? "allocator.builtin-allocate-8" : "allocator.builtin-allocate-16",
          "ptr=%s aligned=%d delete_space=%s", p ? "set" : "null", aligned,
          h && h->delete_space ? "set" : "null");
    if (p != NULL && h->delete_space != NULL) {
      memset(p, 0xab, 48);
      h->delete_space(p);
    }
  }
  static TVMFFICustomAllocator mine;
  mine.allocate = my_allocate;
  mine.context = &g_my_alloc_context;
  int rc = TVMFFISetCustomAllocator(&mine);
  TVMFFICustomAllocator* now = TVMFFIGetCustomAllocator();
  CHECK(rc == 0 && now == &mine, "allocator.set-custom", "rc=%d current=%s", rc,
        now == &mine ? "ours" : "other");
  rc = TVMFFISetCustomAllocator(NULL);
  now = TVMFFIGetCustomAllocator();
  CHECK(rc == 0 && now == builtin, "allocator.restore-builtin", "rc=%d current=%s", rc,
        now == builtin ? "builtin" : "other");
}

/* ------------------------------------------------------------------------------------------ */
/* 16. init once / deinit once                                                                 */
/* ------------------------------------------------------------------------------------------ */

static int g_init_target;
static int g_init_calls = 0, g_deinit_calls = 0;
static void* g_deinit_arg = NULL;
static int g_deinit_code = 0;

static int init_ok(void** result) {
  ++g_init_calls;
  *result = &g_init_target;
  return 0;
}
static int init_code5(void** result) {
  (void)result;
  return 5;
}
static int init_null(void** result) {
  *result = NULL;
  return 0;
}
static int deinit_cb(void* handle) {
  ++g_deinit_calls;
  g_deinit_arg = handle;
  return g_deinit_code;
}

void test_init_once(void) {
  void* handle = NULL;
  int rc = TVMFFIHandleInitOnce(&handle, init_ok);
  CHECK(rc == 0 && handle == &g_init_target && g_init_calls == 1, "init-once.first",
        "rc=%d handle=%s init_calls=%d", rc, handle == &g_init_target ? "target" : "other",
        g_init_calls);
  rc = TVMFFIHandleInitOnce(&handle, init_ok);
  CHECK(rc == 0 && g_init_calls == 1, "init-once.second", "rc=%d init_calls=%d", rc, g_init_calls);

  void* h2 = NULL;
  rc = TVMFFIHandleInitOnce(&h2, init_code5);
  void* err = take_raised();
  CHECK(rc == 5 && h2 == NULL && err == NULL, "init-once.code-propagates", "rc=%d handle=%s error=%s",
        rc, h2 ? "set" : "null", err ? "raised" : "none");
  if (err) TVMFFIObjectDecRef(err);

  void* h3 = NULL;
  rc = TVMFFIHandleInitOnce(&h3, init_null);
  /* Apache: RuntimeError "init_func must return a non-NULL handle" */
  EXPECT_ERROR("init-once.null-result", rc, "RuntimeError", "init_func must return a non-NULL handle");

  g_deinit_code = 0;
  rc = TVMFFIHandleDeinitOnce(&handle, deinit_cb);
  CHECK(rc == 0 && handle == NULL && g_deinit_calls == 1 && g_deinit_arg == &g_init_target,
        "deinit-once.first", "rc=%d handle=%s deinit_calls=%d arg=%s", rc, handle ? "set" : "null",
        g_deinit_calls, g_deinit_arg == &g_init_target ? "target" : "other");
  rc = TVMFFIHandleDeinitOnce(&handle, deinit_cb);
  CHECK(rc == 0 && g_deinit_calls == 1, "deinit-once.second", "rc=%d deinit_calls=%d", rc,
        g_deinit_calls);
  rc = TVMFFIHandleInitOnce(&handle, init_ok);
  g_deinit_code = 9;
  int rc2 = TVMFFIHandleDeinitOnce(&handle, deinit_cb);
  CHECK(rc == 0 && g_init_calls == 2 && rc2 == 9 && g_deinit_calls == 2, "deinit-once.code-propagates",
        "init_rc=%d init_calls=%d deinit_rc=%d deinit_calls=%d", rc, g_init_calls, rc2, g_deinit_calls);
}
