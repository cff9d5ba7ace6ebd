/* The shared helpers of the testing-library host: the table of testing.* functions, reporting,
 * text, ABI helpers, describe() and the result checks. */
#include "testing_lib.h"

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

TestingFn g_testing_fns[] = {
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
const int g_num_testing_fns = (int)(sizeof(g_testing_fns) / sizeof(g_testing_fns[0]));

/* ------------------------------------------------------------------------------------------ */
/* Reporting                                                                                   */
/* ------------------------------------------------------------------------------------------ */

void die(const char* what) {
  fprintf(stderr, "testing_lib: setup error: %s\n", what);
  exit(2);
}

/* ------------------------------------------------------------------------------------------ */
/* Text: growable buffers and a ring of formatted strings                                      */
/* ------------------------------------------------------------------------------------------ */


void buf_reserve(Buf* b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  b->data = (char*)realloc(b->data, cap);
  if (b->data == NULL) die("out of memory");
  b->cap = cap;
}

void buf_putn(Buf* b, const char* s, size_t n) {
  buf_reserve(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void buf_puts(Buf* b, const char* s) { buf_putn(b, s, strlen(s)); }

void buf_printf(Buf* b, const char* fmt, ...) {
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
void buf_quoted(Buf* b, const char* data, size_t size) {
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
char* g_ring[RING_SIZE];
int g_ring_next = 0;

const char* ring_take(Buf* b) {
  if (b->data == NULL) buf_reserve(b, 0), b->data[0] = '\0';
  free(g_ring[g_ring_next]);
  g_ring[g_ring_next] = b->data;
  g_ring_next = (g_ring_next + 1) % RING_SIZE;
  return b->data;
}

const char* fmt(const char* f, ...) {
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

const char* quote_n(const char* data, size_t size) {
  Buf b = {0};
  buf_quoted(&b, data, size);
  return ring_take(&b);
}

const char* qba(TVMFFIByteArray a) { return quote_n(a.data, a.size); }
const char* same(const void* a, const void* b) { return a == b ? "same" : "other"; }

/* ------------------------------------------------------------------------------------------ */
/* Small helpers over the ABI                                                                  */
/* ------------------------------------------------------------------------------------------ */

TVMFFIByteArray ba(const char* s) {
  TVMFFIByteArray r;
  r.data = s;
  r.size = strlen(s);
  return r;
}

int ba_eq(TVMFFIByteArray a, const char* s) {
  size_t n = strlen(s);
  return a.size == n && (n == 0 || memcmp(a.data, s, n) == 0);
}

uint32_t strong_of(void* obj) {
  return (uint32_t)(__atomic_load_n(&((TVMFFIObject*)obj)->combined_ref_count, __ATOMIC_ACQUIRE) &
                    0xffffffffu);
}

TVMFFIAny any_bool(int v) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIBool;
  a.v_int64 = v ? 1 : 0;
  return a;
}

TVMFFIAny any_ptr(void* p) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIOpaquePtr;
  a.v_ptr = p;
  return a;
}

TVMFFIAny any_device(int32_t type, int32_t id) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIDevice;
  a.v_device.device_type = (DLDeviceType)type;
  a.v_device.device_id = id;
  return a;
}

TVMFFIAny any_dtype(uint8_t code, uint8_t bits, uint16_t lanes) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIDataType;
  a.v_dtype.code = code;
  a.v_dtype.bits = bits;
  a.v_dtype.lanes = lanes;
  return a;
}

TVMFFIAny any_dltensor(DLTensor* t) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIDLTensorPtr;
  a.v_ptr = t;
  return a;
}

int is_obj(const TVMFFIAny* a) {
  return a->type_index >= kTVMFFIStaticObjectBegin && a->v_obj != NULL;
}

/* The content of a String/Bytes value (small or heap) held in an Any. */
TVMFFIByteArray any_bytes(const TVMFFIAny* a) {
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

int any_str_eq(const TVMFFIAny* a, const char* s) {
  return (a->type_index == kTVMFFISmallStr || a->type_index == kTVMFFIStr) &&
         ba_eq(any_bytes(a), s);
}

/* A runtime-created String (SmallStr or Str) holding s: owned. */
TVMFFIAny make_string(const char* s) {
  TVMFFIAny out = any_none();
  TVMFFIByteArray in = ba(s);
  if (TVMFFIStringFromByteArray(&in, &out) != 0) die("TVMFFIStringFromByteArray failed");
  return out;
}

TVMFFIAny make_bytes(const char* data, size_t n) {
  TVMFFIAny out = any_none();
  TVMFFIByteArray in = {data, n};
  if (TVMFFIBytesFromByteArray(&in, &out) != 0) die("TVMFFIBytesFromByteArray failed");
  return out;
}

TVMFFIErrorCell* error_cell(void* err) {
  return (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
}

void* take_raised(void) {
  void* err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  return err;
}

/* The type key of a type index (static or dynamic) as a C string in the ring. */
const char* type_key_of(int32_t index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
  if (info == NULL) return fmt("<no type info for %d>", index);
  return fmt("%.*s", (int)info->type_key.size, info->type_key.data);
}

int32_t type_index_of(const char* key) {
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
void* get_global(const char* name) {
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
TVMFFIAny get_global_any(const char* name) {
  void* f = get_global(name);
  return f ? any_obj(f) : any_none();
}

/* Calls a function object; *rv is reset to None first. */
int call_fn(void* f, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  *rv = any_none();
  return TVMFFIFunctionCall(f, args, n, rv);
}

/* Calls a global function by name; a missing function raises a RuntimeError. */
int call_global(const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv) {
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
int call_testing(const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv) {
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

/* T(name, &rv, args...) calls testing.<name>; T0 without arguments. */
/* G(name, &rv, args...) calls a runtime global; G0 without arguments. */
/* F(fn, &rv, args...) calls a function object. */

/* ------------------------------------------------------------------------------------------ */
/* describe(): a deterministic rendering of any value, reading containers through the runtime  */
/* ------------------------------------------------------------------------------------------ */


/* Appends "<error Kind: message>" for the raised error (or a note if none was raised). */
void buf_raised(Buf* b, int rc) {
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

int64_t seq_size(const char* size_fn, const TVMFFIAny* v, Buf* b) {
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

void describe_seq(Buf* b, const TVMFFIAny* v, const char* size_fn, const char* get_fn,
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
void describe_map(Buf* b, const TVMFFIAny* v, const char* size_fn, const char* iter_fn,
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
int collect_fields(const TVMFFITypeInfo* info, const TVMFFIFieldInfo** out, int cap) {
  int n = 0;
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_fields && n < cap; ++i) out[n++] = &t->fields[i];
  }
  return n;
}

/* Reads one field of obj through its getter: owned value in *out. */
int get_field(void* obj, const TVMFFIFieldInfo* f, TVMFFIAny* out) {
  *out = any_none();
  return f->getter((char*)obj + f->offset, out);
}

void describe_object(Buf* b, void* obj, int depth) {
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

void describe_into(Buf* b, const TVMFFIAny* v, int depth) {
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

const char* describe(const TVMFFIAny* v) {
  Buf b = {0};
  describe_into(&b, v, 0);
  return ring_take(&b);
}

/* "small"/"dense" from MapBaseObj.slots_ (offset 40, MSB set for small maps). */
const char* map_layout(const TVMFFIAny* v) {
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
int expect_value(const char* name, int rc, const TVMFFIAny* rv, const char* expected,
                        const char* file, int line) {
  if (rc != 0) {
    Buf b = {0};
    buf_raised(&b, rc);
    check_at(0, file, line, name, "rc=%d %s", rc, b.data);
    free(b.data);
    return 0;
  }
  const char* got = describe(rv);
  int ok = expected == NULL || strcmp(got, expected) == 0;
  if (ok) {
    check_at(1, file, line, name, "%s", got);
  } else {
    check_at(0, file, line, name, "%s (expected %s)", got, expected);
  }
  return ok;
}

/* EXPECT_VALUE, then releases rv. */

/*
 * Checks that a call failed with rc -1 and raised an Error of the given kind and message
 * (message NULL: only the kind is compared); prints kind and message and releases the error.
 */
void expect_error(const char* name, int rc, TVMFFIAny* rv, const char* kind,
                         const char* message, const char* file, int line) {
  void* err = take_raised();
  if (err == NULL) {
    check_at(0, file, line, name, "rc=%d no error raised (result %s)", rc, rc == 0 ? describe(rv) : "-");
    any_release(rv);
    return;
  }
  TVMFFIErrorCell* cell = error_cell(err);
  int ok = rc == -1 && ((TVMFFIObject*)err)->type_index == kTVMFFIError &&
           ba_eq(cell->kind, kind) && (message == NULL || ba_eq(cell->message, message));
  if (ok || message == NULL) {
    check_at(ok, file, line, name, "rc=%d kind=%s message=%s", rc, qba(cell->kind),
               qba(cell->message));
  } else {
    check_at(ok, file, line, name, "rc=%d kind=%s message=%s (expected %s %s)", rc, qba(cell->kind),
               qba(cell->message), kind, quote_n(message, strlen(message)));
  }
  TVMFFIObjectDecRef(err);
  if (rc == 0) any_release(rv); /* a failed call leaves *rv untouched (possibly uninitialised) */
}

/* Like EXPECT_ERROR without a message, but the message is not printed either (it embeds text
   that legitimately differs between implementations, e.g. dlerror() output). */
void expect_error_kind(const char* name, int rc, TVMFFIAny* rv, const char* kind, const char* file, int line) {
  void* err = take_raised();
  if (err == NULL) {
    check_at(0, file, line, name, "rc=%d no error raised (result %s)", rc, rc == 0 ? describe(rv) : "-");
    any_release(rv);
    return;
  }
  TVMFFIErrorCell* cell = error_cell(err);
  int ok = rc == -1 && ba_eq(cell->kind, kind);
  if (ok) {
    check_at(1, file, line, name, "rc=%d kind=%s", rc, qba(cell->kind));
  } else {
    check_at(0, file, line, name, "rc=%d kind=%s message=%s (expected kind %s)", rc, qba(cell->kind),
               qba(cell->message), kind);
  }
  TVMFFIObjectDecRef(err);
  if (rc == 0) any_release(rv);
}

/* Fails (printing the raised error) when a call that should succeed did not. */
int expect_ok(const char* name, int rc, const char* file, int line) {
  if (rc == 0) return 1;
  Buf b = {0};
  buf_raised(&b, rc);
  check_at(0, file, line, name, "rc=%d %s", rc, b.data);
  free(b.data);
  return 0;
}

/* Builds a container with a runtime constructor global (ffi.Array, ffi.Map, ...): owned. */
TVMFFIAny build(const char* ctor, TVMFFIAny* args, int n) {
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

/* Owned strings and values to release at the end of a section. */

TVMFFIAny pool_add(Pool* p, TVMFFIAny v) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    p->items = (TVMFFIAny*)realloc(p->items, (size_t)p->cap * sizeof(TVMFFIAny));
    if (p->items == NULL) die("out of memory");
  }
  p->items[p->n++] = v;
  return v;
}

TVMFFIAny pstr(Pool* p, const char* s) { return pool_add(p, make_string(s)); }

void pool_release(Pool* p) {
  for (int i = 0; i < p->n; ++i) any_release(&p->items[i]);
  free(p->items);
  p->items = NULL;
  p->n = 0;
  p->cap = 0;
}

/* Map-like values from strings: k0..k(n-1) -> ints (i*10) built with ffi.Map or ffi.Dict. */
TVMFFIAny build_str_int_map(const char* ctor, Pool* p, const char* prefix, int n) {
  TVMFFIAny args[128];
  for (int i = 0; i < n; ++i) {
    args[2 * i] = pstr(p, fmt("%s%d", prefix, i));
    args[2 * i + 1] = any_int(i * 10);
  }
  return build(ctor, args, 2 * n);
}

/* Looks up key (a C string) in a Map with ffi.MapGetItem: owned result (rc in *rc). */
TVMFFIAny map_get(const char* getter, const TVMFFIAny* m, const char* key, int* rc) {
  TVMFFIAny k = make_string(key);
  TVMFFIAny rv;
  *rc = G(getter, &rv, *m, k);
  any_release(&k);
  return rv;
}


/* qsort comparison of C strings. */
int cmp_str(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

/* The value of type attribute `column` for type `ti` (NULL when unset). */
const TVMFFIAny* type_attr(const char* column, int32_t ti) {
  TVMFFIByteArray name = ba(column);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  if (col == NULL) return NULL;
  int64_t i = (int64_t)ti - col->begin_index;
  if (i < 0 || i >= col->size) return NULL;
  if (col->data[i].type_index == kTVMFFINone) return NULL;
  return &col->data[i];
}
