/*
 * Behaviour transcript of the sequence and shape globals (ffi.Array*, ffi.List*, ffi.Shape,
 * ffi.ContainerFindFirstNonCPUDevice) and of their type_schema metadata.
 *
 * The program calls each global through the C ABI only and prints one line per call: the call,
 * then either "-> <result>" or "!! <ErrorKind>: <message>". Containers are printed by reading
 * their TVMFFISeqCell / TVMFFIShapeCell directly (size, capacity and elements), so the
 * transcript also pins down layouts and growth policy. Pointers never appear verbatim.
 *
 * The same binary runs against Apache's libtvm_ffi.so and against ffihub's (selected with
 * LD_LIBRARY_PATH); runtime/tests/seq_globals.rs requires identical transcripts.
 */
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

/* ------------------------------------------------------------------------------------------ */
/* Values                                                                                      */
/* ------------------------------------------------------------------------------------------ */

static TVMFFIAny v_none(void) {
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  v.type_index = kTVMFFINone;
  return v;
}

static TVMFFIAny v_int(int64_t x) {
  TVMFFIAny v = v_none();
  v.type_index = kTVMFFIInt;
  v.v_int64 = x;
  return v;
}

static TVMFFIAny v_bool(int x) {
  TVMFFIAny v = v_none();
  v.type_index = kTVMFFIBool;
  v.v_int64 = x ? 1 : 0;
  return v;
}

static TVMFFIAny v_float(double x) {
  TVMFFIAny v = v_none();
  v.type_index = kTVMFFIFloat;
  v.v_float64 = x;
  return v;
}

/* A raw C string argument (converted to String/SmallStr by the callee). */
static TVMFFIAny v_cstr(const char* s) {
  TVMFFIAny v = v_none();
  v.type_index = kTVMFFIRawStr;
  v.v_c_str = s;
  return v;
}

static TVMFFIAny v_device(int type, int id) {
  TVMFFIAny v = v_none();
  v.type_index = kTVMFFIDevice;
  v.v_device.device_type = (DLDeviceType)type;
  v.v_device.device_id = id;
  return v;
}

static int is_obj(const TVMFFIAny* v) { return v->type_index >= kTVMFFIStaticObjectBegin; }

static void release(TVMFFIAny* v) {
  if (is_obj(v)) TVMFFIObjectDecRef(v->v_obj);
  *v = v_none();
}

static TVMFFISeqCell* seq_cell(const TVMFFIAny* v) {
  return (TVMFFISeqCell*)((char*)v->v_obj + sizeof(TVMFFIObject));
}

static TVMFFIShapeCell* shape_cell(const TVMFFIAny* v) {
  return (TVMFFIShapeCell*)((char*)v->v_obj + sizeof(TVMFFIObject));
}

static uint32_t strong_count(const TVMFFIAny* v) {
  return (uint32_t)(v->v_obj->combined_ref_count & 0xFFFFFFFFu);
}

