/*
 * Tensor / DLPack conformance: drives every tensor function of the TVM-FFI C ABI 0.1.16
 * (TVMFFITensorFromDLPack[Versioned], TVMFFITensorToDLPack[Versioned],
 * TVMFFITensorCreateUnsafeView, TVMFFIEnvTensorAlloc) and prints a deterministic transcript, one
 * line per check:
 *
 *     ok <check-name> <observed facts>
 *     FAIL <check-name> <observed facts> [tensor_dlpack.c:<line>]
 *
 * Compiled once against Apache's headers (C11) and linked with -ltvm_ffi without an rpath; the
 * driver (runtime/tests/tensor_dlpack.rs) runs it against Apache's libtvm_ffi.so and ffihub's,
 * selected by LD_LIBRARY_PATH, and asserts that both pass with identical transcripts. Pointers
 * never appear verbatim, only as "same"/"other"/"NULL". Exit status is 1 if any check failed.
 *
 * What is checked: ownership of DLPack capsules in both directions (deleter calls are counted:
 * exactly once, at the right moment), reference counts, the strides invariant (never NULL for
 * ndim > 0), alignment and contiguity errors (exact kind and message) that leave the capsule with
 * its producer, views keeping their source alive, and the environment allocator (a custom one,
 * failing ones, and none). Error messages noted "Apache:" are what Apache's runtime
 * (apache-tvm-ffi 0.1.15.post2) produced.
 *
 * Every capsule, buffer and object is released before exit, so a valgrind run reports no leak;
 * on ffihub's runtime the live-object counter (global `ffihub.LiveObjectCount`) must be back
 * where it started.
 */
#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include "check.h"
#include "live_objects.h"

/* ------------------------------------------------------------------------------------------ */
/* Reporting                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static const char* same(const void* a, const void* b) {
  if (a == NULL) return b == NULL ? "NULL" : "NULL/other";
  return a == b ? "same" : "other";
}

static const char* null_or_set(const void* p) { return p == NULL ? "NULL" : "set"; }

/* ------------------------------------------------------------------------------------------ */
/* Objects and errors                                                                          */
/* ------------------------------------------------------------------------------------------ */

static uint32_t strong(TVMFFIObjectHandle h) {
  return (uint32_t)(((TVMFFIObject*)h)->combined_ref_count & 0xFFFFFFFFu);
}

static int32_t tindex(TVMFFIObjectHandle h) { return ((TVMFFIObject*)h)->type_index; }

/* The DLTensor of a Tensor object, right after the 24-byte header. */
static DLTensor* dl(TVMFFIObjectHandle h) { return (DLTensor*)((char*)h + sizeof(TVMFFIObject)); }

static char g_kind[256];
static char g_msg[1024];

/* Takes the raised error (if any) into g_kind / g_msg; returns 1 if there was one. */
static int take_error(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  g_kind[0] = g_msg[0] = '\0';
  if (err == NULL) {
    snprintf(g_kind, sizeof g_kind, "<none>");
    return 0;
  }
  const TVMFFIErrorCell* cell = (const TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
  snprintf(g_kind, sizeof g_kind, "%.*s", (int)cell->kind.size, cell->kind.data);
  snprintf(g_msg, sizeof g_msg, "%.*s", (int)cell->message.size, cell->message.data);
  TVMFFIObjectDecRef(err);
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* A DLPack producer: heap capsules whose deleter frees them and counts the calls              */
/* ------------------------------------------------------------------------------------------ */

enum { kMaxDims = 4, kDataBytes = 256 };

typedef struct Producer {
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims];
  void* data; /* 64-byte aligned, kDataBytes bytes */
  int* deleted;
  DLManagedTensor legacy;
  DLManagedTensorVersioned versioned;
} Producer;

static int g_deleted = 0; /* deleter calls of producer capsules */

static void free_producer(Producer* p) {
  ++*p->deleted;
  free(p->data);
  free(p);
}

static void legacy_deleter(DLManagedTensor* self) { free_producer((Producer*)self->manager_ctx); }

static void versioned_deleter(DLManagedTensorVersioned* self) {
  free_producer((Producer*)self->manager_ctx);
}

static DLDataType f32(void) {
  DLDataType t = {kDLFloat, 32, 1};
  return t;
}

/* A float32 CPU tensor of the given shape; strides NULL unless `strides` is given. */
static Producer* make_producer(int ndim, const int64_t* shape, const int64_t* strides) {
  Producer* p = (Producer*)calloc(1, sizeof(Producer));
  p->data = aligned_alloc(64, kDataBytes);
  memset(p->data, 0, kDataBytes);
  p->deleted = &g_deleted;
  for (int i = 0; i < ndim; ++i) {
    p->shape[i] = shape[i];
    if (strides) p->strides[i] = strides[i];
  }
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = p->data;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = ndim;
  t.dtype = f32();
  t.shape = p->shape;
  t.strides = strides ? p->strides : NULL;
  t.byte_offset = 0;
  p->legacy.dl_tensor = t;
  p->legacy.manager_ctx = p;
  p->legacy.deleter = legacy_deleter;
  p->versioned.version.major = DLPACK_MAJOR_VERSION;
  p->versioned.version.minor = DLPACK_MINOR_VERSION;
  p->versioned.manager_ctx = p;
  p->versioned.deleter = versioned_deleter;
  p->versioned.flags = 0;
  p->versioned.dl_tensor = t;
  return p;
}

static const char* dims(int ndim, const int64_t* v) {
  static char bufs[4][128];
  static int next = 0;
  char* b = bufs[next];
  next = (next + 1) % 4;
  if (v == NULL) {
    snprintf(b, 128, "NULL");
    return b;
  }
  size_t o = 0;
  b[o++] = '[';
  for (int i = 0; i < ndim; ++i) {
    o += (size_t)snprintf(b + o, 128 - o, "%s%lld", i ? "," : "", (long long)v[i]);
  }
  snprintf(b + o, 128 - o, "]");
  return b;
}

/* ------------------------------------------------------------------------------------------ */
/* 1. The Tensor type                                                                          */
/* ------------------------------------------------------------------------------------------ */

static void test_type(void) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(kTVMFFITensor);
  CHECK(info != NULL && info->type_index == kTVMFFITensor && info->type_depth == 1 &&
            info->type_key.size == 10 && memcmp(info->type_key.data, "ffi.Tensor", 10) == 0 &&
            info->type_ancestors[0]->type_index == kTVMFFIObject,
        "type.info", "key=%.*s depth=%d parent=%d", (int)info->type_key.size, info->type_key.data,
        info->type_depth, info->type_ancestors[0]->type_index);
}

