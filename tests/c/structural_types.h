/*
 * A small kit of reflected object types defined from C, for the structural-equality/hash tests and
 * benchmark: each type is a run of `TVMFFIAny` fields after the object header, registered through
 * the C API (TVMFFITypeGetOrAllocIndex / TVMFFITypeRegisterField / TVMFFITypeRegisterMetadata)
 * with a structural kind and per-field flags. The same code runs on every runtime, so the same
 * objects exist on Apache's runtime and on ffihub's.
 */
#ifndef FFIHUB_TESTS_STRUCTURAL_TYPES_H_
#define FFIHUB_TESTS_STRUCTURAL_TYPES_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#define SX_MAX_FIELDS 4

typedef struct {
  TVMFFIObject header;
  TVMFFIAny fields[SX_MAX_FIELDS];
} SxObject;

static inline void sx_fatal(const char* what) {
  fprintf(stderr, "structural: setup error: %s\n", what);
  exit(2);
}

static inline TVMFFIByteArray sx_bytes(const char* s) {
  TVMFFIByteArray b = {s, strlen(s)};
  return b;
}

static inline void sx_release(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
  v->type_index = kTVMFFINone;
  v->v_int64 = 0;
}

static inline void sx_retain(const TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectIncRef(v->v_obj);
}

/* Field getter: a new reference to the stored value. */
static inline int sx_get_field(void* field, TVMFFIAny* result) {
  *result = *(const TVMFFIAny*)field;
  sx_retain(result);
  return 0;
}

/* Field setter: stores a new reference, releasing the old value. */
static inline int sx_set_field(void* field, const TVMFFIAny* value) {
  TVMFFIAny* slot = (TVMFFIAny*)field;
  TVMFFIAny old = *slot;
  *slot = *value;
  sx_retain(slot);
  sx_release(&old);
  return 0;
}

static inline void sx_delete(void* self, int flags) {
  SxObject* obj = (SxObject*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    for (int i = 0; i < SX_MAX_FIELDS; ++i) sx_release(&obj->fields[i]);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(obj);
}

/* A new object of the same type with the same field values. */
static inline int sx_shallow_copy(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (n != 1 || args[0].type_index < kTVMFFIStaticObjectBegin) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "__ffi_shallow_copy__ takes one object");
    return -1;
  }
  const SxObject* src = (const SxObject*)args[0].v_obj;
  SxObject* obj = (SxObject*)calloc(1, sizeof(SxObject));
  if (obj == NULL) sx_fatal("out of memory");
  obj->header.combined_ref_count = 1 | (1ULL << 32);
  obj->header.type_index = src->header.type_index;
  obj->header.deleter = sx_delete;
  for (int i = 0; i < SX_MAX_FIELDS; ++i) {
    obj->fields[i] = src->fields[i];
    sx_retain(&obj->fields[i]);
  }
  memset(rv, 0, sizeof(*rv));
  rv->type_index = obj->header.type_index;
  rv->v_obj = (TVMFFIObject*)obj;
  return 0;
}

