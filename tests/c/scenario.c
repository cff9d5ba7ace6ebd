/*
 * Conformance scenario: one C program that drives every core function of the TVM-FFI C ABI
 * (c_api.h + extra/c_env_api.h, version 0.1.16) and prints a deterministic transcript, one line
 * per check:
 *
 *     ok <check-name> <observed facts>
 *     FAIL <check-name> <observed facts> [scenario.c:<line>]
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
#define _GNU_SOURCE
#include <dlpack/dlpack.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "any_values.h"
#include "check.h"
#include <tvm/ffi/extra/c_env_api.h>

/* ------------------------------------------------------------------------------------------ */
/* Reporting                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* Labels for dynamic type indices (>= 128), which differ between runtimes and runs. */
static struct {
  int32_t index;
  const char* label;
} g_dyn[16];
static int g_num_dyn = 0;

static void register_dyn(int32_t index, const char* label) {
  if (g_num_dyn < 16) {
    g_dyn[g_num_dyn].index = index;
    g_dyn[g_num_dyn].label = label;
    ++g_num_dyn;
  }
}

/* Rotating output buffers, so several formatted values can appear in one printf. */
static char g_bufs[8][4096];
static int g_buf_next = 0;

static char* next_buf(void) {
  char* b = g_bufs[g_buf_next];
  g_buf_next = (g_buf_next + 1) % 8;
  return b;
}

/* A type index for the transcript: static ones as numbers, dynamic ones by label. */
static const char* tidx(int32_t index) {
  char* b = next_buf();
  if (index < kTVMFFIDynObjectBegin) {
    snprintf(b, 4096, "%d", index);
    return b;
  }
  for (int i = 0; i < g_num_dyn; ++i) {
    if (g_dyn[i].index == index) {
      snprintf(b, 4096, "<%s>", g_dyn[i].label);
      return b;
    }
  }
  snprintf(b, 4096, "dyn");
  return b;
}

/*
 * Quotes and escapes bytes for the transcript (one line per check): \n, \t, \\, \" and
 * non-printable bytes are escaped. Decimal numbers that equal a labelled dynamic type index
 * are replaced by the label.
 */
static const char* quote(const char* data, size_t size) {
  char* b = next_buf();
  size_t o = 0;
  const size_t cap = 4096 - 16;
  b[o++] = '"';
  for (size_t i = 0; i < size && o < cap; ++i) {
    unsigned char c = (unsigned char)data[i];
    if (c >= '0' && c <= '9' && (i == 0 || data[i - 1] < '0' || data[i - 1] > '9')) {
      size_t j = i;
      int64_t v = 0;
      while (j < size && data[j] >= '0' && data[j] <= '9' && j - i < 12) {
        v = v * 10 + (data[j] - '0');
        ++j;
      }
      int replaced = 0;
      if (j == size || data[j] < '0' || data[j] > '9') {
        for (int k = 0; k < g_num_dyn; ++k) {
          if (g_dyn[k].index == v) {
            o += (size_t)snprintf(b + o, 4096 - o, "<%s>", g_dyn[k].label);
            replaced = 1;
            break;
          }
        }
      }
      if (replaced) {
        i = j - 1;
        continue;
      }
    }
    if (c == '\n') {
      b[o++] = '\\';
      b[o++] = 'n';
    } else if (c == '\t') {
      b[o++] = '\\';
      b[o++] = 't';
    } else if (c == '\\' || c == '"') {
      b[o++] = '\\';
      b[o++] = (char)c;
    } else if (c < 0x20 || c >= 0x7f) {
      o += (size_t)snprintf(b + o, 4096 - o, "\\x%02x", c);
    } else {
      b[o++] = (char)c;
    }
  }
  b[o++] = '"';
  b[o] = '\0';
  return b;
}

static const char* qba(TVMFFIByteArray a) { return quote(a.data, a.size); }
static const char* same(const void* a, const void* b) { return a == b ? "same" : "other"; }

/* ------------------------------------------------------------------------------------------ */
/* Small helpers over the ABI                                                                  */
/* ------------------------------------------------------------------------------------------ */

static TVMFFIByteArray ba(const char* s) {
  TVMFFIByteArray r;
  r.data = s;
  r.size = strlen(s);
  return r;
}

static int ba_eq(TVMFFIByteArray a, const char* s) {
  size_t n = strlen(s);
  return a.size == n && (n == 0 || memcmp(a.data, s, n) == 0);
}

static int ba_eq_n(TVMFFIByteArray a, const char* s, size_t n) {
  return a.size == n && (n == 0 || memcmp(a.data, s, n) == 0);
}

static uint64_t refcount_word(void* obj) {
  return __atomic_load_n(&((TVMFFIObject*)obj)->combined_ref_count, __ATOMIC_ACQUIRE);
}
static uint32_t strong_of(void* obj) { return (uint32_t)(refcount_word(obj) & 0xffffffffu); }
static uint32_t weak_of(void* obj) { return (uint32_t)(refcount_word(obj) >> 32); }

/* The content of a String/Bytes value (small or heap) held in an Any. */
static TVMFFIByteArray any_bytes(const TVMFFIAny* a) {
  TVMFFIByteArray r = {NULL, 0};
  if (a->type_index == kTVMFFISmallStr || a->type_index == kTVMFFISmallBytes) {
    r.data = a->v_bytes;
    r.size = a->small_str_len;
  } else if (a->type_index == kTVMFFIStr || a->type_index == kTVMFFIBytes) {
    r = *(TVMFFIByteArray*)((char*)a->v_obj + sizeof(TVMFFIObject));
  }
  return r;
}

/* A runtime-created String (SmallStr or Str) holding s. */
static TVMFFIAny make_string(const char* s) {
  TVMFFIAny out = any_none();
  TVMFFIByteArray in = ba(s);
  if (TVMFFIStringFromByteArray(&in, &out) != 0) {
    fprintf(stderr, "TVMFFIStringFromByteArray failed\n");
    exit(2);
  }
  return out;
}

static TVMFFIErrorCell* error_cell(void* err) {
  return (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
}

static TVMFFIFunctionCell* function_cell(void* f) {
  return (TVMFFIFunctionCell*)((char*)f + sizeof(TVMFFIObject));
}

/* Takes the raised error out of the thread-local slot (NULL if none). */
static void* take_raised(void) {
  void* err = (void*)0x1; /* must be overwritten */
  TVMFFIErrorMoveFromRaised(&err);
  return err;
}

/*
 * Checks that a call failed with rc -1 and raised an Error of the given kind and message
 * (message NULL: only the kind is compared), prints kind and message, releases the error and
 * checks that the slot is empty again.
 */
static void expect_error(const char* name, int rc, const char* kind, const char* message, int line) {
  void* err = take_raised();
  if (err == NULL) {
    check_impl(0, line, name, "rc=%d no error raised", rc);
    return;
  }
  TVMFFIErrorCell* cell = error_cell(err);
  int ok = rc == -1 && ((TVMFFIObject*)err)->type_index == kTVMFFIError &&
           ba_eq(cell->kind, kind) && (message == NULL || ba_eq(cell->message, message));
  if (message == NULL) {
    check_impl(ok, line, name, "rc=%d type_index=%d kind=%s", rc, ((TVMFFIObject*)err)->type_index,
               qba(cell->kind));
  } else {
    check_impl(ok, line, name, "rc=%d type_index=%d kind=%s message=%s", rc,
               ((TVMFFIObject*)err)->type_index, qba(cell->kind), qba(cell->message));
  }
  TVMFFIObjectDecRef(err);
  void* again = take_raised();
  if (again != NULL) {
    check_impl(0, line, name, "error slot not empty after MoveFromRaised");
    TVMFFIObjectDecRef(again);
  }
}
#define EXPECT_ERROR(name, rc, kind, message) expect_error(name, rc, kind, message, __LINE__)

/* Fails the check (and prints the raised error) when a call that should succeed returned != 0. */
static void expect_ok(const char* name, int rc, const char* fmt_detail, int line) {
  if (rc == 0) return;
  void* err = take_raised();
  if (err != NULL) {
    check_impl(0, line, name, "rc=%d kind=%s message=%s (%s)", rc, qba(error_cell(err)->kind),
               qba(error_cell(err)->message), fmt_detail);
    TVMFFIObjectDecRef(err);
  } else {
    check_impl(0, line, name, "rc=%d (%s)", rc, fmt_detail);
  }
}
#define EXPECT_OK(name, rc) expect_ok(name, rc, #rc, __LINE__)

/* Looks up a global function: new reference or NULL. */
static void* get_global(const char* name) {
  TVMFFIByteArray n = ba(name);
  void* f = (void*)0x1;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0) {
    void* err = take_raised();
    if (err) TVMFFIObjectDecRef(err);
    return NULL;
  }
  return f;
}

/* Calls a global function with a single string argument. */
static int call_global_str(const char* fname, const char* arg, TVMFFIAny* rv) {
  void* f = get_global(fname);
  *rv = any_none();
  if (f == NULL) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "scenario: global function missing");
    return -1;
  }
  TVMFFIAny s = make_string(arg);
  int rc = TVMFFIFunctionCall(f, &s, 1, rv);
  any_release(&s);
  TVMFFIObjectDecRef(f);
  return rc;
}