/* ------------------------------------------------------------------------------------------ */
/* 2. TVMFFITensorFromDLPack (legacy capsules)                                                 */
/* ------------------------------------------------------------------------------------------ */

static void test_from_dlpack(void) {
  const int64_t shape[2] = {2, 3};
  const int64_t strides[2] = {3, 1};
  g_deleted = 0;

  /* strides NULL: the tensor gets compact strides of its own; shape stays the producer's. */
  Producer* p = make_producer(2, shape, NULL);
  TVMFFIObjectHandle t = NULL;
  int rc = TVMFFITensorFromDLPack(&p->legacy, 0, 0, &t);
  CHECK(rc == 0 && t != NULL && tindex(t) == kTVMFFITensor && strong(t) == 1,
        "from_dlpack.no_strides.created", "rc=%d type=%d strong=%u", rc, t ? tindex(t) : -1,
        t ? strong(t) : 0);
  DLTensor* d = dl(t);
  CHECK(d->data == p->data && d->shape == p->shape && d->ndim == 2 &&
            d->dtype.code == kDLFloat && d->dtype.bits == 32 && d->dtype.lanes == 1 &&
            d->device.device_type == kDLCPU && d->byte_offset == 0,
        "from_dlpack.no_strides.fields", "data=%s shape=%s%s ndim=%d dtype=%d/%d/%d dev=%d off=%llu",
        same(d->data, p->data), same(d->shape, p->shape), dims(d->ndim, d->shape), d->ndim,
        d->dtype.code, d->dtype.bits, d->dtype.lanes, d->device.device_type,
        (unsigned long long)d->byte_offset);
  CHECK(d->strides != NULL && d->strides[0] == 3 && d->strides[1] == 1 &&
            (char*)d->strides > (char*)t && (char*)d->strides < (char*)t + 4096,
        "from_dlpack.no_strides.strides", "strides=%s in-object=%s", dims(2, d->strides),
        ((char*)d->strides > (char*)t && (char*)d->strides < (char*)t + 4096) ? "yes" : "no");
  CHECK(g_deleted == 0, "from_dlpack.no_strides.alive", "deleter_calls=%d", g_deleted);
  TVMFFIObjectIncRef(t);
  TVMFFIObjectDecRef(t);
  CHECK(g_deleted == 0 && strong(t) == 1, "from_dlpack.incref_decref", "deleter_calls=%d strong=%u",
        g_deleted, strong(t));
  TVMFFIObjectDecRef(t);
  CHECK(g_deleted == 1, "from_dlpack.no_strides.released", "deleter_calls=%d", g_deleted);

  /* explicit strides: kept as the producer's pointer */
  g_deleted = 0;
  p = make_producer(2, shape, strides);
  rc = TVMFFITensorFromDLPack(&p->legacy, 0, 0, &t);
  d = dl(t);
  CHECK(rc == 0 && d->strides == p->strides && d->shape == p->shape,
        "from_dlpack.strides.kept", "rc=%d strides=%s%s shape=%s", rc,
        same(d->strides, p->strides), dims(2, d->strides), same(d->shape, p->shape));
  TVMFFIObjectDecRef(t);
  CHECK(g_deleted == 1, "from_dlpack.strides.released", "deleter_calls=%d", g_deleted);

  /* ndim 0: nothing to compute, strides stay as given (NULL) */
  g_deleted = 0;
  p = make_producer(0, NULL, NULL);
  p->legacy.dl_tensor.shape = NULL;
  rc = TVMFFITensorFromDLPack(&p->legacy, 0, 1, &t);
  d = dl(t);
  CHECK(rc == 0 && d->ndim == 0 && d->strides == NULL && d->shape == NULL,
        "from_dlpack.scalar", "rc=%d ndim=%d shape=%s strides=%s", rc, d->ndim,
        null_or_set(d->shape), null_or_set(d->strides));
  TVMFFIObjectDecRef(t);
  CHECK(g_deleted == 1, "from_dlpack.scalar.released", "deleter_calls=%d", g_deleted);

  /* a capsule without a deleter is fine: nothing is called */
  g_deleted = 0;
  p = make_producer(2, shape, NULL);
  p->legacy.deleter = NULL;
  rc = TVMFFITensorFromDLPack(&p->legacy, 0, 0, &t);
  CHECK(rc == 0, "from_dlpack.no_deleter", "rc=%d", rc);
  TVMFFIObjectDecRef(t);
  CHECK(g_deleted == 0, "from_dlpack.no_deleter.released", "deleter_calls=%d", g_deleted);
  free_producer(p);
}

