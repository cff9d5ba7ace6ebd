/*
 * Hosting Apache's libtvm_ffi_testing.so: one C program that dlopens the wheel's testing library
 * (its path is argv[1]) and drives it through the TVM-FFI C ABI only, printing a deterministic
 * transcript, one line per check:
 *
 *     ok <check-name> <observed facts>
 *     FAIL <check-name> <observed facts> [testing_lib.c:<line>]
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

#include "any_values.h"
#include "check.h"

/* ------------------------------------------------------------------------------------------ */
/* The testing.* functions: which are called, and why none is left out                         */
/* ------------------------------------------------------------------------------------------ */

/*
 * Every global function that libtvm_ffi_testing.so registers (59 in apache-tvm-ffi
 * 0.1.15.post2). `skip` is NULL for the functions this program calls with checked results;
 * the run fails if a listed function was never called, or if the library registers a
 * testing.* function that is not listed.
 *
 * Closing note on the ones that could have been left out, and why they are not:
 *   - run_check_signal only polls TVMFFIEnvCheckSignals, which returns 0 when no Python hooks
 *     are registered (TVMFFIEnvRegisterCAPI); it then prints a line on std::cout. It is
 *     called with nsec=1 (one second of sleep) and that line is captured from fd 1.
 *   - make_visit_region_graph only builds TestVisitRegions / TestVisitHook objects; their
 *     structural-visit hooks (ffi.StructuralVisit) are out of scope and not exercised, but the
 *     objects and their fields are read through reflection.
 *   - enum_variant_get reads the `__ffi_enum__` column that the library fills itself (header
 *     code: EnumDef), over the builtin types ffi.Enum / ffi.EnumState of the runtime; no
 *     structural machinery is involved.
 * Nothing here calls ffi.Structural*, ffi.DeepCopy, ffi.Recursive* or the JSON-graph
 * serializers: they are out of scope for this test.
 */
typedef struct {
  const char* name; /* without the "testing." prefix */
  const char* skip; /* reason, or NULL when covered */
  int calls;
} TestingFn;

static TestingFn g_testing_fns[] = {
    {"TestIntPairSum", NULL, 0},
    {"add_one", NULL, 0},
    {"apply", NULL, 0},
    {"echo", NULL, 0},
    {"enum_variant_get", NULL, 0},
    {"get_add_one_c_symbol", NULL, 0},
    {"get_mlir_add_one_c_symbol", NULL, 0},
    {"make_array_with_mixed", NULL, 0},
    {"make_array_with_tensor", NULL, 0},
    {"make_dict_with_tensor", NULL, 0},
    {"make_empty_array_with_tensor_input", NULL, 0},
    {"make_list_with_tensor", NULL, 0},
    {"make_map_with_tensor", NULL, 0},
    {"make_nested_array_with_tensor", NULL, 0},
    {"make_nested_map_with_tensor", NULL, 0},
    {"make_unregistered_object", NULL, 0},
    {"make_visit_region_graph", NULL, 0},
    {"nop", NULL, 0},
    {"object_use_count", NULL, 0},
    {"optional_tensor_view_has_value", NULL, 0},
    {"run_check_signal", NULL, 0},
    {"schema_arr_map_opt", NULL, 0},
    {"schema_id_any", NULL, 0},
    {"schema_id_arr", NULL, 0},
    {"schema_id_arr_int", NULL, 0},
    {"schema_id_arr_obj", NULL, 0},
    {"schema_id_arr_str", NULL, 0},
    {"schema_id_bool", NULL, 0},
    {"schema_id_bytes", NULL, 0},
    {"schema_id_device", NULL, 0},
    {"schema_id_dict_str_int", NULL, 0},
    {"schema_id_dict_str_str", NULL, 0},
    {"schema_id_dltensor", NULL, 0},
    {"schema_id_dtype", NULL, 0},
    {"schema_id_float", NULL, 0},
    {"schema_id_func", NULL, 0},
    {"schema_id_func_typed", NULL, 0},
    {"schema_id_int", NULL, 0},
    {"schema_id_list_int", NULL, 0},
    {"schema_id_list_obj", NULL, 0},
    {"schema_id_list_str", NULL, 0},
    {"schema_id_map", NULL, 0},
    {"schema_id_map_str_int", NULL, 0},
    {"schema_id_map_str_obj", NULL, 0},
    {"schema_id_map_str_str", NULL, 0},
    {"schema_id_object", NULL, 0},
    {"schema_id_opt_int", NULL, 0},
    {"schema_id_opt_obj", NULL, 0},
    {"schema_id_opt_str", NULL, 0},
    {"schema_id_string", NULL, 0},
    {"schema_id_tensor", NULL, 0},
    {"schema_id_variant_int_str", NULL, 0},
    {"schema_no_args", NULL, 0},
    {"schema_no_args_no_return", NULL, 0},
    {"schema_no_return", NULL, 0},
    {"schema_packed", NULL, 0},
    {"schema_tensor_view_input", NULL, 0},
    {"schema_variant_mix", NULL, 0},
    {"test_raise_error", NULL, 0},
};
#define NUM_TESTING_FNS ((int)(sizeof(g_testing_fns) / sizeof(g_testing_fns[0])))

/* ------------------------------------------------------------------------------------------ */
/* Reporting                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static void die(const char* what) {
  fprintf(stderr, "testing_lib: setup error: %s\n", what);
  exit(2);
}

/* ------------------------------------------------------------------------------------------ */
/* Text: growable buffers and a ring of formatted strings                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  char* data;
  size_t len;
  size_t cap;
} Buf;

static void buf_reserve(Buf* b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  b->data = (char*)realloc(b->data, cap);
  if (b->data == NULL) die("out of memory");
  b->cap = cap;
}

static void buf_putn(Buf* b, const char* s, size_t n) {
  buf_reserve(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void buf_puts(Buf* b, const char* s) { buf_putn(b, s, strlen(s)); }

static void buf_printf(Buf* b, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* Escaped, quoted bytes: \n \t \\ \" and \xNN for non-printable bytes. */
static void buf_quoted(Buf* b, const char* data, size_t size) {
  buf_puts(b, "\"");
  for (size_t i = 0; i < size; ++i) {
    unsigned char c = (unsigned char)data[i];
    if (c == '\n') {
      buf_puts(b, "\\n");
    } else if (c == '\t') {
      buf_puts(b, "\\t");
    } else if (c == '\\' || c == '"') {
      char two[2] = {'\\', (char)c};
      buf_putn(b, two, 2);
    } else if (c < 0x20 || c >= 0x7f) {
      buf_printf(b, "\\x%02x", c);
    } else {
      char one = (char)c;
      buf_putn(b, &one, 1);
    }
  }
  buf_puts(b, "\"");
}

/* A ring of owned strings: the last RING_SIZE results stay valid. */
#define RING_SIZE 64
static char* g_ring[RING_SIZE];
static int g_ring_next = 0;

static const char* ring_take(Buf* b) {
  if (b->data == NULL) buf_reserve(b, 0), b->data[0] = '\0';
  free(g_ring[g_ring_next]);
  g_ring[g_ring_next] = b->data;
  g_ring_next = (g_ring_next + 1) % RING_SIZE;
  return b->data;
}

static const char* fmt(const char* f, ...) {
  Buf b = {0};
  va_list ap;
  va_start(ap, f);
  int n = vsnprintf(NULL, 0, f, ap);
  va_end(ap);
  buf_reserve(&b, (size_t)n);
  va_start(ap, f);
  vsnprintf(b.data, (size_t)n + 1, f, ap);
  va_end(ap);
  b.len = (size_t)n;
  return ring_take(&b);
}

static const char* quote_n(const char* data, size_t size) {
  Buf b = {0};
  buf_quoted(&b, data, size);
  return ring_take(&b);
}

static const char* qba(TVMFFIByteArray a) { return quote_n(a.data, a.size); }
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

static uint32_t strong_of(void* obj) {
  return (uint32_t)(__atomic_load_n(&((TVMFFIObject*)obj)->combined_ref_count, __ATOMIC_ACQUIRE) &
                    0xffffffffu);
}

static TVMFFIAny any_bool(int v) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIBool;
  a.v_int64 = v ? 1 : 0;
  return a;
}

static TVMFFIAny any_ptr(void* p) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIOpaquePtr;
  a.v_ptr = p;
  return a;
}

static TVMFFIAny any_device(int32_t type, int32_t id) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIDevice;
  a.v_device.device_type = (DLDeviceType)type;
  a.v_device.device_id = id;
  return a;
}

static TVMFFIAny any_dtype(uint8_t code, uint8_t bits, uint16_t lanes) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIDataType;
  a.v_dtype.code = code;
  a.v_dtype.bits = bits;
  a.v_dtype.lanes = lanes;
  return a;
}

static TVMFFIAny any_dltensor(DLTensor* t) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIDLTensorPtr;
  a.v_ptr = t;
  return a;
}

static int is_obj(const TVMFFIAny* a) {
  return a->type_index >= kTVMFFIStaticObjectBegin && a->v_obj != NULL;
}

/* The content of a String/Bytes value (small or heap) held in an Any. */
static TVMFFIByteArray any_bytes(const TVMFFIAny* a) {
  TVMFFIByteArray r = {NULL, 0};
  if (a->type_index == kTVMFFISmallStr || a->type_index == kTVMFFISmallBytes) {
    r.data = a->v_bytes;
    r.size = a->small_str_len;
  } else if (a->type_index == kTVMFFIStr || a->type_index == kTVMFFIBytes) {
    r = *(TVMFFIByteArray*)((char*)a->v_obj + sizeof(TVMFFIObject));
  } else if (a->type_index == kTVMFFIRawStr) {
    r = ba(a->v_c_str);
  }
  return r;
}

static int any_str_eq(const TVMFFIAny* a, const char* s) {
  return (a->type_index == kTVMFFISmallStr || a->type_index == kTVMFFIStr) &&
         ba_eq(any_bytes(a), s);
}

/* A runtime-created String (SmallStr or Str) holding s: owned. */
static TVMFFIAny make_string(const char* s) {
  TVMFFIAny out = any_none();
  TVMFFIByteArray in = ba(s);
  if (TVMFFIStringFromByteArray(&in, &out) != 0) die("TVMFFIStringFromByteArray failed");
  return out;
}

static TVMFFIAny make_bytes(const char* data, size_t n) {
  TVMFFIAny out = any_none();
  TVMFFIByteArray in = {data, n};
  if (TVMFFIBytesFromByteArray(&in, &out) != 0) die("TVMFFIBytesFromByteArray failed");
  return out;
}

static TVMFFIErrorCell* error_cell(void* err) {
  return (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
}

static void* take_raised(void) {
  void* err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  return err;
}

/* The type key of a type index (static or dynamic) as a C string in the ring. */
static const char* type_key_of(int32_t index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
  if (info == NULL) return fmt("<no type info for %d>", index);
  return fmt("%.*s", (int)info->type_key.size, info->type_key.data);
}

static int32_t type_index_of(const char* key) {
  TVMFFIByteArray k = ba(key);
  int32_t index = -1;
  if (TVMFFITypeKeyToIndex(&k, &index) != 0) {
    void* err = take_raised();
    if (err) TVMFFIObjectDecRef(err);
    return -1;
  }
  return index;
}

/* Looks up a global function: new reference or NULL. */
static void* get_global(const char* name) {
  TVMFFIByteArray n = ba(name);
  void* f = NULL;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0) {
    void* err = take_raised();
    if (err) TVMFFIObjectDecRef(err);
    return NULL;
  }
  return f;
}

/* A global function as an owned Any (None if missing). */
static TVMFFIAny get_global_any(const char* name) {
  void* f = get_global(name);
  return f ? any_obj(f) : any_none();
}

/* Calls a function object; *rv is reset to None first. */
static int call_fn(void* f, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  *rv = any_none();
  return TVMFFIFunctionCall(f, args, n, rv);
}

/* Calls a global function by name; a missing function raises a RuntimeError. */
static int call_global(const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  *rv = any_none();
  void* f = get_global(name);
  if (f == NULL) {
    char msg[256];
    snprintf(msg, sizeof msg, "global function %s is not registered", name);
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", msg);
    return -1;
  }
  int rc = TVMFFIFunctionCall(f, args, n, rv);
  TVMFFIObjectDecRef(f);
  return rc;
}

/* Calls testing.<name> and records the call in g_testing_fns. */
static int call_testing(const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  int known = 0;
  for (int i = 0; i < NUM_TESTING_FNS; ++i) {
    if (strcmp(g_testing_fns[i].name, name) == 0) {
      ++g_testing_fns[i].calls;
      known = 1;
    }
  }
  if (!known) CHECK(0, "table.unlisted-call", "testing.%s is not in g_testing_fns", name);
  char full[256];
  snprintf(full, sizeof full, "testing.%s", name);
  return call_global(full, args, n, rv);
}

#define ARGS(...) ((TVMFFIAny[]){__VA_ARGS__})
#define NARGS(...) ((int)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny)))
/* T(name, &rv, args...) calls testing.<name>; T0 without arguments. */
#define T(name, rv, ...) call_testing(name, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)
#define T0(name, rv) call_testing(name, NULL, 0, rv)
/* G(name, &rv, args...) calls a runtime global; G0 without arguments. */
#define G(name, rv, ...) call_global(name, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)
#define G0(name, rv) call_global(name, NULL, 0, rv)
/* F(fn, &rv, args...) calls a function object. */
#define F(fn, rv, ...) call_fn(fn, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)

/* ------------------------------------------------------------------------------------------ */
/* describe(): a deterministic rendering of any value, reading containers through the runtime  */
/* ------------------------------------------------------------------------------------------ */

static void describe_into(Buf* b, const TVMFFIAny* v, int depth);

/* Appends "<error Kind: message>" for the raised error (or a note if none was raised). */
static void buf_raised(Buf* b, int rc) {
  void* err = take_raised();
  if (err == NULL) {
    buf_printf(b, "<rc=%d without error>", rc);
    return;
  }
  TVMFFIErrorCell* cell = error_cell(err);
  buf_printf(b, "<error %.*s: %.*s>", (int)cell->kind.size, cell->kind.data,
             (int)cell->message.size, cell->message.data);
  TVMFFIObjectDecRef(err);
}

static int64_t seq_size(const char* size_fn, const TVMFFIAny* v, Buf* b) {
  TVMFFIAny rv;
  int rc = call_global(size_fn, (TVMFFIAny*)v, 1, &rv);
  if (rc != 0) {
    buf_raised(b, rc);
    return -1;
  }
  if (rv.type_index != kTVMFFIInt) {
    buf_printf(b, "<%s returned type %d>", size_fn, rv.type_index);
    any_release(&rv);
    return -1;
  }
  return rv.v_int64;
}

static void describe_seq(Buf* b, const TVMFFIAny* v, const char* size_fn, const char* get_fn,
                         int depth) {
  int64_t n = seq_size(size_fn, v, b);
  if (n < 0) return;
  for (int64_t i = 0; i < n; ++i) {
    if (i) buf_puts(b, ", ");
    TVMFFIAny rv;
    int rc = G(get_fn, &rv, *v, any_int(i));
    if (rc != 0) {
      buf_raised(b, rc);
      continue;
    }
    describe_into(b, &rv, depth + 1);
    any_release(&rv);
  }
}

/* Iterates a Map/Dict through ffi.MapForwardIterFunctor / ffi.DictForwardIterFunctor. */
static void describe_map(Buf* b, const TVMFFIAny* v, const char* size_fn, const char* iter_fn,
                         int depth) {
  int64_t n = seq_size(size_fn, v, b);
  if (n <= 0) return;
  TVMFFIAny it;
  int rc = call_global(iter_fn, (TVMFFIAny*)v, 1, &it);
  if (rc != 0) {
    buf_raised(b, rc);
    return;
  }
  if (it.type_index != kTVMFFIFunction) {
    buf_printf(b, "<%s returned type %d>", iter_fn, it.type_index);
    any_release(&it);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (i) buf_puts(b, ", ");
    TVMFFIAny k, val, more;
    rc = F(it.v_obj, &k, any_int(0));
    if (rc != 0) {
      buf_raised(b, rc);
      break;
    }
    describe_into(b, &k, depth + 1);
    any_release(&k);
    buf_puts(b, ": ");
    rc = F(it.v_obj, &val, any_int(1));
    if (rc != 0) {
      buf_raised(b, rc);
      break;
    }
    describe_into(b, &val, depth + 1);
    any_release(&val);
    rc = F(it.v_obj, &more, any_int(2));
    if (rc != 0) {
      buf_raised(b, rc);
      break;
    }
    int expect_more = i + 1 < n;
    if (more.type_index != kTVMFFIBool || (more.v_int64 != 0) != expect_more) {
      buf_printf(b, "<advance returned type %d value %lld>", more.type_index,
                 (long long)more.v_int64);
      break;
    }
  }
  any_release(&it);
}

/* Collects the field infos of a type, ancestors' first (as reflection-based printers do). */
static int collect_fields(const TVMFFITypeInfo* info, const TVMFFIFieldInfo** out, int cap) {
  int n = 0;
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_fields && n < cap; ++i) out[n++] = &t->fields[i];
  }
  return n;
}

/* Reads one field of obj through its getter: owned value in *out. */
static int get_field(void* obj, const TVMFFIFieldInfo* f, TVMFFIAny* out) {
  *out = any_none();
  return f->getter((char*)obj + f->offset, out);
}

static void describe_object(Buf* b, void* obj, int depth) {
  int32_t ti = ((TVMFFIObject*)obj)->type_index;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
  buf_printf(b, "%.*s", (int)info->type_key.size, info->type_key.data);
  const TVMFFIFieldInfo* fields[64];
  int n = collect_fields(info, fields, 64);
  if (n == 0) return;
  if (depth > 6) {
    buf_puts(b, "(...)");
    return;
  }
  buf_puts(b, "(");
  for (int i = 0; i < n; ++i) {
    if (i) buf_puts(b, ", ");
    buf_printf(b, "%.*s=", (int)fields[i]->name.size, fields[i]->name.data);
    TVMFFIAny fv;
    int rc = get_field(obj, fields[i], &fv);
    if (rc != 0) {
      buf_raised(b, rc);
      continue;
    }
    describe_into(b, &fv, depth + 1);
    any_release(&fv);
  }
  buf_puts(b, ")");
}

static void describe_into(Buf* b, const TVMFFIAny* v, int depth) {
  switch (v->type_index) {
    case kTVMFFINone:
      buf_puts(b, "None");
      return;
    case kTVMFFIInt:
      buf_printf(b, "%lld", (long long)v->v_int64);
      return;
    case kTVMFFIBool:
      buf_puts(b, v->v_int64 ? "True" : "False");
      return;
    case kTVMFFIFloat:
      buf_printf(b, "%.9g", v->v_float64);
      return;
    case kTVMFFIOpaquePtr:
      buf_puts(b, v->v_ptr ? "ptr" : "nullptr");
      return;
    case kTVMFFIDataType: {
      TVMFFIAny s = any_none();
      if (TVMFFIDataTypeToString(&v->v_dtype, &s) != 0) {
        buf_raised(b, -1);
        return;
      }
      TVMFFIByteArray a = any_bytes(&s);
      buf_printf(b, "dtype(%.*s)", (int)a.size, a.data);
      any_release(&s);
      return;
    }
    case kTVMFFIDevice:
      buf_printf(b, "device(%d:%d)", (int)v->v_device.device_type, (int)v->v_device.device_id);
      return;
    case kTVMFFIDLTensorPtr: {
      const DLTensor* t = (const DLTensor*)v->v_ptr;
      buf_printf(b, "DLTensor*(ndim=%d)", t ? t->ndim : -1);
      return;
    }
    case kTVMFFIRawStr:
      buf_puts(b, "raw");
      buf_quoted(b, v->v_c_str, strlen(v->v_c_str));
      return;
    case kTVMFFISmallStr:
    case kTVMFFIStr: {
      TVMFFIByteArray a = any_bytes(v);
      buf_quoted(b, a.data, a.size);
      return;
    }
    case kTVMFFISmallBytes:
    case kTVMFFIBytes: {
      TVMFFIByteArray a = any_bytes(v);
      buf_puts(b, "b");
      buf_quoted(b, a.data, a.size);
      return;
    }
    default:
      break;
  }
  if (v->type_index < kTVMFFIStaticObjectBegin) {
    buf_printf(b, "<pod type %d>", v->type_index);
    return;
  }
  if (v->v_obj == NULL) {
    buf_puts(b, "<null object>");
    return;
  }
  if (v->v_obj->type_index != v->type_index) {
    buf_printf(b, "<any type %s != object type %s>", type_key_of(v->type_index),
               type_key_of(v->v_obj->type_index));
    return;
  }
  void* obj = v->v_obj;
  switch (v->type_index) {
    case kTVMFFIArray:
      buf_puts(b, "Array[");
      describe_seq(b, v, "ffi.ArraySize", "ffi.ArrayGetItem", depth);
      buf_puts(b, "]");
      return;
    case kTVMFFIList:
      buf_puts(b, "List[");
      describe_seq(b, v, "ffi.ListSize", "ffi.ListGetItem", depth);
      buf_puts(b, "]");
      return;
    case kTVMFFIMap:
      buf_puts(b, "Map{");
      describe_map(b, v, "ffi.MapSize", "ffi.MapForwardIterFunctor", depth);
      buf_puts(b, "}");
      return;
    case kTVMFFIDict:
      buf_puts(b, "Dict{");
      describe_map(b, v, "ffi.DictSize", "ffi.DictForwardIterFunctor", depth);
      buf_puts(b, "}");
      return;
    case kTVMFFIShape: {
      const TVMFFIShapeCell* s = (const TVMFFIShapeCell*)((char*)obj + sizeof(TVMFFIObject));
      buf_puts(b, "Shape(");
      for (size_t i = 0; i < s->size; ++i) buf_printf(b, i ? ", %lld" : "%lld", (long long)s->data[i]);
      buf_puts(b, ")");
      return;
    }
    case kTVMFFITensor: {
      const DLTensor* t = (const DLTensor*)((char*)obj + sizeof(TVMFFIObject));
      buf_printf(b, "Tensor(code%d/%d[", t->dtype.code, t->dtype.bits);
      for (int i = 0; i < t->ndim; ++i) buf_printf(b, i ? ", %lld" : "%lld", (long long)t->shape[i]);
      buf_printf(b, "] dev %d:%d)", (int)t->device.device_type, t->device.device_id);
      return;
    }
    case kTVMFFIFunction:
      buf_puts(b, "Function");
      return;
    case kTVMFFIModule:
      buf_puts(b, "Module");
      return;
    case kTVMFFIError: {
      TVMFFIErrorCell* cell = error_cell(obj);
      buf_printf(b, "Error(%.*s: %.*s)", (int)cell->kind.size, cell->kind.data,
                 (int)cell->message.size, cell->message.data);
      return;
    }
    default:
      describe_object(b, obj, depth);
      return;
  }
}