/* Runs fn(arg) on a new pthread and waits for it. */
static void run_in_thread(void* (*fn)(void*), void* arg) {
  pthread_t t;
  if (pthread_create(&t, NULL, fn, arg) != 0) {
    fprintf(stderr, "pthread_create failed\n");
    exit(2);
  }
  pthread_join(t, NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* C-side objects: our own header + deleter                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  TVMFFIObject header;
  int64_t payload;
} CObj;

static int g_cobj_flags[16];
static int g_cobj_num_flags = 0;

static void cobj_record(int flags) {
  if (g_cobj_num_flags < 16) g_cobj_flags[g_cobj_num_flags++] = flags;
}

static const char* cobj_flag_list(void) {
  char* b = next_buf();
  size_t o = 0;
  b[o++] = '[';
  for (int i = 0; i < g_cobj_num_flags; ++i) {
    o += (size_t)snprintf(b + o, 4096 - o, i ? ",%d" : "%d", g_cobj_flags[i]);
  }
  b[o++] = ']';
  b[o] = '\0';
  return b;
}

/* Records every flag; frees the memory once the weak side is gone. */
static void cobj_deleter(void* self, int flags) {
  cobj_record(flags);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* Like cobj_deleter, but while destroying the strong side it drops one weak reference that
   the test added by hand (a weak holder letting go during destruction). */
static void cobj_deleter_drop_weak(void* self, int flags) {
  cobj_record(flags);
  if (flags == kTVMFFIObjectDeleterFlagBitMaskStrong) {
    __atomic_fetch_sub(&((TVMFFIObject*)self)->combined_ref_count, (uint64_t)1 << 32,
                       __ATOMIC_ACQ_REL);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static CObj* cobj_new(void (*deleter)(void*, int)) {
  CObj* o = (CObj*)calloc(1, sizeof(CObj));
  o->header.combined_ref_count = ((uint64_t)1 << 32) | 1u; /* strong 1, weak 1 */
  o->header.type_index = kTVMFFIObject;
  o->header.deleter = deleter;
  o->payload = 42;
  return o;
}

/* A foreign (C-allocated) function object: header + TVMFFIFunctionCell, never freed. */
typedef struct {
  TVMFFIObject header;
  TVMFFIFunctionCell cell;
} CFunctionObj;

static int g_cfunc_deleted = 0;
static void cfunc_deleter(void* self, int flags) {
  (void)self;
  (void)flags;
  ++g_cfunc_deleted;
}

/* ------------------------------------------------------------------------------------------ */
/* 1. version                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static void test_version(void) {
  TVMFFIVersion v = {0, 0, 0};
  TVMFFIGetVersion(&v);
  CHECK(v.major == 0 && v.minor == 1 && v.patch == 16, "version", "%u.%u.%u", v.major, v.minor,
        v.patch);
}

/* ------------------------------------------------------------------------------------------ */
/* 2. refcount protocol: IncRef / DecRef with strong and weak counts                           */
/* ------------------------------------------------------------------------------------------ */

static void test_refcount(void) {
  /* strong count up and down, then the common path: deleter called once with flags 3 */
  g_cobj_num_flags = 0;
  CObj* a = cobj_new(cobj_deleter);
  CHECK(strong_of(a) == 1 && weak_of(a) == 1, "refcount.fresh", "strong=%u weak=%u",
        strong_of(a), weak_of(a));
  int rc = TVMFFIObjectIncRef(a);
  CHECK(rc == 0 && strong_of(a) == 2 && weak_of(a) == 1, "refcount.incref",
        "rc=%d strong=%u weak=%u", rc, strong_of(a), weak_of(a));
  rc = TVMFFIObjectDecRef(a);
  CHECK(rc == 0 && strong_of(a) == 1 && weak_of(a) == 1 && g_cobj_num_flags == 0,
        "refcount.decref-keeps", "rc=%d strong=%u weak=%u deleter_calls=%s", rc, strong_of(a),
        weak_of(a), cobj_flag_list());
  rc = TVMFFIObjectDecRef(a);
  CHECK(rc == 0 && g_cobj_num_flags == 1 && g_cobj_flags[0] == 3, "refcount.decref-last",
        "rc=%d deleter_flags=%s", rc, cobj_flag_list());

  /* NULL is a no-op */
  rc = TVMFFIObjectDecRef(NULL);
  CHECK(rc == 0, "refcount.decref-null", "rc=%d", rc);

  /* an extra weak reference: the last strong DecRef calls deleter(1) only; weak stays 1 */
  g_cobj_num_flags = 0;
  CObj* b = cobj_new(cobj_deleter);
  __atomic_fetch_add(&b->header.combined_ref_count, (uint64_t)1 << 32, __ATOMIC_RELAXED);
  CHECK(strong_of(b) == 1 && weak_of(b) == 2, "refcount.weak-bumped", "strong=%u weak=%u",
        strong_of(b), weak_of(b));
  rc = TVMFFIObjectDecRef(b);
  CHECK(rc == 0 && g_cobj_num_flags == 1 && g_cobj_flags[0] == 1 && strong_of(b) == 0 &&
            weak_of(b) == 1,
        "refcount.strong-gone-weak-left", "rc=%d deleter_flags=%s strong=%u weak=%u", rc,
        cobj_flag_list(), strong_of(b), weak_of(b));
  /* release our hand-made weak reference the way a weak holder does */
  if (__atomic_fetch_sub(&b->header.combined_ref_count, (uint64_t)1 << 32, __ATOMIC_ACQ_REL) ==
      ((uint64_t)1 << 32)) {
    b->header.deleter(b, kTVMFFIObjectDeleterFlagBitMaskWeak);
  }

  /* the weak side reaches zero during the strong deleter: deleter(1) then deleter(2) */
  g_cobj_num_flags = 0;
  CObj* c = cobj_new(cobj_deleter_drop_weak);
  __atomic_fetch_add(&c->header.combined_ref_count, (uint64_t)1 << 32, __ATOMIC_RELAXED);
  rc = TVMFFIObjectDecRef(c);
  CHECK(rc == 0 && g_cobj_num_flags == 2 && g_cobj_flags[0] == 1 && g_cobj_flags[1] == 2,
        "refcount.strong-then-weak", "rc=%d deleter_flags=%s", rc, cobj_flag_list());
}

/* ------------------------------------------------------------------------------------------ */
/* 3. opaque objects                                                                           */
/* ------------------------------------------------------------------------------------------ */

static int g_opaque_token = 7;
static int g_opaque_deleted = 0;
static void* g_opaque_deleted_arg = NULL;
static void opaque_deleter(void* handle) {
  ++g_opaque_deleted;
  g_opaque_deleted_arg = handle;
}

static void test_opaque(void) {
  void* out = NULL;
  int rc = TVMFFIObjectCreateOpaque(&g_opaque_token, kTVMFFIOpaquePyObject, opaque_deleter, &out);
  EXPECT_OK("opaque.create", rc);
  if (out == NULL) return;
  TVMFFIOpaqueObjectCell* cell = (TVMFFIOpaqueObjectCell*)((char*)out + sizeof(TVMFFIObject));
  CHECK(rc == 0 && ((TVMFFIObject*)out)->type_index == kTVMFFIOpaquePyObject &&
            strong_of(out) == 1 && weak_of(out) == 1 && cell->handle == &g_opaque_token,
        "opaque.create", "rc=%d type_index=%d strong=%u weak=%u cell.handle=%s", rc,
        ((TVMFFIObject*)out)->type_index, strong_of(out), weak_of(out),
        same(cell->handle, &g_opaque_token));
  TVMFFIObjectDecRef(out);
  CHECK(g_opaque_deleted == 1 && g_opaque_deleted_arg == &g_opaque_token, "opaque.deleter",
        "calls=%d arg=%s", g_opaque_deleted, same(g_opaque_deleted_arg, &g_opaque_token));

  /* any other type index is refused and *out is left alone */
  void* out2 = (void*)0x1;
  rc = TVMFFIObjectCreateOpaque(&g_opaque_token, kTVMFFITensor, opaque_deleter, &out2);
  /* Apache: RuntimeError "Only kTVMFFIOpaquePyObject is supported for now" */
  EXPECT_ERROR("opaque.wrong-type-index", rc, "RuntimeError",
               "Only kTVMFFIOpaquePyObject is supported for now");
  CHECK(out2 == (void*)0x1 && g_opaque_deleted == 1, "opaque.wrong-type-index-untouched",
        "out=%s deleter_calls=%d", out2 == (void*)0x1 ? "untouched" : "written",
        g_opaque_deleted);
}

/* ------------------------------------------------------------------------------------------ */
/* 4. strings and bytes                                                                        */
/* ------------------------------------------------------------------------------------------ */

/* Checks a heap String/Bytes object: the data sits inline right after the 40-byte object,
   followed by a NUL. */
static int heap_layout_ok(void* obj, size_t n) {
  TVMFFIByteArray* arr = (TVMFFIByteArray*)((char*)obj + sizeof(TVMFFIObject));
  return arr->data == (char*)obj + sizeof(TVMFFIObject) + sizeof(TVMFFIByteArray) &&
         arr->size == n && arr->data[n] == '\0';
}

static int small_padding_zero(const TVMFFIAny* a) {
  for (uint32_t i = a->small_str_len; i < 8; ++i) {
    if (a->v_bytes[i] != 0) return 0;
  }
  return 1;
}

static void string_case(int bytes, const char* name, const char* data, size_t n) {
  TVMFFIByteArray in;
  in.data = data;
  in.size = n;
  TVMFFIAny out = any_none();
  out.type_index = 12345; /* garbage: the call must reset it */
  int rc = bytes ? TVMFFIBytesFromByteArray(&in, &out) : TVMFFIStringFromByteArray(&in, &out);
  EXPECT_OK(name, rc);
  int small_type = bytes ? kTVMFFISmallBytes : kTVMFFISmallStr;
  int heap_type = bytes ? kTVMFFIBytes : kTVMFFIStr;
  TVMFFIByteArray got = any_bytes(&out);
  if (n <= 7) {
    CHECK(rc == 0 && out.type_index == small_type && out.small_str_len == n &&
              small_padding_zero(&out) && ba_eq_n(got, data, n),
          name, "rc=%d type_index=%d small_len=%u content=%s nul_padded=%d", rc, out.type_index,
          out.small_str_len, qba(got), small_padding_zero(&out));
  } else {
    int layout = out.type_index == heap_type && heap_layout_ok(out.v_obj, n);
    CHECK(rc == 0 && out.type_index == heap_type && strong_of(out.v_obj) == 1 &&
              out.v_obj->type_index == heap_type && layout && ba_eq_n(got, data, n),
          name, "rc=%d type_index=%d strong=%u size=%zu inline_nul_terminated=%d content=%s", rc,
          out.type_index, out.type_index == heap_type ? strong_of(out.v_obj) : 0, got.size,
          layout, qba(got));
  }
  any_release(&out);
}

static void test_strings(void) {
  string_case(0, "string.empty", "", 0);
  string_case(0, "string.small3", "abc", 3);
  string_case(0, "string.embedded-nul", "a\0b", 3);
  string_case(0, "string.small7", "abcdefg", 7);
  string_case(0, "string.heap8", "abcdefgh", 8);
  string_case(0, "string.heap-long",
              "The quick brown fox jumps over the lazy dog, twice: the quick brown fox.", 72);
  string_case(1, "bytes.empty", "", 0);
  string_case(1, "bytes.small7", "\x00\x01\x02\x03\x04\x05\x06", 7);
  string_case(1, "bytes.heap8", "\x00\x01\x02\x03\x04\x05\x06\x07", 8);
  string_case(1, "bytes.heap-with-nuls", "\xff\x00\xfe\x00\xfd\x00\xfc\x00\xfb\x00", 10);
}

/* ------------------------------------------------------------------------------------------ */
/* 5. AnyView -> owned Any                                                                     */
/* ------------------------------------------------------------------------------------------ */

static void test_any_view_to_owned(void) {
  TVMFFIAny view, out;
  int rc;

  /* raw C strings become String (small or heap by length) */
  view = any_raw_str("hi");
  out = any_none();
  rc = TVMFFIAnyViewToOwnedAny(&view, &out);
  CHECK(rc == 0 && out.type_index == kTVMFFISmallStr && ba_eq(any_bytes(&out), "hi"),
        "anyview.raw-str-small", "rc=%d type_index=%d content=%s", rc, out.type_index,
        qba(any_bytes(&out)));
  any_release(&out);

  view = any_raw_str("hello, world");
  rc = TVMFFIAnyViewToOwnedAny(&view, &out);
  CHECK(rc == 0 && out.type_index == kTVMFFIStr && strong_of(out.v_obj) == 1 &&
            heap_layout_ok(out.v_obj, 12) && ba_eq(any_bytes(&out), "hello, world"),
        "anyview.raw-str-heap", "rc=%d type_index=%d strong=%u content=%s", rc, out.type_index,
        out.type_index == kTVMFFIStr ? strong_of(out.v_obj) : 0, qba(any_bytes(&out)));
  any_release(&out);

  /* byte-array pointers become Bytes */
  TVMFFIByteArray b7 = {"\x01\x02\x03\x04\x05\x06\x07", 7};
  view = any_none();
  view.type_index = kTVMFFIByteArrayPtr;
  view.v_ptr = &b7;
  rc = TVMFFIAnyViewToOwnedAny(&view, &out);
  CHECK(rc == 0 && out.type_index == kTVMFFISmallBytes &&
            ba_eq_n(any_bytes(&out), "\x01\x02\x03\x04\x05\x06\x07", 7),
        "anyview.byte-array-small", "rc=%d type_index=%d content=%s", rc, out.type_index,
        qba(any_bytes(&out)));
  any_release(&out);

  TVMFFIByteArray b9 = {"\x00\x01\x02\x03\x04\x05\x06\x07\x08", 9};
  view.v_ptr = &b9;
  rc = TVMFFIAnyViewToOwnedAny(&view, &out);
  CHECK(rc == 0 && out.type_index == kTVMFFIBytes && strong_of(out.v_obj) == 1 &&
            heap_layout_ok(out.v_obj, 9) &&
            ba_eq_n(any_bytes(&out), "\x00\x01\x02\x03\x04\x05\x06\x07\x08", 9),
        "anyview.byte-array-heap", "rc=%d type_index=%d content=%s", rc, out.type_index,
        qba(any_bytes(&out)));
  any_release(&out);

  /* objects: IncRef, same pointer */
  TVMFFIAny s = make_string("an object string");
  view = s;
  rc = TVMFFIAnyViewToOwnedAny(&view, &out);
  CHECK(rc == 0 && out.type_index == kTVMFFIStr && out.v_obj == s.v_obj && strong_of(s.v_obj) == 2,
        "anyview.object-incref", "rc=%d type_index=%d ptr=%s strong=%u", rc, out.type_index,
        same(out.v_obj, s.v_obj), strong_of(s.v_obj));
  any_release(&out);
  CHECK(strong_of(s.v_obj) == 1, "anyview.object-release", "strong=%u", strong_of(s.v_obj));

  /* PODs are copied bitwise */
  DLTensor dummy_tensor;
  memset(&dummy_tensor, 0, sizeof(dummy_tensor));
  struct {
    const char* name;
    TVMFFIAny v;
  } pods[8];
  pods[0].name = "anyview.pod-none";
  pods[0].v = any_none();
  pods[1].name = "anyview.pod-int";
  pods[1].v = any_int(-123456789012345);
  pods[2].name = "anyview.pod-bool";
  pods[2].v = any_int(1);
  pods[2].v.type_index = kTVMFFIBool;
  pods[3].name = "anyview.pod-float";
  pods[3].v = any_float(2.5);
  pods[4].name = "anyview.pod-opaque-ptr";
  pods[4].v = any_none();
  pods[4].v.type_index = kTVMFFIOpaquePtr;
  pods[4].v.v_ptr = &g_opaque_token;
  pods[5].name = "anyview.pod-dtype";
  pods[5].v = any_none();
  pods[5].v.type_index = kTVMFFIDataType;
  pods[5].v.v_dtype.code = kDLFloat;
  pods[5].v.v_dtype.bits = 16;
  pods[5].v.v_dtype.lanes = 4;
  pods[6].name = "anyview.pod-device";
  pods[6].v = any_none();
  pods[6].v.type_index = kTVMFFIDevice;
  pods[6].v.v_device.device_type = kDLCUDA;
  pods[6].v.v_device.device_id = 3;
  pods[7].name = "anyview.pod-dltensor-ptr";
  pods[7].v = any_none();
  pods[7].v.type_index = kTVMFFIDLTensorPtr;
  pods[7].v.v_ptr = &dummy_tensor;
  for (int i = 0; i < 8; ++i) {
    out = any_none();
    out.type_index = 999;
    rc = TVMFFIAnyViewToOwnedAny(&pods[i].v, &out);
    int same_bits = memcmp(&out, &pods[i].v, sizeof(TVMFFIAny)) == 0;
    CHECK(rc == 0 && same_bits, pods[i].name, "rc=%d type_index=%d bitwise_copy=%d", rc,
          out.type_index, same_bits);
  }

  /* a small string view is copied too */
  TVMFFIAny small = make_string("tiny");
  rc = TVMFFIAnyViewToOwnedAny(&small, &out);
  CHECK(rc == 0 && memcmp(&out, &small, sizeof(TVMFFIAny)) == 0, "anyview.small-str",
        "rc=%d type_index=%d content=%s", rc, out.type_index, qba(any_bytes(&out)));

  /* ObjectRValueRef: steals the object from the slot and clears the slot */
  TVMFFIAny moved = make_string("moved through an rvalue ref");
  void* slot = moved.v_obj;
  view = any_none();
  view.type_index = kTVMFFIObjectRValueRef;
  view.v_ptr = &slot;
  rc = TVMFFIAnyViewToOwnedAny(&view, &out);
  CHECK(rc == 0 && out.type_index == kTVMFFIStr && out.v_obj == moved.v_obj && slot == NULL &&
            strong_of(moved.v_obj) == 1,
        "anyview.rvalue-ref", "rc=%d type_index=%d ptr=%s slot=%s strong=%u", rc, out.type_index,
        same(out.v_obj, moved.v_obj), slot == NULL ? "null" : "set", strong_of(moved.v_obj));
  any_release(&out);

  /* moving out of an empty slot is an error */
  rc = TVMFFIAnyViewToOwnedAny(&view, &out);
  /* Apache: InternalError "Check failed: (obj_addr[0] != nullptr) is false: RValueRef already
     moved" */
  EXPECT_ERROR("anyview.rvalue-ref-empty", rc, "InternalError",
               "Check failed: (obj_addr[0] != nullptr) is false: RValueRef already moved");
  any_release(&s);
}

/* ------------------------------------------------------------------------------------------ */
/* 6. BigInt                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static void bigint_case(const char* name, const int64_t* words, size_t nwords, int expect_int,
                        int64_t expect_value, size_t expect_words) {
  TVMFFIByteArray in;
  in.data = (const char*)words;
  in.size = nwords * sizeof(int64_t);
  TVMFFIAny out = any_none();
  int rc = TVMFFIBigIntFromByteArray(&in, &out);
  EXPECT_OK(name, rc);
  if (expect_int) {
    CHECK(rc == 0 && out.type_index == kTVMFFIInt && out.v_int64 == expect_value, name,
          "rc=%d type_index=%d value=%lld", rc, out.type_index, (long long)out.v_int64);
    TVMFFIByteArray content = TVMFFIBigIntGetContentByteArray(&out);
    CHECK(content.data == (const char*)&out.v_int64 && content.size == 8, name,
          "content=inline size=%zu", content.size);
  } else {
    int is_big = out.type_index == kTVMFFIBigInt;
    size_t got_words = is_big ? *(size_t*)((char*)out.v_obj + 24) : 0;
    const int64_t* got = is_big ? (const int64_t*)((char*)out.v_obj + 32) : NULL;
    int words_ok = is_big && got_words == expect_words &&
                   memcmp(got, words, expect_words * sizeof(int64_t)) == 0;
    CHECK(rc == 0 && is_big && out.v_obj->type_index == kTVMFFIBigInt && strong_of(out.v_obj) == 1 &&
              words_ok,
          name, "rc=%d type_index=%d nwords=%zu words_match=%d", rc, out.type_index, got_words,
          words_ok);
    if (is_big) {
      TVMFFIByteArray content = TVMFFIBigIntGetContentByteArray(&out);
      CHECK(content.data == (const char*)got && content.size == expect_words * 8, name,
            "content=trailing-words size=%zu", content.size);
    }
  }
  any_release(&out);
}

static void test_bigint(void) {
  int64_t w[4];
  bigint_case("bigint.empty", w, 0, 1, 0, 0);
  w[0] = 42;
  bigint_case("bigint.one-word", w, 1, 1, 42, 0);
  w[0] = -5;
  bigint_case("bigint.one-word-negative", w, 1, 1, -5, 0);
  w[0] = -5;
  w[1] = -1;
  bigint_case("bigint.sign-extension-normalized", w, 2, 1, -5, 0);
  w[0] = 5;
  w[1] = 0;
  w[2] = 0;
  bigint_case("bigint.zero-words-normalized", w, 3, 1, 5, 0);
  w[0] = INT64_MIN;
  w[1] = -1;
  bigint_case("bigint.int64-min", w, 2, 1, INT64_MIN, 0);
  w[0] = 0;
  w[1] = 1;
  bigint_case("bigint.two-pow-64", w, 2, 0, 0, 2);
  w[0] = INT64_MIN;
  w[1] = 0;
  bigint_case("bigint.two-pow-63", w, 2, 0, 0, 2);
  w[0] = 0;
  w[1] = -1;
  bigint_case("bigint.minus-two-pow-64", w, 2, 0, 0, 2);
  w[0] = 0;
  w[1] = 1;
  w[2] = 0;
  bigint_case("bigint.trailing-zero-word-dropped", w, 3, 0, 0, 2);
  w[0] = 1;
  w[1] = 2;
  w[2] = 3;
  bigint_case("bigint.three-words", w, 3, 0, 0, 3);

  TVMFFIByteArray bad = {(const char*)w, 12};
  TVMFFIAny out = any_none();
  int rc = TVMFFIBigIntFromByteArray(&bad, &out);
  /* Apache: ValueError "BigInt content must contain whole 64-bit words" */
  EXPECT_ERROR("bigint.partial-word", rc, "ValueError",
               "BigInt content must contain whole 64-bit words");
}

/* ------------------------------------------------------------------------------------------ */
/* 7. DataType <-> string                                                                      */
/* ------------------------------------------------------------------------------------------ */

static void test_dtype(void) {
  static const char* spellings[] = {
      "int32",         "i8",       "uint8",      "u16",           "bool",        "float32",
      "f16",           "float64",  "bfloat16",   "bf16",          "float8_e4m3fn", "fp8_e5m2",
      "float4_e2m1fnx2", "int8x4", "float32x4",  "int32xvscalex4", "handle",     "void",
      "",              "uint1",    "float6_e3m2fn", "float8_e8m0fnu"};
  char name[96];
  for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); ++i) {
    TVMFFIByteArray in = ba(spellings[i]);
    DLDataType dt = {0, 0, 0};
    snprintf(name, sizeof(name), "dtype.parse[%s]", spellings[i]);
    int rc = TVMFFIDataTypeFromString(&in, &dt);
    EXPECT_OK(name, rc);
    TVMFFIAny str = any_none();
    int rc2 = TVMFFIDataTypeToString(&dt, &str);
    EXPECT_OK(name, rc2);
    /* Apache returns a heap Str (65) even for short names; a SmallStr (11) is an equally valid
       String, so only the content is part of the transcript. */
    CHECK(rc == 0 && rc2 == 0 && (str.type_index == kTVMFFISmallStr || str.type_index == kTVMFFIStr),
          name, "code=%u bits=%u lanes=%u to_string=%s", dt.code, dt.bits, dt.lanes,
          qba(any_bytes(&str)));
    any_release(&str);
  }

  struct {
    const char* s;
    const char* message;
  } bad[] = {
      /* Apache: ValueError "unknown dtype `notatype`" */
      {"notatype", "unknown dtype `notatype`"},
      /* Apache: ValueError "Invalid lanes specification in dtype 'int8x0'. Lanes must be a
         positive integer." */
      {"int8x0", "Invalid lanes specification in dtype 'int8x0'. Lanes must be a positive integer."},
      /* Apache: ValueError "unknown float8 type `float8_e9m9`" */
      {"float8_e9m9", "unknown float8 type `float8_e9m9`"},
      /* Apache: ValueError "Bits value 300 is out of range for uint8_t in dtype 'int300'" */
      {"int300", "Bits value 300 is out of range for uint8_t in dtype 'int300'"},
      /* Apache: ValueError "unknown dtype `float32q`" */
      {"float32q", "unknown dtype `float32q`"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    TVMFFIByteArray in = ba(bad[i].s);
    DLDataType dt = {0, 0, 0};
    snprintf(name, sizeof(name), "dtype.parse-error[%s]", bad[i].s);
    int rc = TVMFFIDataTypeFromString(&in, &dt);
    EXPECT_ERROR(name, rc, "ValueError", bad[i].message);
  }

  DLDataType unknown = {50, 32, 1};
  TVMFFIAny str = any_none();
  int rc = TVMFFIDataTypeToString(&unknown, &str);
  /* Apache: ValueError "DLDataType contains unknown type_code=50" */
  EXPECT_ERROR("dtype.to-string-unknown-code", rc, "ValueError",
               "DLDataType contains unknown type_code=50");
}

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

static void test_errors(void) {
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

static void test_backtrace(void) {
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

/* ------------------------------------------------------------------------------------------ */
/* 10. functions                                                                               */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  int calls;
  int deleted;
  void* last_handle;
} FnCtx;

static void fn_ctx_deleter(void* self) { ((FnCtx*)self)->deleted++; }

static int fn_add(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  FnCtx* ctx = (FnCtx*)handle;
  ctx->calls++;
  ctx->last_handle = handle;
  if (num_args != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add expects two ints");
    return -1;
  }
  rv->type_index = kTVMFFIInt;
  rv->zero_padding = 0;
  rv->v_int64 = args[0].v_int64 + args[1].v_int64;
  return 0;
}

static int fn_mul(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  FnCtx* ctx = (FnCtx*)handle;
  ctx->calls++;
  if (num_args != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "mul expects two ints");
    return -1;
  }
  rv->type_index = kTVMFFIInt;
  rv->zero_padding = 0;
  rv->v_int64 = args[0].v_int64 * args[1].v_int64;
  return 0;
}

/* returns a heap string */
static int fn_greet(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  (void)handle;
  (void)args;
  (void)num_args;
  TVMFFIByteArray s = ba("greetings from a C callback");
  return TVMFFIStringFromByteArray(&s, rv);
}

static void* g_quirk_handle = NULL;
static int fn_quirk(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  (void)args;
  g_quirk_handle = handle;
  rv->type_index = kTVMFFIInt;
  rv->zero_padding = 0;
  rv->v_int64 = num_args;
  return 0;
}

static int fn_fail(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  (void)handle;
  (void)args;
  (void)num_args;
  (void)rv;
  const char* parts[] = {"callback ", "failed"};
  TVMFFIErrorSetRaisedFromCStrParts("ValueError", parts, 2);
  return -1;
}

static void* make_function(FnCtx* ctx, TVMFFISafeCallType call) {
  void* f = NULL;
  int rc = TVMFFIFunctionCreate(ctx, call, ctx ? fn_ctx_deleter : NULL, &f);
  EXPECT_OK("function.create", rc);
  return f;
}

static void test_functions(void) {
  FnCtx ctx = {0, 0, NULL};
  void* f = make_function(&ctx, fn_add);
  if (f == NULL) return;
  TVMFFIFunctionCell* cell = function_cell(f);
  CHECK(((TVMFFIObject*)f)->type_index == kTVMFFIFunction && strong_of(f) == 1 && weak_of(f) == 1 &&
            cell->safe_call != NULL && cell->cpp_call == NULL,
        "function.create", "type_index=%d strong=%u weak=%u safe_call=%s cpp_call=%s",
        ((TVMFFIObject*)f)->type_index, strong_of(f), weak_of(f), cell->safe_call ? "set" : "null",
        cell->cpp_call ? "set" : "null");

  TVMFFIAny args[2] = {any_int(2), any_int(40)};
  TVMFFIAny rv = any_none();
  int rc = TVMFFIFunctionCall(f, args, 2, &rv);
  CHECK(rc == 0 && rv.type_index == kTVMFFIInt && rv.v_int64 == 42 && ctx.calls == 1 &&
            ctx.last_handle == &ctx,
        "function.call", "rc=%d type_index=%d value=%lld calls=%d handle=%s", rc, rv.type_index,
        (long long)rv.v_int64, ctx.calls, ctx.last_handle == &ctx ? "self" : "other");

  /* an error raised by the callee propagates */
  TVMFFIAny bad_args[1] = {any_float(1.0)};
  rv = any_none();
  rc = TVMFFIFunctionCall(f, bad_args, 1, &rv);
  EXPECT_ERROR("function.call-error-propagates", rc, "TypeError", "add expects two ints");

  TVMFFIObjectDecRef(f);
  CHECK(ctx.deleted == 1, "function.deleter-on-last-decref", "deleter_calls=%d", ctx.deleted);

  /* an extra reference delays the deleter */
  FnCtx ctx2 = {0, 0, NULL};
  void* g = make_function(&ctx2, fn_fail);
  TVMFFIObjectIncRef(g);
  TVMFFIObjectDecRef(g);
  CHECK(ctx2.deleted == 0 && strong_of(g) == 1, "function.deleter-waits", "deleter_calls=%d strong=%u",
        ctx2.deleted, strong_of(g));
  rv = any_none();
  rc = TVMFFIFunctionCall(g, NULL, 0, &rv);
  EXPECT_ERROR("function.call-error-from-parts", rc, "ValueError", "callback failed");
  TVMFFIObjectDecRef(g);
  CHECK(ctx2.deleted == 1, "function.deleter-after-last", "deleter_calls=%d", ctx2.deleted);

  /* returning an owned heap string */
  void* h = make_function(NULL, fn_greet);
  rv = any_none();
  rc = TVMFFIFunctionCall(h, NULL, 0, &rv);
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && strong_of(rv.v_obj) == 1 &&
            ba_eq(any_bytes(&rv), "greetings from a C callback"),
        "function.returns-owned-string", "rc=%d type_index=%d strong=%u content=%s", rc,
        rv.type_index, rv.type_index == kTVMFFIStr ? strong_of(rv.v_obj) : 0, qba(any_bytes(&rv)));
  any_release(&rv);
  TVMFFIObjectDecRef(h);

  /* self == NULL && deleter == NULL: the callee receives the function object itself */
  void* q = NULL;
  rc = TVMFFIFunctionCreate(NULL, fn_quirk, NULL, &q);
  EXPECT_OK("function.null-self", rc);
  if (q != NULL) {
    TVMFFIAny three[3] = {any_int(1), any_int(2), any_int(3)};
    rv = any_none();
    rc = TVMFFIFunctionCall(q, three, 3, &rv);
    CHECK(rc == 0 && rv.v_int64 == 3 && g_quirk_handle == q, "function.null-self-gets-function",
          "rc=%d value=%lld handle=%s", rc, (long long)rv.v_int64,
          g_quirk_handle == q ? "function-object" : "other");
    TVMFFIObjectDecRef(q);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* 11. global registry                                                                         */
/* ------------------------------------------------------------------------------------------ */

static const char* kMulMetadata =
    "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{\\\"return\\\":"
    "[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":\\\"int\\\"},{\\\"type\\\":"
    "\\\"int\\\"}]}}\",\"origin\":\"scenario.c\"}";

static int remove_global(const char* name, int* removed) {
  TVMFFIAny rv;
  int rc = call_global_str("ffi.FunctionRemoveGlobal", name, &rv);
  *removed = rv.type_index == kTVMFFIBool ? (int)rv.v_int64 : -1;
  any_release(&rv);
  return rc;
}

static void test_globals(void) {
  /* unknown name: rc 0, out NULL */
  TVMFFIByteArray unknown = ba("scenario.does_not_exist");
  void* out = (void*)0x1;
  int rc = TVMFFIFunctionGetGlobal(&unknown, &out);
  CHECK(rc == 0 && out == NULL, "global.get-unknown", "rc=%d out=%s", rc, out ? "set" : "null");

  FnCtx c1 = {0, 0, NULL}, c2 = {0, 0, NULL}, c3 = {0, 0, NULL};
  void* f1 = make_function(&c1, fn_add);
  void* f2 = make_function(&c2, fn_add);
  void* f3 = make_function(&c3, fn_mul);
  if (!f1 || !f2 || !f3) return;

  TVMFFIByteArray name = ba("scenario.add");
  rc = TVMFFIFunctionSetGlobal(&name, f1, 0);
  EXPECT_OK("global.set", rc);
  CHECK(rc == 0 && strong_of(f1) == 2, "global.set", "rc=%d strong=%u", rc, strong_of(f1));

  rc = TVMFFIFunctionSetGlobal(&name, f2, 0);
  /* Apache: RuntimeError "Global Function `scenario.add` is already registered" */
  EXPECT_ERROR("global.set-duplicate", rc, "RuntimeError",
               "Global Function `scenario.add` is already registered");
  CHECK(strong_of(f1) == 2 && strong_of(f2) == 1, "global.set-duplicate-keeps-old",
        "old.strong=%u new.strong=%u", strong_of(f1), strong_of(f2));

  rc = TVMFFIFunctionSetGlobal(&name, f2, 1);
  CHECK(rc == 0 && strong_of(f1) == 1 && strong_of(f2) == 2, "global.set-override",
        "rc=%d old.strong=%u new.strong=%u", rc, strong_of(f1), strong_of(f2));

  void* got = get_global("scenario.add");
  CHECK(got == f2 && strong_of(f2) == 3, "global.get", "ptr=%s strong=%u",
        got == f2 ? "registered" : "other", strong_of(f2));
  if (got != NULL) {
    TVMFFIAny args[2] = {any_int(20), any_int(22)};
    TVMFFIAny rv = any_none();
    rc = TVMFFIFunctionCall(got, args, 2, &rv);
    CHECK(rc == 0 && rv.v_int64 == 42 && c2.calls == 1 && c1.calls == 0, "global.call",
          "rc=%d value=%lld new.calls=%d old.calls=%d", rc, (long long)rv.v_int64, c2.calls,
          c1.calls);
    TVMFFIObjectDecRef(got);
  }

  /* registration from a method info keeps doc, metadata and flags */
  TVMFFIMethodInfo mi;
  memset(&mi, 0, sizeof(mi));
  mi.name = ba("scenario.mul");
  mi.doc = ba("Multiplies two integers.");
  mi.metadata = ba(kMulMetadata);
  mi.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
  mi.method = any_obj(f3);
  rc = TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 0);
  CHECK(rc == 0 && strong_of(f3) == 2, "global.set-from-method-info", "rc=%d strong=%u", rc,
        strong_of(f3));
  EXPECT_OK("global.set-from-method-info", rc);

  rc = TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 0);
  /* Apache: RuntimeError "Global Function `scenario.mul` is already registered, possible
     causes:\n- Two GlobalDef().def registrations for the same function \nPlease remove the
     duplicate registration." (also printed to stderr) */
  EXPECT_ERROR("global.set-from-method-info-duplicate", rc, "RuntimeError",
               "Global Function `scenario.mul` is already registered, possible causes:\n"
               "- Two GlobalDef().def registrations for the same function \n"
               "Please remove the duplicate registration.");
  rc = TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 1);
  CHECK(rc == 0 && strong_of(f3) == 2, "global.set-from-method-info-override", "rc=%d strong=%u",
        rc, strong_of(f3));

  TVMFFIAny rv;
  rc = call_global_str("ffi.GetGlobalFuncMetadata", "scenario.mul", &rv);
  EXPECT_OK("global.metadata", rc);
  CHECK(rc == 0 && ba_eq(any_bytes(&rv), kMulMetadata), "global.metadata", "rc=%d metadata=%s", rc,
        qba(any_bytes(&rv)));
  any_release(&rv);

  rc = call_global_str("ffi.GetGlobalFuncMetadata", "scenario.add", &rv);
  CHECK(rc == 0 && any_bytes(&rv).size == 0 &&
            (rv.type_index == kTVMFFISmallStr || rv.type_index == kTVMFFIStr),
        "global.metadata-plain-set", "rc=%d metadata=%s", rc, qba(any_bytes(&rv)));
  any_release(&rv);

  rc = call_global_str("ffi.GetGlobalFuncMetadata", "scenario.nope", &rv);
  /* Apache: RuntimeError "Global Function is not found: scenario.nope" */
  EXPECT_ERROR("global.metadata-unknown", rc, "RuntimeError",
               "Global Function is not found: scenario.nope");

  got = get_global("scenario.mul");
  if (got != NULL) {
    TVMFFIAny args[2] = {any_int(6), any_int(7)};
    rv = any_none();
    rc = TVMFFIFunctionCall(got, args, 2, &rv);
    CHECK(rc == 0 && rv.v_int64 == 42 && got == f3, "global.call-method-info", "rc=%d value=%lld ptr=%s",
          rc, (long long)rv.v_int64, got == f3 ? "registered" : "other");
    TVMFFIObjectDecRef(got);
  } else {
    CHECK(0, "global.call-method-info", "lookup=%s", "null");
  }

  /* remove the globals again (this also releases the registry's references) */
  int removed = -1;
  rc = remove_global("scenario.add", &removed);
  CHECK(rc == 0 && removed == 1 && strong_of(f2) == 1, "global.remove", "rc=%d removed=%d strong=%u",
        rc, removed, strong_of(f2));
  rc = remove_global("scenario.add", &removed);
  CHECK(rc == 0 && removed == 0, "global.remove-again", "rc=%d removed=%d", rc, removed);
  rc = remove_global("scenario.mul", &removed);
  CHECK(rc == 0 && removed == 1 && strong_of(f3) == 1, "global.remove-method-info",
        "rc=%d removed=%d strong=%u", rc, removed, strong_of(f3));
  out = (void*)0x1;
  TVMFFIByteArray mul_name = ba("scenario.mul");
  rc = TVMFFIFunctionGetGlobal(&mul_name, &out);
  CHECK(rc == 0 && out == NULL, "global.get-removed", "rc=%d out=%s", rc, out ? "set" : "null");

  TVMFFIObjectDecRef(f1);
  TVMFFIObjectDecRef(f2);
  TVMFFIObjectDecRef(f3);
  CHECK(c1.deleted == 1 && c2.deleted == 1 && c3.deleted == 1, "global.functions-freed",
        "deleter_calls=%d,%d,%d", c1.deleted, c2.deleted, c3.deleted);
}