/* ------------------------------------------------------------------------------------------ */
/* 3. Alignment and contiguity checks: errors leave the capsule with its producer              */
/* ------------------------------------------------------------------------------------------ */

/* Tries an import expected to fail; checks rc, kind, message, and that nothing was consumed. */
static void expect_import_error(const char* name, Producer* p, int versioned, int32_t align,
                                int32_t contiguous, const char* kind, const char* msg) {
  TVMFFIObjectHandle t = (TVMFFIObjectHandle)0x1;
  int before = g_deleted;
  DLManagedTensor legacy_copy = p->legacy;
  DLManagedTensorVersioned versioned_copy = p->versioned;
  int rc = versioned ? TVMFFITensorFromDLPackVersioned(&p->versioned, align, contiguous, &t)
                     : TVMFFITensorFromDLPack(&p->legacy, align, contiguous, &t);
  take_error();
  int untouched = g_deleted == before && t == (TVMFFIObjectHandle)0x1 &&
                  memcmp(&legacy_copy, &p->legacy, sizeof legacy_copy) == 0 &&
                  memcmp(&versioned_copy, &p->versioned, sizeof versioned_copy) == 0;
  CHECK(rc == -1 && strcmp(g_kind, kind) == 0 && strcmp(g_msg, msg) == 0 && untouched, name,
        "rc=%d kind=%s msg=\"%s\" unconsumed=%s", rc, g_kind, g_msg, untouched ? "yes" : "no");
}

/* Imports `p` (expected to succeed) and releases the tensor; the deleter runs once. */
static void expect_import_ok(const char* name, Producer* p, int versioned, int32_t align,
                             int32_t contiguous) {
  TVMFFIObjectHandle t = NULL;
  int before = g_deleted;
  int rc = versioned ? TVMFFITensorFromDLPackVersioned(&p->versioned, align, contiguous, &t)
                     : TVMFFITensorFromDLPack(&p->legacy, align, contiguous, &t);
  if (rc != 0) take_error();
  int alive = g_deleted == before;
  if (rc == 0) TVMFFIObjectDecRef(t);
  CHECK(rc == 0 && alive && g_deleted == before + 1, name, "rc=%d%s%s deleter_calls=%d", rc,
        rc ? " error=" : "", rc ? g_kind : "", g_deleted - before);
}

static void test_checks(void) {
  const int64_t shape[2] = {2, 3};
  const int64_t transposed[2] = {1, 2};
  g_deleted = 0;

  /* alignment of data + byte_offset on a direct-address device (CPU) */
  Producer* p = make_producer(2, shape, NULL);
  p->legacy.dl_tensor.byte_offset = 4;
  p->versioned.dl_tensor.byte_offset = 4;
  /* Apache: RuntimeError "FromDLPack: Data is not aligned to 64 bytes." */
  expect_import_error("check.align.legacy", p, 0, 64, 0, "RuntimeError",
                      "FromDLPack: Data is not aligned to 64 bytes.");
  expect_import_error("check.align.versioned", p, 1, 64, 0, "RuntimeError",
                      "FromDLPack: Data is not aligned to 64 bytes.");
  /* a negative int32 alignment is converted to size_t, as in the C++ original */
  expect_import_error("check.align.negative", p, 0, -1, 0, "RuntimeError",
                      "FromDLPack: Data is not aligned to 18446744073709551615 bytes.");
  /* 4-byte alignment holds; 0 asks for nothing */
  expect_import_ok("check.align.4-ok", p, 0, 4, 0);
  p = make_producer(2, shape, NULL);
  p->legacy.dl_tensor.byte_offset = 4;
  expect_import_ok("check.align.0-ok", p, 0, 0, 0);

  /* on other devices the data pointer is a handle: only byte_offset counts */
  p = make_producer(2, shape, NULL);
  p->legacy.dl_tensor.device.device_type = kDLVulkan;
  p->legacy.dl_tensor.data = (char*)p->data + 1;
  p->legacy.dl_tensor.byte_offset = 4;
  expect_import_error("check.align.vulkan-offset", p, 0, 8, 0, "RuntimeError",
                      "FromDLPack: Data is not aligned to 8 bytes.");
  p->legacy.dl_tensor.byte_offset = 16;
  expect_import_ok("check.align.vulkan-handle-ok", p, 0, 16, 0);

  /* contiguity */
  p = make_producer(2, shape, transposed);
  /* Apache: RuntimeError "FromDLPack: Tensor is not contiguous." */
  expect_import_error("check.contiguous.legacy", p, 0, 0, 1, "RuntimeError",
                      "FromDLPack: Tensor is not contiguous.");
  expect_import_error("check.contiguous.versioned", p, 1, 0, 1, "RuntimeError",
                      "FromDLPack: Tensor is not contiguous.");
  /* alignment is checked first */
  p->legacy.dl_tensor.byte_offset = 2;
  expect_import_error("check.order.align-first", p, 0, 4, 1, "RuntimeError",
                      "FromDLPack: Data is not aligned to 4 bytes.");
  p->legacy.dl_tensor.byte_offset = 0;
  /* without the request, non-contiguous strides are accepted and kept */
  expect_import_ok("check.contiguous.not-requested", p, 0, 0, 0);

  {
    /* size-1 dimensions: their stride is ignored */
    const int64_t s1[3] = {2, 1, 3};
    const int64_t st1[3] = {3, 99, 1};
    p = make_producer(3, s1, st1);
    expect_import_ok("check.contiguous.size1-any-stride", p, 0, 0, 1);
    const int64_t s2[2] = {1, 4};
    const int64_t st2[2] = {0, 1};
    p = make_producer(2, s2, st2);
    expect_import_ok("check.contiguous.leading-1-stride-0", p, 1, 0, 1);
    /* no elements: contiguous whatever the strides */
    const int64_t s3[2] = {0, 3};
    const int64_t st3[2] = {7, 7};
    p = make_producer(2, s3, st3);
    expect_import_ok("check.contiguous.empty", p, 0, 0, 1);
    /* a single non-unit stride on the last dimension */
    const int64_t s4[1] = {3};
    const int64_t st4[1] = {2};
    p = make_producer(1, s4, st4);
    expect_import_error("check.contiguous.step2", p, 0, 0, 1, "RuntimeError",
                        "FromDLPack: Tensor is not contiguous.");
    /* row-major given explicitly, and NULL strides, are contiguous */
    const int64_t st5[1] = {1};
    p->legacy.dl_tensor.strides = (int64_t*)st5;
    expect_import_ok("check.contiguous.explicit", p, 0, 16, 1);
    p = make_producer(2, shape, NULL);
    expect_import_ok("check.contiguous.null-strides", p, 1, 64, 1);
  }
  CHECK(g_deleted == 9, "check.deleter-total", "deleter_calls=%d", g_deleted);
}

