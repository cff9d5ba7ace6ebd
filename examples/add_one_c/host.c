/*
 * A minimal host for add_one_c.so: loads the library, wraps its exported packed function in a
 * TVM-FFI Function object, calls it on a float32 tensor and prints the result.
 *
 *     host path/to/add_one_c.so
 *
 * Build against either runtime's headers, link with -ltvm_ffi; the library path decides which
 * runtime runs it (see scripts/run-example.sh).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <tvm/ffi/c_api.h>

static void report_raised_error(const char* what) {
  TVMFFIObjectHandle error = NULL;
  TVMFFIErrorMoveFromRaised(&error);
  if (error == NULL) {
    fprintf(stderr, "%s failed without an error\n", what);
    return;
  }
  const TVMFFIErrorCell* cell = (const TVMFFIErrorCell*)((char*)error + sizeof(TVMFFIObject));
  fprintf(stderr, "%s failed: %.*s: %.*s\n", what, (int)cell->kind.size, cell->kind.data,
          (int)cell->message.size, cell->message.data);
  TVMFFIObjectDecRef(error);
}

/* The Function object owns the library handle and closes it when it dies. */
static void close_library(void* handle) { dlclose(handle); }

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/add_one_c.so\n", argv[0]);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  TVMFFISafeCallType add_one = (TVMFFISafeCallType)dlsym(library, "__tvm_ffi_add_one_c");
  if (add_one == NULL) {
    fprintf(stderr, "%s does not export __tvm_ffi_add_one_c\n", argv[1]);
    dlclose(library);
    return 1;
  }
  /* The exported symbol ignores its `self` argument, so the library handle can ride along. */
  TVMFFIObjectHandle function = NULL;
  if (TVMFFIFunctionCreate(library, add_one, close_library, &function) != 0) {
    report_raised_error("TVMFFIFunctionCreate");
    dlclose(library);
    return 1;
  }

  float x_data[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  float y_data[4] = {0};
  int64_t shape[1] = {4};
  DLTensor x = {x_data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor y = {y_data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  TVMFFIAny args[2];
  args[0].type_index = kTVMFFIDLTensorPtr;
  args[0].zero_padding = 0;
  args[0].v_ptr = &x;
  args[1].type_index = kTVMFFIDLTensorPtr;
  args[1].zero_padding = 0;
  args[1].v_ptr = &y;
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;

  int status = 0;
  if (TVMFFIFunctionCall(function, args, 2, &result) != 0) {
    report_raised_error("add_one_c");
    status = 1;
  } else {
    TVMFFIVersion version;
    TVMFFIGetVersion(&version);
    printf("TVM-FFI ABI %u.%u.%u\n", version.major, version.minor, version.patch);
    printf("x            = [%g, %g, %g, %g]\n", x_data[0], x_data[1], x_data[2], x_data[3]);
    printf("add_one_c(x) = [%g, %g, %g, %g]\n", y_data[0], y_data[1], y_data[2], y_data[3]);
  }
  TVMFFIObjectDecRef(function);
  return status;
}