/* Appends a description of `v` to `out`. */
static void describe(const TVMFFIAny* v, char* out, size_t cap) {
  size_t n = strlen(out);
  char* p = out + n;
  size_t room = cap - n;
  switch (v->type_index) {
    case kTVMFFINone:
      snprintf(p, room, "None");
      return;
    case kTVMFFIInt:
      snprintf(p, room, "%lld", (long long)v->v_int64);
      return;
    case kTVMFFIBool:
      snprintf(p, room, "%s", v->v_int64 ? "True" : "False");
      return;
    case kTVMFFIFloat:
      snprintf(p, room, "%g", v->v_float64);
      return;
    case kTVMFFIDevice:
      snprintf(p, room, "Device(%d,%d)", (int)v->v_device.device_type, v->v_device.device_id);
      return;
    case kTVMFFISmallStr:
      snprintf(p, room, "s'%.*s'", (int)v->small_str_len, v->v_bytes);
      return;
    case kTVMFFIStr: {
      TVMFFIByteArray* b = (TVMFFIByteArray*)((char*)v->v_obj + sizeof(TVMFFIObject));
      snprintf(p, room, "S'%.*s'", (int)b->size, b->data);
      return;
    }
    case kTVMFFIShape: {
      TVMFFIShapeCell* c = shape_cell(v);
      int inline_data = (const char*)c->data == (const char*)v->v_obj + 40;
      snprintf(p, room, "Shape%s(", inline_data ? "" : "[not inline]");
      for (size_t i = 0; i < c->size; ++i) {
        n = strlen(out);
        snprintf(out + n, cap - n, "%s%lld", i ? "," : "", (long long)c->data[i]);
      }
      n = strlen(out);
      snprintf(out + n, cap - n, ")");
      return;
    }
    case kTVMFFIArray:
    case kTVMFFIList: {
      TVMFFISeqCell* c = seq_cell(v);
      const char* layout;
      if (v->type_index == kTVMFFIArray) {
        layout = ((char*)c->data == (char*)v->v_obj + 56 && c->data_deleter == NULL)
                     ? ""
                     : "[array layout broken]";
      } else {
        layout = (c->data_deleter != NULL && (c->capacity == 0 || (char*)c->data != (char*)v->v_obj + 56))
                     ? ""
                     : "[list layout broken]";
      }
      snprintf(p, room, "%s%s{cap=%lld}[", v->type_index == kTVMFFIArray ? "Array" : "List", layout,
               (long long)c->capacity);
      for (int64_t i = 0; i < c->size; ++i) {
        n = strlen(out);
        if (i) snprintf(out + n, cap - n, ", ");
        describe((TVMFFIAny*)c->data + i, out, cap);
      }
      n = strlen(out);
      snprintf(out + n, cap - n, "]");
      return;
    }
    default:
      snprintf(p, room, "<type %d>", v->type_index);
      return;
  }
}

static const char* show(const TVMFFIAny* v) {
  static char bufs[4][8192];
  static int next = 0;
  char* out = bufs[next++ % 4];
  out[0] = 0;
  describe(v, out, 8192);
  return out;
}

/* ------------------------------------------------------------------------------------------ */
/* Calls                                                                                       */
/* ------------------------------------------------------------------------------------------ */

static TVMFFIObjectHandle global(const char* name) {
  TVMFFIByteArray n = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0 || f == NULL) {
    printf("missing global %s\n", name);
    fflush(stdout);
    exit(2);
  }
  return f;
}

static void print_raised(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL) {
    printf("!! <no error raised>\n");
    return;
  }
  TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
  printf("!! %.*s: %.*s\n", (int)cell->kind.size, cell->kind.data, (int)cell->message.size,
         cell->message.data);
  TVMFFIObjectDecRef(err);
}

/* Calls `name` with `n` arguments; prints the line; returns the owned result (None on error). */
static TVMFFIAny call(const char* label, const char* name, int n, TVMFFIAny* args) {
  TVMFFIObjectHandle f = global(name);
  TVMFFIAny rv = v_none();
  printf("%s: %s(", label, name);
  for (int i = 0; i < n; ++i) printf("%s%s", i ? ", " : "", show(&args[i]));
  printf(") ");
  int rc = TVMFFIFunctionCall(f, args, n, &rv);
  if (rc == 0) {
    printf("-> %s\n", show(&rv));
  } else {
    print_raised();
    rv = v_none();
  }
  TVMFFIObjectDecRef(f);
  fflush(stdout);
  return rv;
}

#define ARGS(...) ((TVMFFIAny[]){__VA_ARGS__})
#define NARGS(...) ((int)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny)))
/* CALL(label, name, args...) / CALL0(label, name) */
#define CALL(label, name, ...) call(label, name, NARGS(__VA_ARGS__), ARGS(__VA_ARGS__))
#define CALL0(label, name) call(label, name, 0, NULL)
/* Calls and releases the result. */
#define DO(label, name, ...)                              \
  do {                                                    \
    TVMFFIAny _r = CALL(label, name, __VA_ARGS__);        \
    release(&_r);                                         \
  } while (0)

/* ------------------------------------------------------------------------------------------ */
/* A minimal Tensor-shaped object (type index 70, DLTensor at +24) built by hand               */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  TVMFFIObject header;
  DLTensor tensor;
  int64_t shape[1];
  int64_t strides[1];
} FakeTensor;

static int g_fake_tensors_alive = 0;

static void fake_tensor_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    free(self);
    --g_fake_tensors_alive;
  }
}