/* ------------------------------------------------------------------------------------------ */
/* 4. TVMFFITensorFromDLPackVersioned specifics                                                */
/* ------------------------------------------------------------------------------------------ */

static void test_from_dlpack_versioned(void) {
  const int64_t shape[3] = {2, 3, 4};
  const int64_t transposed[3] = {1, 2, 6};
  g_deleted = 0;

  Producer* p = make_producer(3, shape, NULL);
  p->versioned.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
  TVMFFIObjectHandle t = NULL;
  int rc = TVMFFITensorFromDLPackVersioned(&p->versioned, 64, 1, &t);
  DLTensor* d = rc == 0 ? dl(t) : NULL;
  CHECK(rc == 0 && tindex(t) == kTVMFFITensor && strong(t) == 1 && d->shape == p->shape &&
            d->strides != NULL && d->strides[0] == 12 && d->strides[1] == 4 && d->strides[2] == 1,
        "versioned.created", "rc=%d shape=%s strides=%s flags-accepted=read_only|is_copied", rc,
        d ? same(d->shape, p->shape) : "-", d ? dims(3, d->strides) : "-");
  TVMFFIObjectDecRef(t);
  CHECK(g_deleted == 1, "versioned.released", "deleter_calls=%d", g_deleted);

  /* sub-byte padding is refused, after the alignment and contiguity checks */
  p = make_producer(3, shape, NULL);
  p->versioned.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  /* Apache: RuntimeError "Subbyte type padded is not yet supported" */
  expect_import_error("versioned.subbyte-padded", p, 1, 0, 0, "RuntimeError",
                      "Subbyte type padded is not yet supported");
  p->versioned.dl_tensor.strides = (int64_t*)transposed;
  expect_import_error("versioned.order.contiguity-before-subbyte", p, 1, 0, 1, "RuntimeError",
                      "FromDLPack: Tensor is not contiguous.");
  p->versioned.dl_tensor.byte_offset = 1;
  expect_import_error("versioned.order.align-before-subbyte", p, 1, 2, 1, "RuntimeError",
                      "FromDLPack: Data is not aligned to 2 bytes.");
  /* still the producer's: clear the flag and import it for real */
  p->versioned.flags = 0;
  p->versioned.dl_tensor.byte_offset = 0;
  expect_import_ok("versioned.after-errors", p, 1, 0, 0);
  CHECK(g_deleted == 2, "versioned.deleter-total", "deleter_calls=%d", g_deleted);
}

/* ------------------------------------------------------------------------------------------ */
/* 5. TVMFFITensorToDLPack[Versioned]: the capsule holds +1 until its deleter runs              */
/* ------------------------------------------------------------------------------------------ */