/* ------------------------------------------------------------------------------------------ */
/* 12. type registry and reflection                                                            */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  TVMFFIObject header;
  int64_t x;
  double y;
} PointObj;

static int32_t g_point = -1;
static int g_points_freed = 0;

static void point_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) ++g_points_freed;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static int point_creator(TVMFFIObjectHandle* out) {
  PointObj* p = (PointObj*)calloc(1, sizeof(PointObj));
  p->header.combined_ref_count = ((uint64_t)1 << 32) | 1u;
  p->header.type_index = g_point;
  p->header.deleter = point_deleter;
  p->x = 0;
  p->y = 1.5;
  *out = p;
  return 0;
}

static int point_get_x(void* field, TVMFFIAny* out) {
  *out = any_int(*(int64_t*)field);
  return 0;
}

static int point_set_x(void* field, const TVMFFIAny* value) {
  if (value->type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "x expects an int");
    return -1;
  }
  *(int64_t*)field = value->v_int64;
  return 0;
}

static int point_get_y(void* field, TVMFFIAny* out) {
  *out = any_float(*(double*)field);
  return 0;
}

static int point_set_y(void* field, const TVMFFIAny* value) {
  if (value->type_index != kTVMFFIFloat) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "y expects a float");
    return -1;
  }
  *(double*)field = value->v_float64;
  return 0;
}

