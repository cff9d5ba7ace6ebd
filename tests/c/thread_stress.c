/*
 * Thread stress: 8 threads at once mix calls of built-in globals, function objects made and
 * released, errors raised and fetched, objects shared and churned, and (mode `all`) global
 * function and type registration, for a number of rounds. After every round: every C-made object
 * was freed exactly once, the shared object's count is back to one, every type key maps to one
 * index, and (when the runtime offers `ffihub.LiveObjectCount`) the live-object count is back to
 * its value before the first round.
 *
 *     thread_stress <all|calls> [rounds] [iterations per thread]
 *
 * `calls` leaves out global and type registration (Apache's runtime crashes when threads
 * register concurrently). Output: `ok ...` / `FAIL ...` lines, then the summary line.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "any_values.h"

enum { kThreads = 8 };

static int g_failures = 0;
static pthread_mutex_t g_report_lock = PTHREAD_MUTEX_INITIALIZER;

/* One failure line per failed check (from any thread), with the thread's own context. */
#define EXPECT(cond, ...)                                                 \
  do {                                                                    \
    if (!(cond)) {                                                        \
      pthread_mutex_lock(&g_report_lock);                                 \
      printf("FAIL ");                                                    \
      printf(__VA_ARGS__);                                                \
      printf(" [thread_stress.c:%d]\n", __LINE__);                        \
      ++g_failures;                                                       \
      pthread_mutex_unlock(&g_report_lock);                               \
    }                                                                     \
  } while (0)

/* The bytes of a string value (small or heap). */
static TVMFFIByteArray string_bytes(const TVMFFIAny* a) {
  TVMFFIByteArray b = {NULL, 0};
  if (a->type_index == kTVMFFISmallStr) {
    b.data = a->v_bytes;
    b.size = a->small_str_len;
  } else if (a->type_index == kTVMFFIStr) {
    b = *(const TVMFFIByteArray*)((const char*)a->v_obj + sizeof(TVMFFIObject));
  }
  return b;
}

static int string_is(const TVMFFIAny* a, const char* expected) {
  TVMFFIByteArray b = string_bytes(a);
  return b.data != NULL && b.size == strlen(expected) && memcmp(b.data, expected, b.size) == 0;
}

/* The raised error's kind and message, as "Kind: message", released; "" when none was raised. */
static void take_error(char* out, size_t size) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  out[0] = '\0';
  if (err == NULL) return;
  const TVMFFIErrorCell* cell =
      (const TVMFFIErrorCell*)((const char*)err + sizeof(TVMFFIObject));
  snprintf(out, size, "%.*s: %.*s", (int)cell->kind.size, cell->kind.data,
           (int)cell->message.size, cell->message.data);
  TVMFFIObjectDecRef(err);
}

static void* get_global(const char* name) {
  TVMFFIByteArray b = bytes_of(name);
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&b, &f) != 0) {
    char err[256];
    take_error(err, sizeof(err));
    return NULL;
  }
  return f;
}

/* ---- C-made objects: counted, freed once ---- */

typedef struct {
  TVMFFIObject header;
  int64_t payload;
} CObj;

static int64_t g_made = 0, g_freed = 0;

static void cobj_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    __atomic_fetch_add(&g_freed, 1, __ATOMIC_RELAXED);
    free(self);
  }
}

static CObj* cobj_new(int32_t type_index, int64_t payload) {
  CObj* o = (CObj*)calloc(1, sizeof(CObj));
  o->header.combined_ref_count = ((uint64_t)1 << 32) | 1u; /* strong 1, weak 1 */
  o->header.type_index = type_index;
  o->header.deleter = cobj_deleter;
  o->payload = payload;
  __atomic_fetch_add(&g_made, 1, __ATOMIC_RELAXED);
  return o;
}

/* ---- a C function object: adds an amount to a non-negative int, raises on a negative one. The
 * amount is kept in `self` plus one: a NULL `self` means "no resource", and the function's own
 * handle is passed instead. ---- */

static int add_self(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (num_args != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add_self takes one int");
    return -1;
  }
  if (args[0].v_int64 < 0) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "add_self: negative argument");
    return -1;
  }
  *result = any_int(args[0].v_int64 + (int64_t)(intptr_t)self - 1);
  return 0;
}