static void test_to_dlpack(void) {
  const int64_t shape[2] = {4, 5};
  g_deleted = 0;
  Producer* p = make_producer(2, shape, NULL);
  p->legacy.dl_tensor.byte_offset = 8;
  TVMFFIObjectHandle t = NULL;
  int rc = TVMFFITensorFromDLPack(&p->legacy, 0, 0, &t);
  CHECK(rc == 0, "to_dlpack.source", "rc=%d", rc);
  ((float*)p->data)[2] = 42.0f;

  DLManagedTensor* out = NULL;
  rc = TVMFFITensorToDLPack(t, &out);
  DLTensor* d = dl(t);
  CHECK(rc == 0 && out != NULL && strong(t) == 2 && out->manager_ctx == t &&
            out->deleter != NULL,
        "to_dlpack.legacy.created", "rc=%d strong=%u manager_ctx=%s deleter=%s", rc, strong(t),
        same(out->manager_ctx, t), null_or_set((void*)out->deleter));
  CHECK(out->dl_tensor.data == d->data && out->dl_tensor.shape == d->shape &&
            out->dl_tensor.strides == d->strides && out->dl_tensor.ndim == 2 &&
            out->dl_tensor.byte_offset == 8 && out->dl_tensor.dtype.bits == 32 &&
            out->dl_tensor.device.device_type == kDLCPU,
        "to_dlpack.legacy.dl_tensor", "data=%s shape=%s%s strides=%s%s off=%llu",
        same(out->dl_tensor.data, d->data), same(out->dl_tensor.shape, d->shape),
        dims(2, out->dl_tensor.shape), same(out->dl_tensor.strides, d->strides),
        dims(2, out->dl_tensor.strides), (unsigned long long)out->dl_tensor.byte_offset);

  DLManagedTensorVersioned* outv = NULL;
  rc = TVMFFITensorToDLPackVersioned(t, &outv);
  CHECK(rc == 0 && outv != NULL && strong(t) == 3 && outv->version.major == 1 &&
            outv->version.minor == 3 && outv->flags == 0 && outv->manager_ctx == t &&
            outv->dl_tensor.shape == d->shape && outv->dl_tensor.strides == d->strides,
        "to_dlpack.versioned.created", "rc=%d strong=%u version=%u.%u flags=%llu manager_ctx=%s",
        rc, strong(t), outv->version.major, outv->version.minor, (unsigned long long)outv->flags,
        same(outv->manager_ctx, t));

  /* the tensor's own reference goes: the capsules keep it (and the producer's data) alive */
  TVMFFIObjectDecRef(t);
  CHECK(g_deleted == 0 && strong(t) == 2 &&
            ((float*)out->dl_tensor.data)[2] == 42.0f && out->dl_tensor.shape[1] == 5,
        "to_dlpack.capsules-keep-tensor", "deleter_calls=%d strong=%u value=%g", g_deleted,
        strong(t), (double)((float*)out->dl_tensor.data)[2]);
  out->deleter(out);
  CHECK(g_deleted == 0 && strong(t) == 1, "to_dlpack.legacy.deleted", "deleter_calls=%d strong=%u",
        g_deleted, strong(t));
  outv->deleter(outv);
  CHECK(g_deleted == 1, "to_dlpack.versioned.deleted-last", "deleter_calls=%d", g_deleted);

  /* round trip: export, import the export, drop in the other order */
  g_deleted = 0;
  p = make_producer(2, shape, NULL);
  rc = TVMFFITensorFromDLPack(&p->legacy, 0, 0, &t);
  rc |= TVMFFITensorToDLPackVersioned(t, &outv);
  TVMFFIObjectHandle t2 = NULL;
  rc |= TVMFFITensorFromDLPackVersioned(outv, 64, 1, &t2);
  CHECK(rc == 0 && t2 != t && strong(t) == 2 && strong(t2) == 1 && dl(t2)->data == dl(t)->data &&
            dl(t2)->shape == dl(t)->shape && dl(t2)->strides == dl(t)->strides,
        "to_dlpack.round-trip", "rc=%d new=%s strong=%u/%u data=%s shape=%s strides=%s", rc,
        t2 == t ? "same" : "other", strong(t), strong(t2), same(dl(t2)->data, dl(t)->data),
        same(dl(t2)->shape, dl(t)->shape), same(dl(t2)->strides, dl(t)->strides));
  TVMFFIObjectDecRef(t);
  CHECK(g_deleted == 0 && strong(t) == 1, "to_dlpack.round-trip.first-dropped",
        "deleter_calls=%d strong=%u", g_deleted, strong(t));
  TVMFFIObjectDecRef(t2);
  CHECK(g_deleted == 1, "to_dlpack.round-trip.all-dropped", "deleter_calls=%d", g_deleted);
}

/* ------------------------------------------------------------------------------------------ */
/* 6. TVMFFITensorCreateUnsafeView                                                             */
/* ------------------------------------------------------------------------------------------ */