/* "norm2": squared norm of a point, implemented as a foreign function object */
static int norm2_call(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  (void)handle;
  if (num_args != 1 || args[0].type_index != g_point) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "norm2 expects a Point");
    return -1;
  }
  PointObj* p = (PointObj*)args[0].v_obj;
  *rv = any_float((double)p->x * (double)p->x + p->y * p->y);
  return 0;
}

static CFunctionObj g_norm2;

static const char* ancestors_str(const TVMFFITypeInfo* info) {
  char* b = next_buf();
  size_t o = 0;
  b[o++] = '[';
  for (int32_t i = 0; i < info->type_depth && o < 3900; ++i) {
    const TVMFFITypeInfo* a = info->type_ancestors[i];
    o += (size_t)snprintf(b + o, 4096 - o, "%s%.*s", i ? "," : "", (int)a->type_key.size,
                          a->type_key.data);
  }
  b[o++] = ']';
  b[o] = '\0';
  return b;
}

static int32_t alloc_index(const char* key, int32_t depth, int32_t slots, int32_t overflow,
                           int32_t parent) {
  TVMFFIByteArray k = ba(key);
  return TVMFFITypeGetOrAllocIndex(&k, -1, depth, slots, overflow, parent);
}

static int32_t g_point3d = -1, g_point_b = -1, g_other = -1;