static const char* describe(const TVMFFIAny* v) {
  Buf b = {0};
  describe_into(&b, v, 0);
  return ring_take(&b);
}

/* "small"/"dense" from MapBaseObj.slots_ (offset 40, MSB set for small maps). */
static const char* map_layout(const TVMFFIAny* v) {
  if (!is_obj(v) || (v->type_index != kTVMFFIMap && v->type_index != kTVMFFIDict)) return "not-a-map";
  uint64_t slots = *(const uint64_t*)((const char*)v->v_obj + 40);
  return (slots >> 63) ? "small" : "dense";
}

/* ------------------------------------------------------------------------------------------ */
/* Result checks                                                                               */
/* ------------------------------------------------------------------------------------------ */

/*
 * Checks that a call succeeded and that describe(rv) equals `expected` (NULL: no comparison);
 * prints the rendering. Does not release rv.
 */
static int expect_value(const char* name, int rc, const TVMFFIAny* rv, const char* expected,
                        int line) {
  if (rc != 0) {
    Buf b = {0};
    buf_raised(&b, rc);
    check_impl(0, line, name, "rc=%d %s", rc, b.data);
    free(b.data);
    return 0;
  }
  const char* got = describe(rv);
  int ok = expected == NULL || strcmp(got, expected) == 0;
  if (ok) {
    check_impl(1, line, name, "%s", got);
  } else {
    check_impl(0, line, name, "%s (expected %s)", got, expected);
  }
  return ok;
}
#define EXPECT_VALUE(name, rc, rv, expected) expect_value(name, rc, rv, expected, __LINE__)

/* EXPECT_VALUE, then releases rv. */
#define EXPECT_VALUE_REL(name, rc, rv, expected)      \
  do {                                                \
    expect_value(name, rc, rv, expected, __LINE__);   \
    any_release(rv);                                  \
  } while (0)

/*
 * Checks that a call failed with rc -1 and raised an Error of the given kind and message
 * (message NULL: only the kind is compared); prints kind and message and releases the error.
 */
static void expect_error(const char* name, int rc, TVMFFIAny* rv, const char* kind,
                         const char* message, int line) {
  void* err = take_raised();
  if (err == NULL) {
    check_impl(0, line, name, "rc=%d no error raised (result %s)", rc, rc == 0 ? describe(rv) : "-");
    any_release(rv);
    return;
  }
  TVMFFIErrorCell* cell = error_cell(err);
  int ok = rc == -1 && ((TVMFFIObject*)err)->type_index == kTVMFFIError &&
           ba_eq(cell->kind, kind) && (message == NULL || ba_eq(cell->message, message));
  if (ok || message == NULL) {
    check_impl(ok, line, name, "rc=%d kind=%s message=%s", rc, qba(cell->kind),
               qba(cell->message));
  } else {
    check_impl(ok, line, name, "rc=%d kind=%s message=%s (expected %s %s)", rc, qba(cell->kind),
               qba(cell->message), kind, quote_n(message, strlen(message)));
  }
  TVMFFIObjectDecRef(err);
  if (rc == 0) any_release(rv); /* a failed call leaves *rv untouched (possibly uninitialised) */
}
#define EXPECT_ERROR(name, rc, rv, kind, message) expect_error(name, rc, rv, kind, message, __LINE__)

/* Like EXPECT_ERROR without a message, but the message is not printed either (it embeds text
   that legitimately differs between implementations, e.g. dlerror() output). */
static void expect_error_kind(const char* name, int rc, TVMFFIAny* rv, const char* kind, int line) {
  void* err = take_raised();
  if (err == NULL) {
    check_impl(0, line, name, "rc=%d no error raised (result %s)", rc, rc == 0 ? describe(rv) : "-");
    any_release(rv);
    return;
  }
  TVMFFIErrorCell* cell = error_cell(err);
  int ok = rc == -1 && ba_eq(cell->kind, kind);
  if (ok) {
    check_impl(1, line, name, "rc=%d kind=%s", rc, qba(cell->kind));
  } else {
    check_impl(0, line, name, "rc=%d kind=%s message=%s (expected kind %s)", rc, qba(cell->kind),
               qba(cell->message), kind);
  }
  TVMFFIObjectDecRef(err);
  if (rc == 0) any_release(rv);
}
#define EXPECT_ERROR_KIND(name, rc, rv, kind) expect_error_kind(name, rc, rv, kind, __LINE__)

/* Fails (printing the raised error) when a call that should succeed did not. */
static int expect_ok(const char* name, int rc, int line) {
  if (rc == 0) return 1;
  Buf b = {0};
  buf_raised(&b, rc);
  check_impl(0, line, name, "rc=%d %s", rc, b.data);
  free(b.data);
  return 0;
}
#define EXPECT_OK(name, rc) expect_ok(name, rc, __LINE__)

/* Builds a container with a runtime constructor global (ffi.Array, ffi.Map, ...): owned. */
static TVMFFIAny build(const char* ctor, TVMFFIAny* args, int n) {
  TVMFFIAny rv;
  int rc = call_global(ctor, args, n, &rv);
  if (rc != 0) {
    Buf b = {0};
    buf_raised(&b, rc);
    CHECK(0, "build", "%s failed: %s", ctor, b.data);
    free(b.data);
    return any_none();
  }
  return rv;
}
#define BUILD(ctor, ...) build(ctor, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__))

/* Owned strings and values to release at the end of a section. */
typedef struct {
  TVMFFIAny* items;
  int n;
  int cap;
} Pool;

static TVMFFIAny pool_add(Pool* p, TVMFFIAny v) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    p->items = (TVMFFIAny*)realloc(p->items, (size_t)p->cap * sizeof(TVMFFIAny));
    if (p->items == NULL) die("out of memory");
  }
  p->items[p->n++] = v;
  return v;
}

static TVMFFIAny pstr(Pool* p, const char* s) { return pool_add(p, make_string(s)); }

static void pool_release(Pool* p) {
  for (int i = 0; i < p->n; ++i) any_release(&p->items[i]);
  free(p->items);
  p->items = NULL;
  p->n = 0;
  p->cap = 0;
}

/* Map-like values from strings: k0..k(n-1) -> ints (i*10) built with ffi.Map or ffi.Dict. */
static TVMFFIAny build_str_int_map(const char* ctor, Pool* p, const char* prefix, int n) {
  TVMFFIAny args[128];
  for (int i = 0; i < n; ++i) {
    args[2 * i] = pstr(p, fmt("%s%d", prefix, i));
    args[2 * i + 1] = any_int(i * 10);
  }
  return build(ctor, args, 2 * n);
}

/* Looks up key (a C string) in a Map with ffi.MapGetItem: owned result (rc in *rc). */
static TVMFFIAny map_get(const char* getter, const TVMFFIAny* m, const char* key, int* rc) {
  TVMFFIAny k = make_string(key);
  TVMFFIAny rv;
  *rc = G(getter, &rv, *m, k);
  any_release(&k);
  return rv;
}

/* ------------------------------------------------------------------------------------------ */
/* 1. the library's global functions                                                           */
/* ------------------------------------------------------------------------------------------ */

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

static void test_global_table(void) {
  TVMFFIAny functor;
  int rc = G0("ffi.FunctionListGlobalNamesFunctor", &functor);
  if (!EXPECT_OK("globals.list", rc)) return;
  TVMFFIAny count;
  rc = F(functor.v_obj, &count, any_int(-1));
  if (!EXPECT_OK("globals.count", rc)) {
    any_release(&functor);
    return;
  }
  char* names[1024];
  int num_testing = 0;
  for (int64_t i = 0; i < count.v_int64; ++i) {
    TVMFFIAny name;
    rc = F(functor.v_obj, &name, any_int(i));
    if (rc != 0) {
      EXPECT_OK("globals.name", rc);
      break;
    }
    TVMFFIByteArray s = any_bytes(&name);
    if (s.size > 8 && memcmp(s.data, "testing.", 8) == 0 && num_testing < 1024) {
      names[num_testing] = (char*)malloc(s.size - 8 + 1);
      memcpy(names[num_testing], s.data + 8, s.size - 8);
      names[num_testing][s.size - 8] = '\0';
      ++num_testing;
    }
    any_release(&name);
  }
  any_release(&functor);
  qsort(names, (size_t)num_testing, sizeof(char*), cmp_str);
  int unlisted = 0;
  for (int i = 0; i < num_testing; ++i) {
    int found = 0;
    for (int j = 0; j < NUM_TESTING_FNS; ++j) found |= strcmp(names[i], g_testing_fns[j].name) == 0;
    if (!found) {
      CHECK(0, "globals.unlisted", "testing.%s is registered but not in g_testing_fns", names[i]);
      ++unlisted;
    }
  }
  CHECK(num_testing == NUM_TESTING_FNS && unlisted == 0, "globals.testing-count",
        "registered=%d listed=%d unlisted=%d", num_testing, NUM_TESTING_FNS, unlisted);
  for (int i = 0; i < num_testing; ++i) free(names[i]);

  /* each function's metadata (type_schema and user metadata) as the library registered it */
  for (int j = 0; j < NUM_TESTING_FNS; ++j) {
    TVMFFIAny name = make_string(fmt("testing.%s", g_testing_fns[j].name));
    TVMFFIAny md;
    rc = G("ffi.GetGlobalFuncMetadata", &md, name);
    EXPECT_VALUE(fmt("globals.metadata testing.%s", g_testing_fns[j].name), rc, &md, NULL);
    any_release(&md);
    any_release(&name);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* 2. scalar functions                                                                         */
/* ------------------------------------------------------------------------------------------ */

static int add_one_c_called = 0;

static void test_scalars(void) {
  TVMFFIAny rv;
  Pool p = {0};
  int rc;

  rc = T("add_one", &rv, any_int(41));
  EXPECT_VALUE_REL("add_one(41)", rc, &rv, "42");
  rc = T("add_one", &rv, any_bool(1));
  EXPECT_VALUE_REL("add_one(True)", rc, &rv, "2");
  rc = T("add_one", &rv, pstr(&p, "x"));
  /* the typed wrapper rejects a string (message produced by the library's header code) */
  EXPECT_ERROR("add_one(str)", rc, &rv, "TypeError", NULL);
  rc = T0("add_one", &rv);
  EXPECT_ERROR("add_one()", rc, &rv, "TypeError", NULL);

  rc = T("echo", &rv, any_int(7));
  EXPECT_VALUE_REL("echo(7)", rc, &rv, "7");
  rc = T("echo", &rv, any_raw_str("raw c string"));
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && any_str_eq(&rv, "raw c string"),
        "echo(raw-str) becomes String", "rc=%d type=%d value=%s", rc, rv.type_index, describe(&rv));
  any_release(&rv);
  rc = T("echo", &rv, any_raw_str("short"));
  CHECK(rc == 0 && rv.type_index == kTVMFFISmallStr && any_str_eq(&rv, "short"),
        "echo(raw-str) becomes SmallStr", "rc=%d type=%d value=%s", rc, rv.type_index,
        describe(&rv));
  any_release(&rv);
  TVMFFIAny heap = pstr(&p, "a string long enough for the heap");
  uint32_t before = strong_of(heap.v_obj);
  rc = T("echo", &rv, heap);
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && rv.v_obj == heap.v_obj &&
            strong_of(heap.v_obj) == before + 1,
        "echo(String) returns the same object +1", "rc=%d %s strong=%u->%u", rc,
        same(rv.v_obj, heap.v_obj), before, strong_of(heap.v_obj));
  any_release(&rv);
  CHECK(strong_of(heap.v_obj) == before, "echo(String) released", "strong=%u", strong_of(heap.v_obj));

  rc = T("nop", &rv, any_int(1), any_float(2.0), heap);
  EXPECT_VALUE_REL("nop(1, 2.0, str)", rc, &rv, "None");
  rc = T0("schema_packed", &rv);
  EXPECT_VALUE_REL("schema_packed()", rc, &rv, "None");
  rc = T("schema_packed", &rv, any_int(1), heap);
  EXPECT_VALUE_REL("schema_packed(1, str)", rc, &rv, "None");
  rc = T0("schema_no_args", &rv);
  EXPECT_VALUE_REL("schema_no_args()", rc, &rv, "1");
  rc = T("schema_no_return", &rv, any_int(5));
  EXPECT_VALUE_REL("schema_no_return(5)", rc, &rv, "None");
  rc = T0("schema_no_args_no_return", &rv);
  EXPECT_VALUE_REL("schema_no_args_no_return()", rc, &rv, "None");

  rc = T("schema_id_int", &rv, any_int(-9000000000LL));
  EXPECT_VALUE_REL("schema_id_int", rc, &rv, "-9000000000");
  rc = T("schema_id_int", &rv, any_float(1.5));
  EXPECT_ERROR("schema_id_int(float)", rc, &rv, "TypeError", NULL);
  rc = T("schema_id_float", &rv, any_float(2.25));
  EXPECT_VALUE_REL("schema_id_float", rc, &rv, "2.25");
  rc = T("schema_id_float", &rv, any_int(3));
  EXPECT_VALUE_REL("schema_id_float(int)", rc, &rv, "3");
  rc = T("schema_id_bool", &rv, any_bool(1));
  EXPECT_VALUE_REL("schema_id_bool", rc, &rv, "True");
  rc = T("schema_id_bool", &rv, any_int(0));
  EXPECT_VALUE_REL("schema_id_bool(int 0)", rc, &rv, "False");
  rc = T("schema_id_device", &rv, any_device(kDLCUDA, 3));
  EXPECT_VALUE_REL("schema_id_device", rc, &rv, "device(2:3)");
  DLDataType f32;
  TVMFFIByteArray f32s = ba("float32");
  EXPECT_OK("dtype float32", TVMFFIDataTypeFromString(&f32s, &f32));
  TVMFFIAny dt = any_dtype(f32.code, f32.bits, f32.lanes);
  rc = T("schema_id_dtype", &rv, dt);
  EXPECT_VALUE_REL("schema_id_dtype", rc, &rv, "dtype(float32)");
  rc = T("schema_id_dtype", &rv, pstr(&p, "int8x4"));
  EXPECT_VALUE_REL("schema_id_dtype(str)", rc, &rv, "dtype(int8x4)");

  rc = T("schema_id_string", &rv, pstr(&p, "hi"));
  CHECK(rc == 0 && rv.type_index == kTVMFFISmallStr && any_str_eq(&rv, "hi"), "schema_id_string(small)",
        "rc=%d type=%d value=%s", rc, rv.type_index, describe(&rv));
  any_release(&rv);
  rc = T("schema_id_string", &rv, heap);
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && rv.v_obj == heap.v_obj, "schema_id_string(heap)",
        "rc=%d type=%d %s value=%s", rc, rv.type_index, same(rv.v_obj, heap.v_obj), describe(&rv));
  any_release(&rv);
  rc = T("schema_id_string", &rv, any_raw_str("from a const char*"));
  EXPECT_VALUE_REL("schema_id_string(raw)", rc, &rv, "\"from a const char*\"");
  rc = T("schema_id_string", &rv, any_int(1));
  EXPECT_ERROR("schema_id_string(int)", rc, &rv, "TypeError", NULL);
  static const char bytes_small[] = {'a', 0, 'b'};
  rc = T("schema_id_bytes", &rv, pool_add(&p, make_bytes(bytes_small, 3)));
  CHECK(rc == 0 && rv.type_index == kTVMFFISmallBytes, "schema_id_bytes(small)", "rc=%d type=%d value=%s",
        rc, rv.type_index, describe(&rv));
  any_release(&rv);
  TVMFFIAny big_bytes = pool_add(&p, make_bytes("0123456789abcdef\xff", 17));
  rc = T("schema_id_bytes", &rv, big_bytes);
  CHECK(rc == 0 && rv.type_index == kTVMFFIBytes && rv.v_obj == big_bytes.v_obj,
        "schema_id_bytes(heap)", "rc=%d type=%d %s value=%s", rc, rv.type_index,
        same(rv.v_obj, big_bytes.v_obj), describe(&rv));
  any_release(&rv);
  TVMFFIByteArray raw_bytes = {"xyz", 3};
  TVMFFIAny bap = any_none();
  bap.type_index = kTVMFFIByteArrayPtr;
  bap.v_ptr = &raw_bytes;
  rc = T("schema_id_bytes", &rv, bap);
  EXPECT_VALUE_REL("schema_id_bytes(ByteArray*)", rc, &rv, "b\"xyz\"");

  rc = T("schema_id_opt_int", &rv, any_none());
  EXPECT_VALUE_REL("schema_id_opt_int(None)", rc, &rv, "None");
  rc = T("schema_id_opt_int", &rv, any_int(4));
  EXPECT_VALUE_REL("schema_id_opt_int(4)", rc, &rv, "4");
  rc = T("schema_id_opt_str", &rv, any_none());
  EXPECT_VALUE_REL("schema_id_opt_str(None)", rc, &rv, "None");
  rc = T("schema_id_opt_str", &rv, pstr(&p, "opt"));
  EXPECT_VALUE_REL("schema_id_opt_str(str)", rc, &rv, "\"opt\"");
  rc = T("schema_id_opt_obj", &rv, any_none());
  EXPECT_VALUE_REL("schema_id_opt_obj(None)", rc, &rv, "None");
  rc = T("schema_id_opt_obj", &rv, heap);
  CHECK(rc == 0 && rv.v_obj == heap.v_obj, "schema_id_opt_obj(String)", "rc=%d %s", rc,
        same(rv.v_obj, heap.v_obj));
  any_release(&rv);

  rc = T("schema_id_variant_int_str", &rv, any_int(12));
  EXPECT_VALUE_REL("schema_id_variant_int_str(int)", rc, &rv, "12");
  rc = T("schema_id_variant_int_str", &rv, pstr(&p, "twelve"));
  EXPECT_VALUE_REL("schema_id_variant_int_str(str)", rc, &rv, "\"twelve\"");
  rc = T("schema_id_variant_int_str", &rv, any_float(1.5));
  EXPECT_ERROR("schema_id_variant_int_str(float)", rc, &rv, "TypeError", NULL);
  rc = T("schema_variant_mix", &rv, any_int(3));
  EXPECT_VALUE_REL("schema_variant_mix(int)", rc, &rv, "3");
  rc = T("schema_variant_mix", &rv, pstr(&p, "s"));
  EXPECT_VALUE_REL("schema_variant_mix(str)", rc, &rv, "\"s\"");

  rc = T("schema_id_any", &rv, any_float(0.5));
  EXPECT_VALUE_REL("schema_id_any(float)", rc, &rv, "0.5");
  rc = T("schema_id_any", &rv, any_ptr(&add_one_c_called));
  EXPECT_VALUE_REL("schema_id_any(ptr)", rc, &rv, "ptr");
  rc = T("schema_id_any", &rv, heap);
  CHECK(rc == 0 && rv.v_obj == heap.v_obj, "schema_id_any(String)", "rc=%d %s", rc,
        same(rv.v_obj, heap.v_obj));
  any_release(&rv);
  rc = T("schema_id_object", &rv, heap);
  CHECK(rc == 0 && rv.v_obj == heap.v_obj && rv.type_index == kTVMFFIStr, "schema_id_object(String)",
        "rc=%d %s type=%d", rc, same(rv.v_obj, heap.v_obj), rv.type_index);
  any_release(&rv);
  rc = T("schema_id_object", &rv, any_int(1));
  EXPECT_ERROR("schema_id_object(int)", rc, &rv, "TypeError", NULL);

  /* use counts as C++ code sees them (arguments are borrowed: no extra reference) */
  TVMFFIAny arr = pool_add(&p, BUILD("ffi.Array", any_int(1)));
  rc = T("object_use_count", &rv, arr);
  EXPECT_VALUE_REL("object_use_count(array)", rc, &rv, "1");
  TVMFFIAny arr2 = BUILD("ffi.Array", arr, arr);
  rc = T("object_use_count", &rv, arr);
  EXPECT_VALUE_REL("object_use_count(array held twice)", rc, &rv, "3");
  any_release(&arr2);
  rc = T("object_use_count", &rv, arr);
  EXPECT_VALUE_REL("object_use_count(array released)", rc, &rv, "1");

  /* raw C symbols handed out as integers */
  rc = T0("get_add_one_c_symbol", &rv);
  if (EXPECT_OK("get_add_one_c_symbol", rc)) {
    TVMFFISafeCallType fn = (TVMFFISafeCallType)(intptr_t)rv.v_int64;
    TVMFFIAny a = any_int(100), out = any_none();
    int rc2 = fn(NULL, &a, 1, &out);
    CHECK(rv.type_index == kTVMFFIInt && rc2 == 0 && out.type_index == kTVMFFIInt && out.v_int64 == 101,
          "get_add_one_c_symbol: call", "type=%d rc=%d result=%s", rv.type_index, rc2, describe(&out));
    any_release(&out);
    TVMFFIAny s = make_string("not an int");
    rc2 = fn(NULL, &s, 1, &out);
    EXPECT_ERROR("get_add_one_c_symbol: call(str)", rc2, &out, "TypeError", NULL);
    any_release(&s);
  }
  rc = T0("get_mlir_add_one_c_symbol", &rv);
  if (EXPECT_OK("get_mlir_add_one_c_symbol", rc)) {
    void (*fn)(void**) = (void (*)(void**))(intptr_t)rv.v_int64;
    void* handle = NULL;
    TVMFFIAny a = any_int(-5), out = any_none();
    const TVMFFIAny* args = &a;
    int32_t nargs = 1;
    TVMFFIAny* outp = &out;
    int ret_code = 77;
    void* packed[5] = {&handle, &args, &nargs, &outp, &ret_code};
    fn(packed);
    CHECK(ret_code == 0 && out.type_index == kTVMFFIInt && out.v_int64 == -4,
          "get_mlir_add_one_c_symbol: call", "ret_code=%d result=%s", ret_code, describe(&out));
    any_release(&out);
  }
  pool_release(&p);
}

