/* The scenario's checks of errors and backtraces. */
#include "scenario.h"

/* ------------------------------------------------------------------------------------------ */
/* 8. errors                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static sem_t g_sem_raised, g_sem_checked;

typedef struct {
  int moved_ok;
  const TVMFFIByteArray* bt;
} ErrorThreadResult;

static void* error_thread(void* arg) {
  ErrorThreadResult* r = (ErrorThreadResult*)arg;
  TVMFFIErrorSetRaisedFromCStr("RuntimeError", "raised on a worker thread");
  sem_post(&g_sem_raised);
  sem_wait(&g_sem_checked);
  void* err = take_raised();
  r->moved_ok = err != NULL && ba_eq(error_cell(err)->kind, "RuntimeError") &&
                ba_eq(error_cell(err)->message, "raised on a worker thread");
  if (err != NULL) TVMFFIObjectDecRef(err);
  return NULL;
}

void test_errors(void) {
  /* empty slot */
  void* none = take_raised();
  CHECK(none == NULL, "error.move-empty", "result=%s", none == NULL ? "null" : "set");

  /* TVMFFIErrorCreate: new error, refcount 1, slot untouched */
  TVMFFIByteArray kind = ba("ValueError"), msg = ba("bad value"), bt = ba("  File \"x.c\", line 1, in f\n");
  void* err = NULL;
  int rc = TVMFFIErrorCreate(&kind, &msg, &bt, &err);
  EXPECT_OK("error.create", rc);
  if (err == NULL) return;
  TVMFFIErrorCell* cell = error_cell(err);
  CHECK(rc == 0 && ((TVMFFIObject*)err)->type_index == kTVMFFIError && strong_of(err) == 1 &&
            ba_eq(cell->kind, "ValueError") && ba_eq(cell->message, "bad value") &&
            ba_eq(cell->backtrace, "  File \"x.c\", line 1, in f\n") && cell->cause_chain == NULL &&
            cell->extra_context == NULL && cell->update_backtrace != NULL,
        "error.create", "rc=%d type_index=%d strong=%u kind=%s message=%s backtrace=%s cause=%s extra=%s",
        rc, ((TVMFFIObject*)err)->type_index, strong_of(err), qba(cell->kind), qba(cell->message),
        qba(cell->backtrace), cell->cause_chain ? "set" : "null",
        cell->extra_context ? "set" : "null");
  none = take_raised();
  CHECK(none == NULL, "error.create-leaves-slot-empty", "slot=%s", none ? "set" : "empty");

  /* update_backtrace: Replace then Append */
  TVMFFIByteArray r1 = ba("  File \"r.c\", line 2, in g\n");
  cell->update_backtrace(err, &r1, kTVMFFIBacktraceUpdateModeReplace);
  CHECK(ba_eq(cell->backtrace, "  File \"r.c\", line 2, in g\n"), "error.update-backtrace-replace",
        "backtrace=%s", qba(cell->backtrace));
  TVMFFIByteArray a1 = ba("  File \"a.py\", line 3, in h\n");
  cell->update_backtrace(err, &a1, kTVMFFIBacktraceUpdateModeAppend);
  CHECK(ba_eq(cell->backtrace, "  File \"r.c\", line 2, in g\n  File \"a.py\", line 3, in h\n"),
        "error.update-backtrace-append", "backtrace=%s", qba(cell->backtrace));

  /* SetRaised borrows: the slot takes its own reference */
  TVMFFIErrorSetRaised(err);
  CHECK(strong_of(err) == 2, "error.set-raised-borrows", "strong=%u", strong_of(err));
  void* got = take_raised();
  CHECK(got == err && strong_of(err) == 2, "error.move-returns-same", "ptr=%s strong=%u",
        same(got, err), strong_of(err));
  if (got) TVMFFIObjectDecRef(got);
  CHECK(strong_of(err) == 1, "error.move-then-decref", "strong=%u", strong_of(err));

  /* a second SetRaised replaces (and releases) the first */
  TVMFFIByteArray kind2 = ba("TypeError"), msg2 = ba("second");
  void* err2 = NULL;
  rc = TVMFFIErrorCreate(&kind2, &msg2, &bt, &err2);
  EXPECT_OK("error.create-second", rc);
  TVMFFIErrorSetRaised(err);
  TVMFFIErrorSetRaised(err2);
  CHECK(strong_of(err) == 1 && strong_of(err2) == 2, "error.set-raised-replaces",
        "first.strong=%u second.strong=%u", strong_of(err), strong_of(err2));
  got = take_raised();
  CHECK(got == err2, "error.set-raised-replaces-move", "ptr=%s kind=%s", same(got, err2),
        got ? qba(error_cell(got)->kind) : "none");
  if (got) TVMFFIObjectDecRef(got);

  /* cause chain and extra context are retained by the new error and released with it */
  TVMFFIAny extra = make_string("extra context object");
  TVMFFIByteArray kind3 = ba("RuntimeError"), msg3 = ba("outer"), bt3 = ba("");
  void* outer = NULL;
  rc = TVMFFIErrorCreateWithCauseAndExtraContext(&kind3, &msg3, &bt3, err, extra.v_obj, &outer);
  EXPECT_OK("error.create-with-cause", rc);
  if (outer != NULL) {
    TVMFFIErrorCell* oc = error_cell(outer);
    CHECK(rc == 0 && strong_of(outer) == 1 && oc->cause_chain == err && oc->extra_context == extra.v_obj &&
              strong_of(err) == 2 && strong_of(extra.v_obj) == 2 && ba_eq(oc->kind, "RuntimeError") &&
              ba_eq(oc->message, "outer") && oc->backtrace.size == 0,
          "error.create-with-cause", "rc=%d cause=%s extra=%s cause.strong=%u extra.strong=%u kind=%s message=%s backtrace_size=%zu",
          rc, same(oc->cause_chain, err), same(oc->extra_context, extra.v_obj), strong_of(err),
          strong_of(extra.v_obj), qba(oc->kind), qba(oc->message), oc->backtrace.size);
    TVMFFIObjectDecRef(outer);
    CHECK(strong_of(err) == 1 && strong_of(extra.v_obj) == 1, "error.create-with-cause-release",
          "cause.strong=%u extra.strong=%u", strong_of(err), strong_of(extra.v_obj));
  }
  void* bare = NULL;
  rc = TVMFFIErrorCreateWithCauseAndExtraContext(&kind3, &msg3, &bt3, NULL, NULL, &bare);
  CHECK(rc == 0 && bare != NULL && error_cell(bare)->cause_chain == NULL &&
            error_cell(bare)->extra_context == NULL,
        "error.create-without-cause", "rc=%d cause=%s extra=%s", rc,
        bare && error_cell(bare)->cause_chain ? "set" : "null",
        bare && error_cell(bare)->extra_context ? "set" : "null");
  if (bare) TVMFFIObjectDecRef(bare);
  any_release(&extra);
  TVMFFIObjectDecRef(err);
  TVMFFIObjectDecRef(err2);

  /* SetRaisedFromCStr / FromCStrParts */
  TVMFFIErrorSetRaisedFromCStr("RuntimeError", "boom");
  got = take_raised();
  CHECK(got != NULL && ((TVMFFIObject*)got)->type_index == kTVMFFIError && strong_of(got) == 1 &&
            ba_eq(error_cell(got)->kind, "RuntimeError") && ba_eq(error_cell(got)->message, "boom"),
        "error.set-raised-from-cstr", "kind=%s message=%s strong=%u",
        got ? qba(error_cell(got)->kind) : "-", got ? qba(error_cell(got)->message) : "-",
        got ? strong_of(got) : 0);
  if (got) TVMFFIObjectDecRef(got);

  const char* parts[] = {"key ", NULL, "`k`", " not", " found"};
  TVMFFIErrorSetRaisedFromCStrParts("KeyError", parts, 5);
  got = take_raised();
  CHECK(got != NULL && ba_eq(error_cell(got)->kind, "KeyError") &&
            ba_eq(error_cell(got)->message, "key `k` not found"),
        "error.set-raised-from-cstr-parts", "kind=%s message=%s",
        got ? qba(error_cell(got)->kind) : "-", got ? qba(error_cell(got)->message) : "-");
  if (got) TVMFFIObjectDecRef(got);

  TVMFFIErrorSetRaisedFromCStrParts("IndexError", parts, 0);
  got = take_raised();
  CHECK(got != NULL && ba_eq(error_cell(got)->kind, "IndexError") && error_cell(got)->message.size == 0,
        "error.set-raised-from-cstr-parts-none", "kind=%s message=%s",
        got ? qba(error_cell(got)->kind) : "-", got ? qba(error_cell(got)->message) : "-");
  if (got) TVMFFIObjectDecRef(got);

  /* the slot is per thread */
  ErrorThreadResult tr = {0, NULL};
  sem_init(&g_sem_raised, 0, 0);
  sem_init(&g_sem_checked, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, error_thread, &tr);
  sem_wait(&g_sem_raised);
  none = take_raised();
  CHECK(none == NULL, "error.slot-is-thread-local", "main_sees=%s", none ? "error" : "nothing");
  if (none) TVMFFIObjectDecRef(none);
  sem_post(&g_sem_checked);
  pthread_join(t, NULL);
  CHECK(tr.moved_ok, "error.slot-worker-keeps-its-error", "worker_moved_own_error=%d", tr.moved_ok);
  sem_destroy(&g_sem_raised);
  sem_destroy(&g_sem_checked);
}