static void test_type_indices(void) {
  g_point = alloc_index("scenario.Point", 1, 2, 0, kTVMFFIObject);
  register_dyn(g_point, "Point");
  CHECK(g_point >= kTVMFFIDynObjectBegin, "type.alloc", "key=\"scenario.Point\" index=%s",
        g_point >= kTVMFFIDynObjectBegin ? "dyn" : tidx(g_point));
  int32_t again = alloc_index("scenario.Point", 1, 0, 1, kTVMFFIObject);
  CHECK(again == g_point, "type.alloc-again", "index=%s", tidx(again));

  /* query-only mode */
  int32_t q = alloc_index("scenario.NotRegistered", 1, 0, 1, -2);
  CHECK(q == -2, "type.query-unknown", "result=%d", q);
  q = alloc_index("scenario.Point", 1, 0, 1, -2);
  CHECK(q == g_point, "type.query-known", "result=%s", tidx(q));
  q = alloc_index("ffi.String", 1, 0, 1, -2);
  CHECK(q == kTVMFFIStr, "type.query-static", "result=%s", tidx(q));
  int32_t unknown_after = alloc_index("scenario.NotRegistered", 1, 0, 1, -2);
  CHECK(unknown_after == -2, "type.query-does-not-register", "result=%d", unknown_after);

  /* children come from the parent's reserved slots */
  g_point3d = alloc_index("scenario.Point3D", 2, 0, 0, g_point);
  register_dyn(g_point3d, "Point3D");
  g_point_b = alloc_index("scenario.PointB", 2, 0, 0, g_point);
  register_dyn(g_point_b, "PointB");
  CHECK(g_point3d == g_point + 1 && g_point_b == g_point + 2, "type.child-slots",
        "Point3D=<Point>%+d PointB=<Point>%+d", g_point3d - g_point, g_point_b - g_point);
  /* the next dynamic type comes after the parent's whole reserved range */
  g_other = alloc_index("scenario.Other", 1, 0, 1, kTVMFFIObject);
  register_dyn(g_other, "Other");
  CHECK(g_other == g_point + 3, "type.after-reserved-range", "Other=<Point>%+d", g_other - g_point);

  /* key -> index */
  struct {
    const char* key;
    int32_t expect;
  } keys[] = {{"ffi.Object", kTVMFFIObject}, {"ffi.String", kTVMFFIStr},  {"ffi.Bytes", kTVMFFIBytes},
              {"ffi.Error", kTVMFFIError},   {"ffi.Function", kTVMFFIFunction}, {"ffi.Shape", kTVMFFIShape},
              {"ffi.Tensor", kTVMFFITensor}, {"ffi.Array", kTVMFFIArray}, {"ffi.Map", kTVMFFIMap},
              {"ffi.Module", kTVMFFIModule}, {"ffi.OpaquePyObject", kTVMFFIOpaquePyObject},
              {"ffi.List", kTVMFFIList},     {"ffi.Dict", kTVMFFIDict},   {"ffi.BigInt", kTVMFFIBigInt},
              {"scenario.Point", -100}};
  char name[96];
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i) {
    TVMFFIByteArray k = ba(keys[i].key);
    int32_t idx = -77;
    int rc = TVMFFITypeKeyToIndex(&k, &idx);
    int32_t expect = keys[i].expect == -100 ? g_point : keys[i].expect;
    snprintf(name, sizeof(name), "type.key-to-index[%s]", keys[i].key);
    EXPECT_OK(name, rc);
    CHECK(rc == 0 && idx == expect, name, "rc=%d index=%s", rc, tidx(idx));
  }
  TVMFFIByteArray k = ba("scenario.NoSuchType");
  int32_t idx = -77;
  int rc = TVMFFITypeKeyToIndex(&k, &idx);
  /* Apache: InternalError "Check failed: (it != type_key2index_.end()) is false: Cannot find
     type `scenario.NoSuchType`" */
  EXPECT_ERROR("type.key-to-index-unknown", rc, "InternalError",
               "Check failed: (it != type_key2index_.end()) is false: Cannot find type "
               "`scenario.NoSuchType`");
  CHECK(idx == -77, "type.key-to-index-unknown-untouched", "out=%s", idx == -77 ? "untouched" : "written");
}

