/* The testing-library host's checks of type info. */
#include "testing_lib.h"

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

void test_type_info(void) {
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