static void test_views(void) {
  const int64_t shape[2] = {4, 6};
  g_deleted = 0;
  Producer* p = make_producer(2, shape, NULL);
  TVMFFIObjectHandle src = NULL;
  int rc = TVMFFITensorFromDLPack(&p->legacy, 0, 0, &src);
  CHECK(rc == 0, "view.source", "rc=%d", rc);

  /* rows 1..2, columns 2..4 of the 4x6 source */
  int64_t vshape[2] = {2, 3};
  int64_t vstrides[2] = {6, 1};
  DLTensor proto = *dl(src);
  proto.data = (char*)p->data + 4 * (1 * 6);
  proto.byte_offset = 8;
  proto.shape = vshape;
  proto.strides = vstrides;
  TVMFFIObjectHandle v = NULL;
  rc = TVMFFITensorCreateUnsafeView(src, &proto, &v);
  DLTensor* d = rc == 0 ? dl(v) : NULL;
  CHECK(rc == 0 && tindex(v) == kTVMFFITensor && strong(v) == 1 && strong(src) == 2,
        "view.created", "rc=%d type=%d strong=%u source_strong=%u", rc, v ? tindex(v) : -1,
        v ? strong(v) : 0, strong(src));
  CHECK(d->data == proto.data && d->byte_offset == 8 && d->ndim == 2 && d->dtype.bits == 32 &&
            d->device.device_type == kDLCPU && d->shape != vshape && d->strides != vstrides &&
            d->shape != NULL && d->strides != NULL,
        "view.fields", "data=%s off=%llu shape=%s(%s) strides=%s(%s)", same(d->data, proto.data),
        (unsigned long long)d->byte_offset, dims(2, d->shape), same(d->shape, vshape),
        dims(2, d->strides), same(d->strides, vstrides));
  vshape[0] = 99;
  vstrides[0] = 99;
  CHECK(d->shape[0] == 2 && d->strides[0] == 6, "view.copies-dims", "shape=%s strides=%s",
        dims(2, d->shape), dims(2, d->strides));

  /* the view keeps the source (and so the producer's capsule) alive */
  TVMFFIObjectDecRef(src);
  CHECK(g_deleted == 0 && strong(src) == 1, "view.keeps-source", "deleter_calls=%d source_strong=%u",
        g_deleted, strong(src));

  /* a view of a view, exported and imported again */
  DLTensor proto2 = *d;
  int64_t s2[1] = {3};
  int64_t st2[1] = {1};
  proto2.ndim = 1;
  proto2.shape = s2;
  proto2.strides = st2;
  TVMFFIObjectHandle v2 = NULL;
  rc = TVMFFITensorCreateUnsafeView(v, &proto2, &v2);
  CHECK(rc == 0 && strong(v) == 2 && dl(v2)->ndim == 1 && dl(v2)->shape[0] == 3,
        "view.of-view", "rc=%d strong=%u ndim=%d", rc, strong(v), dl(v2)->ndim);
  TVMFFIObjectDecRef(v);
  DLManagedTensor* cap = NULL;
  rc = TVMFFITensorToDLPack(v2, &cap);
  TVMFFIObjectDecRef(v2);
  CHECK(rc == 0 && g_deleted == 0, "view.chain-alive", "rc=%d deleter_calls=%d", rc, g_deleted);
  cap->deleter(cap);
  CHECK(g_deleted == 1, "view.chain-released", "deleter_calls=%d", g_deleted);

  /* prototype strides must be given: InternalError, source untouched */
  g_deleted = 0;
  p = make_producer(2, shape, NULL);
  rc = TVMFFITensorFromDLPack(&p->legacy, 0, 0, &src);
  proto = *dl(src);
  proto.strides = NULL;
  v = (TVMFFIObjectHandle)0x1;
  rc = TVMFFITensorCreateUnsafeView(src, &proto, &v);
  take_error();
  /* Apache: InternalError "Check not null: prototype.strides " */
  CHECK(rc == -1 && strcmp(g_kind, "InternalError") == 0 &&
            strcmp(g_msg, "Check not null: prototype.strides ") == 0 && strong(src) == 1 &&
            v == (TVMFFIObjectHandle)0x1,
        "view.null-strides", "rc=%d kind=%s msg=\"%s\" source_strong=%u", rc, g_kind, g_msg,
        strong(src));
  proto.ndim = 0;
  rc = TVMFFITensorCreateUnsafeView(src, &proto, &v);
  take_error();
  CHECK(rc == -1 && strcmp(g_kind, "InternalError") == 0 && strong(src) == 1,
        "view.null-strides.scalar", "rc=%d kind=%s msg=\"%s\"", rc, g_kind, g_msg);

  /* a scalar view: shape and strides point into the view, never NULL */
  int64_t none[1] = {0};
  proto.ndim = 0;
  proto.shape = none;
  proto.strides = none;
  rc = TVMFFITensorCreateUnsafeView(src, &proto, &v);
  CHECK(rc == 0 && dl(v)->ndim == 0 && dl(v)->shape != NULL && dl(v)->shape != none &&
            dl(v)->strides != NULL,
        "view.scalar", "rc=%d ndim=%d shape=%s strides=%s", rc, dl(v)->ndim,
        dl(v)->shape == none ? "prototype's" : null_or_set(dl(v)->shape),
        null_or_set(dl(v)->strides));
  TVMFFIObjectDecRef(v);
  CHECK(strong(src) == 1, "view.scalar.released", "source_strong=%u", strong(src));

  /* a NULL source is accepted and keeps nothing alive */
  proto = *dl(src);
  rc = TVMFFITensorCreateUnsafeView(NULL, &proto, &v);
  CHECK(rc == 0 && strong(src) == 1 && dl(v)->data == dl(src)->data, "view.null-source",
        "rc=%d source_strong=%u", rc, strong(src));
  TVMFFIObjectDecRef(v);

  /* any object can be the source: here a String object */
  TVMFFIAny str;
  memset(&str, 0, sizeof str);
  const char* text = "a string long enough to be an object";
  TVMFFIByteArray bytes = {text, strlen(text)};
  rc = TVMFFIStringFromByteArray(&bytes, &str);
  TVMFFIObjectHandle sobj = str.v_obj;
  rc |= TVMFFITensorCreateUnsafeView(sobj, &proto, &v);
  CHECK(rc == 0 && str.type_index == kTVMFFIStr && strong(sobj) == 2, "view.string-source",
        "rc=%d source_type=%d source_strong=%u", rc, str.type_index, strong(sobj));
  TVMFFIObjectDecRef(sobj);
  CHECK(strong(sobj) == 1, "view.string-source.kept", "source_strong=%u", strong(sobj));
  TVMFFIObjectDecRef(v);

  TVMFFIObjectDecRef(src);
  CHECK(g_deleted == 1, "view.deleter-total", "deleter_calls=%d", g_deleted);
}

