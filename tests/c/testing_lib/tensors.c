/* The testing-library host's checks of tensors. */
#include "testing_lib.h"

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

void test_tensors(void) {
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
