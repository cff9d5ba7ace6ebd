/*
 * Small C kernels for the Julia tests (test_tensors.jl, test_modules.jl), compiled by the tests
 * against the checked-in TVM-FFI headers and loaded with TVMFFI.load_module. The TVMFFI* symbols
 * stay undefined and bind to the runtime already loaded in the Julia process.
 *
 * Exported functions (packed, `__tvm_ffi_<name>`):
 *   add_one_inplace(x: float32 tensor) -> None      x[i] += 1 for every element (compact memory)
 *   identity(x) -> x                                 returns its argument (same object)
 *   data_ptr(x: tensor) -> int                       address of element 0
 *   make_iota(n) -> float32 tensor                   C-allocated [0, 1, ..., n-1], freed by its deleter
 *   make_matrix(rows, cols) -> float32 tensor        C-allocated row-major, a[i][j] = 10 i + j
 *   live_buffers() -> int                            tensors made by make_* not yet freed
 *   call_with_dltensor_ptr(f, x: tensor) -> Any      calls f with a borrowed DLTensor* view of x
 */
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

static int64_t live_buffers = 0;

static int get_tensor(const TVMFFIAny* v, DLTensor** out) {
  if (v->type_index == kTVMFFIDLTensorPtr) {
    *out = (DLTensor*)v->v_ptr;
    return 0;
  }
  if (v->type_index != kTVMFFITensor) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expected a tensor");
    return -1;
  }
  *out = (DLTensor*)((char*)v->v_obj + sizeof(TVMFFIObject));
  return 0;
}

static void set_none(TVMFFIAny* rv) {
  memset(rv, 0, sizeof(*rv));
  rv->type_index = kTVMFFINone;
}

static void set_int(TVMFFIAny* rv, int64_t v) {
  memset(rv, 0, sizeof(*rv));
  rv->type_index = kTVMFFIInt;
  rv->v_int64 = v;
}

static int check_nargs(int32_t n, int32_t expected, const char* name) {
  if (n != expected) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", name);
    return -1;
  }
  return 0;
}

int __tvm_ffi_add_one_inplace(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  DLTensor* x;
  if (check_nargs(n, 1, "add_one_inplace takes one argument") || get_tensor(&args[0], &x)) return -1;
  if (x->dtype.code != kDLFloat || x->dtype.bits != 32 || x->dtype.lanes != 1) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "add_one_inplace expects float32");
    return -1;
  }
  int64_t count = 1;
  for (int i = 0; i < x->ndim; ++i) count *= x->shape[i];
  float* p = (float*)((char*)x->data + x->byte_offset);
  for (int64_t i = 0; i < count; ++i) p[i] += 1.0f;
  set_none(rv);
  return 0;
}

int __tvm_ffi_identity(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (check_nargs(n, 1, "identity takes one argument")) return -1;
  if (args[0].type_index >= kTVMFFIStaticObjectBegin) {
    *rv = args[0];
    TVMFFIObjectIncRef(args[0].v_obj);
    return 0;
  }
  return TVMFFIAnyViewToOwnedAny(&args[0], rv);
}

int __tvm_ffi_data_ptr(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  DLTensor* x;
  if (check_nargs(n, 1, "data_ptr takes one argument") || get_tensor(&args[0], &x)) return -1;
  set_int(rv, (int64_t)(intptr_t)((char*)x->data + x->byte_offset));
  return 0;
}

typedef struct {
  DLManagedTensorVersioned mt;
  int64_t shape[2];
  int64_t strides[2];
} OwnedTensor;

static void owned_deleter(DLManagedTensorVersioned* mt) {
  free(mt->dl_tensor.data);
  free(mt);
  --live_buffers;
}

static int make_tensor(int32_t ndim, const int64_t* shape, TVMFFIAny* rv) {
  OwnedTensor* o = (OwnedTensor*)calloc(1, sizeof(OwnedTensor));
  int64_t count = 1;
  for (int i = 0; i < ndim; ++i) {
    o->shape[i] = shape[i];
    count *= shape[i];
  }
  /* row-major (C) strides */
  int64_t stride = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    o->strides[i] = stride;
    stride *= shape[i];
  }
  float* data = (float*)malloc((size_t)(count > 0 ? count : 1) * sizeof(float));
  if (ndim == 1) {
    for (int64_t i = 0; i < count; ++i) data[i] = (float)i;
  } else {
    for (int64_t i = 0; i < shape[0]; ++i)
      for (int64_t j = 0; j < shape[1]; ++j) data[i * shape[1] + j] = (float)(10 * i + j);
  }
  o->mt.version.major = DLPACK_MAJOR_VERSION;
  o->mt.version.minor = DLPACK_MINOR_VERSION;
  o->mt.manager_ctx = NULL;
  o->mt.deleter = owned_deleter;
  o->mt.flags = 0;
  o->mt.dl_tensor.data = data;
  o->mt.dl_tensor.device.device_type = kDLCPU;
  o->mt.dl_tensor.device.device_id = 0;
  o->mt.dl_tensor.ndim = ndim;
  o->mt.dl_tensor.dtype.code = kDLFloat;
  o->mt.dl_tensor.dtype.bits = 32;
  o->mt.dl_tensor.dtype.lanes = 1;
  o->mt.dl_tensor.shape = o->shape;
  o->mt.dl_tensor.strides = o->strides;
  o->mt.dl_tensor.byte_offset = 0;
  TVMFFIObjectHandle h = NULL;
  if (TVMFFITensorFromDLPackVersioned(&o->mt, 0, 0, &h) != 0) {
    free(data);
    free(o);
    return -1;
  }
  ++live_buffers;
  memset(rv, 0, sizeof(*rv));
  rv->type_index = kTVMFFITensor;
  rv->v_obj = (TVMFFIObject*)h;
  return 0;
}

int __tvm_ffi_make_iota(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (check_nargs(n, 1, "make_iota takes one argument")) return -1;
  int64_t shape[1] = {args[0].v_int64};
  return make_tensor(1, shape, rv);
}

int __tvm_ffi_make_matrix(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (check_nargs(n, 2, "make_matrix takes two arguments")) return -1;
  int64_t shape[2] = {args[0].v_int64, args[1].v_int64};
  return make_tensor(2, shape, rv);
}

int __tvm_ffi_live_buffers(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  (void)args;
  (void)n;
  set_int(rv, live_buffers);
  return 0;
}

int __tvm_ffi_call_with_dltensor_ptr(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  DLTensor* x;
  if (check_nargs(n, 2, "call_with_dltensor_ptr takes two arguments") || get_tensor(&args[1], &x))
    return -1;
  if (args[0].type_index != kTVMFFIFunction) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expected a function");
    return -1;
  }
  TVMFFIAny view;
  memset(&view, 0, sizeof(view));
  view.type_index = kTVMFFIDLTensorPtr;
  view.v_ptr = x;
  set_none(rv);
  return TVMFFIFunctionCall(args[0].v_obj, &view, 1, rv);
}