/* ------------------------------------------------------------------------------------------ */
/* 7. TVMFFIEnvTensorAlloc through DLPack allocators                                           */
/* ------------------------------------------------------------------------------------------ */

typedef struct EnvBlock {
  DLManagedTensorVersioned mt;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims];
} EnvBlock;

static int g_env_allocs = 0;
static int g_env_frees = 0;
static int g_env_with_strides = 0;
static char g_env_seen[256];

static void env_deleter(DLManagedTensorVersioned* self) {
  ++g_env_frees;
  free(self->dl_tensor.data);
  free(self->manager_ctx);
}

static int env_alloc(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                     void (*set_error)(void* error_ctx, const char* kind, const char* message)) {
  snprintf(g_env_seen, sizeof g_env_seen, "ndim=%d shape=%s dtype=%d/%d/%d dev=%d:%d ctx=%s",
           prototype->ndim, dims(prototype->ndim, prototype->shape), prototype->dtype.code,
           prototype->dtype.bits, prototype->dtype.lanes, prototype->device.device_type,
           prototype->device.device_id, null_or_set(error_ctx));
  if (prototype->ndim > kMaxDims) {
    set_error(error_ctx, "ValueError", "too many dimensions");
    return -1;
  }
  EnvBlock* b = (EnvBlock*)calloc(1, sizeof(EnvBlock));
  int64_t numel = 1;
  for (int i = 0; i < prototype->ndim; ++i) {
    b->shape[i] = prototype->shape[i];
    numel *= prototype->shape[i];
  }
  int64_t stride = 1;
  for (int i = prototype->ndim - 1; i >= 0; --i) {
    b->strides[i] = stride;
    stride *= prototype->shape[i];
  }
  b->mt.version.major = 1;
  b->mt.version.minor = 3;
  b->mt.manager_ctx = b;
  b->mt.deleter = env_deleter;
  b->mt.dl_tensor = *prototype;
  b->mt.dl_tensor.data = calloc((size_t)(numel > 0 ? numel : 1), (prototype->dtype.bits + 7) / 8);
  b->mt.dl_tensor.shape = b->shape;
  b->mt.dl_tensor.strides = g_env_with_strides ? b->strides : NULL;
  b->mt.dl_tensor.byte_offset = 0;
  ++g_env_allocs;
  *out = &b->mt;
  return 0;
}

static int env_alloc_fails(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                           void (*set_error)(void* error_ctx, const char* kind,
                                             const char* message)) {
  (void)prototype;
  (void)out;
  set_error(error_ctx, "MemoryError", "the pool is exhausted");
  return -1;
}

static int env_alloc_null(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                          void (*set_error)(void* error_ctx, const char* kind, const char* message)) {
  (void)prototype;
  (void)error_ctx;
  (void)set_error;
  *out = NULL;
  return 0;
}