/* testing.run_check_signal prints on std::cout: capture fd 1 around the call. */
static void test_run_check_signal(void) {
  fflush(stdout);
  int saved = dup(1);
  int fds[2];
  if (saved < 0 || pipe(fds) != 0) die("pipe");
  dup2(fds[1], 1);
  TVMFFIAny rv;
  int rc = T("run_check_signal", &rv, any_int(1));
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fds[1]);
  char text[256];
  ssize_t n = read(fds[0], text, sizeof text - 1);
  close(fds[0]);
  text[n > 0 ? n : 0] = '\0';
  size_t len = strlen(text);
  CHECK(rc == 0 && rv.type_index == kTVMFFINone &&
            strcmp(text, "Function finished without catching signal\n") == 0,
        "run_check_signal(1)", "rc=%d result=%s printed=%s", rc, describe(&rv), quote_n(text, len));
  any_release(&rv);
}

/* ------------------------------------------------------------------------------------------ */
/* 3. errors                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static void test_errors(void) {
  TVMFFIAny rv;
  Pool p = {0};
  int rc = T("test_raise_error", &rv, pstr(&p, "ValueError"), pstr(&p, "bad value from C++"));
  EXPECT_ERROR("test_raise_error(ValueError)", rc, &rv, "ValueError", "bad value from C++");
  rc = T("test_raise_error", &rv, pstr(&p, "MyCustomError"), pstr(&p, ""));
  EXPECT_ERROR("test_raise_error(custom kind, empty message)", rc, &rv, "MyCustomError", "");
  /* the raised error carries a backtrace that names the throwing function */
  rc = T("test_raise_error", &rv, pstr(&p, "RuntimeError"), pstr(&p, "with backtrace"));
  void* err = take_raised();
  if (err != NULL) {
    TVMFFIErrorCell* cell = error_cell(err);
    int has_frame = memmem(cell->backtrace.data, cell->backtrace.size, "TestRaiseError",
                           strlen("TestRaiseError")) != NULL;
    CHECK(rc == -1 && ba_eq(cell->kind, "RuntimeError") && has_frame,
          "test_raise_error: backtrace names TestRaiseError", "rc=%d kind=%s frame=%s", rc,
          qba(cell->kind), has_frame ? "yes" : "no");
    TVMFFIObjectDecRef(err);
  } else {
    CHECK(0, "test_raise_error: backtrace", "rc=%d no error raised", rc);
  }
  rc = T("test_raise_error", &rv, pstr(&p, "ValueError"));
  EXPECT_ERROR("test_raise_error(one arg)", rc, &rv, "TypeError", NULL);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */
/* 4. callbacks                                                                                */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  int calls;
  int deleted;
  char seen[512];
} CallbackCtx;

/* Sums Int/Bool/Float arguments; records a rendering of all arguments; "raise" -> ValueError. */
static int cb_sum(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  CallbackCtx* ctx = (CallbackCtx*)self;
  ++ctx->calls;
  Buf b = {0};
  double total = 0;
  int any_float_arg = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (i) buf_puts(&b, ", ");
    describe_into(&b, &args[i], 0);
    if (args[i].type_index == kTVMFFIInt || args[i].type_index == kTVMFFIBool) {
      total += (double)args[i].v_int64;
    } else if (args[i].type_index == kTVMFFIFloat) {
      total += args[i].v_float64;
      any_float_arg = 1;
    } else if (any_str_eq(&args[i], "raise")) {
      free(b.data);
      TVMFFIErrorSetRaisedFromCStr("ValueError", "raised by the C callback");
      return -1;
    } else if (any_str_eq(&args[i], "make string")) {
      /* returns a new heap String: the reference moves through C++ to the caller */
      free(b.data);
      *rv = make_string("a string made by the C callback");
      return 0;
    } else if (any_str_eq(&args[i], "reenter")) {
      /* calls back into the testing library from inside a call made by it */
      free(b.data);
      TVMFFIAny inner = any_int(99);
      return call_global("testing.add_one", &inner, 1, rv);
    }
  }
  snprintf(ctx->seen, sizeof ctx->seen, "%s", b.data ? b.data : "");
  free(b.data);
  if (any_float_arg) {
    rv->type_index = kTVMFFIFloat;
    rv->v_float64 = total;
  } else {
    rv->type_index = kTVMFFIInt;
    rv->v_int64 = (int64_t)total;
  }
  return 0;
}

static void cb_deleter(void* self) { ((CallbackCtx*)self)->deleted++; }

static void test_callbacks(void) {
  TVMFFIAny rv;
  Pool p = {0};
  CallbackCtx ctx;
  memset(&ctx, 0, sizeof ctx);
  void* fn = NULL;
  if (!EXPECT_OK("callback create", TVMFFIFunctionCreate(&ctx, cb_sum, cb_deleter, &fn))) return;
  TVMFFIAny f = any_obj(fn);

  int rc = T("apply", &rv, f, any_int(1), any_int(2), any_int(39));
  EXPECT_VALUE_REL("apply(cb, 1, 2, 39)", rc, &rv, "42");
  CHECK(ctx.calls == 1 && strcmp(ctx.seen, "1, 2, 39") == 0, "apply: callback saw its arguments",
        "calls=%d args=%s", ctx.calls, quote_n(ctx.seen, strlen(ctx.seen)));
  rc = T("apply", &rv, f, any_float(0.5), pstr(&p, "str arg"));
  EXPECT_VALUE_REL("apply(cb, 0.5, str)", rc, &rv, "0.5");
  CHECK(strcmp(ctx.seen, "0.5, \"str arg\"") == 0, "apply: callback saw a string",
        "args=%s", quote_n(ctx.seen, strlen(ctx.seen)));
  rc = T("apply", &rv, f, pstr(&p, "raise"));
  EXPECT_ERROR("apply(cb raising)", rc, &rv, "ValueError", "raised by the C callback");
  rc = T("apply", &rv, any_int(1));
  EXPECT_ERROR("apply(not a function)", rc, &rv, "TypeError", NULL);
  rc = T("apply", &rv, f, pstr(&p, "make string"));
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && strong_of(rv.v_obj) == 1, "apply(cb returning a new String)",
        "rc=%d %s strong=%u", rc, describe(&rv), rc == 0 && is_obj(&rv) ? strong_of(rv.v_obj) : 0);
  any_release(&rv);
  rc = T("apply", &rv, f, pstr(&p, "reenter"));
  EXPECT_VALUE_REL("apply(cb calling testing.add_one)", rc, &rv, "100");
  /* the callback reaches C++ through testing.apply twice */
  rc = T("apply", &rv, pool_add(&p, get_global_any("testing.apply")), f, any_int(20), any_int(22));
  EXPECT_VALUE_REL("apply(testing.apply, cb, 20, 22)", rc, &rv, "42");

  /* a Function through a typed signature comes back as the same object */
  uint32_t before = strong_of(fn);
  rc = T("schema_id_func", &rv, f);
  CHECK(rc == 0 && rv.type_index == kTVMFFIFunction && rv.v_obj == fn, "schema_id_func",
        "rc=%d type=%d %s", rc, rv.type_index, same(rv.v_obj, fn));
  if (rc == 0 && rv.type_index == kTVMFFIFunction) {
    TVMFFIAny r2;
    int rc2 = F(rv.v_obj, &r2, any_int(5), any_int(6));
    EXPECT_VALUE_REL("schema_id_func: call result", rc2, &r2, "11");
  }
  any_release(&rv);
  rc = T("schema_id_func_typed", &rv, f);
  CHECK(rc == 0 && rv.type_index == kTVMFFIFunction && rv.v_obj == fn, "schema_id_func_typed",
        "rc=%d type=%d %s", rc, rv.type_index, same(rv.v_obj, fn));
  if (rc == 0 && rv.type_index == kTVMFFIFunction) {
    TVMFFIAny r2;
    int rc2 = F(rv.v_obj, &r2, any_int(1), any_float(2.5), f);
    EXPECT_VALUE_REL("schema_id_func_typed: call result", rc2, &r2, "3.5");
    CHECK(strcmp(ctx.seen, "1, 2.5, Function") == 0, "schema_id_func_typed: callback args",
          "args=%s", quote_n(ctx.seen, strlen(ctx.seen)));
  }
  any_release(&rv);
  rc = T("schema_id_func", &rv, any_int(3));
  EXPECT_ERROR("schema_id_func(int)", rc, &rv, "TypeError", NULL);
  CHECK(strong_of(fn) == before && ctx.deleted == 0, "callback refcount balanced",
        "strong=%u deleted=%d", strong_of(fn), ctx.deleted);
  TVMFFIObjectDecRef(fn);
  CHECK(ctx.deleted == 1, "callback deleter called once", "deleted=%d", ctx.deleted);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */
/* 5. containers, both ways                                                                    */
/* ------------------------------------------------------------------------------------------ */

static void test_arrays_and_lists(void) {
  TVMFFIAny rv;
  Pool p = {0};
  int rc;

  /* runtime-built Array read by C++ (typed conversions check every element) */
  TVMFFIAny ints = pool_add(&p, BUILD("ffi.Array", any_int(1), any_int(2), any_int(3)));
  CHECK(ints.type_index == kTVMFFIArray, "ffi.Array type", "type=%d", ints.type_index);
  rc = T("schema_id_arr_int", &rv, ints);
  CHECK(rc == 0 && rv.v_obj == ints.v_obj, "schema_id_arr_int: same array", "rc=%d %s", rc,
        same(rv.v_obj, ints.v_obj));
  EXPECT_VALUE_REL("schema_id_arr_int", rc, &rv, "Array[1, 2, 3]");
  TVMFFIAny mixed = pool_add(&p, BUILD("ffi.Array", any_int(1), pstr(&p, "two")));
  rc = T("schema_id_arr_int", &rv, mixed);
  EXPECT_ERROR("schema_id_arr_int([1, \"two\"])", rc, &rv, "TypeError", NULL);
  rc = T("schema_id_arr_str", &rv, pool_add(&p, BUILD("ffi.Array", pstr(&p, "a"), pstr(&p, "a long string value"))));
  EXPECT_VALUE_REL("schema_id_arr_str", rc, &rv, "Array[\"a\", \"a long string value\"]");
  rc = T("schema_id_arr_obj", &rv, pool_add(&p, BUILD("ffi.Array", ints, mixed)));
  EXPECT_VALUE_REL("schema_id_arr_obj", rc, &rv, "Array[Array[1, 2, 3], Array[1, \"two\"]]");
  rc = T("schema_id_arr_obj", &rv, pool_add(&p, BUILD("ffi.Array", any_int(1))));
  EXPECT_ERROR("schema_id_arr_obj([1])", rc, &rv, "TypeError", NULL);
  rc = T("schema_id_arr", &rv, mixed);
  CHECK(rc == 0 && rv.v_obj == mixed.v_obj, "schema_id_arr: same array", "rc=%d %s", rc,
        same(rv.v_obj, mixed.v_obj));
  any_release(&rv);
  rc = T("schema_id_arr", &rv, pool_add(&p, BUILD("ffi.List", any_int(1))));
  EXPECT_ERROR("schema_id_arr(List)", rc, &rv, "TypeError", NULL);
  rc = T("schema_variant_mix", &rv, ints);
  CHECK(rc == 0 && rv.v_obj == ints.v_obj, "schema_variant_mix(Array[int])", "rc=%d %s %s", rc,
        same(rv.v_obj, ints.v_obj), describe(&rv));
  any_release(&rv);
  TVMFFIAny empty = pool_add(&p, build("ffi.Array", NULL, 0));
  rc = T("schema_id_arr_int", &rv, empty);
  EXPECT_VALUE_REL("schema_id_arr_int(empty)", rc, &rv, "Array[]");

  /* a big runtime-built array read by C++ */
  TVMFFIAny many_args[40];
  for (int i = 0; i < 40; ++i) many_args[i] = any_int(i * i);
  TVMFFIAny many = pool_add(&p, build("ffi.Array", many_args, 40));
  rc = T("schema_id_arr_int", &rv, many);
  CHECK(rc == 0 && rv.v_obj == many.v_obj, "schema_id_arr_int(40 elements)", "rc=%d %s", rc,
        same(rv.v_obj, many.v_obj));
  any_release(&rv);

  /* Lists */
  TVMFFIAny lst = pool_add(&p, BUILD("ffi.List", any_int(4), any_int(5)));
  CHECK(lst.type_index == kTVMFFIList, "ffi.List type", "type=%d", lst.type_index);
  rc = T("schema_id_list_int", &rv, lst);
  CHECK(rc == 0 && rv.v_obj == lst.v_obj, "schema_id_list_int: same list", "rc=%d %s", rc,
        same(rv.v_obj, lst.v_obj));
  EXPECT_VALUE_REL("schema_id_list_int", rc, &rv, "List[4, 5]");
  rc = T("schema_id_list_str", &rv, pool_add(&p, BUILD("ffi.List", pstr(&p, "x"), pstr(&p, "yy"))));
  EXPECT_VALUE_REL("schema_id_list_str", rc, &rv, "List[\"x\", \"yy\"]");
  rc = T("schema_id_list_obj", &rv, pool_add(&p, BUILD("ffi.List", lst, ints)));
  EXPECT_VALUE_REL("schema_id_list_obj", rc, &rv, "List[List[4, 5], Array[1, 2, 3]]");
  /* an Array passed where a List is expected is converted (copied) by C++ */
  rc = T("schema_id_list_int", &rv, ints);
  CHECK(rc == 0 && rv.type_index == kTVMFFIList && rv.v_obj != ints.v_obj, "schema_id_list_int(Array) converts",
        "rc=%d type=%d %s", rc, rv.type_index, same(rv.v_obj, ints.v_obj));
  EXPECT_VALUE_REL("schema_id_list_int(Array)", rc, &rv, "List[1, 2, 3]");
  rc = T("schema_id_list_str", &rv, lst);
  EXPECT_ERROR("schema_id_list_str([4, 5])", rc, &rv, "TypeError", NULL);

  /* a List mutated by the runtime after C++ returned it */
  rc = T("schema_id_list_int", &rv, lst);
  if (EXPECT_OK("schema_id_list_int again", rc)) {
    TVMFFIAny r2;
    int rc2 = G("ffi.ListAppend", &r2, rv, any_int(6));
    EXPECT_OK("ffi.ListAppend", rc2);
    any_release(&r2);
    EXPECT_VALUE("list seen through both handles", 0, &lst, "List[4, 5, 6]");
  }
  any_release(&rv);

  /* Shape */
  TVMFFIAny shape = pool_add(&p, BUILD("ffi.Shape", any_int(2), any_int(3), any_int(4)));
  CHECK(shape.type_index == kTVMFFIShape, "ffi.Shape type", "type=%d %s", shape.type_index, describe(&shape));
  rc = T("schema_id_any", &rv, shape);
  CHECK(rc == 0 && rv.v_obj == shape.v_obj, "schema_id_any(Shape)", "rc=%d %s %s", rc,
        same(rv.v_obj, shape.v_obj), describe(&rv));
  any_release(&rv);
  rc = T("echo", &rv, shape);
  EXPECT_VALUE_REL("echo(Shape)", rc, &rv, "Shape(2, 3, 4)");
  pool_release(&p);
}