static void* make_adder(int64_t amount) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate((void*)(intptr_t)(amount + 1), add_self, NULL, &f) != 0) return NULL;
  return f;
}

static int call1(void* f, TVMFFIAny arg, TVMFFIAny* result) {
  *result = any_none();
  return TVMFFIFunctionCall(f, &arg, 1, result);
}

/* ---- shared state of a run ---- */

static int g_register = 0;
static int g_iterations = 200;
static int g_round = 0;
static CObj* g_shared = NULL;
static int32_t g_shared_type_seen = -1;

typedef struct {
  int id;
  void* array_fn;
  void* array_size_fn;
  void* array_get_fn;
  void* map_fn;
  void* map_get_fn;
  void* remove_global_fn;
} Worker;

static void calls_and_objects(Worker* w, int i) {
  char text[64];
  snprintf(text, sizeof(text), "thread-%d-item-%d-with-a-heap-string", w->id, i);
  TVMFFIByteArray tb = bytes_of(text);
  TVMFFIAny args[3], arr = any_none(), rv = any_none();
  args[0] = any_int(i);
  EXPECT(TVMFFIStringFromByteArray(&tb, &args[1]) == 0, "string %s", text);
  args[2] = any_obj(g_shared);
  EXPECT(TVMFFIFunctionCall(w->array_fn, args, 3, &arr) == 0, "ffi.Array");
  any_release(&args[1]);
  EXPECT(call1(w->array_size_fn, arr, &rv) == 0 && rv.v_int64 == 3, "ffi.ArraySize");
  TVMFFIAny get_args[2] = {arr, any_int(1)};
  EXPECT(TVMFFIFunctionCall(w->array_get_fn, get_args, 2, &rv) == 0 && string_is(&rv, text),
         "ffi.ArrayGetItem %s", text);
  any_release(&rv);
  /* An error from a built-in: index out of range. */
  get_args[1] = any_int(3 + i);
  char err[256];
  EXPECT(TVMFFIFunctionCall(w->array_get_fn, get_args, 2, &rv) != 0, "out-of-range get");
  take_error(err, sizeof(err));
  EXPECT(strncmp(err, "IndexError: ", 12) == 0, "IndexError expected, got '%s'", err);

  /* A map from the string to a C object of this thread. */
  CObj* mine = cobj_new(kTVMFFIObject, i);
  TVMFFIAny map_args[4] = {any_int(i), any_obj(mine), any_int(-1), arr};
  TVMFFIAny map = any_none();
  EXPECT(TVMFFIFunctionCall(w->map_fn, map_args, 4, &map) == 0, "ffi.Map");
  TVMFFIObjectDecRef(mine); /* the map holds it now */
  TVMFFIAny key_args[2] = {map, any_int(i)};
  EXPECT(TVMFFIFunctionCall(w->map_get_fn, key_args, 2, &rv) == 0 && rv.v_obj == &mine->header &&
             ((CObj*)rv.v_obj)->payload == i,
         "ffi.MapGetItem");
  any_release(&rv);
  any_release(&map);
  any_release(&arr);
}

static void functions_and_errors(Worker* w, int i) {
  void* f = make_adder(w->id);
  TVMFFIAny rv;
  EXPECT(f != NULL && call1(f, any_int(i), &rv) == 0 && rv.v_int64 == i + w->id, "adder");
  char err[256];
  EXPECT(call1(f, any_int(-1 - i), &rv) != 0, "adder raises");
  take_error(err, sizeof(err));
  EXPECT(strcmp(err, "ValueError: add_self: negative argument") == 0, "adder error '%s'", err);
  /* A function passed as an argument and called back from an array. */
  TVMFFIAny arr = any_none();
  TVMFFIAny fa = any_obj(f);
  EXPECT(TVMFFIFunctionCall(w->array_fn, &fa, 1, &arr) == 0, "array of a function");
  TVMFFIObjectDecRef(f);
  TVMFFIAny get_args[2] = {arr, any_int(0)};
  TVMFFIAny got = any_none();
  EXPECT(TVMFFIFunctionCall(w->array_get_fn, get_args, 2, &got) == 0 &&
             call1(got.v_obj, any_int(1), &rv) == 0 && rv.v_int64 == 1 + w->id,
         "function from an array");
  any_release(&got);
  any_release(&arr);
}