static void test_env_alloc(void) {
  int64_t shape[2] = {2, 3};
  DLTensor proto;
  memset(&proto, 0, sizeof proto);
  proto.device.device_type = kDLCPU;
  proto.device.device_id = 0;
  proto.ndim = 2;
  proto.dtype = f32();
  proto.shape = shape;

  /* no allocator anywhere */
  DLPackManagedTensorAllocator old_local = env_alloc;
  TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 1, &old_local);
  CHECK(old_local == NULL && TVMFFIEnvGetDLPackManagedTensorAllocator() == NULL,
        "env.none.set", "previous=%s", old_local ? "set" : "NULL");
  TVMFFIObjectHandle t = (TVMFFIObjectHandle)0x1;
  int rc = TVMFFIEnvTensorAlloc(&proto, &t);
  take_error();
  /* Apache: RuntimeError "TVMFFIEnvTensorAlloc: allocator is nullptr, likely because
   * TVMFFIEnvSetDLPackManagedTensorAllocator has not been called." */
  CHECK(rc == -1 && strcmp(g_kind, "RuntimeError") == 0 &&
            strcmp(g_msg,
                   "TVMFFIEnvTensorAlloc: allocator is nullptr, likely because "
                   "TVMFFIEnvSetDLPackManagedTensorAllocator has not been called.") == 0 &&
            t == (TVMFFIObjectHandle)0x1,
        "env.none", "rc=%d kind=%s msg=\"%s\"", rc, g_kind, g_msg);

  /* a thread-local custom allocator, producing no strides */
  rc = TVMFFIEnvSetDLPackManagedTensorAllocator(env_alloc, 0, NULL);
  g_env_allocs = g_env_frees = 0;
  rc |= TVMFFIEnvTensorAlloc(&proto, &t);
  CHECK(rc == 0 && g_env_allocs == 1 && tindex(t) == kTVMFFITensor && strong(t) == 1,
        "env.alloc.created", "rc=%d allocs=%d type=%d strong=%u", rc, g_env_allocs, tindex(t),
        strong(t));
  CHECK(strcmp(g_env_seen, "ndim=2 shape=[2,3] dtype=2/32/1 dev=1:0 ctx=NULL") == 0,
        "env.alloc.prototype-seen", "%s", g_env_seen);
  DLTensor* d = dl(t);
  EnvBlock* block = (EnvBlock*)((char*)d->shape - offsetof(EnvBlock, shape));
  CHECK(d->shape == block->shape && d->strides != NULL && d->strides != block->strides &&
            d->strides[0] == 3 && d->strides[1] == 1 && d->data == block->mt.dl_tensor.data,
        "env.alloc.strides-computed", "shape=%s strides=%s", dims(2, d->shape),
        dims(2, d->strides));
  DLManagedTensor* cap = NULL;
  rc = TVMFFITensorToDLPack(t, &cap);
  TVMFFIObjectDecRef(t);
  CHECK(rc == 0 && g_env_frees == 0, "env.alloc.exported-alive", "rc=%d frees=%d", rc,
        g_env_frees);
  cap->deleter(cap);
  CHECK(g_env_frees == 1, "env.alloc.released", "frees=%d", g_env_frees);

  /* with strides from the allocator: kept */
  g_env_with_strides = 1;
  rc = TVMFFIEnvTensorAlloc(&proto, &t);
  d = dl(t);
  block = (EnvBlock*)((char*)d->shape - offsetof(EnvBlock, shape));
  CHECK(rc == 0 && d->strides == block->strides, "env.alloc.strides-kept", "rc=%d strides=%s%s",
        rc, same(d->strides, block->strides), dims(2, d->strides));
  TVMFFIObjectDecRef(t);
  g_env_with_strides = 0;

  /* a scalar */
  proto.ndim = 0;
  proto.shape = NULL;
  rc = TVMFFIEnvTensorAlloc(&proto, &t);
  CHECK(rc == 0 && dl(t)->ndim == 0 && dl(t)->strides == NULL, "env.alloc.scalar",
        "rc=%d ndim=%d strides=%s", rc, dl(t)->ndim, null_or_set(dl(t)->strides));
  TVMFFIObjectDecRef(t);
  proto.ndim = 2;
  proto.shape = shape;

  /* the allocator reports its own error through set_error */
  int64_t big_shape[5] = {1, 1, 1, 1, 1};
  proto.ndim = 5;
  proto.shape = big_shape;
  t = (TVMFFIObjectHandle)0x1;
  rc = TVMFFIEnvTensorAlloc(&proto, &t);
  take_error();
  CHECK(rc == -1 && strcmp(g_kind, "ValueError") == 0 &&
            strcmp(g_msg, "too many dimensions") == 0 && t == (TVMFFIObjectHandle)0x1,
        "env.alloc.error", "rc=%d kind=%s msg=\"%s\"", rc, g_kind, g_msg);
  proto.ndim = 2;
  proto.shape = shape;

  rc = TVMFFIEnvSetDLPackManagedTensorAllocator(env_alloc_fails, 0, &old_local);
  CHECK(rc == 0 && old_local == env_alloc, "env.fails.set", "previous=%s",
        old_local == env_alloc ? "env_alloc" : "other");
  rc = TVMFFIEnvTensorAlloc(&proto, &t);
  take_error();
  CHECK(rc == -1 && strcmp(g_kind, "MemoryError") == 0 &&
            strcmp(g_msg, "the pool is exhausted") == 0,
        "env.fails", "rc=%d kind=%s msg=\"%s\"", rc, g_kind, g_msg);

  /* success without a tensor */
  TVMFFIEnvSetDLPackManagedTensorAllocator(env_alloc_null, 0, NULL);
  rc = TVMFFIEnvTensorAlloc(&proto, &t);
  take_error();
  /* Apache: RuntimeError "Check failed: (dlpack_tensor != nullptr) is false: TVMFFIEnvTensorAlloc:
   * failed to allocate a tensor from the allocator" */
  CHECK(rc == -1 && strcmp(g_kind, "RuntimeError") == 0 &&
            strcmp(g_msg,
                   "Check failed: (dlpack_tensor != nullptr) is false: TVMFFIEnvTensorAlloc: "
                   "failed to allocate a tensor from the allocator") == 0,
        "env.null-tensor", "rc=%d kind=%s msg=\"%s\"", rc, g_kind, g_msg);

  /* the process-wide allocator serves when no thread-local one is set */
  TVMFFIEnvSetDLPackManagedTensorAllocator(env_alloc, 1, NULL);
  TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 0, NULL);
  rc = TVMFFIEnvTensorAlloc(&proto, &t);
  CHECK(rc == 0 && TVMFFIEnvGetDLPackManagedTensorAllocator() == env_alloc, "env.global",
        "rc=%d", rc);
  if (rc == 0) TVMFFIObjectDecRef(t);
  TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 1, NULL);
  CHECK(g_env_allocs == g_env_frees && g_env_allocs == 4, "env.balanced", "allocs=%d frees=%d",
        g_env_allocs, g_env_frees);
}

/* ------------------------------------------------------------------------------------------ */

int main(void) {
  void* live = live_counter();
  int64_t live_start = live_object_count(live);

  test_type();
  test_from_dlpack();
  test_checks();
  test_from_dlpack_versioned();
  test_to_dlpack();
  test_views();
  test_env_alloc();

  TVMFFIObjectHandle leftover = NULL;
  TVMFFIErrorMoveFromRaised(&leftover);
  CHECK(leftover == NULL, "end.error-slot-empty", "slot=%s", leftover ? "set" : "empty");
  if (leftover) TVMFFIObjectDecRef(leftover);

  check_live_objects_at_end(live, live_start, "end.live-objects", "balanced");

  return check_summary();
}