static void test_maps(void) {
  TVMFFIAny rv;
  Pool p = {0};
  int rc;

  /* a small runtime-built Map read by C++ */
  TVMFFIAny small = pool_add(&p, BUILD("ffi.Map", pstr(&p, "a"), any_int(1), pstr(&p, "bb"), any_int(2)));
  CHECK(small.type_index == kTVMFFIMap && strcmp(map_layout(&small), "small") == 0, "ffi.Map(2 entries)",
        "type=%d layout=%s %s", small.type_index, map_layout(&small), describe(&small));
  rc = T("schema_id_map_str_int", &rv, small);
  CHECK(rc == 0 && rv.v_obj == small.v_obj, "schema_id_map_str_int(small): same map", "rc=%d %s", rc,
        same(rv.v_obj, small.v_obj));
  any_release(&rv);
  rc = T("schema_id_map_str_str", &rv, small);
  EXPECT_ERROR("schema_id_map_str_str({str: int})", rc, &rv, "TypeError", NULL);
  TVMFFIAny ss = pool_add(
      &p, BUILD("ffi.Map", pstr(&p, "k"), pstr(&p, "v"), pstr(&p, "key two"), pstr(&p, "value two")));
  rc = T("schema_id_map_str_str", &rv, ss);
  EXPECT_VALUE_REL("schema_id_map_str_str", rc, &rv, "Map{\"k\": \"v\", \"key two\": \"value two\"}");
  TVMFFIAny so = pool_add(&p, BUILD("ffi.Map", pstr(&p, "m"), ss, pstr(&p, "s"), pstr(&p, "string object")));
  rc = T("schema_id_map_str_obj", &rv, so);
  EXPECT_VALUE_REL("schema_id_map_str_obj", rc, &rv,
                   "Map{\"m\": Map{\"k\": \"v\", \"key two\": \"value two\"}, \"s\": \"string object\"}");
  TVMFFIAny anykeys = pool_add(&p, BUILD("ffi.Map", any_int(1), pstr(&p, "one"), any_bool(0), any_none()));
  rc = T("schema_id_map", &rv, anykeys);
  CHECK(rc == 0 && rv.v_obj == anykeys.v_obj, "schema_id_map: same map", "rc=%d %s", rc,
        same(rv.v_obj, anykeys.v_obj));
  EXPECT_VALUE_REL("schema_id_map", rc, &rv, "Map{1: \"one\", False: None}");
  rc = T("schema_id_map", &rv, pool_add(&p, BUILD("ffi.Dict", any_int(1), any_int(2))));
  EXPECT_ERROR("schema_id_map(Dict)", rc, &rv, "TypeError", NULL);

  /* a dense runtime-built Map (12 > 4 entries) read by C++ */
  TVMFFIAny dense = pool_add(&p, build_str_int_map("ffi.Map", &p, "key", 12));
  CHECK(strcmp(map_layout(&dense), "dense") == 0, "ffi.Map(12 entries) is dense", "layout=%s %s",
        map_layout(&dense), describe(&dense));
  rc = T("schema_id_map_str_int", &rv, dense);
  CHECK(rc == 0 && rv.v_obj == dense.v_obj, "schema_id_map_str_int(dense): same map", "rc=%d %s", rc,
        same(rv.v_obj, dense.v_obj));
  any_release(&rv);

  /* schema_arr_map_opt: C++ copies our map (copy-on-write) and inserts one key */
  TVMFFIAny arr_opt = pool_add(&p, BUILD("ffi.Array", any_int(1), any_none(), any_int(3)));
  TVMFFIAny full_small = pool_add(&p, BUILD("ffi.Map", pstr(&p, "p"), pool_add(&p, BUILD("ffi.Array", any_int(1))),
                                            pstr(&p, "q"), pool_add(&p, BUILD("ffi.Array")),
                                            pstr(&p, "r"), pool_add(&p, BUILD("ffi.Array", any_int(2), any_int(3))),
                                            pstr(&p, "s"), pool_add(&p, BUILD("ffi.Array", any_int(4)))));
  CHECK(strcmp(map_layout(&full_small), "small") == 0, "map of 4 is small", "layout=%s", map_layout(&full_small));
  rc = T("schema_arr_map_opt", &rv, arr_opt, full_small, pstr(&p, "new key"));
  if (EXPECT_VALUE("schema_arr_map_opt(4 entries + 1)", rc, &rv,
                   "Map{\"p\": Array[1], \"q\": Array[], \"r\": Array[2, 3], \"s\": Array[4], "
                   "\"new key\": Array[1, 3]}")) {
    CHECK(rv.v_obj != full_small.v_obj && strcmp(map_layout(&rv), "dense") == 0,
          "schema_arr_map_opt: C++ built a new dense map", "%s layout=%s", same(rv.v_obj, full_small.v_obj),
          map_layout(&rv));
    int rc2;
    TVMFFIAny got = map_get("ffi.MapGetItem", &rv, "new key", &rc2);
    EXPECT_VALUE_REL("ffi.MapGetItem(C++ dense map, \"new key\")", rc2, &got, "Array[1, 3]");
    got = map_get("ffi.MapGetItem", &rv, "r", &rc2);
    EXPECT_VALUE_REL("ffi.MapGetItem(C++ dense map, \"r\")", rc2, &got, "Array[2, 3]");
    got = map_get("ffi.MapGetItem", &rv, "absent", &rc2);
    EXPECT_ERROR("ffi.MapGetItem(C++ dense map, \"absent\")", rc2, &got, "KeyError", NULL);
    TVMFFIAny cnt;
    rc2 = G("ffi.MapCount", &cnt, rv, pstr(&p, "s"));
    EXPECT_VALUE_REL("ffi.MapCount(C++ dense map, \"s\")", rc2, &cnt, "1");
    rc2 = G("ffi.MapSize", &cnt, rv);
    EXPECT_VALUE_REL("ffi.MapSize(C++ dense map)", rc2, &cnt, "5");
  }
  any_release(&rv);
  EXPECT_VALUE("our map is unchanged", 0, &full_small,
               "Map{\"p\": Array[1], \"q\": Array[], \"r\": Array[2, 3], \"s\": Array[4]}");
  rc = T("schema_arr_map_opt", &rv, arr_opt, full_small, any_none());
  CHECK(rc == 0 && rv.v_obj == full_small.v_obj, "schema_arr_map_opt(None): same map", "rc=%d %s", rc,
        same(rv.v_obj, full_small.v_obj));
  any_release(&rv);
  rc = T("schema_arr_map_opt", &rv, pool_add(&p, BUILD("ffi.Array", pstr(&p, "x"))), full_small, any_none());
  EXPECT_ERROR("schema_arr_map_opt([\"x\"], ...)", rc, &rv, "TypeError", NULL);

  /* a dense map of arrays, grown by C++ from 30 to 31 entries */
  TVMFFIAny big_args[60];
  for (int i = 0; i < 30; ++i) {
    big_args[2 * i] = pstr(&p, fmt("entry number %d", i));
    big_args[2 * i + 1] = pool_add(&p, BUILD("ffi.Array", any_int(i)));
  }
  TVMFFIAny big = pool_add(&p, build("ffi.Map", big_args, 60));
  rc = T("schema_arr_map_opt", &rv, arr_opt, big, pstr(&p, "entry number 30"));
  if (EXPECT_OK("schema_arr_map_opt(30 entries + 1)", rc)) {
    TVMFFIAny cnt;
    int rc2 = G("ffi.MapSize", &cnt, rv);
    EXPECT_VALUE_REL("ffi.MapSize(C++ grown map)", rc2, &cnt, "31");
    int all_ok = 1;
    for (int i = 0; i <= 30; ++i) {
      TVMFFIAny got = map_get("ffi.MapGetItem", &rv, fmt("entry number %d", i), &rc2);
      const char* d = rc2 == 0 ? describe(&got) : "<error>";
      if (rc2 != 0) {
        void* e = take_raised();
        if (e) TVMFFIObjectDecRef(e);
      }
      if (strcmp(d, i < 30 ? fmt("Array[%d]", i) : "Array[1, 3]") != 0) {
        all_ok = 0;
        CHECK(0, "ffi.MapGetItem(C++ grown map)", "entry %d -> %s", i, d);
      }
      any_release(&got);
    }
    CHECK(all_ok, "ffi.MapGetItem finds all 31 entries of the C++ grown map", "%s", all_ok ? "yes" : "no");
    EXPECT_VALUE("iteration order of the C++ grown map", 0, &rv, NULL);
  }
  any_release(&rv);

  /* SchemaAllTypes.merge_map: C++ probes our dense map (count, operator[]) and copies it */
  TVMFFIAny hundred = pool_add(&p, BUILD("ffi.Array", any_int(100)));
  TVMFFIAny seven_eight = pool_add(&p, BUILD("ffi.Array", any_int(7), any_int(8)));
  TVMFFIAny rhs =
      pool_add(&p, BUILD("ffi.Map", pstr(&p, "entry number 3"), hundred, pstr(&p, "fresh"), seven_eight));
  int32_t sat = type_index_of("testing.SchemaAllTypes");
  const TVMFFITypeInfo* info = sat >= 0 ? TVMFFIGetTypeInfo(sat) : NULL;
  void* make_with = NULL;
  void* merge = NULL;
  for (int32_t i = 0; info && i < info->num_methods; ++i) {
    if (ba_eq(info->methods[i].name, "make_with")) make_with = info->methods[i].method.v_obj;
    if (ba_eq(info->methods[i].name, "merge_map")) merge = info->methods[i].method.v_obj;
  }
  if (make_with && merge) {
    TVMFFIAny self;
    rc = F(make_with, &self, any_int(1), any_float(2.0), pstr(&p, "x"));
    if (EXPECT_OK("SchemaAllTypes.make_with", rc)) {
      rc = F(merge, &rv, self, big, rhs);
      if (EXPECT_OK("SchemaAllTypes.merge_map(dense ours, rhs)", rc)) {
        int rc2;
        TVMFFIAny got = map_get("ffi.MapGetItem", &rv, "entry number 3", &rc2);
        EXPECT_VALUE_REL("merge_map: appended to an existing key", rc2, &got, "Array[3, 100]");
        got = map_get("ffi.MapGetItem", &rv, "fresh", &rc2);
        EXPECT_VALUE_REL("merge_map: new key", rc2, &got, "Array[7, 8]");
        got = map_get("ffi.MapGetItem", &rv, "entry number 29", &rc2);
        EXPECT_VALUE_REL("merge_map: untouched key", rc2, &got, "Array[29]");
        TVMFFIAny cnt;
        rc2 = G("ffi.MapSize", &cnt, rv);
        EXPECT_VALUE_REL("merge_map: size", rc2, &cnt, "31");
        CHECK(rv.v_obj != big.v_obj && strcmp(map_layout(&rv), "dense") == 0, "merge_map: a new dense map",
              "%s layout=%s", same(rv.v_obj, big.v_obj), map_layout(&rv));
        EXPECT_VALUE("merge_map: iteration order", 0, &rv, NULL);
      }
      any_release(&rv);
      int rc2;
      TVMFFIAny got = map_get("ffi.MapGetItem", &big, "entry number 3", &rc2);
      EXPECT_VALUE_REL("merge_map left our map unchanged", rc2, &got, "Array[3]");

      /* many keys: C++ probes a 300-entry map of ours 250 times, we probe its 350-entry result */
      Pool q = {0};
      TVMFFIAny* largs = (TVMFFIAny*)calloc(600, sizeof(TVMFFIAny));
      TVMFFIAny* rargs = (TVMFFIAny*)calloc(500, sizeof(TVMFFIAny));
      for (int i = 0; i < 300; ++i) {
        largs[2 * i] = i % 3 == 0 ? pstr(&q, fmt("k%d", i)) : pstr(&q, fmt("a longer key number %d", i));
        largs[2 * i + 1] = pool_add(&q, BUILD("ffi.Array", any_int(i)));
      }
      for (int j = 0; j < 250; ++j) {
        int i = 100 + j; /* 200 existing keys, 50 new ones */
        rargs[2 * j] = i % 3 == 0 ? pstr(&q, fmt("k%d", i)) : pstr(&q, fmt("a longer key number %d", i));
        rargs[2 * j + 1] = pool_add(&q, BUILD("ffi.Array", any_int(-i)));
      }
      TVMFFIAny lhs = pool_add(&q, build("ffi.Map", largs, 600));
      TVMFFIAny rhs2 = pool_add(&q, build("ffi.Map", rargs, 500));
      free(largs);
      free(rargs);
      rc = F(merge, &rv, self, lhs, rhs2);
      if (EXPECT_OK("merge_map(300 ours, 250 ours)", rc)) {
        TVMFFIAny cnt;
        rc2 = G("ffi.MapSize", &cnt, rv);
        EXPECT_VALUE_REL("merge_map(300, 250): size", rc2, &cnt, "350");
        int bad = 0;
        for (int i = 0; i < 350 && bad < 5; ++i) {
          const char* k = i % 3 == 0 ? fmt("k%d", i) : fmt("a longer key number %d", i);
          const char* want = i < 100   ? fmt("Array[%d]", i)
                             : i < 300 ? fmt("Array[%d, %d]", i, -i)
                                       : fmt("Array[%d]", -i);
          TVMFFIAny v = map_get("ffi.MapGetItem", &rv, k, &rc2);
          const char* d = rc2 == 0 ? describe(&v) : "<error>";
          if (rc2 != 0) {
            void* e = take_raised();
            if (e) TVMFFIObjectDecRef(e);
          }
          if (strcmp(d, want) != 0) {
            ++bad;
            CHECK(0, "merge_map(300, 250): lookup", "%s -> %s (expected %s)", k, d, want);
          }
          any_release(&v);
        }
        CHECK(bad == 0, "merge_map(300, 250): all 350 keys found by the runtime in the C++ map", "%s",
              bad ? "no" : "yes");
        EXPECT_VALUE("merge_map(300, 250): iteration order", 0, &rv, NULL);
      }
      any_release(&rv);
      pool_release(&q);
      any_release(&self);
    }
  } else {
    CHECK(0, "SchemaAllTypes methods", "make_with=%s merge_map=%s", make_with ? "yes" : "no",
          merge ? "yes" : "no");
  }

  /* Dict */
  TVMFFIAny dict = pool_add(&p, build_str_int_map("ffi.Dict", &p, "d", 3));
  CHECK(dict.type_index == kTVMFFIDict, "ffi.Dict type", "type=%d layout=%s", dict.type_index, map_layout(&dict));
  rc = T("schema_id_dict_str_int", &rv, dict);
  CHECK(rc == 0 && rv.v_obj == dict.v_obj, "schema_id_dict_str_int: same dict", "rc=%d %s", rc,
        same(rv.v_obj, dict.v_obj));
  EXPECT_VALUE_REL("schema_id_dict_str_int", rc, &rv, "Dict{\"d0\": 0, \"d1\": 10, \"d2\": 20}");
  TVMFFIAny dense_dict = pool_add(&p, build_str_int_map("ffi.Dict", &p, "dict key ", 20));
  CHECK(strcmp(map_layout(&dense_dict), "dense") == 0, "ffi.Dict(20 entries) is dense", "layout=%s",
        map_layout(&dense_dict));
  rc = T("schema_id_dict_str_int", &rv, dense_dict);
  CHECK(rc == 0 && rv.v_obj == dense_dict.v_obj, "schema_id_dict_str_int(dense): same dict", "rc=%d %s", rc,
        same(rv.v_obj, dense_dict.v_obj));
  any_release(&rv);
  rc = T("schema_id_dict_str_str", &rv, dict);
  EXPECT_ERROR("schema_id_dict_str_str({str: int})", rc, &rv, "TypeError", NULL);
  TVMFFIAny dss = pool_add(&p, BUILD("ffi.Dict", pstr(&p, "k"), pstr(&p, "v")));
  rc = T("schema_id_dict_str_str", &rv, dss);
  EXPECT_VALUE_REL("schema_id_dict_str_str", rc, &rv, "Dict{\"k\": \"v\"}");
  /* a Map passed where a Dict is expected is converted (copied) by C++ */
  rc = T("schema_id_dict_str_int", &rv, small);
  CHECK(rc == 0 && rv.type_index == kTVMFFIDict && rv.v_obj != small.v_obj, "schema_id_dict_str_int(Map) converts",
        "rc=%d type=%d %s", rc, rv.type_index, same(rv.v_obj, small.v_obj));
  EXPECT_VALUE_REL("schema_id_dict_str_int(Map)", rc, &rv, "Dict{\"a\": 1, \"bb\": 2}");
  rc = T("schema_id_dict_str_int", &rv, dense);
  CHECK(rc == 0 && rv.type_index == kTVMFFIDict && strcmp(map_layout(&rv), "dense") == 0,
        "schema_id_dict_str_int(dense Map) converts to a dense Dict built by C++", "rc=%d type=%d layout=%s", rc,
        rv.type_index, map_layout(&rv));
  EXPECT_VALUE_REL("schema_id_dict_str_int(dense Map)", rc, &rv, NULL);
  /* Dict mutated by the runtime is seen by C++ */
  TVMFFIAny r2;
  rc = G("ffi.DictSetItem", &r2, dict, pstr(&p, "added"), any_int(99));
  EXPECT_OK("ffi.DictSetItem", rc);
  rc = T("schema_id_dict_str_int", &rv, dict);
  EXPECT_VALUE_REL("schema_id_dict_str_int after DictSetItem", rc, &rv,
                   "Dict{\"d0\": 0, \"d1\": 10, \"d2\": 20, \"added\": 99}");
  rc = G("ffi.DictSetItem", &r2, dict, pstr(&p, "bad"), pstr(&p, "not an int"));
  EXPECT_OK("ffi.DictSetItem(str value)", rc);
  rc = T("schema_id_dict_str_int", &rv, dict);
  EXPECT_ERROR("schema_id_dict_str_int with a str value", rc, &rv, "TypeError", NULL);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */
/* 5b. containers mutated across the boundary                                                  */
/* ------------------------------------------------------------------------------------------ */

/* A String object allocated by C (heap representation even for short content). */
typedef struct {
  TVMFFIObject header;
  TVMFFIByteArray bytes;
  char data[32];
} CStrObj;

static int g_cstr_deleted = 0;

static void cstr_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    ++g_cstr_deleted;
    free(self);
  }
}

static TVMFFIAny make_cstr(const char* s) {
  CStrObj* o = (CStrObj*)calloc(1, sizeof(CStrObj));
  o->header.combined_ref_count = ((uint64_t)1 << 32) | 1u;
  o->header.type_index = kTVMFFIStr;
  o->header.deleter = cstr_deleter;
  snprintf(o->data, sizeof o->data, "%s", s);
  o->bytes.data = o->data;
  o->bytes.size = strlen(o->data);
  return any_obj(o);
}

/* Finds a method registered on the type itself: borrowed Function handle. */
static void* find_method_early(int32_t ti, const char* name) {
  const TVMFFITypeInfo* info = ti >= 0 ? TVMFFIGetTypeInfo(ti) : NULL;
  for (int32_t i = 0; info && i < info->num_methods; ++i) {
    if (ba_eq(info->methods[i].name, name)) return info->methods[i].method.v_obj;
  }
  return NULL;
}

static void test_container_mutations(void) {
  TVMFFIAny rv, r2;
  Pool p = {0};
  int rc;

  /* a dense Dict built by C++ (Map -> Dict conversion), grown and edited by the runtime */
  TVMFFIAny src = pool_add(&p, build_str_int_map("ffi.Map", &p, "key", 12));
  TVMFFIAny cdict;
  rc = T("schema_id_dict_str_int", &cdict, src);
  if (EXPECT_OK("C++ dense Dict", rc)) {
    CHECK(cdict.type_index == kTVMFFIDict && strcmp(map_layout(&cdict), "dense") == 0, "C++ dense Dict layout",
          "type=%d layout=%s", cdict.type_index, map_layout(&cdict));
    void* before = cdict.v_obj;
    int ok = 1;
    for (int i = 0; i < 40 && ok; ++i) {
      rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, fmt("extra %d", i)), any_int(1000 + i));
      ok = EXPECT_OK("ffi.DictSetItem(C++ dense Dict)", rc);
    }
    rc = G("ffi.DictErase", &r2, cdict, pstr(&p, "key3"));
    EXPECT_OK("ffi.DictErase(key3)", rc);
    rc = G("ffi.DictErase", &r2, cdict, pstr(&p, "extra 7"));
    EXPECT_OK("ffi.DictErase(extra 7)", rc);
    rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, "key3"), any_int(-3));
    EXPECT_OK("ffi.DictSetItem(key3 again)", rc);
    rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, "key5"), any_int(-5));
    EXPECT_OK("ffi.DictSetItem(key5 overwritten)", rc);
    rc = G("ffi.DictSize", &rv, cdict);
    EXPECT_VALUE_REL("C++ Dict grown by the runtime: size", rc, &rv, "51");
    CHECK(cdict.v_obj == before, "the Dict keeps its identity", "%s", same(cdict.v_obj, before));
    EXPECT_VALUE("C++ Dict grown by the runtime: iteration order", 0, &cdict, NULL);
    rc = T("schema_id_dict_str_int", &rv, cdict);
    CHECK(rc == 0 && rv.v_obj == cdict.v_obj, "C++ reads the grown Dict back", "rc=%d %s", rc,
          same(rv.v_obj, cdict.v_obj));
    any_release(&rv);
    int rc2;
    TVMFFIAny got = map_get("ffi.DictGetItem", &cdict, "key3", &rc2);
    EXPECT_VALUE_REL("ffi.DictGetItem(key3)", rc2, &got, "-3");
    got = map_get("ffi.DictGetItem", &cdict, "extra 39", &rc2);
    EXPECT_VALUE_REL("ffi.DictGetItem(extra 39)", rc2, &got, "1039");
    got = map_get("ffi.DictGetItem", &cdict, "extra 7", &rc2);
    EXPECT_ERROR("ffi.DictGetItem(extra 7) after erase", rc2, &got, "KeyError", NULL);
    rc = G("ffi.DictClear", &r2, cdict);
    EXPECT_OK("ffi.DictClear", rc);
    rc = T("schema_id_dict_str_int", &rv, cdict);
    EXPECT_VALUE_REL("C++ reads the cleared Dict", rc, &rv, "Dict{}");
    rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, "after clear"), any_int(1));
    EXPECT_OK("ffi.DictSetItem after clear", rc);
    EXPECT_VALUE("Dict after clear + set", 0, &cdict, "Dict{\"after clear\": 1}");
  }
  any_release(&cdict);

  /* a small Dict built by C++ turns dense in place when the runtime adds entries */
  static DLManagedTensor mt;
  static float data[2] = {1, 2};
  static int64_t shape[1] = {2};
  memset(&mt, 0, sizeof mt);
  mt.dl_tensor.data = data;
  mt.dl_tensor.device.device_type = kDLCPU;
  mt.dl_tensor.ndim = 1;
  mt.dl_tensor.dtype.code = kDLFloat;
  mt.dl_tensor.dtype.bits = 32;
  mt.dl_tensor.dtype.lanes = 1;
  mt.dl_tensor.shape = shape;
  void* t = NULL;
  if (EXPECT_OK("tensor for make_dict_with_tensor", TVMFFITensorFromDLPack(&mt, 0, 0, &t))) {
    TVMFFIAny ta = any_obj(t);
    rc = T("make_dict_with_tensor", &cdict, ta);
    if (EXPECT_OK("make_dict_with_tensor", rc)) {
      void* before = cdict.v_obj;
      for (int i = 0; i < 6; ++i) {
        rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, fmt("k%d", i)), any_int(i));
        EXPECT_OK("ffi.DictSetItem(C++ small Dict)", rc);
      }
      CHECK(cdict.v_obj == before && strcmp(map_layout(&cdict), "dense") == 0, "C++ small Dict became dense in place",
            "%s layout=%s", same(cdict.v_obj, before), map_layout(&cdict));
      EXPECT_VALUE("C++ small Dict grown by the runtime", 0, &cdict,
                   "Dict{\"tensor\": Tensor(code2/32[2] dev 1:0), \"value\": 42, \"k0\": 0, \"k1\": 1, \"k2\": 2, "
                   "\"k3\": 3, \"k4\": 4, \"k5\": 5}");
      rc = G("ffi.DictErase", &r2, cdict, pstr(&p, "tensor"));
      EXPECT_OK("ffi.DictErase(tensor)", rc);
      rc = T("schema_id_dict_str_int", &rv, cdict);
      CHECK(rc == 0 && rv.v_obj == cdict.v_obj, "C++ reads it as Dict<str, int>", "rc=%d %s", rc,
            same(rv.v_obj, cdict.v_obj));
      any_release(&rv);
    }
    any_release(&cdict);
    CHECK(strong_of(t) == 1, "tensor released by the dict", "strong=%u", strong_of(t));
    TVMFFIObjectDecRef(t);
  }

  /* a List built by C++, edited by the runtime, read back by C++ */
  TVMFFIAny clist;
  void* t2 = NULL;
  memset(&mt, 0, sizeof mt);
  mt.dl_tensor.data = data;
  mt.dl_tensor.device.device_type = kDLCPU;
  mt.dl_tensor.ndim = 1;
  mt.dl_tensor.dtype.code = kDLFloat;
  mt.dl_tensor.dtype.bits = 32;
  mt.dl_tensor.dtype.lanes = 1;
  mt.dl_tensor.shape = shape;
  if (EXPECT_OK("tensor for make_list_with_tensor", TVMFFITensorFromDLPack(&mt, 0, 0, &t2))) {
    rc = T("make_list_with_tensor", &clist, any_obj(t2), any_int(7));
    TVMFFIObjectDecRef(t2);
    if (EXPECT_OK("make_list_with_tensor", rc)) {
      void* before = clist.v_obj;
      for (int i = 0; i < 20; ++i) {
        rc = G("ffi.ListAppend", &r2, clist, any_int(i));
        if (!EXPECT_OK("ffi.ListAppend(C++ List)", rc)) break;
      }
      rc = G("ffi.ListErase", &r2, clist, any_int(0));
      EXPECT_OK("ffi.ListErase(0) drops the tensor", rc);
      rc = G("ffi.ListInsert", &r2, clist, any_int(1), any_int(-1));
      EXPECT_OK("ffi.ListInsert(1, -1)", rc);
      rc = G("ffi.ListPop", &rv, clist, any_int(5));
      EXPECT_VALUE_REL("ffi.ListPop(5)", rc, &rv, "3");
      rc = G("ffi.ListEraseRange", &r2, clist, any_int(10), any_int(15));
      EXPECT_OK("ffi.ListEraseRange(10, 15)", rc);
      rc = G("ffi.ListSetItem", &r2, clist, any_int(0), any_int(70));
      EXPECT_OK("ffi.ListSetItem(0, 70)", rc);
      rc = G("ffi.ListReverse", &r2, clist);
      EXPECT_OK("ffi.ListReverse", rc);
      CHECK(clist.v_obj == before, "the List keeps its identity", "%s", same(clist.v_obj, before));
      rc = T("schema_id_list_int", &rv, clist);
      CHECK(rc == 0 && rv.v_obj == clist.v_obj, "C++ reads the edited List as List<int>", "rc=%d %s", rc,
            same(rv.v_obj, clist.v_obj));
      EXPECT_VALUE_REL("C++ List edited by the runtime", rc, &rv,
                       "List[19, 18, 17, 16, 15, 14, 8, 7, 6, 5, 4, 2, 1, 0, -1, 70]");
      rc = G("ffi.ListContains", &rv, clist, any_int(15));
      EXPECT_VALUE_REL("ffi.ListContains(15)", rc, &rv, "True");
    }
    any_release(&clist);
  }

  /* a List built by the runtime and grown well past its first capacity, read by C++ */
  TVMFFIAny ours = pool_add(&p, BUILD("ffi.List"));
  for (int i = 0; i < 100; ++i) {
    rc = G("ffi.ListAppend", &r2, ours, any_int(i * 3));
    if (!EXPECT_OK("ffi.ListAppend(our List)", rc)) break;
  }
  rc = T("schema_id_list_int", &rv, ours);
  CHECK(rc == 0 && rv.v_obj == ours.v_obj, "C++ reads our grown List", "rc=%d %s", rc, same(rv.v_obj, ours.v_obj));
  any_release(&rv);
  rc = G("ffi.ListGetItem", &rv, ours, any_int(99));
  EXPECT_VALUE_REL("ffi.ListGetItem(99)", rc, &rv, "297");
  rc = G("ffi.ListGetItem", &rv, ours, any_int(100));
  EXPECT_ERROR("ffi.ListGetItem(100)", rc, &rv, "IndexError", NULL);
  rc = G("ffi.ArrayGetItem", &rv, pool_add(&p, BUILD("ffi.Array", any_int(1))), any_int(-1));
  EXPECT_ERROR("ffi.ArrayGetItem(-1)", rc, &rv, "IndexError", NULL);

  /* a heap String with short content equals (and hashes like) the small string */
  g_cstr_deleted = 0;
  TVMFFIAny hq = make_cstr("q"), hr = make_cstr("r");
  TVMFFIAny both = BUILD("ffi.Map", hq, any_int(1), pstr(&p, "q"), any_int(2));
  EXPECT_VALUE_REL("ffi.Map(heap \"q\": 1, small \"q\": 2)", 0, &both, "Map{\"q\": 2}");
  TVMFFIAny arr_opt = pool_add(&p, BUILD("ffi.Array", any_int(1), any_none(), any_int(3)));
  TVMFFIAny small4 = pool_add(&p, BUILD("ffi.Map", pstr(&p, "p"), pool_add(&p, BUILD("ffi.Array", any_int(1))),
                                        pstr(&p, "q"), pool_add(&p, BUILD("ffi.Array")),
                                        pstr(&p, "r"), pool_add(&p, BUILD("ffi.Array", any_int(2), any_int(3))),
                                        pstr(&p, "s"), pool_add(&p, BUILD("ffi.Array", any_int(4)))));
  rc = T("schema_arr_map_opt", &rv, arr_opt, small4, pstr(&p, "added"));
  if (EXPECT_OK("schema_arr_map_opt", rc)) {
    TVMFFIAny got;
    int rc2 = G("ffi.MapGetItem", &got, rv, hr);
    EXPECT_VALUE_REL("ffi.MapGetItem(C++ dense map, heap \"r\")", rc2, &got, "Array[2, 3]");
  }
  any_release(&rv);
  int32_t sat = type_index_of("testing.SchemaAllTypes");
  void* make_with = find_method_early(sat, "make_with");
  void* merge = find_method_early(sat, "merge_map");
  if (make_with && merge) {
    TVMFFIAny self;
    rc = F(make_with, &self, any_int(1), any_float(2.0), pstr(&p, "x"));
    if (EXPECT_OK("SchemaAllTypes.make_with", rc)) {
      /* C++ probes our small map with a heap key: found -> appended (not replaced) */
      TVMFFIAny rhs = pool_add(&p, BUILD("ffi.Map", hr, pool_add(&p, BUILD("ffi.Array", any_int(5)))));
      rc = F(merge, &rv, self, small4, rhs);
      if (EXPECT_OK("merge_map(small ours, {heap \"r\": [5]})", rc)) {
        int rc2;
        TVMFFIAny got = map_get("ffi.MapGetItem", &rv, "r", &rc2);
        EXPECT_VALUE_REL("merge_map(small ours, {heap \"r\": [5]}): C++ found the small key", rc2, &got,
                         "Array[2, 3, 5]");
        EXPECT_VALUE("merge_map(small ours, {heap \"r\": [5]})", 0, &rv, NULL);
      }
      any_release(&rv);
      any_release(&self);
    }
  }
  any_release(&hq);
  any_release(&hr);
  pool_release(&p);
  CHECK(g_cstr_deleted == 2, "C-allocated strings released by everyone", "deleted=%d", g_cstr_deleted);
}