static void registration(Worker* w, int i) {
  /* Globals: this thread's own names, and one name every thread overrides. */
  char name[64];
  snprintf(name, sizeof(name), "stress.t%d.g%d", w->id, i % 16);
  void* f = make_adder(1000 * w->id + i);
  TVMFFIByteArray nb = bytes_of(name);
  EXPECT(TVMFFIFunctionSetGlobal(&nb, f, 1) == 0, "set %s", name);
  TVMFFIByteArray shared_name = bytes_of("stress.shared");
  EXPECT(TVMFFIFunctionSetGlobal(&shared_name, f, 1) == 0, "set stress.shared");
  TVMFFIObjectDecRef(f);
  void* g = get_global(name);
  TVMFFIAny rv;
  EXPECT(g != NULL && call1(g, any_int(0), &rv) == 0 && rv.v_int64 == 1000 * w->id + i,
         "call %s", name);
  if (g) TVMFFIObjectDecRef(g);
  g = get_global("stress.shared");
  EXPECT(g != NULL && call1(g, any_int(0), &rv) == 0 && rv.v_int64 % 1000 < g_iterations,
         "call stress.shared");
  if (g) TVMFFIObjectDecRef(g);

  /* Types: one key every thread asks for, and new keys of this thread. */
  TVMFFIByteArray shared_key = bytes_of("stress.Shared");
  int32_t shared = TVMFFITypeGetOrAllocIndex(&shared_key, -1, 1, 0, 0, kTVMFFIObject);
  EXPECT(shared >= kTVMFFIDynObjectBegin, "stress.Shared index %d", shared);
  int32_t expected = -1;
  if (!__atomic_compare_exchange_n(&g_shared_type_seen, &expected, shared, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    EXPECT(expected == shared, "stress.Shared got %d and %d", expected, shared);
  }
  char key[64];
  snprintf(key, sizeof(key), "stress.T%d.%d.%d", g_round, w->id, i % 8);
  TVMFFIByteArray kb = bytes_of(key);
  int32_t index = TVMFFITypeGetOrAllocIndex(&kb, -1, 1, 0, 0, kTVMFFIObject);
  int32_t looked_up = -1;
  EXPECT(index >= kTVMFFIDynObjectBegin && TVMFFITypeKeyToIndex(&kb, &looked_up) == 0 &&
             looked_up == index,
         "type %s: %d, looked up %d", key, index, looked_up);
  /* An object of the new type, put in an array and read back by its type index. */
  CObj* o = cobj_new(index, i);
  TVMFFIAny oa = any_obj(o), arr = any_none(), got = any_none();
  EXPECT(TVMFFIFunctionCall(w->array_fn, &oa, 1, &arr) == 0, "array of a %s", key);
  TVMFFIObjectDecRef(o);
  TVMFFIAny get_args[2] = {arr, any_int(0)};
  EXPECT(TVMFFIFunctionCall(w->array_get_fn, get_args, 2, &got) == 0 && got.type_index == index,
         "%s read back with index %d", key, got.type_index);
  any_release(&got);
  any_release(&arr);
}

static void* worker_main(void* arg) {
  Worker* w = (Worker*)arg;
  /* Every thread looks the globals up itself (concurrent lookups). */
  w->array_fn = get_global("ffi.Array");
  w->array_size_fn = get_global("ffi.ArraySize");
  w->array_get_fn = get_global("ffi.ArrayGetItem");
  w->map_fn = get_global("ffi.Map");
  w->map_get_fn = get_global("ffi.MapGetItem");
  w->remove_global_fn = get_global("ffi.FunctionRemoveGlobal");
  EXPECT(w->array_fn && w->array_size_fn && w->array_get_fn && w->map_fn && w->map_get_fn &&
             w->remove_global_fn,
         "thread %d: built-in globals", w->id);
  if (!(w->array_fn && w->array_size_fn && w->array_get_fn && w->map_fn && w->map_get_fn &&
        w->remove_global_fn))
    return NULL;
  for (int i = 0; i < g_iterations; ++i) {
    calls_and_objects(w, i);
    functions_and_errors(w, i);
    if (g_register) registration(w, i);
  }
  if (g_register) {
    for (int g = 0; g < 16 && g < g_iterations; ++g) {
      char name[64];
      snprintf(name, sizeof(name), "stress.t%d.g%d", w->id, g);
      TVMFFIByteArray nb = bytes_of(name);
      TVMFFIAny name_arg = any_none(), rv = any_none();
      EXPECT(TVMFFIStringFromByteArray(&nb, &name_arg) == 0, "string %s", name);
      EXPECT(call1(w->remove_global_fn, name_arg, &rv) == 0, "remove %s", name);
      any_release(&name_arg);
      any_release(&rv);
    }
  }
  void* fns[] = {w->array_fn,  w->array_size_fn, w->array_get_fn,
                 w->map_fn,    w->map_get_fn,    w->remove_global_fn};
  for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); ++k) TVMFFIObjectDecRef(fns[k]);
  return NULL;
}