static TVMFFIAny fake_tensor(int device_type, int device_id) {
  FakeTensor* t = (FakeTensor*)calloc(1, sizeof(FakeTensor));
  t->header.combined_ref_count = ((uint64_t)1 << 32) | 1;
  t->header.type_index = kTVMFFITensor;
  t->header.deleter = fake_tensor_deleter;
  t->tensor.data = NULL;
  t->tensor.device.device_type = (DLDeviceType)device_type;
  t->tensor.device.device_id = device_id;
  t->tensor.ndim = 1;
  t->tensor.dtype.code = kDLFloat;
  t->tensor.dtype.bits = 32;
  t->tensor.dtype.lanes = 1;
  t->shape[0] = 0;
  t->strides[0] = 1;
  t->tensor.shape = t->shape;
  t->tensor.strides = t->strides;
  ++g_fake_tensors_alive;
  TVMFFIAny v = v_none();
  v.type_index = kTVMFFITensor;
  v.v_obj = &t->header;
  return v;
}

/* ------------------------------------------------------------------------------------------ */
/* Sections                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static const char* const kNames[] = {
    "ffi.Array",        "ffi.ArrayGetItem", "ffi.ArraySize",         "ffi.ArrayContains",
    "ffi.List",         "ffi.ListAppend",   "ffi.ListClear",         "ffi.ListContains",
    "ffi.ListErase",    "ffi.ListEraseRange", "ffi.ListGetItem",     "ffi.ListInsert",
    "ffi.ListPop",      "ffi.ListReplaceSlice", "ffi.ListReserve",   "ffi.ListReverse",
    "ffi.ListSetItem",  "ffi.ListSize",     "ffi.Shape",             "ffi.ContainerFindFirstNonCPUDevice",
};

static void metadata(void) {
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
    TVMFFIAny r = CALL("metadata", "ffi.GetGlobalFuncMetadata", v_cstr(kNames[i]));
    release(&r);
  }
}

static void arrays(void) {
  TVMFFIAny empty = CALL0("array", "ffi.Array");
  DO("array", "ffi.ArraySize", empty);
  DO("array", "ffi.ArrayGetItem", empty, v_int(0));
  TVMFFIAny a = CALL("array", "ffi.Array", v_int(1), v_cstr("abc"), v_cstr("a long string here"),
                     v_none(), v_float(2.5), v_bool(1), v_device(2, 1));
  DO("array", "ffi.ArraySize", a);
  for (int i = -1; i <= 7; ++i) DO("array", "ffi.ArrayGetItem", a, v_int(i));
  DO("array", "ffi.ArrayGetItem", a, v_bool(1));
  DO("array", "ffi.ArrayGetItem", a, v_float(1.0));
  DO("array", "ffi.ArrayGetItem", a, v_cstr("0"));
  DO("array", "ffi.ArrayGetItem", a);
  DO("array", "ffi.ArrayGetItem", a, v_int(0), v_int(0));
  DO("array", "ffi.ArraySize", v_none());
  DO("array", "ffi.ArraySize", v_int(3));
  /* contains: AnyEqual semantics */
  DO("contains", "ffi.ArrayContains", a, v_int(1));
  DO("contains", "ffi.ArrayContains", a, v_bool(1));
  DO("contains", "ffi.ArrayContains", a, v_int(2));
  DO("contains", "ffi.ArrayContains", a, v_float(1.0));
  DO("contains", "ffi.ArrayContains", a, v_float(2.5));
  DO("contains", "ffi.ArrayContains", a, v_cstr("abc"));
  DO("contains", "ffi.ArrayContains", a, v_cstr("ab"));
  DO("contains", "ffi.ArrayContains", a, v_cstr("a long string here"));
  DO("contains", "ffi.ArrayContains", a, v_cstr("a long string HERE"));
  DO("contains", "ffi.ArrayContains", a, v_none());
  DO("contains", "ffi.ArrayContains", a, v_device(2, 1));
  DO("contains", "ffi.ArrayContains", a, v_device(2, 0));
  DO("contains", "ffi.ArrayContains", empty, v_none());
  {
    /* heap string element vs small string argument and the other way round */
    TVMFFIAny s = v_none();
    TVMFFIByteArray short_bytes = {"xyz", 3};
    TVMFFIStringFromByteArray(&short_bytes, &s);
    TVMFFIAny b = CALL("contains", "ffi.Array", s);
    DO("contains", "ffi.ArrayContains", b, v_cstr("xyz"));
    release(&b);
    release(&s);
  }
  {
    /* objects compare by address */
    TVMFFIAny inner = CALL("nested", "ffi.Array", v_int(1));
    TVMFFIAny inner2 = CALL("nested", "ffi.Array", v_int(1));
    TVMFFIAny outer = CALL("nested", "ffi.Array", inner, a, empty);
    DO("nested", "ffi.ArrayContains", outer, inner);
    DO("nested", "ffi.ArrayContains", outer, inner2);
    printf("nested: refcount of inner while held by outer = %u\n", strong_count(&inner));
    release(&outer);
    printf("nested: refcount of inner after outer released = %u\n", strong_count(&inner));
    release(&inner);
    release(&inner2);
  }
  /* type checks between Array and List */
  TVMFFIAny l = CALL("cross", "ffi.List", v_int(1), v_int(2));
  DO("cross", "ffi.ArraySize", l);
  DO("cross", "ffi.ArrayGetItem", l, v_int(0));
  DO("cross", "ffi.ArrayContains", l, v_int(1));
  DO("cross", "ffi.ListSize", a);
  DO("cross", "ffi.ListGetItem", a, v_int(0));
  DO("cross", "ffi.ListContains", a, v_int(1));
  DO("cross", "ffi.ListAppend", a, v_int(9));
  DO("cross", "ffi.ListPop", a, v_int(0));
  DO("cross", "ffi.ListClear", a);
  DO("cross", "ffi.ListReverse", a);
  DO("cross", "ffi.ListSetItem", a, v_int(0), v_int(5));
  DO("cross", "ffi.ListErase", a, v_int(0));
  DO("cross", "ffi.ListInsert", a, v_int(0), v_int(5));
  DO("cross", "ffi.ListEraseRange", a, v_int(0), v_int(1));
  DO("cross", "ffi.ListReserve", a, v_int(50));
  DO("cross", "ffi.ListReplaceSlice", a, v_int(0), v_int(1), l);
  DO("cross", "ffi.ArraySize", a);
  printf("cross: array after list calls = %s\n", show(&a));
  DO("cross", "ffi.ListAppend", v_none(), v_int(1));
  DO("cross", "ffi.ListSize", v_none());
  DO("cross", "ffi.ListAppend", v_int(1), v_int(1));
  release(&l);
  release(&a);
  release(&empty);
}