/* Registers a type with `nfields` Any fields named `names`, with `flags`, and a structural kind. */
static inline int32_t sx_register(const char* key, int32_t seq_kind, int nfields, const char* const* names,
                           const int64_t* flags) {
  TVMFFIByteArray key_bytes = sx_bytes(key);
  int32_t index = TVMFFITypeGetOrAllocIndex(&key_bytes, -1, 1, 0, 0, kTVMFFIObject);
  if (index < 0) sx_fatal("TVMFFITypeGetOrAllocIndex");
  for (int i = 0; i < nfields; ++i) {
    TVMFFIFieldInfo info;
    memset(&info, 0, sizeof(info));
    info.name = sx_bytes(names[i]);
    info.doc = sx_bytes("");
    info.metadata = sx_bytes("{}");
    info.flags = flags ? flags[i] : 0;
    info.size = sizeof(TVMFFIAny);
    info.alignment = 8;
    info.offset = (int64_t)(offsetof(SxObject, fields) + i * sizeof(TVMFFIAny));
    info.getter = sx_get_field;
    info.setter = (void*)sx_set_field;
    info.default_value_or_factory.type_index = kTVMFFINone;
    info.field_static_type_index = kTVMFFIAny;
    if (TVMFFITypeRegisterField(index, &info) != 0) sx_fatal("TVMFFITypeRegisterField");
  }
  TVMFFITypeMetadata metadata;
  memset(&metadata, 0, sizeof(metadata));
  metadata.doc = sx_bytes("");
  metadata.creator = NULL;
  metadata.total_size = (int32_t)sizeof(SxObject);
  metadata.structural_eq_hash_kind = (TVMFFISEqHashKind)seq_kind;
  if (TVMFFITypeRegisterMetadata(index, &metadata) != 0) sx_fatal("TVMFFITypeRegisterMetadata");
  /* __ffi_shallow_copy__, which structural mutation rebuilds objects with */
  TVMFFIObjectHandle copy = NULL;
  if (TVMFFIFunctionCreate(NULL, sx_shallow_copy, NULL, &copy) != 0) sx_fatal("FunctionCreate");
  TVMFFIAny copy_value;
  memset(&copy_value, 0, sizeof(copy_value));
  copy_value.type_index = kTVMFFIFunction;
  copy_value.v_obj = (TVMFFIObject*)copy;
  TVMFFIByteArray attr = sx_bytes("__ffi_shallow_copy__");
  if (TVMFFITypeRegisterAttr(index, &attr, &copy_value) != 0) sx_fatal("TVMFFITypeRegisterAttr");
  TVMFFIObjectDecRef(copy);
  return index;
}

/* A new object of `type_index`; its fields take over the references of `values`. */
static inline TVMFFIAny sx_new(int32_t type_index, int nfields, const TVMFFIAny* values) {
  SxObject* obj = (SxObject*)calloc(1, sizeof(SxObject));
  if (obj == NULL) sx_fatal("out of memory");
  obj->header.combined_ref_count = 1 | (1ULL << 32);
  obj->header.type_index = type_index;
  obj->header.deleter = sx_delete;
  for (int i = 0; i < nfields; ++i) obj->fields[i] = values[i];
  TVMFFIAny out;
  memset(&out, 0, sizeof(out));
  out.type_index = type_index;
  out.v_obj = (TVMFFIObject*)obj;
  return out;
}

static inline TVMFFIAny sx_int(int64_t v) {
  TVMFFIAny out;
  memset(&out, 0, sizeof(out));
  out.type_index = kTVMFFIInt;
  out.v_int64 = v;
  return out;
}

static inline TVMFFIAny sx_none(void) {
  TVMFFIAny out;
  memset(&out, 0, sizeof(out));
  out.type_index = kTVMFFINone;
  return out;
}

/* A String from a C string (small or heap, as the runtime decides). */
static inline TVMFFIAny sx_str(const char* s) {
  TVMFFIByteArray b = sx_bytes(s);
  TVMFFIAny out;
  if (TVMFFIStringFromByteArray(&b, &out) != 0) sx_fatal("TVMFFIStringFromByteArray");
  return out;
}

/* Calls a global function; on error prints nothing and returns the error code (the raised error
 * stays for the caller to take). */
static inline int sx_call(const char* name, TVMFFIAny* args, int nargs, TVMFFIAny* result) {
  TVMFFIByteArray n = sx_bytes(name);
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0 || f == NULL) {
    fprintf(stderr, "missing global %s\n", name);
    sx_fatal("missing global function");
  }
  memset(result, 0, sizeof(*result));
  int rc = TVMFFIFunctionCall(f, args, nargs, result);
  TVMFFIObjectDecRef(f);
  return rc;
}

/* Array(values...): takes the references of `values`. */
static inline TVMFFIAny sx_array(const char* ctor, TVMFFIAny* values, int n) {
  TVMFFIAny out;
  if (sx_call(ctor, values, n, &out) != 0) sx_fatal("container constructor");
  for (int i = 0; i < n; ++i) sx_release(&values[i]);
  return out;
}

#endif /* FFIHUB_TESTS_STRUCTURAL_TYPES_H_ */