/* ------------------------------------------------------------------------------------------ */
/* 6. tensors                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static float g_tensor_data[6] = {0, 1, 2, 3, 4, 5};
static int64_t g_tensor_shape[2] = {2, 3};
static int g_tensor_deleted = 0;
static void tensor_deleter(DLManagedTensor* self) {
  (void)self;
  ++g_tensor_deleted;
}
static float g_tensor2_data[4] = {9, 8, 7, 6};
static int64_t g_tensor2_shape[1] = {4};

static void* make_tensor(DLManagedTensor* mt, float* data, int64_t* shape, int ndim) {
  memset(mt, 0, sizeof *mt);
  mt->dl_tensor.data = data;
  mt->dl_tensor.device.device_type = kDLCPU;
  mt->dl_tensor.device.device_id = 0;
  mt->dl_tensor.ndim = ndim;
  mt->dl_tensor.dtype.code = kDLFloat;
  mt->dl_tensor.dtype.bits = 32;
  mt->dl_tensor.dtype.lanes = 1;
  mt->dl_tensor.shape = shape;
  mt->dl_tensor.strides = NULL;
  mt->deleter = tensor_deleter;
  void* out = NULL;
  if (TVMFFITensorFromDLPack(mt, 0, 0, &out) != 0) {
    EXPECT_OK("TVMFFITensorFromDLPack", -1);
    return NULL;
  }
  return out;
}

static void test_tensors(void) {
  static DLManagedTensor mt1, mt2;
  TVMFFIAny rv;
  Pool p = {0};
  int rc;
  g_tensor_deleted = 0;
  void* t1 = make_tensor(&mt1, g_tensor_data, g_tensor_shape, 2);
  void* t2 = make_tensor(&mt2, g_tensor2_data, g_tensor2_shape, 1);
  if (t1 == NULL || t2 == NULL) return;
  TVMFFIAny a1 = any_obj(t1), a2 = any_obj(t2);
  DLTensor* dl1 = (DLTensor*)((char*)t1 + sizeof(TVMFFIObject));
  CHECK(a1.type_index == kTVMFFITensor && dl1->data == g_tensor_data && dl1->strides != NULL &&
            dl1->strides[0] == 3 && dl1->strides[1] == 1,
        "tensor from DLPack", "%s data=%s strides=%lld,%lld", describe(&a1), same(dl1->data, g_tensor_data),
        dl1->strides ? (long long)dl1->strides[0] : -1LL, dl1->strides ? (long long)dl1->strides[1] : -1LL);

  rc = T("schema_id_tensor", &rv, a1);
  CHECK(rc == 0 && rv.type_index == kTVMFFITensor && rv.v_obj == t1, "schema_id_tensor", "rc=%d %s",
        rc, same(rv.v_obj, t1));
  any_release(&rv);
  rc = T("schema_id_tensor", &rv, any_dltensor(dl1));
  EXPECT_ERROR("schema_id_tensor(DLTensor*)", rc, &rv, "TypeError", NULL);
  /* a DLTensor* result cannot be stored in an Any: the typed wrapper raises (header code) */
  rc = T("schema_id_dltensor", &rv, a1);
  EXPECT_ERROR("schema_id_dltensor(Tensor)", rc, &rv, "RuntimeError",
               "DLTensor* cannot be held in Any as it does not retain ownership, use Tensor instead");
  rc = T("schema_id_dltensor", &rv, any_dltensor(dl1));
  EXPECT_ERROR("schema_id_dltensor(DLTensor*)", rc, &rv, "RuntimeError",
               "DLTensor* cannot be held in Any as it does not retain ownership, use Tensor instead");
  rc = T("schema_id_dltensor", &rv, any_int(1));
  EXPECT_ERROR("schema_id_dltensor(int)", rc, &rv, "TypeError", NULL);
  rc = T("schema_tensor_view_input", &rv, any_dltensor(dl1));
  EXPECT_VALUE_REL("schema_tensor_view_input(DLTensor*)", rc, &rv, "None");
  rc = T("schema_tensor_view_input", &rv, a1);
  EXPECT_VALUE_REL("schema_tensor_view_input(Tensor)", rc, &rv, "None");
  rc = T("optional_tensor_view_has_value", &rv, any_none());
  EXPECT_VALUE_REL("optional_tensor_view_has_value(None)", rc, &rv, "False");
  rc = T("optional_tensor_view_has_value", &rv, a1);
  EXPECT_VALUE_REL("optional_tensor_view_has_value(Tensor)", rc, &rv, "True");
  rc = T("optional_tensor_view_has_value", &rv, any_dltensor(dl1));
  EXPECT_VALUE_REL("optional_tensor_view_has_value(DLTensor*)", rc, &rv, "True");

  rc = T("make_array_with_tensor", &rv, a1);
  if (EXPECT_VALUE("make_array_with_tensor", rc, &rv, "Array[Tensor(code2/32[2, 3] dev 1:0)]")) {
    TVMFFIAny item;
    int rc2 = G("ffi.ArrayGetItem", &item, rv, any_int(0));
    CHECK(rc2 == 0 && item.v_obj == t1, "make_array_with_tensor: element is our tensor", "rc=%d %s",
          rc2, same(item.v_obj, t1));
    any_release(&item);
    TVMFFIAny uc;
    rc2 = T("object_use_count", &uc, a1);
    EXPECT_VALUE_REL("object_use_count(tensor held by the array)", rc2, &uc, "2");
  }
  any_release(&rv);
  rc = T("make_array_with_mixed", &rv, a1, any_int(5));
  EXPECT_VALUE_REL("make_array_with_mixed", rc, &rv, "Array[Tensor(code2/32[2, 3] dev 1:0), 5, \"hello\"]");
  rc = T("make_nested_array_with_tensor", &rv, a1);
  EXPECT_VALUE_REL("make_nested_array_with_tensor", rc, &rv,
                   "Array[Array[Tensor(code2/32[2, 3] dev 1:0), 42], Tensor(code2/32[2, 3] dev 1:0)]");
  rc = T("make_list_with_tensor", &rv, a2, any_int(-1));
  EXPECT_VALUE_REL("make_list_with_tensor", rc, &rv, "List[Tensor(code2/32[4] dev 1:0), -1]");
  rc = T("make_empty_array_with_tensor_input", &rv, a1);
  EXPECT_VALUE_REL("make_empty_array_with_tensor_input", rc, &rv, "Array[]");
  rc = T("make_map_with_tensor", &rv, a1);
  if (EXPECT_VALUE("make_map_with_tensor", rc, &rv,
                   "Map{\"tensor\": Tensor(code2/32[2, 3] dev 1:0), \"value\": 42, \"name\": \"test\"}")) {
    int rc2;
    TVMFFIAny got = map_get("ffi.MapGetItem", &rv, "tensor", &rc2);
    CHECK(rc2 == 0 && got.v_obj == t1, "ffi.MapGetItem(C++ map, \"tensor\")", "rc=%d %s", rc2,
          same(got.v_obj, t1));
    any_release(&got);
    got = map_get("ffi.MapGetItemOrMissing", &rv, "nope", &rc2);
    CHECK(rc2 == 0 && got.type_index == kTVMFFIObject, "ffi.MapGetItemOrMissing(C++ map, absent)",
          "rc=%d type=%d", rc2, got.type_index);
    any_release(&got);
    CHECK(strcmp(map_layout(&rv), "small") == 0, "make_map_with_tensor: small map", "layout=%s",
          map_layout(&rv));
  }
  any_release(&rv);
  rc = T("make_dict_with_tensor", &rv, a2);
  if (EXPECT_VALUE("make_dict_with_tensor", rc, &rv,
                   "Dict{\"tensor\": Tensor(code2/32[4] dev 1:0), \"value\": 42}")) {
    int rc2;
    TVMFFIAny got = map_get("ffi.DictGetItem", &rv, "value", &rc2);
    EXPECT_VALUE_REL("ffi.DictGetItem(C++ dict, \"value\")", rc2, &got, "42");
    TVMFFIAny r2;
    rc2 = G("ffi.DictSetItem", &r2, rv, pstr(&p, "from C"), any_int(1));
    EXPECT_OK("ffi.DictSetItem(C++ dict)", rc2);
    rc2 = G("ffi.DictErase", &r2, rv, pstr(&p, "tensor"));
    EXPECT_OK("ffi.DictErase(C++ dict)", rc2);
    EXPECT_VALUE("C++ dict after runtime mutations", 0, &rv, "Dict{\"value\": 42, \"from C\": 1}");
  }
  any_release(&rv);
  rc = T("make_nested_map_with_tensor", &rv, a1, a2);
  if (EXPECT_VALUE("make_nested_map_with_tensor", rc, &rv,
                   "Map{\"array\": Array[Tensor(code2/32[2, 3] dev 1:0), Tensor(code2/32[4] dev 1:0)], "
                   "\"map\": Map{\"t\": Tensor(code2/32[2, 3] dev 1:0)}, \"scalar\": 99}")) {
    TVMFFIAny dev;
    int rc2 = G("ffi.ContainerFindFirstNonCPUDevice", &dev, rv);
    EXPECT_VALUE_REL("ffi.ContainerFindFirstNonCPUDevice(C++ map)", rc2, &dev, "device(1:0)");
  }
  any_release(&rv);
  rc = T("make_array_with_tensor", &rv, any_int(1));
  EXPECT_ERROR("make_array_with_tensor(int)", rc, &rv, "TypeError", NULL);

  CHECK(g_tensor_deleted == 0 && strong_of(t1) == 1 && strong_of(t2) == 1, "tensors still alive, one ref each",
        "deleted=%d strong=%u,%u", g_tensor_deleted, strong_of(t1), strong_of(t2));
  TVMFFIObjectDecRef(t1);
  TVMFFIObjectDecRef(t2);
  CHECK(g_tensor_deleted == 2, "DLPack deleters called once each", "deleted=%d", g_tensor_deleted);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */
/* 7. type info                                                                                */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  const char* key;
  const char* parent;
  int total_size;
  int num_fields;
  int num_methods;
} TypeExpect;

/* From Apache's reflection of the wheel's libtvm_ffi_testing.so (`ffihub dump` on Apache's runtime). */
static const TypeExpect g_types[] = {
    {"testing.TestIntPair", "ffi.Object", 40, 2, 2},
    {"testing.TestObjectBase", "ffi.Object", 56, 3, 1},
    {"testing.TestObjectDerived", "testing.TestObjectBase", 72, 2, 0},
    {"testing.TestCxxClassBase", "ffi.Object", 40, 2, 0},
    {"testing.TestCxxClassDerived", "testing.TestCxxClassBase", 56, 2, 0},
    {"testing.TestCxxClassDerivedDerived", "testing.TestCxxClassDerived", 80, 2, 0},
    {"testing.SchemaAllTypes", "ffi.Object", 184, 15, 5},
    {"testing.TestCxxAutoInit", "ffi.Object", 56, 4, 0},
    {"testing.TestCxxAutoInitSimple", "ffi.Object", 40, 2, 0},
    {"testing.TestCxxAutoInitAllInitOff", "ffi.Object", 48, 3, 0},
    {"testing.TestCxxAutoInitKwOnlyDefaults", "ffi.Object", 64, 5, 0},
    {"testing.TestCxxAutoInitParent", "ffi.Object", 40, 2, 0},
    {"testing.TestCxxAutoInitChild", "testing.TestCxxAutoInitParent", 56, 2, 0},
    {"testing.TestCxxNoAutoInit", "ffi.Object", 40, 2, 0},
    {"testing.TestCxxKwOnly", "ffi.Object", 56, 4, 0},
    {"testing.TestCxxInitSubset", "ffi.Object", 56, 3, 0},
    {"testing.TestUnregisteredBaseObject", "ffi.Object", 32, 1, 2},
    {"testing.TestUnregisteredObject", "testing.TestUnregisteredBaseObject", 40, 1, 2},
    {"testing.TestVisitRegions", "ffi.Object", 48, 3, 0},
    {"testing.TestVisitHook", "ffi.Object", 32, 1, 0},
    {"testing.TestEnumVariant", "ffi.Enum", 48, 0, 0},
    {"testing.TestNonCopyable", "ffi.Object", 32, 1, 1},
};
#define NUM_TYPES ((int)(sizeof(g_types) / sizeof(g_types[0])))

static const char* static_tindex(int32_t ti) {
  if (ti < kTVMFFIDynObjectBegin) return fmt("%d", ti);
  return type_key_of(ti);
}

static const TypeExpect* type_expect(const char* key) {
  for (int i = 0; i < NUM_TYPES; ++i) {
    if (strcmp(g_types[i].key, key) == 0) return &g_types[i];
  }
  return NULL;
}

static void dump_type(const char* key) {
  const TypeExpect* e = type_expect(key);
  int32_t ti = type_index_of(key);
  if (ti < 0) {
    CHECK(0, fmt("type %s", key), "not registered");
    return;
  }
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
  Buf anc = {0};
  for (int32_t d = 0; d < info->type_depth; ++d) {
    const TVMFFITypeInfo* a = info->type_ancestors[d];
    buf_printf(&anc, d ? ",%.*s" : "%.*s", (int)a->type_key.size, a->type_key.data);
  }
  const TVMFFITypeInfo* parent = info->type_depth > 0 ? info->type_ancestors[info->type_depth - 1] : NULL;
  const TVMFFITypeMetadata* md = info->metadata;
  int ok = info->type_index == ti && ba_eq(info->type_key, key) && parent != NULL;
  if (e != NULL) {
    ok = ok && ba_eq(parent->type_key, e->parent) && md != NULL && md->total_size == e->total_size &&
         info->num_fields == e->num_fields && info->num_methods == e->num_methods;
  }
  CHECK(ok, fmt("type %s", key),
        "depth=%d ancestors=[%s] key_hash=%llu total_size=%d seq_hash_kind=%d creator=%s doc=%s "
        "fields=%d methods=%d",
        info->type_depth, anc.data ? anc.data : "", (unsigned long long)info->type_key_hash,
        md ? md->total_size : -1, md ? (int)md->structural_eq_hash_kind : -1,
        md ? (md->creator ? "yes" : "no") : "-", md ? qba(md->doc) : "-", info->num_fields,
        info->num_methods);
  free(anc.data);
  for (int32_t i = 0; i < info->num_fields; ++i) {
    const TVMFFIFieldInfo* f = &info->fields[i];
    const char* def = "-";
    if (f->flags & kTVMFFIFieldFlagBitMaskHasDefault) {
      def = (f->flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory) ? "factory"
                                                                   : describe(&f->default_value_or_factory);
    }
    CHECK(f->getter != NULL && f->offset >= 24 && f->offset + f->size <= (int64_t)(md ? md->total_size : 1 << 20),
          fmt("  field %s.%.*s", key, (int)f->name.size, f->name.data),
          "offset=%lld size=%lld align=%lld flags=0x%llx static_type=%s setter=%s default=%s doc=%s "
          "metadata=%s",
          (long long)f->offset, (long long)f->size, (long long)f->alignment, (unsigned long long)f->flags,
          static_tindex(f->field_static_type_index), f->setter ? "yes" : "no", def, qba(f->doc),
          qba(f->metadata));
  }
  for (int32_t i = 0; i < info->num_methods; ++i) {
    const TVMFFIMethodInfo* m = &info->methods[i];
    CHECK(m->method.type_index == kTVMFFIFunction,
          fmt("  method %s.%.*s", key, (int)m->name.size, m->name.data),
          "flags=0x%llx value=%s doc=%s metadata=%s", (unsigned long long)m->flags, describe(&m->method),
          qba(m->doc), qba(m->metadata));
  }
}

static const TVMFFIAny* type_attr(const char* column, int32_t ti) {
  TVMFFIByteArray name = ba(column);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  if (col == NULL) return NULL;
  int64_t i = (int64_t)ti - col->begin_index;
  if (i < 0 || i >= col->size) return NULL;
  if (col->data[i].type_index == kTVMFFINone) return NULL;
  return &col->data[i];
}

static void test_type_info(void) {
  /* every testing.* type key the runtime knows, in sorted order, with its index relative to the
     first one (the library registers them in a fixed order at load time) */
  TVMFFIAny keys;
  int rc = G0("ffi.GetRegisteredTypeKeys", &keys);
  if (!EXPECT_OK("ffi.GetRegisteredTypeKeys", rc)) return;
  TVMFFIAny size;
  rc = G("ffi.ArraySize", &size, keys);
  char* names[256];
  int n = 0;
  for (int64_t i = 0; rc == 0 && i < size.v_int64; ++i) {
    TVMFFIAny k;
    if (G("ffi.ArrayGetItem", &k, keys, any_int(i)) != 0) {
      EXPECT_OK("ffi.ArrayGetItem(type keys)", -1);
      break;
    }
    TVMFFIByteArray b = any_bytes(&k);
    if (b.size > 8 && memcmp(b.data, "testing.", 8) == 0 && n < 256) {
      names[n] = (char*)malloc(b.size + 1);
      memcpy(names[n], b.data, b.size);
      names[n][b.size] = '\0';
      ++n;
    }
    any_release(&k);
  }
  any_release(&keys);
  qsort(names, (size_t)n, sizeof(char*), cmp_str);
  int32_t first = INT32_MAX;
  for (int i = 0; i < n; ++i) {
    int32_t ti = type_index_of(names[i]);
    if (ti >= 0 && ti < first) first = ti;
  }
  Buf list = {0};
  for (int i = 0; i < n; ++i) buf_printf(&list, "%s%s@+%d", i ? " " : "", names[i], type_index_of(names[i]) - first);
  CHECK(n == 35 && first >= kTVMFFIDynObjectBegin, "testing type keys", "count=%d %s", n, list.data ? list.data : "");
  free(list.data);
  for (int i = 0; i < NUM_TYPES; ++i) {
    int found = 0;
    for (int j = 0; j < n; ++j) found |= strcmp(names[j], g_types[i].key) == 0;
    if (!found) CHECK(0, "testing type keys", "%s missing", g_types[i].key);
  }
  for (int i = 0; i < n; ++i) dump_type(names[i]);

  /* type attributes the library registered for its classes */
  static const char* cols[] = {"__ffi_init__", "__ffi_new__", "__ffi_shallow_copy__", "__ffi_type_final__",
                               "__ffi_convert__", "__ffi_hash__", "__ffi_eq__", "__ffi_compare__", "__ffi_repr__"};
  for (int i = 0; i < n; ++i) {
    int32_t ti = type_index_of(names[i]);
    Buf b = {0};
    for (int c = 0; c < (int)(sizeof cols / sizeof cols[0]); ++c) {
      const TVMFFIAny* v = type_attr(cols[c], ti);
      if (v) buf_printf(&b, "%s%s=%s", b.len ? " " : "", cols[c], describe(v));
    }
    CHECK(1, fmt("attrs %s", names[i]), "%s", b.data ? b.data : "none");
    free(b.data);
  }
  for (int i = 0; i < n; ++i) free(names[i]);
  /* an explicit refl::init<> is mirrored from the method into the column (same object) */
  int32_t ti = type_index_of("testing.TestIntPair");
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
  const TVMFFIAny* col = type_attr("__ffi_init__", ti);
  void* method = NULL;
  for (int32_t i = 0; i < info->num_methods; ++i) {
    if (ba_eq(info->methods[i].name, "__ffi_init__")) method = info->methods[i].method.v_obj;
  }
  CHECK(col != NULL && method != NULL && col->v_obj == method, "TestIntPair: __ffi_init__ column == method",
        "column=%s method=%s %s", col ? "yes" : "no", method ? "yes" : "no",
        col ? same(col->v_obj, method) : "-");
  CHECK(type_attr("__ffi_init__", type_index_of("testing.TestCxxNoAutoInit")) == NULL &&
            type_attr("__ffi_new__", type_index_of("testing.TestCxxNoAutoInit")) != NULL,
        "TestCxxNoAutoInit: no __ffi_init__, has __ffi_new__", "%s", "checked");
}