static void lists(void) {
  TVMFFIAny e = CALL0("list", "ffi.List");
  DO("list", "ffi.ListSize", e);
  DO("list", "ffi.ListPop", e, v_int(0));
  DO("list", "ffi.ListErase", e, v_int(0));
  DO("list", "ffi.ListEraseRange", e, v_int(0), v_int(0));
  DO("list", "ffi.ListEraseRange", e, v_int(0), v_int(1));
  DO("list", "ffi.ListReverse", e);
  DO("list", "ffi.ListClear", e);
  DO("list", "ffi.ListInsert", e, v_int(0), v_cstr("first"));
  printf("list: %s\n", show(&e));
  release(&e);

  TVMFFIAny l = CALL("list", "ffi.List", v_int(1), v_int(2), v_int(3));
  for (int i = 4; i <= 10; ++i) {
    DO("append", "ffi.ListAppend", l, v_int(i));
    printf("append: %s\n", show(&l));
  }
  DO("list", "ffi.ListSize", l);
  for (int i = -1; i <= 10; i += 11) DO("list", "ffi.ListGetItem", l, v_int(i));
  DO("list", "ffi.ListGetItem", l, v_int(9));
  DO("list", "ffi.ListGetItem", l, v_bool(0));
  DO("set", "ffi.ListSetItem", l, v_int(0), v_cstr("zero"));
  DO("set", "ffi.ListSetItem", l, v_int(9), v_float(9.5));
  DO("set", "ffi.ListSetItem", l, v_int(10), v_int(0));
  DO("set", "ffi.ListSetItem", l, v_int(-1), v_int(0));
  printf("set: %s\n", show(&l));
  DO("insert", "ffi.ListInsert", l, v_int(0), v_cstr("head"));
  printf("insert: %s\n", show(&l));
  DO("insert", "ffi.ListInsert", l, v_int(11), v_cstr("tail"));
  DO("insert", "ffi.ListInsert", l, v_int(5), v_none());
  printf("insert: %s\n", show(&l));
  DO("insert", "ffi.ListInsert", l, v_int(14), v_int(0));
  DO("insert", "ffi.ListInsert", l, v_int(-1), v_int(0));
  printf("insert: %s\n", show(&l));
  DO("pop", "ffi.ListPop", l, v_int(0));
  DO("pop", "ffi.ListPop", l, v_int(11));
  DO("pop", "ffi.ListPop", l, v_int(11));
  DO("pop", "ffi.ListPop", l, v_int(-1));
  printf("pop: %s\n", show(&l));
  DO("erase", "ffi.ListErase", l, v_int(4));
  DO("erase", "ffi.ListErase", l, v_int(10));
  DO("erase", "ffi.ListErase", l, v_int(-1));
  printf("erase: %s\n", show(&l));
  DO("range", "ffi.ListEraseRange", l, v_int(1), v_int(3));
  printf("range: %s\n", show(&l));
  DO("range", "ffi.ListEraseRange", l, v_int(2), v_int(2));
  DO("range", "ffi.ListEraseRange", l, v_int(20), v_int(20));
  DO("range", "ffi.ListEraseRange", l, v_int(-3), v_int(-3));
  DO("range", "ffi.ListEraseRange", l, v_int(3), v_int(1));
  DO("range", "ffi.ListEraseRange", l, v_int(-1), v_int(2));
  DO("range", "ffi.ListEraseRange", l, v_int(0), v_int(100));
  printf("range: %s\n", show(&l));
  {
    TVMFFIAny r = CALL("replace", "ffi.List", v_cstr("a"), v_cstr("b"), v_cstr("c"));
    TVMFFIAny er = CALL0("replace", "ffi.List");
    TVMFFIAny ar = CALL("replace", "ffi.Array", v_int(7), v_int(8));
    DO("replace", "ffi.ListReplaceSlice", l, v_int(0), v_int(2), r);
    printf("replace: %s\n", show(&l));
    DO("replace", "ffi.ListReplaceSlice", l, v_int(1), v_int(2), er);
    printf("replace: %s\n", show(&l));
    DO("replace", "ffi.ListReplaceSlice", l, v_int(1), v_int(1), ar);
    printf("replace: %s\n", show(&l));
    DO("replace", "ffi.ListReplaceSlice", l, v_int(0), v_int(1), l);
    printf("replace: %s\n", show(&l));
    DO("replace", "ffi.ListReplaceSlice", l, v_int(100), v_int(100), r);
    printf("replace: %s\n", show(&l));
    DO("replace", "ffi.ListReplaceSlice", l, v_int(100), v_int(100), er);
    DO("replace", "ffi.ListReplaceSlice", l, v_int(2), v_int(1), r);
    DO("replace", "ffi.ListReplaceSlice", l, v_int(0), v_int(100), r);
    DO("replace", "ffi.ListReplaceSlice", l, v_int(0), v_int(1), v_none());
    DO("replace", "ffi.ListReplaceSlice", l, v_int(0), v_int(1), v_int(3));
    printf("replace: %s\n", show(&l));
    release(&r);
    release(&er);
    release(&ar);
  }
  DO("reverse", "ffi.ListReverse", l);
  printf("reverse: %s\n", show(&l));
  DO("contains", "ffi.ListContains", l, v_cstr("a"));
  DO("contains", "ffi.ListContains", l, v_cstr("zz"));
  DO("contains", "ffi.ListContains", l, v_int(7));
  DO("reserve", "ffi.ListReserve", l, v_int(3));
  printf("reserve: %s\n", show(&l));
  DO("reserve", "ffi.ListReserve", l, v_int(100));
  printf("reserve: %s\n", show(&l));
  DO("reserve", "ffi.ListReserve", l, v_int(-5));
  printf("reserve: %s\n", show(&l));
  /* more than memory holds: an error, the list unchanged (2^61 elements is left out: 16 * 2^61
     wraps around in Apache's size computation) */
  DO("reserve", "ffi.ListReserve", l, v_int((int64_t)1 << 40));
  DO("reserve", "ffi.ListReserve", l, v_int(INT64_MAX));
  printf("reserve: %s\n", show(&l));
  DO("clear", "ffi.ListClear", l);
  printf("clear: %s\n", show(&l));
  DO("clear", "ffi.ListAppend", l, v_int(1));
  printf("clear: %s\n", show(&l));
  {
    /* growth from a zero-capacity list: ffi.ListReserve(0) keeps capacity */
    TVMFFIAny big = CALL("grow", "ffi.List", v_int(1), v_int(2), v_int(3), v_int(4), v_int(5));
    printf("grow: %s\n", show(&big));
    DO("grow", "ffi.ListAppend", big, v_int(6));
    printf("grow: %s\n", show(&big));
    DO("grow", "ffi.ListInsert", big, v_int(0), v_int(0));
    DO("grow", "ffi.ListInsert", big, v_int(0), v_int(-1));
    DO("grow", "ffi.ListInsert", big, v_int(0), v_int(-2));
    DO("grow", "ffi.ListInsert", big, v_int(0), v_int(-3));
    DO("grow", "ffi.ListInsert", big, v_int(100), v_int(-3));
    printf("grow: %s\n", show(&big));
    TVMFFIAny many = CALL("grow", "ffi.List", v_int(1), v_int(2), v_int(3), v_int(4), v_int(5),
                          v_int(6), v_int(7), v_int(8), v_int(9), v_int(10), v_int(11), v_int(12),
                          v_int(13), v_int(14), v_int(15), v_int(16), v_int(17), v_int(18));
    DO("grow", "ffi.ListReplaceSlice", big, v_int(1), v_int(2), many);
    printf("grow: %s\n", show(&big));
    release(&many);
    release(&big);
  }
  /* argument count and type errors */
  DO("errors", "ffi.ListAppend", l);
  DO("errors", "ffi.ListInsert", l, v_cstr("0"), v_int(1));
  DO("errors", "ffi.ListReserve", l, v_float(2.0));
  DO("errors", "ffi.ListEraseRange", l, v_int(0));
  release(&l);
}

