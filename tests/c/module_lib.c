/*
 * A test library for module loading (runtime/tests/module_c.rs), written against the plain C
 * ABI so the same source builds against ffihub's headers and Apache's.
 *
 * Exports, with the __tvm_ffi_ symbol conventions:
 *   add(a, b)            with __tvm_ffi__metadata_add and __tvm_ffi__doc_add
 *   sub(a, b)            without metadata or doc
 *   fail()               raises ValueError; its metadata getter raises, its doc getter returns an int
 *   get_ctx()            the value the loader wrote into __tvm_ffi__library_ctx (opaque pointer)
 *   get_context_sym()    the value written into module_test_context_sym (a context symbol)
 *   call_import(name, ...)  looks `name` up with TVMFFIEnvModLookupFromImports and calls it
 *   make_closure(k)      a Function of this library's code adding k (its deleter here too)
 *   make_opaque()        an opaque object whose deleter is this library's code
 *   register_global(name)  registers global `name` (adds 100), code of this library
 *   deleted()            how many closures and opaque handles this library deleted
 *
 * Built with -DMODULE_TEST_BLOB (and the generated module_blob.h on the include path) it also
 * embeds __tvm_ffi__library_bin = { MODULE_BLOB_BYTES }.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT void* __tvm_ffi__library_ctx = NULL;
EXPORT void* module_test_context_sym = NULL;

#ifdef MODULE_TEST_BLOB
#include "module_blob.h"
EXPORT const unsigned char __tvm_ffi__library_bin[] = {MODULE_BLOB_BYTES};
#endif

static int raise(const char* kind, const char* message) {
  TVMFFIErrorSetRaisedFromCStr(kind, message);
  return -1;
}

static int return_string(TVMFFIAny* rv, const char* text) {
  TVMFFIByteArray bytes = {text, strlen(text)};
  return TVMFFIStringFromByteArray(&bytes, rv);
}

static int return_int(TVMFFIAny* rv, int64_t value) {
  rv->type_index = kTVMFFIInt;
  rv->zero_padding = 0;
  rv->v_int64 = value;
  return 0;
}

static int return_ptr(TVMFFIAny* rv, void* value) {
  rv->type_index = value ? kTVMFFIOpaquePtr : kTVMFFINone;
  rv->zero_padding = 0;
  rv->v_ptr = value;
  return 0;
}

static int two_ints(void* self, const TVMFFIAny* args, int32_t n) {
  if (self != NULL) return raise("RuntimeError", "exported functions must get self == NULL");
  if (n != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    return raise("TypeError", "expects two ints");
  }
  return 0;
}

EXPORT int __tvm_ffi_add(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (two_ints(self, args, n) != 0) return -1;
  return return_int(rv, args[0].v_int64 + args[1].v_int64);
}

EXPORT int __tvm_ffi__metadata_add(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  return return_string(rv,
                       "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":"
                       "{\\\"return\\\":[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":"
                       "\\\"int\\\"},{\\\"type\\\":\\\"int\\\"}]}}\"}");
}

EXPORT int __tvm_ffi__doc_add(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  return return_string(rv, "Adds two integers.");
}

EXPORT int __tvm_ffi_sub(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (two_ints(self, args, n) != 0) return -1;
  return return_int(rv, args[0].v_int64 - args[1].v_int64);
}

EXPORT int __tvm_ffi_fail(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n, (void)rv;
  return raise("ValueError", "fail was called");
}

EXPORT int __tvm_ffi__metadata_fail(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n, (void)rv;
  return raise("ValueError", "no metadata for fail");
}

EXPORT int __tvm_ffi__doc_fail(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  return return_int(rv, 7);
}

EXPORT int __tvm_ffi_get_ctx(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  return return_ptr(rv, __tvm_ffi__library_ctx);
}

EXPORT int __tvm_ffi_get_context_sym(void* self, const TVMFFIAny* args, int32_t n,
                                     TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  return return_ptr(rv, module_test_context_sym);
}

EXPORT int __tvm_ffi_call_import(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (n < 1 || args[0].type_index != kTVMFFIRawStr) {
    return raise("TypeError", "call_import expects a C string name first");
  }
  TVMFFIObjectHandle func = NULL;
  int rc = TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, args[0].v_c_str, &func);
  if (rc != 0) return rc;
  /* func is borrowed: owned by the module's lookup cache. */
  return TVMFFIFunctionCall(func, (TVMFFIAny*)(args + 1), n - 1, rv);
}

EXPORT int __tvm_ffi_root_fn(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  return return_int(rv, 1);
}

/* ---- what this library's code makes (closures, opaque objects, globals) outlives its modules ---- */

static int64_t deleted_count = 0;

static void delete_state(void* state) {
  free(state);
  deleted_count++;
}

static int add_k(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (n != 1 || args[0].type_index != kTVMFFIInt) return raise("TypeError", "expects one int");
  return return_int(rv, args[0].v_int64 + *(int64_t*)self);
}

static int make_function(int64_t k, TVMFFIObjectHandle* out) {
  int64_t* state = (int64_t*)malloc(sizeof(int64_t));
  if (state == NULL) return raise("MemoryError", "no memory");
  *state = k;
  return TVMFFIFunctionCreate(state, add_k, delete_state, out);
}

static int return_object(TVMFFIAny* rv, TVMFFIObjectHandle obj) {
  rv->type_index = ((const TVMFFIObject*)obj)->type_index;
  rv->zero_padding = 0;
  rv->v_obj = (TVMFFIObject*)obj;
  return 0;
}

EXPORT int __tvm_ffi_make_closure(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (n != 1 || args[0].type_index != kTVMFFIInt) return raise("TypeError", "expects one int");
  TVMFFIObjectHandle f = NULL;
  if (make_function(args[0].v_int64, &f) != 0) return -1;
  return return_object(rv, f);
}

EXPORT int __tvm_ffi_make_opaque(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  void* state = malloc(16);
  if (state == NULL) return raise("MemoryError", "no memory");
  TVMFFIObjectHandle obj = NULL;
  if (TVMFFIObjectCreateOpaque(state, kTVMFFIOpaquePyObject, delete_state, &obj) != 0) {
    free(state);
    return -1;
  }
  return return_object(rv, obj);
}

EXPORT int __tvm_ffi_register_global(void* self, const TVMFFIAny* args, int32_t n,
                                     TVMFFIAny* rv) {
  (void)self, (void)rv;
  if (n != 1 || args[0].type_index != kTVMFFIRawStr) return raise("TypeError", "expects a name");
  TVMFFIObjectHandle f = NULL;
  if (make_function(100, &f) != 0) return -1;
  TVMFFIByteArray name = {args[0].v_c_str, strlen(args[0].v_c_str)};
  int rc = TVMFFIFunctionSetGlobal(&name, f, 1);
  TVMFFIObjectDecRef(f);
  return rc;
}

EXPORT int __tvm_ffi_deleted(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  return return_int(rv, deleted_count);
}