/* ------------------------------------------------------------------------------------------ */
/* 8. objects: construction, fields, methods                                                   */
/* ------------------------------------------------------------------------------------------ */

static TVMFFIAny g_kwargs; /* the ffi.GetKwargsObject sentinel */

static void* init_fn(const char* key) {
  const TVMFFIAny* v = type_attr("__ffi_init__", type_index_of(key));
  return v ? v->v_obj : NULL;
}

/* Constructs through the type's __ffi_init__ column entry. */
static int construct(const char* key, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  *rv = any_none();
  void* f = init_fn(key);
  if (f == NULL) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "no __ffi_init__ in the type attribute column");
    return -1;
  }
  return TVMFFIFunctionCall(f, args, n, rv);
}
#define NEW(key, rv, ...) construct(key, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)
#define NEW0(key, rv) construct(key, NULL, 0, rv)

static const TVMFFIFieldInfo* find_field(int32_t ti, const char* name) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
  const TVMFFIFieldInfo* fields[64];
  int n = collect_fields(info, fields, 64);
  for (int i = n - 1; i >= 0; --i) {
    if (ba_eq(fields[i]->name, name)) return fields[i];
  }
  return NULL;
}

/* Finds a method on the type or its ancestors: borrowed Function handle. */
static void* find_method(int32_t ti, const char* name) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
  for (int32_t d = info->type_depth; d >= 0; --d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_methods; ++i) {
      if (ba_eq(t->methods[i].name, name)) return t->methods[i].method.v_obj;
    }
  }
  return NULL;
}

static const char* field_str(const TVMFFIAny* obj, const char* name) {
  const TVMFFIFieldInfo* f = find_field(obj->v_obj->type_index, name);
  if (f == NULL) return "<no such field>";
  TVMFFIAny v;
  int rc = get_field(obj->v_obj, f, &v);
  if (rc != 0) {
    Buf b = {0};
    buf_raised(&b, rc);
    return ring_take(&b);
  }
  const char* d = describe(&v);
  any_release(&v);
  return d;
}

/* Writes a field through its setter (plain function or FunctionObj). */
static int set_field(const TVMFFIAny* obj, const char* name, TVMFFIAny value) {
  const TVMFFIFieldInfo* f = find_field(obj->v_obj->type_index, name);
  if (f == NULL) {
    TVMFFIErrorSetRaisedFromCStr("AttributeError", "no such field");
    return -1;
  }
  void* addr = (char*)obj->v_obj + f->offset;
  if (f->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
    TVMFFIAny rv;
    int rc = F(f->setter, &rv, any_ptr(addr), value);
    any_release(&rv);
    return rc;
  }
  return ((TVMFFIFieldSetter)f->setter)(addr, &value);
}

static int call_method(const TVMFFIAny* self, const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  *rv = any_none();
  void* m = find_method(self->v_obj->type_index, name);
  if (m == NULL) {
    TVMFFIErrorSetRaisedFromCStr("AttributeError", "no such method");
    return -1;
  }
  TVMFFIAny full[16];
  full[0] = *self;
  for (int i = 0; i < n; ++i) full[i + 1] = args[i];
  return TVMFFIFunctionCall(m, full, n + 1, rv);
}
#define METHOD(self, name, rv, ...) call_method(self, name, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)
#define METHOD0(self, name, rv) call_method(self, name, NULL, 0, rv)

static void test_int_pair(void) {
  TVMFFIAny obj, rv;
  int rc = NEW("testing.TestIntPair", &obj, any_int(3), any_int(4));
  if (!EXPECT_VALUE("TestIntPair(3, 4)", rc, &obj, "testing.TestIntPair(a=3, b=4)")) {
    any_release(&obj);
    return;
  }
  CHECK(strong_of(obj.v_obj) == 1, "TestIntPair: one reference", "strong=%u", strong_of(obj.v_obj));
  rc = METHOD0(&obj, "sum", &rv);
  EXPECT_VALUE_REL("TestIntPair.sum()", rc, &rv, "7");
  rc = T("TestIntPairSum", &rv, obj);
  EXPECT_VALUE_REL("testing.TestIntPairSum(pair)", rc, &rv, "7");
  rc = T("TestIntPairSum", &rv, any_int(3));
  EXPECT_ERROR("testing.TestIntPairSum(int)", rc, &rv, "TypeError", NULL);
  rc = T("schema_id_object", &rv, obj);
  CHECK(rc == 0 && rv.v_obj == obj.v_obj, "schema_id_object(TestIntPair)", "rc=%d %s", rc,
        same(rv.v_obj, obj.v_obj));
  any_release(&rv);
  rc = NEW("testing.TestIntPair", &rv, any_int(1));
  EXPECT_ERROR("TestIntPair(1): missing argument", rc, &rv, "TypeError", NULL);
  TVMFFIAny s = make_string("b");
  rc = NEW("testing.TestIntPair", &rv, any_int(1), s);
  EXPECT_ERROR("TestIntPair(1, \"b\"): wrong type", rc, &rv, "TypeError", NULL);
  any_release(&s);
  /* read-only fields have no Writable flag */
  const TVMFFIFieldInfo* fa = find_field(obj.v_obj->type_index, "a");
  CHECK(fa && !(fa->flags & kTVMFFIFieldFlagBitMaskWritable), "TestIntPair.a is read-only", "flags=0x%llx",
        fa ? (unsigned long long)fa->flags : 0ULL);
  /* shallow copy through the type attribute */
  const TVMFFIAny* copy_fn = type_attr("__ffi_shallow_copy__", obj.v_obj->type_index);
  if (copy_fn) {
    rc = F(copy_fn->v_obj, &rv, obj);
    CHECK(rc == 0 && rv.v_obj != obj.v_obj && strcmp(describe(&rv), "testing.TestIntPair(a=3, b=4)") == 0,
          "TestIntPair.__ffi_shallow_copy__", "rc=%d %s %s", rc, same(rv.v_obj, obj.v_obj),
          rc == 0 ? describe(&rv) : "-");
    if (rc != 0) EXPECT_OK("TestIntPair.__ffi_shallow_copy__", rc);
    any_release(&rv);
  } else {
    CHECK(0, "TestIntPair.__ffi_shallow_copy__", "absent");
  }
  any_release(&obj);
}

static void test_object_base(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int rc = NEW0("testing.TestObjectBase", &obj);
  EXPECT_VALUE("TestObjectBase() uses the defaults", rc, &obj,
               "testing.TestObjectBase(v_i64=10, v_f64=10, v_str=\"hello\")");
  any_release(&obj);
  rc = NEW("testing.TestObjectBase", &obj, any_int(5), any_float(2.5), pstr(&p, "positional"));
  EXPECT_VALUE("TestObjectBase(5, 2.5, str)", rc, &obj,
               "testing.TestObjectBase(v_i64=5, v_f64=2.5, v_str=\"positional\")");
  any_release(&obj);
  rc = NEW("testing.TestObjectBase", &obj, any_int(6), g_kwargs, pstr(&p, "v_str"), pstr(&p, "kw"));
  if (!EXPECT_VALUE("TestObjectBase(6, v_str=kw)", rc, &obj,
                    "testing.TestObjectBase(v_i64=6, v_f64=10, v_str=\"kw\")")) {
    any_release(&obj);
    pool_release(&p);
    return;
  }
  rc = METHOD(&obj, "add_i64", &rv, any_int(4));
  EXPECT_VALUE_REL("TestObjectBase.add_i64(4)", rc, &rv, "10");
  rc = set_field(&obj, "v_i64", any_int(77));
  EXPECT_OK("TestObjectBase.v_i64 = 77", rc);
  rc = set_field(&obj, "v_str", pstr(&p, "a longer string for the setter"));
  EXPECT_OK("TestObjectBase.v_str = str", rc);
  EXPECT_VALUE("TestObjectBase after setters", 0, &obj,
               "testing.TestObjectBase(v_i64=77, v_f64=10, v_str=\"a longer string for the setter\")");
  rc = METHOD(&obj, "add_i64", &rv, any_int(-7));
  EXPECT_VALUE_REL("TestObjectBase.add_i64(-7) after the setter", rc, &rv, "70");
  rc = set_field(&obj, "v_i64", pstr(&p, "not an int"));
  EXPECT_ERROR("TestObjectBase.v_i64 = str", rc, &rv, "TypeError", NULL);
  const TVMFFIFieldInfo* f64 = find_field(obj.v_obj->type_index, "v_f64");
  CHECK(f64 && !(f64->flags & kTVMFFIFieldFlagBitMaskWritable) && (f64->flags & kTVMFFIFieldFlagBitMaskHasDefault),
        "TestObjectBase.v_f64 is read-only with a default", "flags=0x%llx",
        f64 ? (unsigned long long)f64->flags : 0ULL);
  rc = NEW("testing.TestObjectBase", &rv, g_kwargs, pstr(&p, "v_unknown"), any_int(1));
  EXPECT_ERROR("TestObjectBase(v_unknown=1)", rc, &rv, "TypeError",
               "testing.TestObjectBase.__ffi_init__() got an unexpected keyword argument 'v_unknown'");
  rc = NEW("testing.TestObjectBase", &rv, any_int(1), any_float(2), pstr(&p, "s"), any_int(4));
  EXPECT_ERROR("TestObjectBase(4 positional)", rc, &rv, "TypeError",
               "testing.TestObjectBase.__ffi_init__() takes at most 3 positional argument(s), but 4 were given");
  rc = NEW("testing.TestObjectBase", &rv, pstr(&p, "wrong"));
  EXPECT_ERROR("TestObjectBase(str)", rc, &rv, "TypeError", NULL);
  any_release(&obj);

  /* the derived type: inherited fields and methods, containers as field values */
  TVMFFIAny map = pool_add(&p, build_str_int_map("ffi.Map", &p, "m", 6));
  TVMFFIAny arr = pool_add(&p, BUILD("ffi.Array", any_int(1), pstr(&p, "two"), any_float(3.0)));
  rc = NEW("testing.TestObjectDerived", &obj, g_kwargs, pstr(&p, "v_map"), map, pstr(&p, "v_array"), arr,
           pstr(&p, "v_i64"), any_int(20));
  if (EXPECT_VALUE("TestObjectDerived(v_map=, v_array=, v_i64=20)", rc, &obj,
                   "testing.TestObjectDerived(v_i64=20, v_f64=10, v_str=\"hello\", v_map=Map{\"m0\": 0, "
                   "\"m1\": 10, \"m2\": 20, \"m3\": 30, \"m4\": 40, \"m5\": 50}, v_array=Array[1, \"two\", 3])")) {
    rc = METHOD(&obj, "add_i64", &rv, any_int(1));
    EXPECT_VALUE_REL("TestObjectDerived.add_i64(1) (inherited)", rc, &rv, "21");
    const TVMFFIFieldInfo* fm = find_field(obj.v_obj->type_index, "v_map");
    TVMFFIAny got;
    rc = get_field(obj.v_obj, fm, &got);
    CHECK(rc == 0 && got.v_obj == map.v_obj, "TestObjectDerived.v_map holds our map", "rc=%d %s", rc,
          same(got.v_obj, map.v_obj));
    any_release(&got);
    TVMFFIAny other = pool_add(&p, BUILD("ffi.Map", pstr(&p, "only"), any_none()));
    rc = set_field(&obj, "v_map", other);
    EXPECT_OK("TestObjectDerived.v_map = other map", rc);
    CHECK(strcmp(field_str(&obj, "v_map"), "Map{\"only\": None}") == 0, "TestObjectDerived.v_map after set",
          "%s", field_str(&obj, "v_map"));
    rc = set_field(&obj, "v_array", any_int(1));
    EXPECT_ERROR("TestObjectDerived.v_array = 1", rc, &rv, "TypeError", NULL);
  }
  any_release(&obj);
  rc = NEW("testing.TestObjectDerived", &obj, map, arr, any_int(1), any_float(2), pstr(&p, "pos"));
  EXPECT_VALUE("TestObjectDerived(positional: required fields first)", rc, &obj, NULL);
  any_release(&obj);
  rc = NEW0("testing.TestObjectDerived", &rv);
  EXPECT_ERROR("TestObjectDerived(): missing required argument", rc, &rv, "TypeError",
               "testing.TestObjectDerived.__ffi_init__() missing required argument: 'v_map'");
  pool_release(&p);
}

static void test_cxx_classes(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int rc = NEW("testing.TestCxxClassBase", &obj, any_int(1), any_int(2));
  EXPECT_VALUE("TestCxxClassBase(1, 2)", rc, &obj, "testing.TestCxxClassBase(v_i64=1, v_i32=2)");
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerived", &obj, any_int(1), any_int(2), any_float(3.5));
  EXPECT_VALUE("TestCxxClassDerived(1, 2, 3.5)", rc, &obj,
               "testing.TestCxxClassDerived(v_i64=1, v_i32=2, v_f64=3.5, v_f32=8)");
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerivedDerived", &obj, any_int(1), any_int(2), any_float(3.5), any_bool(1));
  if (EXPECT_VALUE("TestCxxClassDerivedDerived(1, 2, 3.5, True)", rc, &obj,
                   "testing.TestCxxClassDerivedDerived(v_i64=1, v_i32=2, v_f64=3.5, v_f32=8, "
                   "v_str=\"default\", v_bool=True)")) {
    EXPECT_OK("DerivedDerived.v_i32 = -7", set_field(&obj, "v_i32", any_int(-7)));
    EXPECT_OK("DerivedDerived.v_f32 = 0.25", set_field(&obj, "v_f32", any_float(0.25)));
    EXPECT_OK("DerivedDerived.v_str = str", set_field(&obj, "v_str", pstr(&p, "changed")));
    EXPECT_OK("DerivedDerived.v_bool = False", set_field(&obj, "v_bool", any_bool(0)));
    EXPECT_VALUE("TestCxxClassDerivedDerived after setters", 0, &obj,
                 "testing.TestCxxClassDerivedDerived(v_i64=1, v_i32=-7, v_f64=3.5, v_f32=0.25, "
                 "v_str=\"changed\", v_bool=False)");
  }
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerivedDerived", &obj, g_kwargs, pstr(&p, "v_bool"), any_bool(0),
           pstr(&p, "v_f64"), any_float(-1), pstr(&p, "v_i32"), any_int(3), pstr(&p, "v_i64"), any_int(4),
           pstr(&p, "v_str"), pstr(&p, "kw"));
  EXPECT_VALUE("TestCxxClassDerivedDerived(all keywords)", rc, &obj,
               "testing.TestCxxClassDerivedDerived(v_i64=4, v_i32=3, v_f64=-1, v_f32=8, v_str=\"kw\", "
               "v_bool=False)");
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerivedDerived", &rv, any_int(1), any_int(2), any_float(3.5));
  EXPECT_ERROR("TestCxxClassDerivedDerived(1, 2, 3.5): missing v_bool", rc, &rv, "TypeError",
               "testing.TestCxxClassDerivedDerived.__ffi_init__() missing required argument: 'v_bool'");
  pool_release(&p);
}

static void test_auto_init(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int rc;
  TVMFFIAny k_c = pstr(&p, "c"), k_b = pstr(&p, "b"), k_d = pstr(&p, "d");

  /* a positional required, b init=False default 42, c kw_only required, d positional default 99 */
  rc = NEW("testing.TestCxxAutoInit", &obj, any_int(1), g_kwargs, k_c, any_int(3));
  EXPECT_VALUE("TestCxxAutoInit(1, c=3)", rc, &obj, "testing.TestCxxAutoInit(a=1, b=42, c=3, d=99)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInit", &obj, any_int(1), any_int(4), g_kwargs, k_c, any_int(3));
  EXPECT_VALUE("TestCxxAutoInit(1, 4, c=3)", rc, &obj, "testing.TestCxxAutoInit(a=1, b=42, c=3, d=4)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInit", &obj, g_kwargs, k_d, any_int(5), k_c, any_int(6), pstr(&p, "a"),
           any_int(7));
  EXPECT_VALUE("TestCxxAutoInit(d=5, c=6, a=7)", rc, &obj, "testing.TestCxxAutoInit(a=7, b=42, c=6, d=5)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1));
  EXPECT_ERROR("TestCxxAutoInit(1): missing keyword-only c", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() missing required keyword-only argument: 'c'");
  rc = NEW("testing.TestCxxAutoInit", &rv, g_kwargs, k_c, any_int(3));
  EXPECT_ERROR("TestCxxAutoInit(c=3): missing a", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() missing required argument: 'a'");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), g_kwargs, k_c, any_int(3), k_b, any_int(0));
  EXPECT_ERROR("TestCxxAutoInit(b=0): init=False field", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() got an unexpected keyword argument 'b'");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), any_int(2), any_int(3));
  EXPECT_ERROR("TestCxxAutoInit(1, 2, 3)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() takes at most 2 positional argument(s), but 3 were given");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), any_int(2), any_int(3), g_kwargs, k_c, any_int(3));
  EXPECT_ERROR("TestCxxAutoInit(1, 2, 3, c=3)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() takes at most 2 positional argument(s), but 3 were given");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), g_kwargs, k_c, any_int(3), k_c, any_int(4));
  EXPECT_ERROR("TestCxxAutoInit(1, c=3, c=4)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() got multiple values for argument 'c'");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), g_kwargs, k_c);
  EXPECT_ERROR("TestCxxAutoInit(1, KWARGS, \"c\")", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() KWARGS requires an even number of key-value arguments");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), g_kwargs, k_c, pstr(&p, "three"));
  EXPECT_ERROR("TestCxxAutoInit(1, c=str)", rc, &rv, "TypeError", NULL);

  rc = NEW("testing.TestCxxAutoInitSimple", &obj, any_int(1), any_int(2));
  EXPECT_VALUE("TestCxxAutoInitSimple(1, 2)", rc, &obj, "testing.TestCxxAutoInitSimple(x=1, y=2)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitSimple", &obj, any_int(1), g_kwargs, pstr(&p, "y"), any_int(2));
  EXPECT_VALUE("TestCxxAutoInitSimple(1, y=2)", rc, &obj, "testing.TestCxxAutoInitSimple(x=1, y=2)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitSimple", &rv, any_int(1));
  EXPECT_ERROR("TestCxxAutoInitSimple(1)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInitSimple.__ffi_init__() missing required argument: 'y'");

  rc = NEW0("testing.TestCxxAutoInitAllInitOff", &obj);
  EXPECT_VALUE("TestCxxAutoInitAllInitOff()", rc, &obj, "testing.TestCxxAutoInitAllInitOff(x=7, y=9, z=1234)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitAllInitOff", &rv, any_int(1));
  EXPECT_ERROR("TestCxxAutoInitAllInitOff(1)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInitAllInitOff.__ffi_init__() takes at most 0 positional argument(s), "
               "but 1 were given");

  rc = NEW("testing.TestCxxAutoInitKwOnlyDefaults", &obj, any_int(1), g_kwargs, pstr(&p, "k_required"), any_int(2));
  EXPECT_VALUE("TestCxxAutoInitKwOnlyDefaults(1, k_required=2)", rc, &obj,
               "testing.TestCxxAutoInitKwOnlyDefaults(p_required=1, p_default=11, k_required=2, k_default=22, "
               "hidden=33)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitKwOnlyDefaults", &obj, any_int(1), any_int(12), g_kwargs,
           pstr(&p, "k_default"), any_int(23), pstr(&p, "k_required"), any_int(2));
  EXPECT_VALUE("TestCxxAutoInitKwOnlyDefaults(1, 12, k_default=23, k_required=2)", rc, &obj,
               "testing.TestCxxAutoInitKwOnlyDefaults(p_required=1, p_default=12, k_required=2, k_default=23, "
               "hidden=33)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitKwOnlyDefaults", &rv, any_int(1), g_kwargs, pstr(&p, "hidden"), any_int(0),
           pstr(&p, "k_required"), any_int(2));
  EXPECT_ERROR("TestCxxAutoInitKwOnlyDefaults(hidden=0)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInitKwOnlyDefaults.__ffi_init__() got an unexpected keyword argument 'hidden'");

  /* inheritance: parent fields first, required before defaulted among the positionals */
  rc = NEW("testing.TestCxxAutoInitChild", &obj, any_int(1), any_int(2), g_kwargs, pstr(&p, "child_kw_only"),
           any_int(3));
  EXPECT_VALUE("TestCxxAutoInitChild(1, 2, child_kw_only=3)", rc, &obj,
               "testing.TestCxxAutoInitChild(parent_required=1, parent_default=5, child_required=2, "
               "child_kw_only=3)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitChild", &obj, any_int(1), any_int(2), any_int(6), g_kwargs,
           pstr(&p, "child_kw_only"), any_int(3));
  EXPECT_VALUE("TestCxxAutoInitChild(1, 2, 6, child_kw_only=3)", rc, &obj,
               "testing.TestCxxAutoInitChild(parent_required=1, parent_default=6, child_required=2, "
               "child_kw_only=3)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitChild", &rv, any_int(1), g_kwargs, pstr(&p, "child_kw_only"), any_int(3));
  EXPECT_ERROR("TestCxxAutoInitChild(1, child_kw_only=3)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInitChild.__ffi_init__() missing required argument: 'child_required'");
  rc = NEW("testing.TestCxxAutoInitParent", &obj, any_int(8));
  EXPECT_VALUE("TestCxxAutoInitParent(8)", rc, &obj,
               "testing.TestCxxAutoInitParent(parent_required=8, parent_default=5)");
  any_release(&obj);

  /* all keyword-only */
  rc = NEW("testing.TestCxxKwOnly", &obj, g_kwargs, pstr(&p, "x"), any_int(1), pstr(&p, "y"), any_int(2),
           pstr(&p, "z"), any_int(3));
  EXPECT_VALUE("TestCxxKwOnly(x=1, y=2, z=3)", rc, &obj, "testing.TestCxxKwOnly(x=1, y=2, z=3, w=100)");
  any_release(&obj);
  rc = NEW("testing.TestCxxKwOnly", &rv, any_int(1));
  EXPECT_ERROR("TestCxxKwOnly(1)", rc, &rv, "TypeError",
               "testing.TestCxxKwOnly.__ffi_init__() takes at most 0 positional argument(s), but 1 were given");
  rc = NEW("testing.TestCxxKwOnly", &rv, g_kwargs, pstr(&p, "x"), any_int(1), pstr(&p, "y"), any_int(2));
  EXPECT_ERROR("TestCxxKwOnly(x=1, y=2): missing z", rc, &rv, "TypeError",
               "testing.TestCxxKwOnly.__ffi_init__() missing required keyword-only argument: 'z'");

  /* init subset */
  rc = NEW("testing.TestCxxInitSubset", &obj, any_int(5));
  if (EXPECT_VALUE("TestCxxInitSubset(5)", rc, &obj,
                   "testing.TestCxxInitSubset(required_field=5, optional_field=-1, note=\"default\")")) {
    EXPECT_OK("TestCxxInitSubset.note = str", set_field(&obj, "note", pstr(&p, "set later")));
    EXPECT_OK("TestCxxInitSubset.optional_field = 2", set_field(&obj, "optional_field", any_int(2)));
    EXPECT_VALUE("TestCxxInitSubset after setters", 0, &obj,
                 "testing.TestCxxInitSubset(required_field=5, optional_field=2, note=\"set later\")");
  }
  any_release(&obj);
  rc = NEW0("testing.TestCxxInitSubset", &rv);
  EXPECT_ERROR("TestCxxInitSubset()", rc, &rv, "TypeError",
               "testing.TestCxxInitSubset.__ffi_init__() missing required argument: 'required_field'");
  rc = NEW("testing.TestCxxInitSubset", &rv, any_int(5), g_kwargs, pstr(&p, "note"), pstr(&p, "x"));
  EXPECT_ERROR("TestCxxInitSubset(5, note=x)", rc, &rv, "TypeError",
               "testing.TestCxxInitSubset.__ffi_init__() got an unexpected keyword argument 'note'");

  /* no __ffi_init__: allocate with __ffi_new__ and fill in through the setters */
  const TVMFFIAny* new_fn = type_attr("__ffi_new__", type_index_of("testing.TestCxxNoAutoInit"));
  if (new_fn != NULL) {
    rc = call_fn(new_fn->v_obj, NULL, 0, &obj);
    if (EXPECT_OK("TestCxxNoAutoInit.__ffi_new__()", rc)) {
      EXPECT_OK("TestCxxNoAutoInit.x = 3", set_field(&obj, "x", any_int(3)));
      EXPECT_OK("TestCxxNoAutoInit.y = 4", set_field(&obj, "y", any_int(4)));
      EXPECT_VALUE("TestCxxNoAutoInit via __ffi_new__ + setters", 0, &obj, "testing.TestCxxNoAutoInit(x=3, y=4)");
    }
    any_release(&obj);
  } else {
    CHECK(0, "TestCxxNoAutoInit.__ffi_new__", "absent");
  }
  rc = NEW0("testing.TestCxxNoAutoInit", &rv);
  EXPECT_ERROR("TestCxxNoAutoInit has no __ffi_init__", rc, &rv, "RuntimeError",
               "no __ffi_init__ in the type attribute column");

  rc = NEW("testing.TestNonCopyable", &obj, any_int(9));
  EXPECT_VALUE("TestNonCopyable(9)", rc, &obj, "testing.TestNonCopyable(value=9)");
  CHECK(rc == 0 && type_attr("__ffi_shallow_copy__", obj.v_obj->type_index) == NULL,
        "TestNonCopyable has no __ffi_shallow_copy__", "%s", "checked");
  any_release(&obj);
  pool_release(&p);
}