static int64_t live_objects(void* live_fn) {
  if (live_fn == NULL) return -1;
  TVMFFIAny rv = any_none();
  if (TVMFFIFunctionCall(live_fn, NULL, 0, &rv) != 0 || rv.type_index != kTVMFFIInt) return -1;
  return rv.v_int64;
}

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "all") != 0 && strcmp(argv[1], "calls") != 0)) {
    fprintf(stderr, "usage: thread_stress <all|calls> [rounds] [iterations]\n");
    return 2;
  }
  g_register = strcmp(argv[1], "all") == 0;
  int rounds = argc > 2 ? atoi(argv[2]) : 20;
  g_iterations = argc > 3 ? atoi(argv[3]) : 200;
  void* live_fn = get_global("ffihub.LiveObjectCount");
  g_shared = cobj_new(kTVMFFIObject, -1);
  int64_t live_before = live_objects(live_fn);

  for (g_round = 0; g_round < rounds; ++g_round) {
    int failures_before = g_failures;
    Worker workers[kThreads];
    pthread_t threads[kThreads];
    for (int t = 0; t < kThreads; ++t) {
      memset(&workers[t], 0, sizeof(Worker));
      workers[t].id = t;
      pthread_create(&threads[t], NULL, worker_main, &workers[t]);
    }
    for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
    if (g_register) {
      void* remove = get_global("ffi.FunctionRemoveGlobal");
      TVMFFIByteArray nb = bytes_of("stress.shared");
      TVMFFIAny name_arg = any_none(), rv = any_none();
      TVMFFIStringFromByteArray(&nb, &name_arg);
      EXPECT(remove && call1(remove, name_arg, &rv) == 0, "remove stress.shared");
      any_release(&name_arg);
      any_release(&rv);
      if (remove) TVMFFIObjectDecRef(remove);
    }
    int64_t made = __atomic_load_n(&g_made, __ATOMIC_ACQUIRE);
    int64_t freed = __atomic_load_n(&g_freed, __ATOMIC_ACQUIRE);
    uint64_t shared_count = __atomic_load_n(&g_shared->header.combined_ref_count, __ATOMIC_ACQUIRE);
    int64_t live = live_objects(live_fn);
    EXPECT(made == freed + 1, "round %d: %lld C objects made, %lld freed (1 kept)", g_round,
           (long long)made, (long long)freed);
    EXPECT(shared_count == (((uint64_t)1 << 32) | 1u), "round %d: shared object count %llx",
           g_round, (unsigned long long)shared_count);
    EXPECT(live == live_before, "round %d: live objects %lld, %lld before", g_round,
           (long long)live, (long long)live_before);
    if (g_failures == failures_before) {
      printf("ok round %d: %d threads x %d iterations%s, %lld C objects freed, live %s\n", g_round,
             kThreads, g_iterations, g_register ? " with registration" : "", (long long)freed,
             live_fn ? "back to baseline" : "not counted by this runtime");
    }
  }
  TVMFFIObjectDecRef(g_shared);
  EXPECT(__atomic_load_n(&g_freed, __ATOMIC_ACQUIRE) == __atomic_load_n(&g_made, __ATOMIC_ACQUIRE),
         "the shared object was freed");
  if (live_fn) TVMFFIObjectDecRef(live_fn);
  printf("PASSED: %d check(s) failed\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
