/*
 * Host for the seeds' `add_one_c` example (examples/add_one_c/add_one_c.c).
 *
 *     add_one_host <path/to/add_one_c.so>
 *
 * Linked with -ltvm_ffi (the runtime under test comes from the library path). It dlopens the
 * example library, wraps its `__tvm_ffi_add_one_c` symbol into a Function object with
 * TVMFFIFunctionCreate and drives it through TVMFFIFunctionCall:
 *   1. float32 DLTensors passed as kTVMFFIDLTensorPtr AnyViews: y == x + 1;
 *   2. the same through a Tensor object (TVMFFITensorFromDLPack, kTVMFFITensor AnyView), which
 *      exercises the example's `obj + sizeof(TVMFFIObject)` path;
 *   3. a non-tensor argument (an int): rc -1 and a raised ValueError "Expects a Tensor input".
 * Every object is released again; the Function's deleter closes the library.
 * Prints one line per check and exits non-zero if any check failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

static int g_failures = 0;

#define CHECK(cond, ...)                          \
  do {                                            \
    if (cond) {                                   \
      printf("ok ");                              \
    } else {                                      \
      printf("FAIL [add_one_host.c:%d] ", __LINE__); \
      ++g_failures;                               \
    }                                             \
    printf(__VA_ARGS__);                          \
    printf("\n");                                 \
    fflush(stdout);                               \
  } while (0)

static int g_library_closed = 0;

/* Function deleter: the Function object owns the dlopen handle. */
static void close_library(void* self) {
  dlclose(self);
  ++g_library_closed;
}

static int g_managed_deleted = 0;
static void managed_deleter(DLManagedTensor* self) { ++g_managed_deleted; (void)self; }

static uint32_t strong_of(void* obj) {
  return (uint32_t)(((TVMFFIObject*)obj)->combined_ref_count & 0xffffffffu);
}

static void print_raised(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
    printf("  raised %.*s: %.*s\n", (int)cell->kind.size, cell->kind.data, (int)cell->message.size,
           cell->message.data);
    TVMFFIObjectDecRef(err);
  }
}