static void print_type_info(const char* name, int32_t index, const char* key, int32_t depth) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
  if (info == NULL) {
    CHECK(0, name, "info=%s", "null");
    return;
  }
  const TVMFFITypeInfo* again = TVMFFIGetTypeInfo(index);
  int anc_ok = 1;
  for (int32_t i = 0; i < info->type_depth; ++i) {
    const TVMFFITypeInfo* a = info->type_ancestors[i];
    if (a != TVMFFIGetTypeInfo(a->type_index)) anc_ok = 0;
  }
  CHECK(info->type_index == index && ba_eq(info->type_key, key) && info->type_depth == depth &&
            again == info && anc_ok,
        name, "type_index=%s key=%s depth=%d ancestors=%s type_key_hash=%llu stable_ptr=%d ancestor_ptrs_are_type_infos=%d",
        tidx(info->type_index), qba(info->type_key), info->type_depth, ancestors_str(info),
        (unsigned long long)info->type_key_hash, again == info, anc_ok);
}

static const TVMFFITypeInfo* g_point_info = NULL;

static void test_type_info(void) {
  g_point_info = TVMFFIGetTypeInfo(g_point);
  print_type_info("typeinfo.object", kTVMFFIObject, "ffi.Object", 0);
  print_type_info("typeinfo.string", kTVMFFIStr, "ffi.String", 1);
  print_type_info("typeinfo.function", kTVMFFIFunction, "ffi.Function", 1);
  print_type_info("typeinfo.point", g_point, "scenario.Point", 1);
  print_type_info("typeinfo.point3d", g_point3d, "scenario.Point3D", 2);

  const TVMFFITypeInfo* obj = TVMFFIGetTypeInfo(kTVMFFIObject);
  CHECK(obj->metadata != NULL && obj->metadata->total_size == 24 && obj->metadata->creator == NULL &&
            obj->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindUnsupported,
        "typeinfo.object-metadata", "metadata=%s total_size=%d creator=%s kind=%d",
        obj->metadata ? "set" : "null", obj->metadata ? obj->metadata->total_size : -1,
        obj->metadata && obj->metadata->creator ? "set" : "null",
        obj->metadata ? (int)obj->metadata->structural_eq_hash_kind : -1);
  const TVMFFITypeInfo* str = TVMFFIGetTypeInfo(kTVMFFIStr);
  CHECK(str->metadata == NULL && str->type_ancestors[0] == obj, "typeinfo.string-no-metadata",
        "metadata=%s parent=%s", str->metadata ? "set" : "null",
        str->type_ancestors[0] == obj ? "ffi.Object" : "other");
  const TVMFFITypeInfo* p3 = TVMFFIGetTypeInfo(g_point3d);
  const TVMFFITypeInfo* p = TVMFFIGetTypeInfo(g_point);
  CHECK(p3->type_ancestors[0] == obj && p3->type_ancestors[1] == p && p->num_fields == 0 &&
            p->num_methods == 0 && p->metadata == NULL,
        "typeinfo.point-fresh", "point3d.ancestors=%s point.fields=%d methods=%d metadata=%s",
        (p3->type_ancestors[0] == obj && p3->type_ancestors[1] == p) ? "[object,point]" : "other",
        p->num_fields, p->num_methods, p->metadata ? "set" : "null");
}

static const char* kXMetadata = "{\"type_schema\":\"{\\\"type\\\":\\\"int\\\"}\"}";
static const char* kYMetadata = "{\"type_schema\":\"{\\\"type\\\":\\\"float\\\"}\"}";

