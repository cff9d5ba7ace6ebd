/* The scenario's checks of versions, reference counts, opaque objects, strings and bytes, AnyView
 * to Any, BigInt, data types. */
#include "scenario.h"

/* ------------------------------------------------------------------------------------------ */
/* 1. version                                                                                  */
/* ------------------------------------------------------------------------------------------ */

void test_version(void) {
  TVMFFIVersion v = {0, 0, 0};
  TVMFFIGetVersion(&v);
  CHECK(v.major == 0 && v.minor == 1 && v.patch == 16, "version", "%u.%u.%u", v.major, v.minor,
        v.patch);
}

/* ------------------------------------------------------------------------------------------ */
/* 2. refcount protocol: IncRef / DecRef with strong and weak counts                           */
/* ------------------------------------------------------------------------------------------ */

void test_refcount(void) {
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

void test_opaque(void) {
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

void test_strings(void) {
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

void test_any_view_to_owned(void) {
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

void test_bigint(void) {
  int64_t w[4] = {0};
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

void test_dtype(void) {
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