static void fill_tensor(DLTensor* t, float* data, int64_t* shape) {
  memset(t, 0, sizeof(*t));
  t->data = data;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  t->ndim = 1;
  t->dtype.code = kDLFloat;
  t->dtype.bits = 32;
  t->dtype.lanes = 1;
  t->shape = shape;
  t->strides = NULL;
  t->byte_offset = 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <add_one_c.so>\n", argv[0]);
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen failed: %s\n", dlerror());
    return 2;
  }
  TVMFFISafeCallType add_one = NULL;
  void* sym = dlsym(lib, "__tvm_ffi_add_one_c");
  memcpy(&add_one, &sym, sizeof(sym)); /* object pointer -> function pointer, as dlsym intends */
  CHECK(add_one != NULL, "symbol __tvm_ffi_add_one_c found");
  if (add_one == NULL) return 1;

  /*
   * TVMFFIFunctionCreate(self, call, deleter, out): the runtime calls `call(self, ...)`.
   * With self == NULL and deleter == NULL, Apache's runtime instead passes the Function object
   * itself as the first argument (a special case of its FromExternC). The example ignores that
   * argument either way, but relying on the special case would be obscure, so the host uses the
   * ordinary form: self = the dlopen handle, deleter = dlclose. The Function then owns the
   * library, which stays loaded exactly as long as something can still call into it.
   */
  TVMFFIObjectHandle func = NULL;
  int rc = TVMFFIFunctionCreate(lib, add_one, close_library, &func);
  CHECK(rc == 0 && func != NULL && ((TVMFFIObject*)func)->type_index == kTVMFFIFunction,
        "TVMFFIFunctionCreate rc=%d type_index=%d", rc,
        func ? ((TVMFFIObject*)func)->type_index : -1);
  if (rc != 0 || func == NULL) {
    print_raised();
    return 1;
  }

  /* 1. DLTensor pointers */
  float x_data[5] = {0.0f, 1.0f, 2.5f, -1.0f, 41.0f};
  float y_data[5] = {0};
  int64_t shape[1] = {5};
  DLTensor x, y;
  fill_tensor(&x, x_data, shape);
  fill_tensor(&y, y_data, shape);
  TVMFFIAny args[2];
  memset(args, 0, sizeof(args));
  args[0].type_index = kTVMFFIDLTensorPtr;
  args[0].v_ptr = &x;
  args[1].type_index = kTVMFFIDLTensorPtr;
  args[1].v_ptr = &y;
  TVMFFIAny rv;
  memset(&rv, 0, sizeof(rv));
  rc = TVMFFIFunctionCall(func, args, 2, &rv);
  int all_ok = 1;
  for (int i = 0; i < 5; ++i) {
    if (y_data[i] != x_data[i] + 1.0f) all_ok = 0;
  }
  CHECK(rc == 0 && all_ok && rv.type_index == kTVMFFINone,
        "add_one on DLTensor* args: rc=%d y=[%g %g %g %g %g] result.type_index=%d", rc,
        (double)y_data[0], (double)y_data[1], (double)y_data[2], (double)y_data[3],
        (double)y_data[4], rv.type_index);
  if (rc != 0) print_raised();

  /* 2. a Tensor object (the example reads the DLTensor at object + 24) */
  DLManagedTensor managed;
  memset(&managed, 0, sizeof(managed));
  fill_tensor(&managed.dl_tensor, x_data, shape);
  managed.manager_ctx = NULL;
  managed.deleter = managed_deleter;
  TVMFFIObjectHandle tensor = NULL;
  rc = TVMFFITensorFromDLPack(&managed, 0, 0, &tensor);
  CHECK(rc == 0 && tensor != NULL && ((TVMFFIObject*)tensor)->type_index == kTVMFFITensor,
        "TVMFFITensorFromDLPack rc=%d type_index=%d", rc,
        tensor ? ((TVMFFIObject*)tensor)->type_index : -1);
  if (rc == 0 && tensor != NULL) {
    memset(y_data, 0, sizeof(y_data));
    args[0].type_index = kTVMFFITensor;
    args[0].v_obj = (TVMFFIObject*)tensor;
    rc = TVMFFIFunctionCall(func, args, 2, &rv);
    all_ok = 1;
    for (int i = 0; i < 5; ++i) {
      if (y_data[i] != x_data[i] + 1.0f) all_ok = 0;
    }
    CHECK(rc == 0 && all_ok && strong_of(tensor) == 1,
          "add_one on a Tensor object: rc=%d y=[%g %g %g %g %g] tensor.strong=%u", rc,
          (double)y_data[0], (double)y_data[1], (double)y_data[2], (double)y_data[3],
          (double)y_data[4], strong_of(tensor));
    if (rc != 0) print_raised();
    TVMFFIObjectDecRef(tensor);
    CHECK(g_managed_deleted == 1, "Tensor released: DLManagedTensor deleter calls=%d",
          g_managed_deleted);
  } else {
    print_raised();
  }

  /* 3. a non-tensor argument */
  memset(args, 0, sizeof(args));
  args[0].type_index = kTVMFFIInt;
  args[0].v_int64 = 1;
  args[1].type_index = kTVMFFIDLTensorPtr;
  args[1].v_ptr = &y;
  memset(&rv, 0, sizeof(rv));
  rc = TVMFFIFunctionCall(func, args, 2, &rv);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  CHECK(rc == -1 && err != NULL, "add_one on an int: rc=%d error=%s", rc, err ? "raised" : "none");
  if (err != NULL) {
    TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
    int kind_ok = cell->kind.size == strlen("ValueError") &&
                  memcmp(cell->kind.data, "ValueError", cell->kind.size) == 0;
    int msg_ok = cell->message.size == strlen("Expects a Tensor input") &&
                 memcmp(cell->message.data, "Expects a Tensor input", cell->message.size) == 0;
    CHECK(((TVMFFIObject*)err)->type_index == kTVMFFIError && kind_ok && msg_ok &&
              strong_of(err) == 1,
          "raised error: type_index=%d kind=%.*s message=%.*s strong=%u",
          ((TVMFFIObject*)err)->type_index, (int)cell->kind.size, cell->kind.data,
          (int)cell->message.size, cell->message.data, strong_of(err));
    TVMFFIObjectDecRef(err);
  }
  TVMFFIObjectHandle none = (TVMFFIObjectHandle)0x1;
  TVMFFIErrorMoveFromRaised(&none);
  CHECK(none == NULL, "error slot empty afterwards");

  /* release the function: its deleter closes the library */
  CHECK(strong_of(func) == 1 && g_library_closed == 0, "function strong=%u before release",
        strong_of(func));
  TVMFFIObjectDecRef(func);
  CHECK(g_library_closed == 1, "function released: library closed %d time(s)", g_library_closed);

  printf("%s: %d check(s) failed\n", g_failures ? "FAILED" : "PASSED", g_failures);
  return g_failures ? 1 : 0;
}