static void test_fields(void) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(g_point);
  /* strings come from a buffer we overwrite afterwards: the registry must copy them */
  char name_buf[8] = "x";
  char doc_buf[32] = "The x coordinate.";
  TVMFFIFieldInfo fx;
  memset(&fx, 0, sizeof(fx));
  fx.name = ba(name_buf);
  fx.doc = ba(doc_buf);
  fx.metadata = ba(kXMetadata);
  fx.flags = kTVMFFIFieldFlagBitMaskWritable;
  fx.size = 8;
  fx.alignment = 8;
  fx.offset = 24;
  fx.getter = point_get_x;
  fx.setter = (void*)point_set_x;
  fx.default_value_or_factory = any_int(99); /* no HasDefault flag: must be stored as None */
  fx.field_static_type_index = kTVMFFIInt;
  int rc = TVMFFITypeRegisterField(g_point, &fx);
  EXPECT_OK("field.register-x", rc);
  memset(name_buf, 'Z', sizeof(name_buf) - 1);
  memset(doc_buf, 'Z', sizeof(doc_buf) - 1);

  TVMFFIFieldInfo fy;
  memset(&fy, 0, sizeof(fy));
  fy.name = ba("y");
  fy.doc = ba("");
  fy.metadata = ba(kYMetadata);
  fy.flags = kTVMFFIFieldFlagBitMaskWritable | kTVMFFIFieldFlagBitMaskHasDefault;
  fy.size = 8;
  fy.alignment = 8;
  fy.offset = 32;
  fy.getter = point_get_y;
  fy.setter = (void*)point_set_y;
  fy.default_value_or_factory = any_float(1.5);
  fy.field_static_type_index = kTVMFFIFloat;
  rc = TVMFFITypeRegisterField(g_point, &fy);
  EXPECT_OK("field.register-y", rc);

  TVMFFIFieldInfo flabel;
  memset(&flabel, 0, sizeof(flabel));
  flabel.name = ba("label");
  flabel.doc = ba("A read-only label with a small-string default.");
  flabel.metadata = ba("");
  flabel.flags = kTVMFFIFieldFlagBitMaskHasDefault | kTVMFFIFieldFlagBitMaskReprOff;
  flabel.size = 8;
  flabel.alignment = 8;
  flabel.offset = 24;
  flabel.getter = point_get_x;
  flabel.setter = NULL;
  flabel.default_value_or_factory = any_raw_str("origin"); /* AnyView: stored as an owned String */
  flabel.field_static_type_index = -1;
  rc = TVMFFITypeRegisterField(g_point, &flabel);
  EXPECT_OK("field.register-label", rc);

  info = TVMFFIGetTypeInfo(g_point);
  CHECK(info->num_fields == 3, "field.count", "num_fields=%d", info->num_fields);
  if (info->num_fields != 3) return;
  const TVMFFIFieldInfo* x = &info->fields[0];
  const TVMFFIFieldInfo* y = &info->fields[1];
  const TVMFFIFieldInfo* l = &info->fields[2];
  CHECK(ba_eq(x->name, "x") && ba_eq(x->doc, "The x coordinate.") && ba_eq(x->metadata, kXMetadata) &&
            x->flags == 1 && x->size == 8 && x->alignment == 8 && x->offset == 24 &&
            x->getter == point_get_x && x->setter == (void*)point_set_x &&
            x->default_value_or_factory.type_index == kTVMFFINone && x->field_static_type_index == 1,
        "field.x", "name=%s doc=%s metadata=%s flags=%lld size=%lld align=%lld offset=%lld getter=%s setter=%s default.type_index=%d static_type_index=%d",
        qba(x->name), qba(x->doc), qba(x->metadata), (long long)x->flags, (long long)x->size,
        (long long)x->alignment, (long long)x->offset, x->getter == point_get_x ? "ours" : "other",
        x->setter == (void*)point_set_x ? "ours" : "other", x->default_value_or_factory.type_index,
        x->field_static_type_index);
  CHECK(ba_eq(y->name, "y") && y->doc.size == 0 && ba_eq(y->metadata, kYMetadata) && y->flags == 3 &&
            y->offset == 32 && y->getter == point_get_y &&
            y->default_value_or_factory.type_index == kTVMFFIFloat &&
            y->default_value_or_factory.v_float64 == 1.5 && y->field_static_type_index == 3,
        "field.y", "name=%s doc_size=%zu metadata=%s flags=%lld offset=%lld default=%d:%g static_type_index=%d",
        qba(y->name), y->doc.size, qba(y->metadata), (long long)y->flags, (long long)y->offset,
        y->default_value_or_factory.type_index, y->default_value_or_factory.v_float64,
        y->field_static_type_index);
  TVMFFIAny ld = l->default_value_or_factory;
  CHECK(ba_eq(l->name, "label") && l->metadata.size == 0 && l->flags == 66 && l->setter == NULL &&
            ld.type_index == kTVMFFISmallStr && ba_eq(any_bytes(&ld), "origin") &&
            l->field_static_type_index == -1,
        "field.label", "name=%s doc=%s metadata_size=%zu flags=%lld setter=%s default.type_index=%d default=%s static_type_index=%d",
        qba(l->name), qba(l->doc), l->metadata.size, (long long)l->flags, l->setter ? "set" : "null",
        ld.type_index, qba(any_bytes(&ld)), l->field_static_type_index);

  /* duplicate field name */
  TVMFFIFieldInfo dup = fx;
  dup.name = ba("x");
  rc = TVMFFITypeRegisterField(g_point, &dup);
  /* Apache: InternalError "Check failed: (std::string_view(existing.name.data,
     existing.name.size) != new_name) is false: Duplicate field name \"x\" in type
     \"scenario.Point\"" */
  EXPECT_ERROR("field.duplicate", rc, "InternalError",
               "Check failed: (std::string_view(existing.name.data, existing.name.size) != "
               "new_name) is false: Duplicate field name \"x\" in type \"scenario.Point\"");
  info = TVMFFIGetTypeInfo(g_point);
  CHECK(info->num_fields == 3, "field.duplicate-not-added", "num_fields=%d", info->num_fields);

  /* a child may re-register an ancestor's field name (Apache only warns on stderr) */
  TVMFFIFieldInfo shadow = fx;
  shadow.name = ba("x");
  shadow.doc = ba("");
  rc = TVMFFITypeRegisterField(g_point3d, &shadow);
  EXPECT_OK("field.shadow-ancestor", rc);
  CHECK(rc == 0 && TVMFFIGetTypeInfo(g_point3d)->num_fields == 1 &&
            TVMFFIGetTypeInfo(g_point)->num_fields == 3,
        "field.shadow-ancestor", "rc=%d child.num_fields=%d parent.num_fields=%d", rc,
        TVMFFIGetTypeInfo(g_point3d)->num_fields, TVMFFIGetTypeInfo(g_point)->num_fields);
}

static void test_metadata_and_accessors(void) {
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  char doc_buf[32] = "A point in the plane.";
  md.doc = ba(doc_buf);
  md.creator = point_creator;
  md.total_size = (int32_t)sizeof(PointObj);
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  int rc = TVMFFITypeRegisterMetadata(g_point, &md);
  EXPECT_OK("metadata.register", rc);
  memset(doc_buf, 'Z', sizeof(doc_buf) - 1);
  const TVMFFITypeMetadata* got = TVMFFIGetTypeInfo(g_point)->metadata;
  CHECK(rc == 0 && got != NULL && ba_eq(got->doc, "A point in the plane.") &&
            got->creator == point_creator && got->total_size == 40 &&
            got->structural_eq_hash_kind == kTVMFFISEqHashKindTreeNode,
        "metadata.read-back", "rc=%d doc=%s creator=%s total_size=%d kind=%d", rc,
        got ? qba(got->doc) : "-", got && got->creator == point_creator ? "ours" : "other",
        got ? got->total_size : -1, got ? (int)got->structural_eq_hash_kind : -1);

  TVMFFITypeMetadata md2 = md;
  md2.doc = ba("second");
  rc = TVMFFITypeRegisterMetadata(g_point, &md2);
  /* Apache: RuntimeError "Overriding scenario.Point, possible causes:\n- two ObjectDef<T>() calls
     for the same T \n- when we forget to assign _type_key to ObjectRef<Y> that inherits from
     T\n- another type with the same key is already registered\nCross check the reflection
     registration." (also printed to stderr) */
  EXPECT_ERROR("metadata.duplicate", rc, "RuntimeError",
               "Overriding scenario.Point, possible causes:\n"
               "- two ObjectDef<T>() calls for the same T \n"
               "- when we forget to assign _type_key to ObjectRef<Y> that inherits from T\n"
               "- another type with the same key is already registered\n"
               "Cross check the reflection registration.");
  got = TVMFFIGetTypeInfo(g_point)->metadata;
  CHECK(got != NULL && ba_eq(got->doc, "A point in the plane."), "metadata.duplicate-keeps-first",
        "doc=%s", got ? qba(got->doc) : "-");
  CHECK(TVMFFIGetTypeInfo(g_point3d)->metadata == NULL, "metadata.child-has-none", "metadata=%s",
        TVMFFIGetTypeInfo(g_point3d)->metadata ? "set" : "null");

  /* create an instance through the registered creator; use getters/setters from the TypeInfo */
  void* obj = NULL;
  rc = got ? got->creator(&obj) : -1;
  CHECK(rc == 0 && obj != NULL && ((TVMFFIObject*)obj)->type_index == g_point, "metadata.creator",
        "rc=%d type_index=%s", rc, obj ? tidx(((TVMFFIObject*)obj)->type_index) : "-");
  if (obj == NULL) return;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(g_point);
  const TVMFFIFieldInfo* fx = &info->fields[0];
  const TVMFFIFieldInfo* fy = &info->fields[1];
  TVMFFIAny v = any_none();
  rc = fx->getter((char*)obj + fx->offset, &v);
  CHECK(rc == 0 && v.type_index == kTVMFFIInt && v.v_int64 == 0, "field.get-x", "value=%lld",
        (long long)v.v_int64);
  TVMFFIAny seven = any_int(7);
  rc = ((TVMFFIFieldSetter)fx->setter)((char*)obj + fx->offset, &seven);
  TVMFFIAny two = any_float(2.0);
  int rc2 = ((TVMFFIFieldSetter)fy->setter)((char*)obj + fy->offset, &two);
  fx->getter((char*)obj + fx->offset, &v);
  CHECK(rc == 0 && rc2 == 0 && v.v_int64 == 7 && ((PointObj*)obj)->y == 2.0, "field.set",
        "x=%lld y=%g", (long long)v.v_int64, ((PointObj*)obj)->y);
  TVMFFIAny wrong = any_float(1.0);
  rc = ((TVMFFIFieldSetter)fx->setter)((char*)obj + fx->offset, &wrong);
  EXPECT_ERROR("field.set-wrong-type", rc, "TypeError", "x expects an int");

  /* methods: a foreign function object, retained by the registry */
  memset(&g_norm2, 0, sizeof(g_norm2));
  g_norm2.header.combined_ref_count = ((uint64_t)1 << 32) | 1u;
  g_norm2.header.type_index = kTVMFFIFunction;
  g_norm2.header.deleter = cfunc_deleter;
  g_norm2.cell.safe_call = norm2_call;
  g_norm2.cell.cpp_call = NULL;
  TVMFFIMethodInfo m;
  memset(&m, 0, sizeof(m));
  m.name = ba("norm2");
  m.doc = ba("Squared Euclidean norm.");
  m.metadata = ba("{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"}\"}");
  m.flags = 0;
  m.method = any_obj(&g_norm2);
  rc = TVMFFITypeRegisterMethod(g_point, &m);
  EXPECT_OK("method.register", rc);
  CHECK(rc == 0 && strong_of(&g_norm2) == 2, "method.register-retains", "rc=%d strong=%u", rc,
        strong_of(&g_norm2));
  TVMFFIMethodInfo m2 = m;
  m2.name = ba("origin");
  m2.doc = ba("");
  m2.metadata = ba("");
  m2.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
  rc = TVMFFITypeRegisterMethod(g_point, &m2);
  EXPECT_OK("method.register-static", rc);
  rc = TVMFFITypeRegisterMethod(g_point, &m); /* same name again: an overload, allowed */
  EXPECT_OK("method.register-overload", rc);
  info = TVMFFIGetTypeInfo(g_point);
  CHECK(info->num_methods == 3 && strong_of(&g_norm2) == 4, "method.count",
        "num_methods=%d strong=%u", info->num_methods, strong_of(&g_norm2));
  if (info->num_methods == 3) {
    const TVMFFIMethodInfo* a = &info->methods[0];
    const TVMFFIMethodInfo* b = &info->methods[1];
    const TVMFFIMethodInfo* c = &info->methods[2];
    CHECK(ba_eq(a->name, "norm2") && ba_eq(a->doc, "Squared Euclidean norm.") &&
              ba_eq(a->metadata, "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"}\"}") &&
              a->flags == 0 && a->method.type_index == kTVMFFIFunction &&
              a->method.v_obj == &g_norm2.header,
          "method.read-back", "name=%s doc=%s metadata=%s flags=%lld method.type_index=%d method=%s",
          qba(a->name), qba(a->doc), qba(a->metadata), (long long)a->flags, a->method.type_index,
          a->method.v_obj == &g_norm2.header ? "ours" : "other");
    CHECK(ba_eq(b->name, "origin") && b->flags == 4 && ba_eq(c->name, "norm2") && c->flags == 0,
          "method.read-back-order", "second=%s flags=%lld third=%s flags=%lld", qba(b->name),
          (long long)b->flags, qba(c->name), (long long)c->flags);
    TVMFFIAny arg = any_obj(obj);
    TVMFFIAny rv = any_none();
    rc = TVMFFIFunctionCall(a->method.v_obj, &arg, 1, &rv);
    CHECK(rc == 0 && rv.type_index == kTVMFFIFloat && rv.v_float64 == 53.0, "method.call",
          "rc=%d type_index=%d value=%g", rc, rv.type_index, rv.v_float64);
  }
  TVMFFIObjectDecRef(obj);
  CHECK(g_points_freed == 1, "metadata.instance-freed", "freed=%d", g_points_freed);
  /* header code caches TypeInfo pointers: registering fields, methods and metadata (and more
     types) must not move them */
  CHECK(TVMFFIGetTypeInfo(g_point) == g_point_info, "typeinfo.stable-after-registration",
        "ptr=%s", same(TVMFFIGetTypeInfo(g_point), g_point_info));
}

