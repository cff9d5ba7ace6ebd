/* TVMFFIAny values for the C test programs: none, scalars, raw strings, borrowed views of
 * objects, and the release of an owned value. The functions are static inline so that a program
 * uses only those it needs. Compiles against ffihub's headers and Apache's alike. */
#ifndef FFIHUB_TESTS_C_ANY_VALUES_H_
#define FFIHUB_TESTS_C_ANY_VALUES_H_

#include <stdint.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

static inline TVMFFIAny any_none(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFINone;
  return a;
}

static inline TVMFFIAny any_int(int64_t v) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static inline TVMFFIAny any_float(double v) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIFloat;
  a.v_float64 = v;
  return a;
}

/* A borrowed view of an object. */
static inline TVMFFIAny any_obj(void* obj) {
  TVMFFIAny a = any_none();
  a.type_index = ((TVMFFIObject*)obj)->type_index;
  a.v_obj = (TVMFFIObject*)obj;
  return a;
}

static inline TVMFFIAny any_raw_str(const char* s) {
  TVMFFIAny a = any_none();
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

/* Releases an owned value (its object, if it holds one) and leaves None. */
static inline void any_release(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin && a->v_obj != NULL) TVMFFIObjectDecRef(a->v_obj);
  *a = any_none();
}

static inline TVMFFIByteArray bytes_of(const char* s) {
  TVMFFIByteArray b = {s, strlen(s)};
  return b;
}

#endif /* FFIHUB_TESTS_C_ANY_VALUES_H_ */