static TVMFFIAny small_map_for_variant(Pool* p) {
  return pool_add(p, BUILD("ffi.Map", pstr(p, "vk"), any_int(1)));
}

static void test_schema_all_types(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int32_t ti = type_index_of("testing.SchemaAllTypes");
  void* make_with = find_method(ti, "make_with");
  if (make_with == NULL) {
    CHECK(0, "SchemaAllTypes.make_with", "absent");
    return;
  }
  CHECK(type_attr("__ffi_init__", ti) == NULL, "SchemaAllTypes has no __ffi_init__ (no default constructor)",
        "%s", "checked");
  int rc = F(make_with, &obj, any_int(7), any_float(0.5), pstr(&p, "made"));
  if (!EXPECT_VALUE("SchemaAllTypes.make_with(7, 0.5, made)", rc, &obj,
                    "testing.SchemaAllTypes(v_bool=True, v_int=7, v_float=0.5, v_device=device(1:0), "
                    "v_dtype=dtype(float32), v_string=\"made\", v_bytes=b\"\", v_opt_int=None, v_opt_str=None, "
                    "v_arr_int=Array[], v_arr_str=Array[], v_map_str_int=Map{}, v_map_str_arr_int=Map{}, "
                    "v_variant=\"v\", v_opt_arr_variant=None)")) {
    any_release(&obj);
    pool_release(&p);
    return;
  }
  rc = METHOD(&obj, "add_int", &rv, any_int(5));
  EXPECT_VALUE_REL("SchemaAllTypes.add_int(5)", rc, &rv, "12");
  TVMFFIAny arr = pool_add(&p, BUILD("ffi.Array", any_int(1), any_int(2)));
  rc = METHOD(&obj, "append_int", &rv, arr, any_int(9));
  CHECK(rc == 0 && rv.v_obj != arr.v_obj, "SchemaAllTypes.append_int: a new array", "rc=%d %s", rc,
        same(rv.v_obj, arr.v_obj));
  EXPECT_VALUE_REL("SchemaAllTypes.append_int([1, 2], 9)", rc, &rv, "Array[1, 2, 9]");
  EXPECT_VALUE("append_int left our array unchanged", 0, &arr, "Array[1, 2]");
  rc = METHOD(&obj, "maybe_concat", &rv, pstr(&p, "ab"), pstr(&p, "cd"));
  EXPECT_VALUE_REL("SchemaAllTypes.maybe_concat(ab, cd)", rc, &rv, "\"abcd\"");
  rc = METHOD(&obj, "maybe_concat", &rv, any_none(), pstr(&p, "cd"));
  EXPECT_VALUE_REL("SchemaAllTypes.maybe_concat(None, cd)", rc, &rv, "\"cd\"");
  rc = METHOD(&obj, "maybe_concat", &rv, any_none(), any_none());
  EXPECT_VALUE_REL("SchemaAllTypes.maybe_concat(None, None)", rc, &rv, "None");
  rc = METHOD(&obj, "add_int", &rv, pstr(&p, "x"));
  EXPECT_ERROR("SchemaAllTypes.add_int(str)", rc, &rv, "TypeError", NULL);
  TVMFFIAny pair;
  rc = NEW("testing.TestIntPair", &pair, any_int(1), any_int(2));
  if (rc == 0) {
    void* add_int = find_method(ti, "add_int");
    rc = F(add_int, &rv, pair, any_int(1));
    EXPECT_ERROR("SchemaAllTypes.add_int(self=TestIntPair)", rc, &rv, "TypeError", NULL);
    any_release(&pair);
  }

  /* setters with runtime-built values, read back through the getters */
  TVMFFIAny dense = pool_add(&p, build_str_int_map("ffi.Map", &p, "field key ", 9));
  TVMFFIAny arrs = pool_add(&p, BUILD("ffi.Map", pstr(&p, "xs"), arr));
  TVMFFIAny variants = pool_add(&p, BUILD("ffi.Array", any_int(1), pstr(&p, "one")));
  static const char raw[] = {1, 2, 3, 0, 4, 5, 6, 7, 8};
  EXPECT_OK("v_bool = False", set_field(&obj, "v_bool", any_bool(0)));
  EXPECT_OK("v_int = -3", set_field(&obj, "v_int", any_int(-3)));
  EXPECT_OK("v_float = 1", set_field(&obj, "v_float", any_int(1)));
  EXPECT_OK("v_device = cuda:1", set_field(&obj, "v_device", any_device(kDLCUDA, 1)));
  EXPECT_OK("v_dtype = bfloat16", set_field(&obj, "v_dtype", pstr(&p, "bfloat16")));
  EXPECT_OK("v_string = raw str", set_field(&obj, "v_string", any_raw_str("from raw")));
  EXPECT_OK("v_bytes = bytes", set_field(&obj, "v_bytes", pool_add(&p, make_bytes(raw, sizeof raw))));
  EXPECT_OK("v_opt_int = 5", set_field(&obj, "v_opt_int", any_int(5)));
  EXPECT_OK("v_opt_str = str", set_field(&obj, "v_opt_str", pstr(&p, "opt")));
  EXPECT_OK("v_arr_int = [1, 2]", set_field(&obj, "v_arr_int", arr));
  EXPECT_OK("v_arr_str = []", set_field(&obj, "v_arr_str", pool_add(&p, BUILD("ffi.Array"))));
  EXPECT_OK("v_map_str_int = dense map", set_field(&obj, "v_map_str_int", dense));
  EXPECT_OK("v_map_str_arr_int = map", set_field(&obj, "v_map_str_arr_int", arrs));
  EXPECT_OK("v_variant = map", set_field(&obj, "v_variant", small_map_for_variant(&p)));
  EXPECT_OK("v_opt_arr_variant = [1, one]", set_field(&obj, "v_opt_arr_variant", variants));
  EXPECT_VALUE("SchemaAllTypes after setters", 0, &obj,
               "testing.SchemaAllTypes(v_bool=False, v_int=-3, v_float=1, v_device=device(2:1), "
               "v_dtype=dtype(bfloat16), v_string=\"from raw\", v_bytes=b\"\\x01\\x02\\x03\\x00\\x04\\x05\\x06\\x07\\x08\", "
               "v_opt_int=5, v_opt_str=\"opt\", v_arr_int=Array[1, 2], v_arr_str=Array[], "
               "v_map_str_int=Map{\"field key 0\": 0, \"field key 1\": 10, \"field key 2\": 20, \"field key 3\": 30, "
               "\"field key 4\": 40, \"field key 5\": 50, \"field key 6\": 60, \"field key 7\": 70, "
               "\"field key 8\": 80}, v_map_str_arr_int=Map{\"xs\": Array[1, 2]}, v_variant=Map{\"vk\": 1}, "
               "v_opt_arr_variant=Array[1, \"one\"])");
  const TVMFFIFieldInfo* fm = find_field(ti, "v_map_str_int");
  TVMFFIAny got;
  rc = get_field(obj.v_obj, fm, &got);
  CHECK(rc == 0 && got.v_obj == dense.v_obj, "v_map_str_int holds our dense map", "rc=%d %s layout=%s", rc,
        same(got.v_obj, dense.v_obj), map_layout(&got));
  any_release(&got);
  rc = set_field(&obj, "v_int", pstr(&p, "x"));
  EXPECT_ERROR("v_int = str", rc, &rv, "TypeError", NULL);
  rc = set_field(&obj, "v_arr_int", variants);
  EXPECT_ERROR("v_arr_int = [1, \"one\"]", rc, &rv, "TypeError", NULL);
  rc = set_field(&obj, "v_variant", any_int(3));
  EXPECT_ERROR("v_variant = 3", rc, &rv, "TypeError", NULL);
  rc = set_field(&obj, "v_opt_int", any_none());
  EXPECT_OK("v_opt_int = None", rc);
  CHECK(strcmp(field_str(&obj, "v_opt_int"), "None") == 0, "v_opt_int back to None", "%s",
        field_str(&obj, "v_opt_int"));
  any_release(&obj);
  pool_release(&p);
}

static void test_other_objects(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int rc = T0("make_unregistered_object", &obj);
  if (EXPECT_VALUE("make_unregistered_object()", rc, &obj, "testing.TestUnregisteredObject(v1=41, v2=42)")) {
    rc = METHOD0(&obj, "get_v1_plus_one", &rv);
    EXPECT_VALUE_REL("TestUnregisteredObject.get_v1_plus_one() (base method)", rc, &rv, "42");
    rc = METHOD0(&obj, "get_v2_plus_two", &rv);
    EXPECT_VALUE_REL("TestUnregisteredObject.get_v2_plus_two()", rc, &rv, "44");
    rc = T("object_use_count", &rv, obj);
    EXPECT_VALUE_REL("object_use_count(unregistered object)", rc, &rv, "1");
  }
  any_release(&obj);
  rc = NEW("testing.TestUnregisteredObject", &obj, any_int(1), any_int(2));
  EXPECT_VALUE("TestUnregisteredObject(1, 2)", rc, &obj, "testing.TestUnregisteredObject(v1=1, v2=2)");
  any_release(&obj);
  rc = NEW("testing.TestUnregisteredBaseObject", &obj, any_int(10));
  if (EXPECT_VALUE("TestUnregisteredBaseObject(10)", rc, &obj, "testing.TestUnregisteredBaseObject(v1=10)")) {
    rc = METHOD0(&obj, "get_v1_plus_one", &rv);
    EXPECT_VALUE_REL("TestUnregisteredBaseObject.get_v1_plus_one()", rc, &rv, "11");
    void* derived_only = find_method(type_index_of("testing.TestUnregisteredObject"), "get_v2_plus_two");
    if (derived_only) {
      rc = F(derived_only, &rv, obj);
      EXPECT_ERROR("get_v2_plus_two(self=base object)", rc, &rv, "TypeError", NULL);
    }
  }
  any_release(&obj);

  rc = T("make_visit_region_graph", &obj, any_bool(0));
  EXPECT_VALUE("make_visit_region_graph(False)", rc, &obj, "testing.TestVisitRegions(simple=1, pattern=2, ordinary=3)");
  any_release(&obj);
  rc = T("make_visit_region_graph", &obj, any_bool(1));
  EXPECT_VALUE("make_visit_region_graph(True)", rc, &obj,
               "testing.TestVisitHook(child=testing.TestVisitRegions(simple=1, pattern=2, ordinary=3))");
  any_release(&obj);

  TVMFFIAny alpha, alpha2;
  rc = T("enum_variant_get", &alpha, pstr(&p, "Alpha"));
  if (EXPECT_VALUE("enum_variant_get(Alpha)", rc, &alpha, NULL)) {
    CHECK(strcmp(type_key_of(alpha.type_index), "testing.TestEnumVariant") == 0, "enum_variant_get(Alpha): type",
          "%s", type_key_of(alpha.type_index));
    rc = T("enum_variant_get", &alpha2, pstr(&p, "Alpha"));
    CHECK(rc == 0 && alpha2.v_obj == alpha.v_obj, "enum_variant_get(Alpha) is a singleton", "rc=%d %s", rc,
          same(alpha2.v_obj, alpha.v_obj));
    any_release(&alpha2);
  }
  rc = T("enum_variant_get", &rv, pstr(&p, "Beta"));
  EXPECT_VALUE("enum_variant_get(Beta)", rc, &rv, NULL);
  CHECK(rc == 0 && rv.v_obj != alpha.v_obj, "Beta is another instance", "%s", same(rv.v_obj, alpha.v_obj));
  any_release(&rv);
  any_release(&alpha);
  rc = T("enum_variant_get", &rv, pstr(&p, "Gamma"));
  EXPECT_ERROR("enum_variant_get(Gamma)", rc, &rv, "ValueError",
               "Enum `testing.TestEnumVariant` has no instance with index Gamma");
  pool_release(&p);
}