/* ------------------------------------------------------------------------------------------ */
/* 13. type attribute columns                                                                  */
/* ------------------------------------------------------------------------------------------ */

static const TVMFFIAny* column_entry(const TVMFFITypeAttrColumn* col, int32_t type_index) {
  int32_t i = type_index - col->begin_index;
  if (i < 0 || i >= col->size) return NULL;
  return &col->data[i];
}

static const char* entry_str(const TVMFFIAny* e) {
  char* b = next_buf();
  if (e == NULL) {
    snprintf(b, 4096, "out-of-range");
  } else if (e->type_index == kTVMFFINone) {
    snprintf(b, 4096, "none");
  } else if (e->type_index == kTVMFFIInt) {
    snprintf(b, 4096, "int:%lld", (long long)e->v_int64);
  } else if (e->type_index == kTVMFFISmallStr || e->type_index == kTVMFFIStr) {
    snprintf(b, 4096, "str:%s", qba(any_bytes(e)));
  } else {
    snprintf(b, 4096, "type_index:%d", e->type_index);
  }
  return b;
}

static void test_attrs(void) {
  TVMFFIByteArray unknown = ba("scenario.no_such_column");
  const TVMFFITypeAttrColumn* none = TVMFFIGetTypeAttrColumn(&unknown);
  CHECK(none == NULL, "attr.unknown-column", "column=%s", none ? "set" : "null");

  TVMFFIByteArray name = ba("scenario.attr");
  TVMFFIAny ignored = any_int(-1);
  int rc = TVMFFITypeRegisterAttr(kTVMFFINone, &name, &ignored);
  EXPECT_OK("attr.ensure-column", rc);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  CHECK(rc == 0 && col != NULL && col->size == 0, "attr.ensure-column", "rc=%d column=%s size=%d",
        rc, col ? "set" : "null", col ? col->size : -1);
  if (col == NULL) return;

  TVMFFIAny v65 = any_int(65);
  rc = TVMFFITypeRegisterAttr(kTVMFFIStr, &name, &v65);
  EXPECT_OK("attr.register-static", rc);
  const TVMFFIAny* e = column_entry(col, kTVMFFIStr);
  CHECK(rc == 0 && e != NULL && e->type_index == kTVMFFIInt && e->v_int64 == 65,
        "attr.register-static", "rc=%d entry[ffi.String]=%s", rc, entry_str(e));

  /* growing the column to a dynamic index keeps the column pointer */
  TVMFFIAny v100 = any_int(100);
  rc = TVMFFITypeRegisterAttr(g_point, &name, &v100);
  EXPECT_OK("attr.register-dyn", rc);
  const TVMFFITypeAttrColumn* col2 = TVMFFIGetTypeAttrColumn(&name);
  const TVMFFIAny* ep = column_entry(col, g_point);
  const TVMFFIAny* es = column_entry(col, kTVMFFIStr);
  CHECK(col2 == col && ep != NULL && ep->type_index == kTVMFFIInt && ep->v_int64 == 100 && es != NULL &&
            es->v_int64 == 65,
        "attr.register-dyn", "column_ptr=%s entry[Point]=%s entry[ffi.String]=%s",
        same(col2, col), entry_str(ep), entry_str(es));
  TVMFFIAny v102 = any_int(102);
  rc = TVMFFITypeRegisterAttr(g_point_b, &name, &v102);
  EXPECT_OK("attr.register-child", rc);
  const TVMFFIAny* e3d = column_entry(col, g_point3d);
  const TVMFFIAny* eb = column_entry(col, g_point_b);
  const TVMFFIAny* ebytes = column_entry(col, kTVMFFIBytes);
  CHECK(TVMFFIGetTypeAttrColumn(&name) == col && eb != NULL && eb->v_int64 == 102 && e3d != NULL &&
            e3d->type_index == kTVMFFINone && (ebytes == NULL || ebytes->type_index == kTVMFFINone),
        "attr.register-child", "column_ptr=%s entry[PointB]=%s entry[Point3D]=%s entry[ffi.Bytes]=%s",
        same(TVMFFIGetTypeAttrColumn(&name), col), entry_str(eb), entry_str(e3d),
        ebytes == NULL ? "none" : entry_str(ebytes));

  TVMFFIAny dupv = any_int(5);
  rc = TVMFFITypeRegisterAttr(g_point, &name, &dupv);
  /* Apache: RuntimeError "TypeAttr `scenario.attr` is already registered for type index <Point>.
     To update the stored value, register a mutable container (e.g., Dict/List) once and mutate
     it in place on subsequent calls." (<Point> is the decimal dynamic index) */
  EXPECT_ERROR("attr.duplicate", rc, "RuntimeError", NULL);
  {
    /* the message names the dynamic index: compare it with the index spelled out */
    TVMFFIAny again = any_int(6);
    rc = TVMFFITypeRegisterAttr(g_point, &name, &again);
    void* err = take_raised();
    char expect[512];
    snprintf(expect, sizeof(expect),
             "TypeAttr `scenario.attr` is already registered for type index %d. To update the "
             "stored value, register a mutable container (e.g., Dict/List) once and mutate it in "
             "place on subsequent calls.",
             g_point);
    CHECK(rc == -1 && err != NULL && ba_eq(error_cell(err)->kind, "RuntimeError") &&
              ba_eq(error_cell(err)->message, expect),
          "attr.duplicate-message", "kind=%s message=%s", err ? qba(error_cell(err)->kind) : "-",
          err ? qba(error_cell(err)->message) : "-");
    if (err) TVMFFIObjectDecRef(err);
  }
  ep = column_entry(col, g_point);
  CHECK(ep != NULL && ep->v_int64 == 100, "attr.duplicate-keeps-first", "entry[Point]=%s",
        entry_str(ep));

  /* a raw C string value is stored as an owned String */
  TVMFFIByteArray name2 = ba("scenario.attr_str");
  TVMFFIAny tag = any_raw_str("tag");
  rc = TVMFFITypeRegisterAttr(g_point3d, &name2, &tag);
  EXPECT_OK("attr.register-raw-str", rc);
  const TVMFFITypeAttrColumn* col3 = TVMFFIGetTypeAttrColumn(&name2);
  const TVMFFIAny* et = col3 ? column_entry(col3, g_point3d) : NULL;
  const TVMFFIAny* ep3 = col3 ? column_entry(col3, g_point) : NULL;
  CHECK(col3 != NULL && col3 != col && et != NULL && et->type_index == kTVMFFISmallStr &&
            ba_eq(any_bytes(et), "tag") && (ep3 == NULL || ep3->type_index == kTVMFFINone),
        "attr.register-raw-str", "column=%s entry[Point3D]=%s entry[Point]=%s",
        col3 == NULL ? "null" : (col3 == col ? "same-as-first" : "distinct"), entry_str(et),
        ep3 == NULL ? "none" : entry_str(ep3));
}

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

static void test_streams(void) {
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

static void test_dlpack_allocator(void) {
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

static void test_env_misc(void) {
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

static void test_custom_allocator(void) {
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

static void test_init_once(void) {
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

/* ------------------------------------------------------------------------------------------ */
/* 17. live objects (ffihub only)                                                              */
/* ------------------------------------------------------------------------------------------ */

static void* g_live_fn = NULL;

static int64_t live_objects(void) {
  TVMFFIAny rv = any_none();
  if (g_live_fn == NULL) return -1;
  int rc = TVMFFIFunctionCall(g_live_fn, NULL, 0, &rv);
  if (rc != 0 || rv.type_index != kTVMFFIInt) {
    void* err = take_raised();
    if (err) TVMFFIObjectDecRef(err);
    any_release(&rv);
    return -1;
  }
  return rv.v_int64;
}

/* ------------------------------------------------------------------------------------------ */

int main(void) {
  /* ffihub's runtime offers a live-object counter; Apache's does not. */
  g_live_fn = get_global("ffihub.LiveObjectCount");
  int64_t live_start = live_objects();

  test_version();
  test_refcount();
  test_opaque();
  test_strings();
  test_any_view_to_owned();
  test_bigint();
  test_dtype();
  test_errors();
  test_backtrace();
  test_functions();
  test_globals();
  test_type_indices();
  test_type_info();
  test_fields();
  test_metadata_and_accessors();
  test_attrs();
  test_streams();
  test_dlpack_allocator();
  test_env_misc();
  test_custom_allocator();
  test_init_once();

  void* leftover = take_raised();
  CHECK(leftover == NULL, "end.error-slot-empty", "slot=%s", leftover ? "set" : "empty");
  if (leftover) TVMFFIObjectDecRef(leftover);

  /* Same transcript line on both runtimes; the numbers are only checked where they exist. */
  if (g_live_fn != NULL) {
    int64_t live_end = live_objects();
    if (live_start < 0 || live_end != live_start) {
      fprintf(stderr, "live objects: start=%lld end=%lld\n", (long long)live_start,
              (long long)live_end);
    }
    CHECK(live_start >= 0 && live_end == live_start, "live-object check:", "%s", "done");
    TVMFFIObjectDecRef(g_live_fn);
  } else {
    CHECK(1, "live-object check:", "%s", "done");
  }

  return check_summary();
}
