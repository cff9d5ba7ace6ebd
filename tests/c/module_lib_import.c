/*
 * A second test library, imported by module_lib.c's module in runtime/tests/module_c.rs:
 *   mul(a, b)   with metadata
 *   add(a, b)   returns 1000 + a + b, to show that a module's own function wins over an import's
 */
#include <stdint.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#define EXPORT __attribute__((visibility("default")))

static int ints(const TVMFFIAny* args, int32_t n) {
  if (n != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expects two ints");
    return -1;
  }
  return 0;
}

static int return_int(TVMFFIAny* rv, int64_t value) {
  rv->type_index = kTVMFFIInt;
  rv->zero_padding = 0;
  rv->v_int64 = value;
  return 0;
}

EXPORT int __tvm_ffi_mul(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (ints(args, n) != 0) return -1;
  return return_int(rv, args[0].v_int64 * args[1].v_int64);
}

EXPORT int __tvm_ffi__metadata_mul(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  const char* text = "{\"mul\":true}";
  TVMFFIByteArray bytes = {text, strlen(text)};
  return TVMFFIStringFromByteArray(&bytes, rv);
}

EXPORT int __tvm_ffi_add(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (ints(args, n) != 0) return -1;
  return return_int(rv, 1000 + args[0].v_int64 + args[1].v_int64);
}