static void test_more_objects(void) {
  TVMFFIAny obj, rv, base;
  Pool p = {0};
  int rc = NEW("testing.TestObjectBase", &base, any_int(1));
  if (!EXPECT_OK("TestObjectBase(1)", rc)) return;
  rc = NEW("testing.TestObjectPtrHolder", &obj, base);
  EXPECT_VALUE("TestObjectPtrHolder(base)", rc, &obj,
               "testing.TestObjectPtrHolder(value=testing.TestObjectBase(v_i64=1, v_f64=10, v_str=\"hello\"), "
               "optional_value=None)");
  if (rc == 0) {
    EXPECT_OK("TestObjectPtrHolder.optional_value = base", set_field(&obj, "optional_value", base));
    CHECK(strong_of(base.v_obj) == 3, "the holder keeps two references", "strong=%u", strong_of(base.v_obj));
    rc = set_field(&obj, "value", any_none());
    EXPECT_ERROR("TestObjectPtrHolder.value = None", rc, &rv, "TypeError", NULL);
    rc = set_field(&obj, "value", pstr(&p, "str"));
    EXPECT_ERROR("TestObjectPtrHolder.value = str", rc, &rv, "TypeError", NULL);
  }
  any_release(&obj);
  CHECK(strong_of(base.v_obj) == 1, "holder released its references", "strong=%u", strong_of(base.v_obj));
  rc = NEW0("testing.TestObjectPtrHolder", &rv);
  EXPECT_ERROR("TestObjectPtrHolder()", rc, &rv, "TypeError",
               "testing.TestObjectPtrHolder.__ffi_init__() missing required argument: 'value'");

  rc = NEW("testing.TestDeepCopyEdges", &obj, any_int(5), base);
  EXPECT_VALUE("TestDeepCopyEdges(5, base)", rc, &obj,
               "testing.TestDeepCopyEdges(v_any=5, v_obj=testing.TestObjectBase(v_i64=1, v_f64=10, v_str=\"hello\"))");
  if (rc == 0) {
    EXPECT_OK("TestDeepCopyEdges.v_any = raw str", set_field(&obj, "v_any", any_raw_str("a raw C string, long")));
    EXPECT_OK("TestDeepCopyEdges.v_obj = None", set_field(&obj, "v_obj", any_none()));
    EXPECT_VALUE("TestDeepCopyEdges after setters", 0, &obj,
                 "testing.TestDeepCopyEdges(v_any=\"a raw C string, long\", v_obj=None)");
  }
  any_release(&obj);
  any_release(&base);

  rc = NEW("testing.TestCompare", &obj, any_int(1), pstr(&p, "name"), any_int(2));
  EXPECT_VALUE_REL("TestCompare(1, name, 2)", rc, &obj, "testing.TestCompare(key=1, name=\"name\", ignored_field=2)");
  rc = NEW("testing.TestHash", &obj, any_int(1), pstr(&p, "name"), any_int(2));
  EXPECT_VALUE_REL("TestHash(1, name, 2)", rc, &obj, "testing.TestHash(key=1, name=\"name\", hash_ignored=2)");
  rc = NEW("testing.TestCustomHash", &obj, any_int(3), pstr(&p, "label"));
  EXPECT_VALUE_REL("TestCustomHash(3, label)", rc, &obj, "testing.TestCustomHash(key=3, label=\"label\")");
  rc = NEW("testing.TestCustomCompare", &obj, any_int(4), pstr(&p, "label"));
  EXPECT_VALUE_REL("TestCustomCompare(4, label)", rc, &obj, "testing.TestCustomCompare(key=4, label=\"label\")");
  rc = NEW("testing.TestEqWithoutHash", &obj, any_int(5), pstr(&p, "label"));
  EXPECT_VALUE_REL("TestEqWithoutHash(5, label)", rc, &obj, "testing.TestEqWithoutHash(key=5, label=\"label\")");
  rc = NEW("testing.TestCustomHash", &rv, any_int(3));
  EXPECT_ERROR("TestCustomHash(3)", rc, &rv, "TypeError", NULL);

  rc = NEW("testing.TestCxxClassHiddenField", &obj, any_int(1), any_int(2));
  EXPECT_VALUE_REL("TestCxxClassHiddenField(1, 2)", rc, &obj, "testing.TestCxxClassHiddenField(v_i64=1, v_i32=2)");
  /* a class with a vtable: the handle points 8 bytes into the C++ object */
  rc = NEW("testing.TestCxxClassPolymorphic", &obj, any_int(-8));
  if (EXPECT_VALUE("TestCxxClassPolymorphic(-8)", rc, &obj, "testing.TestCxxClassPolymorphic(v_i64=-8)")) {
    EXPECT_OK("TestCxxClassPolymorphic.v_i64 = 9", set_field(&obj, "v_i64", any_int(9)));
    EXPECT_VALUE("TestCxxClassPolymorphic after the setter", 0, &obj, "testing.TestCxxClassPolymorphic(v_i64=9)");
    const TVMFFIAny* copy_fn = type_attr("__ffi_shallow_copy__", obj.v_obj->type_index);
    if (copy_fn) {
      rc = F(copy_fn->v_obj, &rv, obj);
      EXPECT_VALUE_REL("TestCxxClassPolymorphic.__ffi_shallow_copy__", rc, &rv,
                       "testing.TestCxxClassPolymorphic(v_i64=9)");
    }
  }
  any_release(&obj);
  rc = NEW0("testing.TestCxxEnumHolder", &rv);
  EXPECT_ERROR("TestCxxEnumHolder()", rc, &rv, "TypeError",
               "testing.TestCxxEnumHolder.__ffi_init__() missing required argument: 'priority'");

  /* __ffi_convert__ of TestIntPair */
  rc = NEW("testing.TestIntPair", &obj, any_int(5), any_int(6));
  const TVMFFIAny* conv = rc == 0 ? type_attr("__ffi_convert__", obj.v_obj->type_index) : NULL;
  if (conv) {
    rc = F(conv->v_obj, &rv, obj);
    CHECK(rc == 0 && rv.v_obj == obj.v_obj, "TestIntPair.__ffi_convert__(pair)", "rc=%d %s", rc,
          same(rv.v_obj, obj.v_obj));
    any_release(&rv);
    rc = F(conv->v_obj, &rv, any_int(1));
    EXPECT_ERROR("TestIntPair.__ffi_convert__(1)", rc, &rv, "TypeError", NULL);
  } else {
    CHECK(0, "TestIntPair.__ffi_convert__", "absent");
  }
  /* __ffi_new__ gives a zero-initialised instance */
  const TVMFFIAny* new_fn = type_attr("__ffi_new__", type_index_of("testing.TestIntPair"));
  if (new_fn) {
    rc = call_fn(new_fn->v_obj, NULL, 0, &rv);
    EXPECT_VALUE_REL("TestIntPair.__ffi_new__()", rc, &rv, "testing.TestIntPair(a=0, b=0)");
  }
  any_release(&obj);

  /* the query-only mode of TVMFFITypeGetOrAllocIndex finds registered keys */
  TVMFFIByteArray key = ba("testing.TestIntPair");
  int32_t q = TVMFFITypeGetOrAllocIndex(&key, -1, -1, 0, 0, -2);
  TVMFFIByteArray missing = ba("testing.NoSuchType");
  int32_t q2 = TVMFFITypeGetOrAllocIndex(&missing, -1, -1, 0, 0, -2);
  CHECK(q == type_index_of("testing.TestIntPair") && q2 == -2, "TVMFFITypeGetOrAllocIndex query mode",
        "known=%s unknown=%d", q == type_index_of("testing.TestIntPair") ? "same index" : "other", q2);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */
/* 9. ffi.ReprPrint of testing objects                                                         */
/* ------------------------------------------------------------------------------------------ */

static void expect_repr(const char* name, const TVMFFIAny* v, const char* expected, int line) {
  TVMFFIAny rv;
  int rc = G("ffi.ReprPrint", &rv, *v);
  if (rc != 0) {
    expect_value(name, rc, &rv, expected, line);
    return;
  }
  TVMFFIByteArray s = any_bytes(&rv);
  int ok = (rv.type_index == kTVMFFISmallStr || rv.type_index == kTVMFFIStr) &&
           (expected == NULL || ba_eq(s, expected));
  if (ok) {
    check_impl(1, line, name, "%s", quote_n(s.data, s.size));
  } else {
    check_impl(0, line, name, "type=%d %s (expected %s)", rv.type_index, quote_n(s.data, s.size),
               expected ? quote_n(expected, strlen(expected)) : "-");
  }
  any_release(&rv);
}
#define EXPECT_REPR(name, v, expected) expect_repr(name, v, expected, __LINE__)

static void test_repr(void) {
  TVMFFIAny obj;
  Pool p = {0};
  int rc = NEW("testing.TestIntPair", &obj, any_int(3), any_int(4));
  if (EXPECT_OK("repr: TestIntPair", rc)) EXPECT_REPR("repr TestIntPair", &obj, "testing.TestIntPair(a=3, b=4)");
  any_release(&obj);
  TVMFFIAny map = pool_add(&p, BUILD("ffi.Map", pstr(&p, "k"), any_int(1)));
  TVMFFIAny arr = pool_add(&p, BUILD("ffi.Array", any_int(1), pstr(&p, "two"), any_none()));
  rc = NEW("testing.TestObjectDerived", &obj, map, arr);
  if (EXPECT_OK("repr: TestObjectDerived", rc))
    EXPECT_REPR("repr TestObjectDerived", &obj,
                "testing.TestObjectDerived(v_i64=10, v_f64=10, v_str=\"hello\", v_map={\"k\": 1}, "
                "v_array=(1, \"two\", None))");
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerivedDerived", &obj, any_int(1), any_int(2), any_float(3.5), any_bool(1));
  if (EXPECT_OK("repr: TestCxxClassDerivedDerived", rc))
    EXPECT_REPR("repr TestCxxClassDerivedDerived (repr-off fields hidden)", &obj,
                "testing.TestCxxClassDerivedDerived(v_f64=3.5, v_f32=8, v_str=\"default\", v_bool=True)");
  any_release(&obj);
  rc = T0("make_unregistered_object", &obj);
  if (EXPECT_OK("repr: make_unregistered_object", rc))
    EXPECT_REPR("repr TestUnregisteredObject", &obj, "testing.TestUnregisteredObject(v1=41, v2=42)");
  any_release(&obj);
  rc = T("make_visit_region_graph", &obj, any_bool(1));
  if (EXPECT_OK("repr: make_visit_region_graph", rc))
    EXPECT_REPR("repr TestVisitHook", &obj,
                "testing.TestVisitHook(child=testing.TestVisitRegions(simple=1, pattern=2, ordinary=3))");
  any_release(&obj);
  rc = T("enum_variant_get", &obj, pstr(&p, "Beta"));
  if (EXPECT_OK("repr: enum", rc)) EXPECT_REPR("repr TestEnumVariant", &obj, "testing.TestEnumVariant.Beta");
  any_release(&obj);
  rc = NEW("testing.TestCxxInitSubset", &obj, any_int(5));
  if (EXPECT_OK("repr: TestCxxInitSubset", rc))
    EXPECT_REPR("repr TestCxxInitSubset", &obj,
                "testing.TestCxxInitSubset(required_field=5, optional_field=-1, note=\"default\")");
  any_release(&obj);
  void* make_with = find_method(type_index_of("testing.SchemaAllTypes"), "make_with");
  if (make_with) {
    rc = F(make_with, &obj, any_int(7), any_float(0.5), pstr(&p, "made"));
    if (EXPECT_OK("repr: SchemaAllTypes", rc))
      EXPECT_REPR("repr SchemaAllTypes", &obj,
                "testing.SchemaAllTypes(v_bool=True, v_int=7, v_float=0.5, v_device=cpu:0, v_dtype=float32, "
                "v_string=\"made\", v_bytes=b\"\", v_opt_int=None, v_opt_str=None, v_arr_int=(), v_arr_str=(), "
                "v_map_str_int={}, v_map_str_arr_int={}, v_variant=\"v\", v_opt_arr_variant=None)");
    any_release(&obj);
  }
  EXPECT_REPR("repr KWARGS sentinel", &g_kwargs, "<KWARGS>");

  /* float formatting (std::ostream defaults) and string escaping */
  TVMFFIAny floats = pool_add(&p, BUILD("ffi.Array", any_float(1.234567891), any_float(1e20), any_float(1e-7),
                                        any_float(-0.0), any_float(1.0 / 0.0), any_float(-1.0 / 0.0),
                                        any_float(100000.0), any_float(1234567.0), any_float(0.1)));
  TVMFFIAny odd = pstr(&p, "q\"b\\s\nn\tt\rr\x01_\x7f \xc3\xa9 \x1b[31mred\x1b[0m end");
  TVMFFIAny bytes = pool_add(&p, make_bytes("a\"\\\x00\xff\n", 6));
  rc = NEW("testing.TestDeepCopyEdges", &obj, floats, odd);
  if (EXPECT_OK("repr: TestDeepCopyEdges", rc))
    EXPECT_REPR("repr floats and an escaped string", &obj,
                "testing.TestDeepCopyEdges(v_any=(1.23457, 1e+20, 1e-07, -0, inf, -inf, 100000, 1.23457e+06, "
                "0.1), v_obj=\"q\\\"b\\\\s\\nn\\tt\\rr\\x01_\\x7f \\u00e9 \\x1b[31mred\\x1b[0m end\")");
  any_release(&obj);
  rc = NEW("testing.TestDeepCopyEdges", &obj, bytes, pool_add(&p, BUILD("ffi.Shape", any_int(2), any_int(0))));
  if (EXPECT_OK("repr: TestDeepCopyEdges(bytes, shape)", rc))
    EXPECT_REPR("repr bytes and a shape", &obj,
                "testing.TestDeepCopyEdges(v_any=b\"a\\x22\\x5c\\x00\\xff\\x0a\", v_obj=Shape(2, 0))");
  any_release(&obj);
  rc = T("echo", &obj, any_float(2.5e-10));
  if (EXPECT_OK("repr: float", rc)) EXPECT_REPR("repr float", &obj, "2.5e-10");
  any_release(&obj);
  TVMFFIAny pod = any_device(kDLCUDA, 1);
  EXPECT_REPR("repr device", &pod, "cuda:1");
  pod = any_dtype(kDLBfloat, 16, 1);
  EXPECT_REPR("repr dtype", &pod, "bfloat16");
  pod = any_bool(0);
  EXPECT_REPR("repr bool", &pod, "False");
  pod = any_none();
  EXPECT_REPR("repr None", &pod, "None");

  /* containers built by C++ (and a tensor) */
  static DLManagedTensor mt;
  static float data[6];
  static int64_t shape[2] = {3, 2};
  memset(&mt, 0, sizeof mt);
  mt.dl_tensor.data = data;
  mt.dl_tensor.device.device_type = kDLCPU;
  mt.dl_tensor.ndim = 2;
  mt.dl_tensor.dtype.code = kDLInt;
  mt.dl_tensor.dtype.bits = 16;
  mt.dl_tensor.dtype.lanes = 1;
  mt.dl_tensor.shape = shape;
  void* t = NULL;
  if (EXPECT_OK("repr: tensor", TVMFFITensorFromDLPack(&mt, 0, 0, &t))) {
    TVMFFIAny ta = any_obj(t);
    rc = T("make_nested_map_with_tensor", &obj, ta, ta);
    if (EXPECT_OK("repr: make_nested_map_with_tensor", rc))
      EXPECT_REPR("repr C++ nested map", &obj,
                  "{\"array\": (int16[3, 2]@cpu:0, int16[3, 2]@cpu:0), \"map\": {\"t\": int16[3, 2]@cpu:0}, "
                  "\"scalar\": 99}");
    any_release(&obj);
    rc = T("make_list_with_tensor", &obj, ta, any_int(3));
    if (EXPECT_OK("repr: make_list_with_tensor", rc))
      EXPECT_REPR("repr C++ list", &obj, "[int16[3, 2]@cpu:0, 3]");
    any_release(&obj);
    rc = T("make_dict_with_tensor", &obj, ta);
    if (EXPECT_OK("repr: make_dict_with_tensor", rc))
      EXPECT_REPR("repr C++ dict", &obj, "{\"tensor\": int16[3, 2]@cpu:0, \"value\": 42}");
    any_release(&obj);
    rc = T("make_array_with_mixed", &obj, ta, any_int(-2));
    if (EXPECT_OK("repr: make_array_with_mixed", rc))
      EXPECT_REPR("repr C++ array", &obj, "(int16[3, 2]@cpu:0, -2, \"hello\")");
    any_release(&obj);
    TVMFFIObjectDecRef(t);
  }
  TVMFFIAny one = pool_add(&p, BUILD("ffi.Array", any_int(1)));
  EXPECT_REPR("repr one-element array", &one, "(1,)");

  /* shared and cyclic references */
  TVMFFIAny pair;
  rc = NEW("testing.TestIntPair", &pair, any_int(1), any_int(2));
  if (EXPECT_OK("repr: pair", rc)) {
    TVMFFIAny dag = pool_add(&p, BUILD("ffi.Array", pair, pair));
    EXPECT_REPR("repr shared object", &dag, "(testing.TestIntPair(a=1, b=2), testing.TestIntPair(a=1, b=2))");
  }
  any_release(&pair);
  TVMFFIAny empty_map = pool_add(&p, BUILD("ffi.Map"));
  TVMFFIAny empty_arr = pool_add(&p, BUILD("ffi.Array"));
  rc = NEW("testing.TestObjectDerived", &obj, empty_map, empty_arr);
  if (EXPECT_OK("repr: cycle", rc)) {
    TVMFFIAny loop = BUILD("ffi.Array", obj);
    EXPECT_OK("cycle: v_array = [self]", set_field(&obj, "v_array", loop));
    any_release(&loop);
    EXPECT_REPR("repr cycle", &obj,
                "testing.TestObjectDerived(v_i64=10, v_f64=10, v_str=\"hello\", v_map={}, v_array=(...,))");
    /* break the cycle so that everything is freed */
    EXPECT_OK("cycle: v_array = []", set_field(&obj, "v_array", empty_arr));
  }
  any_release(&obj);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */
/* 10. the library as a module, and the system library                                         */
/* ------------------------------------------------------------------------------------------ */

static void test_modules(const char* path) {
  TVMFFIAny mod, rv;
  Pool p = {0};
  int rc = G("ffi.ModuleLoadFromFile", &mod, pstr(&p, path));
  if (!EXPECT_OK("ffi.ModuleLoadFromFile(testing lib)", rc)) {
    pool_release(&p);
    return;
  }
  CHECK(mod.type_index == kTVMFFIModule, "module type", "type=%d", mod.type_index);
  rc = G("ffi.ModuleGetKind", &rv, mod);
  EXPECT_VALUE_REL("ffi.ModuleGetKind", rc, &rv, "\"library\"");
  rc = G("ffi.ModuleGetPropertyMask", &rv, mod);
  EXPECT_VALUE_REL("ffi.ModuleGetPropertyMask", rc, &rv, "3");
  rc = G("ffi.ModuleImplementsFunction", &rv, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleImplementsFunction(testing_dll_schema_id_int)", rc, &rv, "True");
  rc = G("ffi.ModuleImplementsFunction", &rv, mod, pstr(&p, "no_such_function"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleImplementsFunction(no_such_function)", rc, &rv, "False");
  rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "no_such_function"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleGetFunction(no_such_function)", rc, &rv, "None");
  rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "no_such_function"), any_bool(1));
  EXPECT_VALUE_REL("ffi.ModuleGetFunction(no_such_function, query_imports)", rc, &rv, "None");
  rc = G("ffi.ModuleGetWriteFormats", &rv, mod);
  EXPECT_VALUE_REL("ffi.ModuleGetWriteFormats", rc, &rv, "Array[]");
  rc = G("ffi.ModuleInspectSource", &rv, mod, pstr(&p, ""));
  EXPECT_VALUE_REL("ffi.ModuleInspectSource", rc, &rv, "\"\"");
  rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(1));
  EXPECT_VALUE_REL("ffi.ModuleGetFunction(testing_dll_schema_id_int, query_imports)", rc, &rv, "Function");
  rc = G("ffi.ReprPrint", &rv, mod);
  EXPECT_VALUE_REL("ffi.ReprPrint(module)", rc, &rv, NULL);
  rc = G("ffi.ModuleGetFunction", &rv, mod, any_int(1), any_bool(0));
  EXPECT_ERROR("ffi.ModuleGetFunction(mod, 1)", rc, &rv, "TypeError", NULL);
  rc = G("ffi.ModuleLoadFromFile", &rv, pstr(&p, "/nonexistent/libnothing.so"));
  EXPECT_ERROR_KIND("ffi.ModuleLoadFromFile(missing file)", rc, &rv, "InternalError");

  TVMFFIAny id_int;
  rc = G("ffi.ModuleGetFunction", &id_int, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(0));
  if (EXPECT_VALUE("ffi.ModuleGetFunction(testing_dll_schema_id_int)", rc, &id_int, "Function")) {
    rc = F(id_int.v_obj, &rv, any_int(41));
    EXPECT_VALUE_REL("testing_dll_schema_id_int(41)", rc, &rv, "41");
    rc = F(id_int.v_obj, &rv, pstr(&p, "x"));
    EXPECT_ERROR("testing_dll_schema_id_int(str)", rc, &rv, "TypeError", NULL);
  }
  rc = G("ffi.ModuleGetFunctionMetadata", &rv, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(0));
  /* the metadata JSON; its type_schema value is itself JSON encoded as a string */
  static const char id_int_metadata[] =
      "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{\\\"return\\\":"
      "[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":\\\"int\\\"}]}}\"}";
  EXPECT_VALUE_REL("ffi.ModuleGetFunctionMetadata(testing_dll_schema_id_int)", rc, &rv,
                   quote_n(id_int_metadata, strlen(id_int_metadata)));
  rc = G("ffi.ModuleGetFunctionDoc", &rv, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleGetFunctionDoc(testing_dll_schema_id_int)", rc, &rv, "None");
  rc = G("ffi.ModuleGetFunctionDoc", &rv, mod, pstr(&p, "testing_dll_test_add_with_docstring"), any_bool(0));
  if (EXPECT_OK("ffi.ModuleGetFunctionDoc(testing_dll_test_add_with_docstring)", rc)) {
    TVMFFIByteArray doc = any_bytes(&rv);
    CHECK(doc.size > 36 && memcmp(doc.data, "Add two integers and return the sum.", 36) == 0,
          "ffi.ModuleGetFunctionDoc(testing_dll_test_add_with_docstring)", "%s", describe(&rv));
  }
  any_release(&rv);
  rc = G("ffi.ModuleGetFunctionMetadata", &rv, mod, pstr(&p, "no_such_function"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleGetFunctionMetadata(no_such_function)", rc, &rv, "None");
  /* imports: the system library imported into the DSO module */
  TVMFFIAny sysmod;
  rc = G("ffi.SystemLib", &sysmod, pstr(&p, "testing."));
  if (EXPECT_OK("ffi.SystemLib for import", rc)) {
    rc = G("ffi.ModuleImportModule", &rv, mod, sysmod);
    EXPECT_VALUE_REL("ffi.ModuleImportModule(dso, system lib)", rc, &rv, "None");
    rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "add_one"), any_bool(0));
    EXPECT_VALUE_REL("ffi.ModuleGetFunction(dso, add_one, no imports)", rc, &rv, "None");
    rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "add_one"), any_bool(1));
    if (EXPECT_VALUE("ffi.ModuleGetFunction(dso, add_one, query_imports)", rc, &rv, "Function")) {
      TVMFFIAny r2;
      int rc2 = F(rv.v_obj, &r2, any_int(-1));
      EXPECT_VALUE_REL("imported add_one(-1)", rc2, &r2, "0");
    }
    any_release(&rv);
    rc = G("ffi.ModuleImplementsFunction", &rv, mod, pstr(&p, "add_one"), any_bool(1));
    EXPECT_VALUE_REL("ffi.ModuleImplementsFunction(dso, add_one, query_imports)", rc, &rv, NULL);
    rc = G("ffi.ReprPrint", &rv, mod);
    EXPECT_VALUE_REL("ffi.ReprPrint(module with an import)", rc, &rv, NULL);
    rc = G("ffi.ModuleClearImports", &rv, mod);
    EXPECT_VALUE_REL("ffi.ModuleClearImports(dso)", rc, &rv, "None");
    rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "add_one"), any_bool(1));
    EXPECT_VALUE_REL("ffi.ModuleGetFunction(dso, add_one, query_imports) after clear", rc, &rv, "None");
  }
  any_release(&sysmod);

  TVMFFIAny add;
  rc = G("ffi.ModuleGetFunction", &add, mod, pstr(&p, "testing_dll_test_add_with_docstring"), any_bool(0));
  /* the function keeps the module alive */
  any_release(&mod);
  if (EXPECT_OK("ffi.ModuleGetFunction(testing_dll_test_add_with_docstring)", rc)) {
    rc = F(add.v_obj, &rv, any_int(2), any_int(40));
    EXPECT_VALUE_REL("testing_dll_test_add_with_docstring(2, 40) after the module handle is released", rc, &rv, "42");
  }
  any_release(&add);
  any_release(&id_int);

  /* the system library: the symbol __tvm_ffi_testing.add_one registered at load time */
  TVMFFIAny sys, sys2;
  rc = G("ffi.SystemLib", &sys, pstr(&p, "testing."));
  if (EXPECT_OK("ffi.SystemLib(\"testing.\")", rc)) {
    rc = G("ffi.ModuleGetFunction", &rv, sys, pstr(&p, "add_one"), any_bool(0));
    if (EXPECT_VALUE("SystemLib(testing.).add_one", rc, &rv, "Function")) {
      TVMFFIAny r2;
      int rc2 = F(rv.v_obj, &r2, any_int(10));
      EXPECT_VALUE_REL("SystemLib(testing.).add_one(10)", rc2, &r2, "11");
    }
    any_release(&rv);
    rc = G("ffi.SystemLib", &sys2, pstr(&p, "testing."));
    CHECK(rc == 0 && sys2.v_obj == sys.v_obj, "ffi.SystemLib(\"testing.\") is a singleton", "rc=%d %s", rc,
          same(sys2.v_obj, sys.v_obj));
    any_release(&sys2);
    rc = G("ffi.ModuleGetKind", &rv, sys);
    EXPECT_VALUE_REL("ffi.ModuleGetKind(system lib)", rc, &rv, "\"library\"");
    rc = G("ffi.ModuleGetFunction", &rv, sys, pstr(&p, "missing"), any_bool(0));
    EXPECT_VALUE_REL("SystemLib(testing.).missing", rc, &rv, "None");
    rc = G("ffi.ModuleImplementsFunction", &rv, sys, pstr(&p, "add_one"), any_bool(0));
    EXPECT_VALUE_REL("ffi.ModuleImplementsFunction(system lib, add_one)", rc, &rv, "True");
    rc = G("ffi.ModuleGetPropertyMask", &rv, sys);
    EXPECT_VALUE_REL("ffi.ModuleGetPropertyMask(system lib)", rc, &rv, NULL);
  }
  any_release(&sys);
  rc = G0("ffi.SystemLib", &sys);
  if (EXPECT_OK("ffi.SystemLib()", rc)) {
    rc = G("ffi.ModuleGetFunction", &rv, sys, pstr(&p, "testing.add_one"), any_bool(0));
    if (EXPECT_VALUE("SystemLib().testing.add_one", rc, &rv, "Function")) {
      TVMFFIAny r2;
      int rc2 = F(rv.v_obj, &r2, any_int(1));
      EXPECT_VALUE_REL("SystemLib().testing.add_one(1)", rc2, &r2, "2");
    }
    any_release(&rv);
  }
  any_release(&sys);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */

/* ffihub's runtime counts the objects it allocated and has not freed yet
   (`ffihub.LiveObjectCount`); Apache's runtime has no such global. */
static void* g_live_fn = NULL;

static int64_t live_objects(void) {
  if (g_live_fn == NULL) return 0;
  TVMFFIAny rv;
  int rc = call_fn(g_live_fn, NULL, 0, &rv);
  if (rc != 0 || rv.type_index != kTVMFFIInt) {
    void* err = take_raised();
    if (err) TVMFFIObjectDecRef(err);
    any_release(&rv);
    return -1000000;
  }
  return rv.v_int64;
}

/* Runs one section and checks that it released every runtime-allocated object it created
   (same transcript line on both runtimes; the numbers go to stderr). */
static void run_section(const char* name, void (*fn)(void)) {
  int64_t before = live_objects();
  fn();
  int64_t after = live_objects();
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
  g_live_fn = get_global("ffihub.LiveObjectCount");
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