/* ------------------------------------------------------------------------------------------ */
/* 9. backtrace                                                                                */
/* ------------------------------------------------------------------------------------------ */

static void* backtrace_thread(void* arg) {
  const TVMFFIByteArray** out = (const TVMFFIByteArray**)arg;
  *out = TVMFFIBacktrace("worker.c", 11, "worker_fn", 0);
  return NULL;
}

void test_backtrace(void) {
  const TVMFFIByteArray* main_bt = TVMFFIBacktrace("scenario.c", 1, "test_backtrace", 0);
  CHECK(main_bt != NULL, "backtrace.non-null", "result=%s", main_bt ? "set" : "null");
  if (main_bt == NULL) return;
  /* keep a copy of the main thread's text, then call it on another thread */
  size_t n = main_bt->size;
  char* copy = (char*)malloc(n + 1);
  if (n) memcpy(copy, main_bt->data, n);
  const char* data_before = main_bt->data;
  const TVMFFIByteArray* worker_bt = NULL;
  run_in_thread(backtrace_thread, &worker_bt);
  int unchanged = main_bt->data == data_before && main_bt->size == n &&
                  (n == 0 || memcmp(main_bt->data, copy, n) == 0);
  CHECK(worker_bt != NULL && worker_bt != main_bt && unchanged, "backtrace.thread-local",
        "worker=%s main_unchanged=%d", worker_bt == NULL ? "null" : same(worker_bt, main_bt),
        unchanged);
  free(copy);
  const TVMFFIByteArray* bt2 = TVMFFIBacktrace(NULL, 0, NULL, 1);
  CHECK(bt2 != NULL, "backtrace.no-location", "result=%s", bt2 ? "set" : "null");
}