static void shapes(void) {
  DO("shape", "ffi.Shape", v_int(0));
  TVMFFIAny s0 = CALL0("shape", "ffi.Shape");
  release(&s0);
  DO("shape", "ffi.Shape", v_int(1), v_int(2), v_int(3));
  DO("shape", "ffi.Shape", v_int(-1), v_bool(1), v_int(9007199254740993LL));
  DO("shape", "ffi.Shape", v_float(1.0));
  DO("shape", "ffi.Shape", v_int(1), v_cstr("2"));
  DO("shape", "ffi.Shape", v_none());
  {
    TVMFFIAny inner = CALL("shape", "ffi.Shape", v_int(4), v_int(5));
    DO("shape", "ffi.Shape", inner);
    DO("shape", "ffi.Array", inner, inner);
    release(&inner);
  }
}

static void devices(void) {
  DO("device", "ffi.ContainerFindFirstNonCPUDevice", v_none());
  DO("device", "ffi.ContainerFindFirstNonCPUDevice", v_int(1));
  DO("device", "ffi.ContainerFindFirstNonCPUDevice", v_device(2, 3));
  TVMFFIAny cpu = fake_tensor(kDLCPU, 0);
  TVMFFIAny cuda1 = fake_tensor(kDLCUDA, 1);
  TVMFFIAny rocm2 = fake_tensor(kDLROCM, 2);
  DO("device", "ffi.ContainerFindFirstNonCPUDevice", cpu);
  DO("device", "ffi.ContainerFindFirstNonCPUDevice", cuda1);
  TVMFFIAny inner = CALL("device", "ffi.List", cpu, rocm2);
  TVMFFIAny outer = CALL("device", "ffi.Array", v_int(1), cpu, inner, cuda1);
  DO("device", "ffi.ContainerFindFirstNonCPUDevice", outer);
  DO("device", "ffi.ContainerFindFirstNonCPUDevice", inner);
  TVMFFIAny cpus = CALL("device", "ffi.Array", cpu, cpu);
  DO("device", "ffi.ContainerFindFirstNonCPUDevice", cpus);
  release(&cpus);
  release(&outer);
  release(&inner);
  release(&cpu);
  release(&cuda1);
  release(&rocm2);
  printf("device: fake tensors alive after release = %d\n", g_fake_tensors_alive);
}

int main(void) {
  metadata();
  arrays();
  lists();
  shapes();
  devices();
  printf("done\n");
  return 0;
}
