/*
 * Structural equality, hashing and traversal across runtimes: one C program, compiled once
 * against Apache's headers and linked with -ltvm_ffi (no rpath), runs on Apache's runtime and on
 * ffihub's (the library path decides). It defines reflected object types of its own through the
 * C API (tests/c/structural_types.h: free variables, binders with definition-region fields, DAG,
 * constant-tree and unique-instance nodes, a type with __s_equal__/__s_hash__ hooks) and uses
 * the testing library's visit fixtures (argv[1] is libtvm_ffi_testing.so), then calls the ffi.*
 * structural globals and prints one line per check:
 *
 *     ok <check-name> <observed facts>
 *     FAIL <check-name> <observed facts> [structural.c:<line>]
 *
 * Structural hash values are printed in the transcript: the Rust driver
 * (tests/conformance/structural.rs) asserts that both runs pass and print the same transcript,
 * so every printed hash is equal on both runtimes. Hashes that depend on addresses (free
 * variables outside definition regions) are only compared within a run.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dlpack/dlpack.h>
#include <stdbool.h>

#include "check.h"
#include "structural_types.h"

/* ---- values ---------------------------------------------------------------------------- */

/* Copies the text of a String value (small or heap) into `out`. */
static const char* text_of(const TVMFFIAny* s, char* out, size_t cap) {
  const char* data = "";
  size_t n = 0;
  if (s->type_index == kTVMFFISmallStr) {
    data = (const char*)s->v_bytes;
    n = s->small_str_len;
  } else if (s->type_index == kTVMFFIStr) {
    const TVMFFIByteArray* b = (const TVMFFIByteArray*)((const char*)s->v_obj + sizeof(TVMFFIObject));
    data = b->data;
    n = b->size;
  } else {
    data = "<not a str>";
    n = strlen(data);
  }
  if (n >= cap) n = cap - 1;
  memcpy(out, data, n);
  out[n] = '\0';
  return out;
}

/* The kind and message of the raised error (which is consumed). */
static const char* take_error(char* out, size_t cap) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL) {
    snprintf(out, cap, "<no error>");
    return out;
  }
  const TVMFFIErrorCell* cell = (const TVMFFIErrorCell*)((const char*)err + sizeof(TVMFFIObject));
  snprintf(out, cap, "%.*s: %.*s", (int)cell->kind.size, cell->kind.data, (int)cell->message.size,
           cell->message.data);
  TVMFFIObjectDecRef(err);
  return out;
}

static TVMFFIAny sx_bool(bool v) {
  TVMFFIAny out = sx_int(v);
  out.type_index = kTVMFFIBool;
  return out;
}

static TVMFFIAny sx_float(double v) {
  TVMFFIAny out = sx_int(0);
  out.type_index = kTVMFFIFloat;
  out.v_float64 = v;
  return out;
}

static TVMFFIAny arr2(const char* ctor, TVMFFIAny a, TVMFFIAny b) {
  TVMFFIAny items[2] = {a, b};
  return sx_array(ctor, items, 2);
}

static TVMFFIAny arr1(const char* ctor, TVMFFIAny a) {
  TVMFFIAny items[1] = {a};
  return sx_array(ctor, items, 1);
}

static TVMFFIAny copy(const TVMFFIAny* v) {
  sx_retain(v);
  return *v;
}

/* ---- the object types -------------------------------------------------------------------- */

enum { FREE_VAR = 2, TREE = 1, DAG = 3, CONST_TREE = 4, UNIQUE = 5, UNSUPPORTED = 0 };
#define IGNORE ((int64_t)kTVMFFIFieldFlagBitMaskSEqHashIgnore)
#define DEF_PATTERN ((int64_t)kTVMFFIFieldFlagBitMaskSEqHashDefPattern)
#define DEF_SIMPLE ((int64_t)kTVMFFIFieldFlagBitMaskSEqHashDefSimple)

static int32_t t_var, t_lambda, t_let, t_add, t_const, t_node, t_unique, t_opaque, t_hooked;

static TVMFFIAny var(const char* name) {
  TVMFFIAny f[1] = {sx_str(name)};
  return sx_new(t_var, 1, f);
}
static TVMFFIAny lambda(TVMFFIAny params, TVMFFIAny body) {
  TVMFFIAny f[2] = {params, body};
  return sx_new(t_lambda, 2, f);
}
static TVMFFIAny let(TVMFFIAny v, TVMFFIAny value, TVMFFIAny body) {
  TVMFFIAny f[3] = {v, value, body};
  return sx_new(t_let, 3, f);
}
static TVMFFIAny add(TVMFFIAny a, TVMFFIAny b) {
  TVMFFIAny f[2] = {a, b};
  return sx_new(t_add, 2, f);
}
static TVMFFIAny one(int32_t type, TVMFFIAny v) {
  TVMFFIAny f[1] = {v};
  return sx_new(type, 1, f);
}
static TVMFFIAny hooked(int64_t key, const char* label) {
  TVMFFIAny f[2] = {sx_int(key), sx_str(label)};
  return sx_new(t_hooked, 2, f);
}

/* __s_equal__(lhs, rhs, eq_cb): only the `key` fields matter. */
static int hooked_s_equal(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (n != 3) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "__s_equal__ takes 3 arguments");
    return -1;
  }
  const SxObject* l = (const SxObject*)args[0].v_obj;
  const SxObject* r = (const SxObject*)args[1].v_obj;
  TVMFFIAny cb_args[4] = {l->fields[0], r->fields[0], sx_int(0), sx_str("key")};
  int rc = TVMFFIFunctionCall(args[2].v_obj, cb_args, 4, rv);
  return rc;
}

/* __s_hash__(obj, init, hash_cb): only the `key` field matters. */
static int hooked_s_hash(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (n != 3) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "__s_hash__ takes 3 arguments");
    return -1;
  }
  const SxObject* obj = (const SxObject*)args[0].v_obj;
  TVMFFIAny cb_args[3] = {obj->fields[0], args[1], sx_int(0)};
  return TVMFFIFunctionCall(args[2].v_obj, cb_args, 3, rv);
}

static void register_hook(int32_t type, const char* attr, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(NULL, fn, NULL, &f) != 0) sx_fatal("TVMFFIFunctionCreate");
  TVMFFIAny value = sx_none();
  value.type_index = kTVMFFIFunction;
  value.v_obj = (TVMFFIObject*)f;
  TVMFFIByteArray name = sx_bytes(attr);
  if (TVMFFITypeRegisterAttr(type, &name, &value) != 0) sx_fatal("TVMFFITypeRegisterAttr");
  TVMFFIObjectDecRef(f);
}

static void register_types(void) {
  const char* name[] = {"name"};
  const int64_t name_flags[] = {IGNORE};
  t_var = sx_register("sx.Var", FREE_VAR, 1, name, name_flags);
  const char* lambda_fields[] = {"params", "body"};
  const int64_t lambda_flags[] = {DEF_PATTERN, 0};
  t_lambda = sx_register("sx.Lambda", TREE, 2, lambda_fields, lambda_flags);
  const char* let_fields[] = {"var", "value", "body"};
  const int64_t let_flags[] = {DEF_SIMPLE, 0, 0};
  t_let = sx_register("sx.Let", TREE, 3, let_fields, let_flags);
  const char* add_fields[] = {"a", "b"};
  t_add = sx_register("sx.Add", TREE, 2, add_fields, NULL);
  const char* value[] = {"value"};
  t_const = sx_register("sx.Const", CONST_TREE, 1, value, NULL);
  t_node = sx_register("sx.Node", DAG, 1, value, NULL);
  t_unique = sx_register("sx.Unique", UNIQUE, 1, value, NULL);
  t_opaque = sx_register("sx.Opaque", UNSUPPORTED, 1, value, NULL);
  const char* hooked_fields[] = {"key", "label"};
  t_hooked = sx_register("sx.Hooked", TREE, 2, hooked_fields, NULL);
  register_hook(t_hooked, "__s_equal__", hooked_s_equal);
  register_hook(t_hooked, "__s_hash__", hooked_s_hash);
}

/* ---- the structural globals ----------------------------------------------------------------- */

static char g_err[512];

/* StructuralHash; on error returns 0 and leaves the message in g_err. */
static uint64_t shash(const TVMFFIAny* v, bool map_free_vars, bool skip_tensor_content) {
  TVMFFIAny args[3] = {*v, sx_bool(map_free_vars), sx_bool(skip_tensor_content)};
  TVMFFIAny out;
  g_err[0] = '\0';
  if (sx_call("ffi.StructuralHash", args, 3, &out) != 0) {
    take_error(g_err, sizeof(g_err));
    return 0;
  }
  return (uint64_t)out.v_int64;
}

/* StructuralEqual: 1, 0, or -1 on error (message in g_err). */
static int sequal(const TVMFFIAny* a, const TVMFFIAny* b, bool map_free_vars) {
  TVMFFIAny args[4] = {*a, *b, sx_bool(map_free_vars), sx_bool(false)};
  TVMFFIAny out;
  g_err[0] = '\0';
  if (sx_call("ffi.StructuralEqual", args, 4, &out) != 0) {
    take_error(g_err, sizeof(g_err));
    return -1;
  }
  return out.v_int64 != 0;
}

static const char* repr(const TVMFFIAny* v, char* out, size_t cap) {
  TVMFFIAny r;
  TVMFFIAny arg = *v;
  if (sx_call("ffi.ReprPrint", &arg, 1, &r) != 0) return take_error(out, cap);
  text_of(&r, out, cap);
  sx_release(&r);
  return out;
}

/* "lhs-path vs rhs-path" of the first mismatch, or "none". */
static const char* mismatch(const TVMFFIAny* a, const TVMFFIAny* b, bool map_free_vars, char* out,
                            size_t cap) {
  TVMFFIAny args[4] = {*a, *b, sx_bool(map_free_vars), sx_bool(false)};
  TVMFFIAny pair;
  if (sx_call("ffi.GetFirstStructuralMismatch", args, 4, &pair) != 0) return take_error(out, cap);
  if (pair.type_index == kTVMFFINone) {
    snprintf(out, cap, "none");
    return out;
  }
  char l[256], r[256];
  TVMFFIAny idx[2] = {pair, sx_int(0)};
  TVMFFIAny lp, rp;
  if (sx_call("ffi.ArrayGetItem", idx, 2, &lp) != 0) return take_error(out, cap);
  idx[1] = sx_int(1);
  if (sx_call("ffi.ArrayGetItem", idx, 2, &rp) != 0) return take_error(out, cap);
  snprintf(out, cap, "%s vs %s", repr(&lp, l, sizeof(l)), repr(&rp, r, sizeof(r)));
  sx_release(&lp);
  sx_release(&rp);
  sx_release(&pair);
  return out;
}

/* ---- checks ---------------------------------------------------------------------------------- */

static void print_hash(const char* name, TVMFFIAny v, bool map_free_vars) {
  uint64_t h = shash(&v, map_free_vars, false);
  CHECK(g_err[0] == '\0', name, "hash=%016llx %s", (unsigned long long)h, g_err);
  sx_release(&v);
}

static void test_value_hashes(void) {
  print_hash("hash.int0", sx_int(0), false);
  print_hash("hash.int-1", sx_int(-1), false);
  print_hash("hash.bool", sx_bool(true), false);
  print_hash("hash.float", sx_float(1.5), false);
  print_hash("hash.float-0", sx_float(-0.0), false);
  print_hash("hash.nan", sx_float(0.0 / 0.0), false);
  print_hash("hash.none", sx_none(), false);
  print_hash("hash.small-str", sx_str("abc"), false);
  print_hash("hash.heap-str", sx_str("a longer string on the heap"), false);
  TVMFFIByteArray bytes = sx_bytes("some bytes, long enough");
  TVMFFIAny b;
  TVMFFIBytesFromByteArray(&bytes, &b);
  print_hash("hash.bytes", b, false);
  int64_t words[2] = {0, 1};
  TVMFFIByteArray word_bytes = {(const char*)words, sizeof(words)};
  TVMFFIAny big;
  if (TVMFFIBigIntFromByteArray(&word_bytes, &big) == 0) {
    print_hash("hash.bigint", big, false);
  } else {
    CHECK(0, "hash.bigint", "%s", take_error(g_err, sizeof(g_err)));
  }
  DLDataType f32 = {kDLFloat, 32, 1};
  TVMFFIAny dtype = sx_none();
  dtype.type_index = kTVMFFIDataType;
  dtype.v_dtype = f32;
  print_hash("hash.dtype", dtype, false);
}

static void test_container_hashes(void) {
  print_hash("hash.array", arr2("ffi.Array", sx_int(1), sx_str("x")), false);
  print_hash("hash.list", arr2("ffi.List", sx_int(1), sx_str("x")), false);
  print_hash("hash.empty-array", sx_array("ffi.Array", NULL, 0), false);
  print_hash("hash.nested", arr2("ffi.Array", arr2("ffi.List", sx_int(1), sx_float(2.0)),
                                 arr1("ffi.Array", sx_str("deep"))),
             false);
  TVMFFIAny kv[6] = {sx_str("a"), sx_int(1), sx_str("b"), arr1("ffi.Array", sx_int(2)),
                     sx_int(7), sx_str("seven")};
  TVMFFIAny kv2[6];
  memcpy(kv2, kv, sizeof(kv));
  for (int i = 0; i < 6; ++i) sx_retain(&kv2[i]);
  print_hash("hash.map", sx_array("ffi.Map", kv, 6), false);
  print_hash("hash.dict", sx_array("ffi.Dict", kv2, 6), false);
  TVMFFIAny dims[3] = {sx_int(2), sx_int(3), sx_int(4)};
  print_hash("hash.shape", sx_array("ffi.Shape", dims, 3), false);
  /* insertion order does not matter for maps */
  TVMFFIAny a[4] = {sx_str("k1"), sx_int(1), sx_str("k2"), sx_int(2)};
  TVMFFIAny b[4] = {sx_str("k2"), sx_int(2), sx_str("k1"), sx_int(1)};
  TVMFFIAny ma = sx_array("ffi.Map", a, 4), mb = sx_array("ffi.Map", b, 4);
  CHECK(shash(&ma, false, false) == shash(&mb, false, false) && sequal(&ma, &mb, false) == 1,
        "map.order-independent", "equal=%d", sequal(&ma, &mb, false));
  sx_release(&ma);
  sx_release(&mb);
}

static float g_tensor_data[6] = {1, 2, 3, 4, 5, 6};
static float g_tensor_data2[6] = {1, 2, 3, 4, 5, 7};
static int64_t g_tensor_shape[2] = {2, 3};

static void no_delete(DLManagedTensor* self) { (void)self; }

static TVMFFIAny tensor_of(float* data, DLManagedTensor* mt) {
  memset(mt, 0, sizeof(*mt));
  mt->dl_tensor.data = data;
  mt->dl_tensor.device.device_type = kDLCPU;
  mt->dl_tensor.ndim = 2;
  mt->dl_tensor.dtype.code = kDLFloat;
  mt->dl_tensor.dtype.bits = 32;
  mt->dl_tensor.dtype.lanes = 1;
  mt->dl_tensor.shape = g_tensor_shape;
  mt->deleter = no_delete;
  TVMFFIObjectHandle h = NULL;
  if (TVMFFITensorFromDLPack(mt, 0, 0, &h) != 0) sx_fatal("TVMFFITensorFromDLPack");
  TVMFFIAny out = sx_none();
  out.type_index = kTVMFFITensor;
  out.v_obj = (TVMFFIObject*)h;
  return out;
}

static void test_tensors(void) {
  DLManagedTensor m1, m2;
  TVMFFIAny t1 = tensor_of(g_tensor_data, &m1), t2 = tensor_of(g_tensor_data2, &m2);
  uint64_t h1 = shash(&t1, false, false), h2 = shash(&t2, false, false);
  CHECK(h1 != h2, "tensor.hash", "hash=%016llx other=%016llx", (unsigned long long)h1,
        (unsigned long long)h2);
  uint64_t s1 = shash(&t1, false, true), s2 = shash(&t2, false, true);
  CHECK(s1 == s2, "tensor.hash-skip-content", "hash=%016llx", (unsigned long long)s1);
  TVMFFIAny args[4] = {t1, t2, sx_bool(false), sx_bool(false)};
  TVMFFIAny out;
  sx_call("ffi.StructuralEqual", args, 4, &out);
  int content = (int)out.v_int64;
  args[3] = sx_bool(true);
  sx_call("ffi.StructuralEqual", args, 4, &out);
  CHECK(content == 0 && out.v_int64 == 1, "tensor.equal", "with-content=%d skip-content=%d",
        content, (int)out.v_int64);
  sx_release(&t1);
  sx_release(&t2);
}

static void test_objects(void) {
  char buf[512];
  /* alpha-equivalence through the definition region of Lambda.params */
  TVMFFIAny x = var("x"), y = var("y");
  TVMFFIAny f = lambda(arr1("ffi.Array", copy(&x)), add(copy(&x), one(t_const, sx_int(1))));
  TVMFFIAny g = lambda(arr1("ffi.Array", copy(&y)), add(copy(&y), one(t_const, sx_int(1))));
  TVMFFIAny h = lambda(arr1("ffi.Array", copy(&y)), add(one(t_const, sx_int(1)), copy(&y)));
  CHECK(sequal(&f, &g, false) == 1, "lambda.alpha-equal", "equal=%d %s", sequal(&f, &g, false),
        g_err);
  CHECK(shash(&f, false, false) == shash(&g, false, false), "lambda.hash",
        "hash=%016llx", (unsigned long long)shash(&f, false, false));
  CHECK(sequal(&f, &h, false) == 0, "lambda.unequal", "mismatch=%s",
        mismatch(&f, &h, false, buf, sizeof(buf)));
  /* free variables outside a definition region: identity, unless map_free_vars */
  TVMFFIAny ex = add(copy(&x), sx_int(1)), ey = add(copy(&y), sx_int(1));
  int plain = sequal(&ex, &ey, false), mapped = sequal(&ex, &ey, true);
  CHECK(plain == 0 && mapped == 1, "free-var.map_free_vars", "plain=%d mapped=%d mismatch=%s",
        plain, mapped, mismatch(&ex, &ey, false, buf, sizeof(buf)));
  CHECK(shash(&ex, false, false) != shash(&ey, false, false), "free-var.hash-identity",
        "distinct=1");
  CHECK(shash(&ex, true, false) == shash(&ey, true, false), "free-var.hash-mapped",
        "hash=%016llx", (unsigned long long)shash(&ex, true, false));
  CHECK(sequal(&ex, &ex, false) == 1, "free-var.same-identity", "equal=1");
  /* a free variable bound twice maps one-to-one */
  TVMFFIAny xx = add(copy(&x), copy(&x)), xy = add(copy(&x), copy(&y));
  CHECK(sequal(&xx, &xy, true) == 0, "free-var.one-to-one", "mismatch=%s",
        mismatch(&xx, &xy, true, buf, sizeof(buf)));
  /* Let.var is a simple definition region */
  TVMFFIAny l1 = let(copy(&x), sx_int(5), add(copy(&x), copy(&x)));
  TVMFFIAny l2 = let(copy(&y), sx_int(5), add(copy(&y), copy(&y)));
  TVMFFIAny l3 = let(copy(&y), sx_int(6), add(copy(&y), copy(&y)));
  CHECK(sequal(&l1, &l2, false) == 1, "let.alpha-equal", "equal=%d", sequal(&l1, &l2, false));
  CHECK(shash(&l1, false, false) == shash(&l2, false, false), "let.hash", "hash=%016llx",
        (unsigned long long)shash(&l1, false, false));
  CHECK(sequal(&l1, &l3, false) == 0, "let.unequal", "mismatch=%s",
        mismatch(&l1, &l3, false, buf, sizeof(buf)));
  /* DAG nodes: sharing matters */
  TVMFFIAny n = one(t_node, sx_int(3));
  TVMFFIAny shared = arr2("ffi.Array", copy(&n), copy(&n));
  TVMFFIAny unshared = arr2("ffi.Array", one(t_node, sx_int(3)), one(t_node, sx_int(3)));
  CHECK(sequal(&shared, &unshared, false) == 0 && sequal(&unshared, &unshared, false) == 1,
        "dag.sharing", "mismatch=%s", mismatch(&shared, &unshared, false, buf, sizeof(buf)));
  CHECK(shash(&shared, false, false) != shash(&unshared, false, false), "dag.hash",
        "shared=%016llx unshared=%016llx", (unsigned long long)shash(&shared, false, false),
        (unsigned long long)shash(&unshared, false, false));
  /* unique instances compare by identity; const tree nodes by content */
  TVMFFIAny u1 = one(t_unique, sx_int(1)), u2 = one(t_unique, sx_int(1));
  TVMFFIAny c1 = one(t_const, sx_int(1)), c2 = one(t_const, sx_int(1));
  CHECK(sequal(&u1, &u2, false) == 0 && sequal(&u1, &u1, false) == 1 &&
            sequal(&c1, &c2, false) == 1,
        "kinds.unique-and-const", "hash-unique=%016llx hash-const=%016llx",
        (unsigned long long)shash(&u1, false, false), (unsigned long long)shash(&c1, false, false));
  /* ignored fields: Var.name */
  TVMFFIAny vx = lambda(arr1("ffi.Array", var("a")), sx_int(0));
  TVMFFIAny vy = lambda(arr1("ffi.Array", var("b")), sx_int(0));
  CHECK(sequal(&vx, &vy, false) == 1, "field.ignored", "hash=%016llx",
        (unsigned long long)shash(&vx, false, false));
  /* custom hooks: only the key matters */
  TVMFFIAny k1 = hooked(1, "first label"), k2 = hooked(1, "second label"), k3 = hooked(2, "x");
  CHECK(sequal(&k1, &k2, false) == 1 && sequal(&k1, &k3, false) == 0, "hooks.equal",
        "mismatch=%s", mismatch(&k1, &k3, false, buf, sizeof(buf)));
  CHECK(shash(&k1, false, false) == shash(&k2, false, false), "hooks.hash", "hash=%016llx",
        (unsigned long long)shash(&k1, false, false));
  /* a map keyed by a bound variable hashes through the variable's definition */
  TVMFFIAny mx[2] = {copy(&x), sx_int(1)}, my[2] = {copy(&y), sx_int(1)};
  TVMFFIAny fm = lambda(arr1("ffi.Array", copy(&x)), sx_array("ffi.Map", mx, 2));
  TVMFFIAny gm = lambda(arr1("ffi.Array", copy(&y)), sx_array("ffi.Map", my, 2));
  CHECK(sequal(&fm, &gm, false) == 1 && shash(&fm, false, false) == shash(&gm, false, false),
        "map.bound-keys", "hash=%016llx", (unsigned long long)shash(&fm, false, false));
  /* unsupported kinds and types without metadata are TypeErrors */
  TVMFFIAny o = one(t_opaque, sx_int(1));
  shash(&o, false, false);
  CHECK(strstr(g_err, "TypeError") == g_err, "unsupported.hash", "%s", g_err);
  sequal(&o, &o, false);
  CHECK(strstr(g_err, "TypeError") == g_err, "unsupported.equal", "%s", g_err);
  TVMFFIAny all[] = {x, y, f, g, h, ex, ey, xx, xy, l1, l2, l3, n, shared, unshared,
                     u1, u2, c1, c2, vx, vy, k1, k2, k3, fm, gm, o};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) sx_release(&all[i]);
}

static void test_mismatch_paths(void) {
  char buf[512];
  TVMFFIAny a = arr2("ffi.Array", sx_int(1), arr2("ffi.List", sx_int(2), sx_int(3)));
  TVMFFIAny b = arr2("ffi.Array", sx_int(1), arr2("ffi.List", sx_int(2), sx_int(4)));
  CHECK(1, "mismatch.nested", "%s", mismatch(&a, &b, false, buf, sizeof(buf)));
  CHECK(1, "mismatch.equal", "%s", mismatch(&a, &a, false, buf, sizeof(buf)));
  TVMFFIAny shorter = arr1("ffi.Array", sx_int(1));
  CHECK(1, "mismatch.missing-item", "%s", mismatch(&a, &shorter, false, buf, sizeof(buf)));
  CHECK(1, "mismatch.extra-item", "%s", mismatch(&shorter, &a, false, buf, sizeof(buf)));
  TVMFFIAny m1[4] = {sx_str("k"), sx_int(1), sx_str("j"), sx_int(2)};
  TVMFFIAny m2[4] = {sx_str("k"), sx_int(1), sx_str("q"), sx_int(2)};
  TVMFFIAny m3[4] = {sx_str("k"), sx_int(5), sx_str("j"), sx_int(2)};
  TVMFFIAny ma = sx_array("ffi.Map", m1, 4), mb = sx_array("ffi.Map", m2, 4),
            mc = sx_array("ffi.Map", m3, 4);
  CHECK(1, "mismatch.map-key", "%s", mismatch(&ma, &mb, false, buf, sizeof(buf)));
  CHECK(1, "mismatch.map-value", "%s", mismatch(&ma, &mc, false, buf, sizeof(buf)));
  TVMFFIAny t = add(sx_int(1), arr1("ffi.Array", sx_str("left")));
  TVMFFIAny u = add(sx_int(1), arr1("ffi.Array", sx_str("right")));
  CHECK(1, "mismatch.field", "%s", mismatch(&t, &u, false, buf, sizeof(buf)));
  CHECK(1, "mismatch.type", "%s", mismatch(&t, &a, false, buf, sizeof(buf)));
  TVMFFIAny all[] = {a, b, shorter, ma, mb, mc, t, u};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) sx_release(&all[i]);
}

static void test_structural_key(void) {
  TVMFFIAny a = arr2("ffi.Array", sx_int(1), sx_str("x"));
  TVMFFIAny b = arr2("ffi.Array", sx_int(1), sx_str("x"));
  TVMFFIAny ka, kb;
  sx_call("ffi.StructuralKey", &a, 1, &ka);
  sx_call("ffi.StructuralKey", &b, 1, &kb);
  TVMFFIAny args[2] = {ka, kb};
  TVMFFIAny eq;
  sx_call("ffi.StructuralKeyEqual", args, 2, &eq);
  int64_t cached;
  memcpy(&cached, (const char*)ka.v_obj + 40, sizeof(cached)); /* StructuralKeyObj::hash_i64 */
  CHECK(eq.v_int64 == 1 && (uint64_t)cached == shash(&a, false, false), "key.equal",
        "hash_i64=%016llx", (unsigned long long)cached);
  /* a Map keyed by StructuralKey finds structurally equal keys */
  TVMFFIAny kv[2] = {copy(&ka), sx_int(42)};
  TVMFFIAny map = sx_array("ffi.Map", kv, 2);
  TVMFFIAny get_args[2] = {map, kb};
  TVMFFIAny found;
  int rc = sx_call("ffi.MapGetItem", get_args, 2, &found);
  CHECK(rc == 0 && found.type_index == kTVMFFIInt && found.v_int64 == 42, "key.map-lookup",
        "found=%lld", (long long)found.v_int64);
  if (rc != 0) take_error(g_err, sizeof(g_err));
  TVMFFIAny all[] = {a, b, ka, kb, map};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) sx_release(&all[i]);
}

/* ---- traversal ------------------------------------------------------------------------------ */

static char g_trail[2048];

/* Appends "<what>" for a visited value: ints by value, objects by type key. */
static void trail_add(const TVMFFIAny* v, int64_t kind) {
  char item[128];
  if (v->type_index == kTVMFFIInt) {
    snprintf(item, sizeof(item), "%lld", (long long)v->v_int64);
  } else {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(v->type_index);
    snprintf(item, sizeof(item), "%.*s", (int)info->type_key.size, info->type_key.data);
  }
  size_t len = strlen(g_trail);
  if (kind >= 0) {
    snprintf(g_trail + len, sizeof(g_trail) - len, "%s%s@%lld", len ? " " : "", item,
             (long long)kind);
  } else {
    snprintf(g_trail + len, sizeof(g_trail) - len, "%s%s", len ? " " : "", item);
  }
}

/* Walk callback (value[, kind]): records the value; interrupts at the int 99; skips sx.Const. */
static int walk_cb(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  trail_add(&args[0], n > 1 ? args[1].v_int64 : -1);
  *rv = sx_int(0);
  if (args[0].type_index == kTVMFFIInt && args[0].v_int64 == 99) {
    TVMFFIAny payload = sx_str("stop");
    return sx_call("ffi.VisitInterrupt", &payload, 1, rv);
  }
  if (args[0].type_index == t_const) *rv = sx_int(1);
  return 0;
}

/* Walk callback that fails on the int 13. */
static int failing_cb(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  (void)n;
  *rv = sx_none();
  if (args[0].type_index == kTVMFFIInt && args[0].v_int64 == 13) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "unlucky number");
    return -1;
  }
  return 0;
}

static TVMFFIAny callbacks(int32_t type_index, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = NULL;
  TVMFFIFunctionCreate(NULL, fn, NULL, &f);
  TVMFFIAny fv = sx_none();
  fv.type_index = kTVMFFIFunction;
  fv.v_obj = (TVMFFIObject*)f;
  TVMFFIAny entry = arr2("ffi.Array", sx_int(type_index), fv);
  return arr1("ffi.Array", entry);
}

static const char* walk(const TVMFFIAny* root, TVMFFIAny cbs, TVMFFIAny cbs_kind, int order,
                        char* out, size_t cap) {
  g_trail[0] = '\0';
  TVMFFIAny args[4] = {*root, cbs, cbs_kind, sx_int(order)};
  TVMFFIAny result;
  int rc = sx_call("ffi.StructuralWalk", args, 4, &result);
  char what[256];
  if (rc != 0) {
    take_error(what, sizeof(what));
  } else if (result.type_index == kTVMFFINone) {
    snprintf(what, sizeof(what), "done");
  } else {
    repr(&result, what, sizeof(what));
  }
  snprintf(out, cap, "[%s] -> %s", g_trail, what);
  sx_release(&result);
  sx_release(&cbs);
  sx_release(&cbs_kind);
  return out;
}

/* Walks `root` with a callback that fails on 13, then maps the error's visit context back to
 * access paths (exact and prefix matches). */
static const char* error_paths(const TVMFFIAny* root, char* out, size_t cap) {
  TVMFFIAny empty = sx_array("ffi.Array", NULL, 0);
  TVMFFIAny args[4] = {*root, callbacks(kTVMFFIAny, failing_cb), empty, sx_int(0)};
  TVMFFIAny result;
  int rc = sx_call("ffi.StructuralWalk", args, 4, &result);
  sx_release(&args[1]);
  sx_release(&args[2]);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (rc == 0 || err == NULL) {
    snprintf(out, cap, "<no error>");
    return out;
  }
  const TVMFFIErrorCell* cell = (const TVMFFIErrorCell*)((const char*)err + sizeof(TVMFFIObject));
  char exact[256] = "<no context>", prefix[256] = "<no context>";
  if (cell->extra_context != NULL) {
    TVMFFIAny ctx = sx_none();
    ctx.type_index = ((TVMFFIObject*)cell->extra_context)->type_index;
    ctx.v_obj = (TVMFFIObject*)cell->extra_context;
    for (int allow_prefix = 0; allow_prefix <= 1; ++allow_prefix) {
      char* dst = allow_prefix ? prefix : exact;
      TVMFFIAny fargs[3] = {*root, ctx, sx_bool(allow_prefix)};
      TVMFFIAny found;
      if (sx_call("ffi.VisitErrorContext.FindAccessPaths", fargs, 3, &found) == 0) {
        repr(&found, dst, 256);
        sx_release(&found);
      } else {
        take_error(dst, 256);
      }
    }
  }
  snprintf(out, cap, "%.*s: %.*s exact=%s prefix=%s", (int)cell->kind.size, cell->kind.data,
           (int)cell->message.size, cell->message.data, exact, prefix);
  TVMFFIObjectDecRef(err);
  return out;
}

static void test_walk(void* testing) {
  char buf[2048];
  TVMFFIAny empty = sx_array("ffi.Array", NULL, 0);
  TVMFFIAny tree = add(arr2("ffi.Array", sx_int(1), one(t_const, sx_int(2))),
                       arr2("ffi.List", sx_int(3), sx_int(4)));
  CHECK(1, "walk.pre-order", "%s",
        walk(&tree, callbacks(kTVMFFIAny, walk_cb), copy(&empty), 0, buf, sizeof(buf)));
  CHECK(1, "walk.post-order", "%s",
        walk(&tree, callbacks(kTVMFFIAny, walk_cb), copy(&empty), 1, buf, sizeof(buf)));
  CHECK(1, "walk.ints-only", "%s",
        walk(&tree, callbacks(kTVMFFIInt, walk_cb), copy(&empty), 0, buf, sizeof(buf)));
  TVMFFIAny stop = add(sx_int(1), arr2("ffi.Array", sx_int(99), sx_int(100)));
  CHECK(1, "walk.interrupt", "%s",
        walk(&stop, callbacks(kTVMFFIAny, walk_cb), copy(&empty), 0, buf, sizeof(buf)));
  /* errors carry the trail of nodes, which FindAccessPaths maps back to paths */
  TVMFFIAny in_array = add(sx_int(1), arr2("ffi.Array", sx_int(7), add(sx_int(13), sx_int(0))));
  TVMFFIAny in_field = add(sx_int(1), add(sx_int(2), add(sx_int(13), sx_int(0))));
  CHECK(1, "walk.error-paths-array", "%s", error_paths(&in_array, buf, sizeof(buf)));
  CHECK(1, "walk.error-paths-fields", "%s", error_paths(&in_field, buf, sizeof(buf)));
  /* the testing library's fixtures: region fields, and a Function __s_visit__ hook written
   * against Apache's C++ visitor API */
  if (testing != NULL) {
    for (int with_hook = 0; with_hook <= 1; ++with_hook) {
      TVMFFIAny flag = sx_bool(with_hook);
      TVMFFIAny graph;
      if (sx_call("testing.make_visit_region_graph", &flag, 1, &graph) != 0) sx_fatal("graph");
      CHECK(1, with_hook ? "walk.testing-hook" : "walk.testing-regions", "%s",
            walk(&graph, copy(&empty), callbacks(kTVMFFIAny, walk_cb), 0, buf, sizeof(buf)));
      sx_release(&graph);
    }
  }
  TVMFFIAny all[] = {empty, tree, stop, in_array, in_field};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) sx_release(&all[i]);
}

/* StructuralVisit callback for sx.Add: records it, then visits only its `b` field. */
static int visit_add_cb(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  (void)n;
  trail_add(&args[0], -1);
  const SxObject* obj = (const SxObject*)args[0].v_obj;
  TVMFFIAny vargs[2] = {args[1], obj->fields[1]};
  return sx_call("ffi.StructuralVisitorVisit", vargs, 2, rv);
}

static int visit_int_cb(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  (void)n;
  TVMFFIAny kind_args[1] = {args[1]};
  TVMFFIAny kind;
  sx_call("ffi.StructuralVisitorDefRegionKind", kind_args, 1, &kind);
  trail_add(&args[0], kind.v_int64);
  *rv = sx_none();
  return 0;
}

static void test_visit(void) {
  g_trail[0] = '\0';
  TVMFFIAny tree = add(arr2("ffi.Array", sx_int(1), sx_int(2)), add(sx_int(3), sx_int(4)));
  TVMFFIAny cbs = callbacks(t_add, visit_add_cb);
  TVMFFIAny int_cbs = callbacks(kTVMFFIInt, visit_int_cb);
  TVMFFIAny both_entries[2];
  TVMFFIAny idx[2] = {cbs, sx_int(0)};
  sx_call("ffi.ArrayGetItem", idx, 2, &both_entries[0]);
  idx[0] = int_cbs;
  sx_call("ffi.ArrayGetItem", idx, 2, &both_entries[1]);
  TVMFFIAny both = sx_array("ffi.Array", both_entries, 2);
  TVMFFIAny args[2] = {tree, both};
  TVMFFIAny result;
  int rc = sx_call("ffi.StructuralVisit", args, 2, &result);
  CHECK(rc == 0 && result.type_index == kTVMFFINone, "visit.callbacks", "[%s]", g_trail);
  TVMFFIAny all[] = {tree, cbs, int_cbs, both};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) sx_release(&all[i]);
}

/* ---- mutation --------------------------------------------------------------------------- */

/* Map callback on ints: multiplies by 10 (records what it saw). */
static int times_ten(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  trail_add(&args[0], n > 1 ? args[1].v_int64 : -1);
  if (args[0].v_int64 == 13) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "unlucky number");
    return -1;
  }
  *rv = sx_int(args[0].v_int64 * 10);
  return 0;
}

/* Map callback on sx.Const: replaces the node by the int inside. */
static int unwrap_const(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  (void)n;
  trail_add(&args[0], -1);
  *rv = ((const SxObject*)args[0].v_obj)->fields[0];
  sx_retain(rv);
  return 0;
}

static const char* map_with(const TVMFFIAny* root, TVMFFIAny cbs, TVMFFIAny cbs_kind, int order,
                            char* out, size_t cap) {
  g_trail[0] = '\0';
  TVMFFIAny args[4] = {*root, cbs, cbs_kind, sx_int(order)};
  TVMFFIAny result;
  char what[512];
  if (sx_call("ffi.StructuralMap", args, 4, &result) != 0) {
    take_error(what, sizeof(what));
  } else {
    repr(&result, what, sizeof(what));
    if (result.type_index >= kTVMFFIStaticObjectBegin && result.v_obj == root->v_obj) {
      strncat(what, " (same object)", sizeof(what) - strlen(what) - 1);
    }
    sx_release(&result);
  }
  snprintf(out, cap, "[%s] -> %s", g_trail, what);
  sx_release(&cbs);
  sx_release(&cbs_kind);
  return out;
}

/* StructuralMutate callback on sx.Add: swaps the operands, then mutates them. */
static int swap_add(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  trail_add(&args[0], n > 2 ? args[2].v_int64 : -1);
  const SxObject* obj = (const SxObject*)args[0].v_obj;
  TVMFFIAny fields[2];
  for (int i = 0; i < 2; ++i) {
    TVMFFIAny margs[2] = {args[1], obj->fields[1 - i]};
    int rc = sx_call("ffi.StructuralMutatorMutate", margs, 2, &fields[i]);
    if (rc != 0) return rc;
  }
  *rv = sx_new(t_add, 2, fields);
  return 0;
}

/* StructuralMutate callback on sx.Var: one fresh variable per original, through the remap. */
static int rename_var(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  (void)n;
  TVMFFIAny kind;
  TVMFFIAny kargs[1] = {args[1]};
  int rc = sx_call("ffi.StructuralMutatorDefRegionKind", kargs, 1, &kind);
  if (rc != 0) return rc;
  trail_add(&args[0], kind.v_int64);
  TVMFFIAny gargs[2] = {args[1], args[0]};
  rc = sx_call("ffi.StructuralMutatorVarRemapGet", gargs, 2, rv);
  if (rc != 0 || rv->type_index != kTVMFFINone) return rc;
  *rv = var("renamed");
  TVMFFIAny sargs[3] = {args[1], args[0], *rv};
  TVMFFIAny ignored;
  return sx_call("ffi.StructuralMutatorVarRemapSet", sargs, 3, &ignored);
}

static void test_var_remap(void) {
  char what[512];
  TVMFFIAny x = var("x");
  TVMFFIAny tree = lambda(arr1("ffi.Array", copy(&x)), add(copy(&x), copy(&x)));
  g_trail[0] = '\0';
  TVMFFIObjectHandle f = NULL;
  TVMFFIFunctionCreate(NULL, rename_var, NULL, &f);
  TVMFFIAny fv = sx_none();
  fv.type_index = kTVMFFIFunction;
  fv.v_obj = (TVMFFIObject*)f;
  TVMFFIAny entry_items[3] = {sx_int(t_var), fv, sx_bool(false)};
  TVMFFIAny cbs = arr1("ffi.Array", sx_array("ffi.Array", entry_items, 3));
  TVMFFIAny args[2] = {tree, cbs};
  TVMFFIAny result;
  int rc = sx_call("ffi.StructuralMutate", args, 2, &result);
  if (rc != 0) {
    CHECK(0, "mutate.var-remap", "%s", take_error(what, sizeof(what)));
  } else {
    const SxObject* lam = (const SxObject*)result.v_obj;
    TVMFFIAny idx[2] = {lam->fields[0], sx_int(0)};
    TVMFFIAny param;
    sx_call("ffi.ArrayGetItem", idx, 2, &param);
    const SxObject* body = (const SxObject*)lam->fields[1].v_obj;
    int shared = param.v_obj == body->fields[0].v_obj && param.v_obj == body->fields[1].v_obj;
    int fresh = param.v_obj != x.v_obj;
    CHECK(shared && fresh && sequal(&result, &tree, false) == 1, "mutate.var-remap",
          "[%s] -> %s shared=%d fresh=%d", g_trail, repr(&result, what, sizeof(what)), shared,
          fresh);
    sx_release(&param);
    sx_release(&result);
  }
  TVMFFIAny all[] = {x, tree, cbs};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) sx_release(&all[i]);
}

static void test_mutation(void) {
  char buf[2048];
  TVMFFIAny empty = sx_array("ffi.Array", NULL, 0);
  TVMFFIAny x = var("x");
  TVMFFIAny tree = lambda(arr1("ffi.Array", copy(&x)),
                          add(copy(&x), arr2("ffi.List", sx_int(2), one(t_const, sx_int(3)))));
  CHECK(1, "map.pre-order", "%s",
        map_with(&tree, callbacks(kTVMFFIInt, times_ten), copy(&empty), 0, buf, sizeof(buf)));
  CHECK(1, "map.post-order", "%s",
        map_with(&tree, callbacks(t_const, unwrap_const), copy(&empty), 1, buf, sizeof(buf)));
  CHECK(1, "map.pre-order-replace", "%s",
        map_with(&tree, callbacks(t_const, unwrap_const), copy(&empty), 0, buf, sizeof(buf)));
  CHECK(1, "map.with-region-kind", "%s",
        map_with(&tree, copy(&empty), callbacks(kTVMFFIInt, times_ten), 0, buf, sizeof(buf)));
  CHECK(1, "map.unchanged", "%s",
        map_with(&tree, callbacks(kTVMFFIFloat, times_ten), copy(&empty), 0, buf, sizeof(buf)));
  TVMFFIAny bad = add(sx_int(1), add(sx_int(13), sx_int(2)));
  CHECK(1, "map.error", "%s",
        map_with(&bad, callbacks(kTVMFFIInt, times_ten), copy(&empty), 1, buf, sizeof(buf)));
  TVMFFIAny kv[6] = {sx_str("a"), sx_int(1), sx_str("b"), arr1("ffi.Array", sx_int(2)),
                     sx_str("c"), sx_str("text")};
  TVMFFIAny kv2[6];
  memcpy(kv2, kv, sizeof(kv));
  for (int i = 0; i < 6; ++i) sx_retain(&kv2[i]);
  TVMFFIAny map = sx_array("ffi.Map", kv, 6), dict = sx_array("ffi.Dict", kv2, 6);
  CHECK(1, "map.map-values", "%s",
        map_with(&map, callbacks(kTVMFFIInt, times_ten), copy(&empty), 0, buf, sizeof(buf)));
  CHECK(1, "map.dict-values", "%s",
        map_with(&dict, callbacks(kTVMFFIInt, times_ten), copy(&empty), 1, buf, sizeof(buf)));
  sx_release(&map);
  sx_release(&dict);
  /* a uniquely held root handed over as an rvalue reference is mutated in place */
  TVMFFIAny list = arr2("ffi.List", sx_int(1),
                        arr2("ffi.Dict", sx_str("k"), arr2("ffi.List", sx_int(2), sx_int(3))));
  TVMFFIObjectHandle handle = list.v_obj;
  TVMFFIAny moved = sx_none();
  moved.type_index = kTVMFFIObjectRValueRef;
  moved.v_ptr = &handle;
  TVMFFIAny margs[4] = {moved, callbacks(kTVMFFIInt, times_ten), copy(&empty), sx_int(1)};
  TVMFFIAny result;
  int rc = sx_call("ffi.StructuralMap", margs, 4, &result);
  char what[256];
  CHECK(rc == 0 && result.v_obj == list.v_obj, "map.in-place", "%s same=%d",
        rc == 0 ? repr(&result, what, sizeof(what)) : take_error(what, sizeof(what)),
        rc == 0 && result.v_obj == list.v_obj);
  if (rc == 0) sx_release(&result);
  if (handle != NULL) TVMFFIObjectDecRef(handle);
  sx_release(&margs[1]);
  sx_release(&margs[2]);
  /* StructuralMutate: the callback takes the node over */
  g_trail[0] = '\0';
  TVMFFIAny swap = add(sx_int(1), add(sx_int(2), sx_int(3)));
  for (int with_mode = 0; with_mode <= 1; ++with_mode) {
    g_trail[0] = '\0';
    TVMFFIObjectHandle f = NULL;
    TVMFFIFunctionCreate(NULL, swap_add, NULL, &f);
    TVMFFIAny fv = sx_none();
    fv.type_index = kTVMFFIFunction;
    fv.v_obj = (TVMFFIObject*)f;
    TVMFFIAny entry_items[3] = {sx_int(t_add), fv, sx_bool(with_mode)};
    TVMFFIAny entry = sx_array("ffi.Array", entry_items, 3);
    TVMFFIAny cbs = arr1("ffi.Array", entry);
    TVMFFIAny sargs[2] = {swap, cbs};
    rc = sx_call("ffi.StructuralMutate", sargs, 2, &result);
    CHECK(rc == 0, with_mode ? "mutate.swap-with-mode" : "mutate.swap", "[%s] -> %s", g_trail,
          rc == 0 ? repr(&result, what, sizeof(what)) : take_error(what, sizeof(what)));
    if (rc == 0) sx_release(&result);
    sx_release(&cbs);
  }
  TVMFFIAny all[] = {empty, x, tree, bad, swap};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) sx_release(&all[i]);
}

/* ---- type attributes -------------------------------------------------------------------- */

/* Which types carry the structural (and related) type attributes, and in which form. */
static void test_type_attrs(void) {
  const char* columns[] = {"__s_visit__", "__s_mutate__", "__s_maybe_inplace_mutate__",
                           "__s_equal__", "__s_hash__", "__ffi_repr__", "__any_hash__",
                           "__any_equal__"};
  for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); ++c) {
    TVMFFIByteArray name = sx_bytes(columns[c]);
    const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name);
    char line[2048] = "";
    if (column == NULL) {
      snprintf(line, sizeof(line), "<no column>");
    }
    for (int32_t i = 0; column != NULL && i < column->size; ++i) {
      const TVMFFIAny* entry = &column->data[i];
      if (entry->type_index == kTVMFFINone) continue;
      const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(column->begin_index + i);
      const char* form = entry->type_index == kTVMFFIOpaquePtr  ? "native"
                         : entry->type_index == kTVMFFIFunction ? "function"
                                                                : "value";
      size_t len = strlen(line);
      snprintf(line + len, sizeof(line) - len, "%s%.*s:%s", len ? " " : "",
               info ? (int)info->type_key.size : 1, info ? info->type_key.data : "?", form);
    }
    CHECK(column != NULL, "attrs.column", "%s = %s", columns[c], line);
  }
}

/* ---- leaks ------------------------------------------------------------------------------------- */

/* Live objects of ffihub's runtime (-1 on runtimes without the counter). */
static int64_t live_objects(void) {
  TVMFFIByteArray n = sx_bytes("ffihub.LiveObjectCount");
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0 || f == NULL) return -1;
  TVMFFIAny out;
  TVMFFIFunctionCall(f, NULL, 0, &out);
  TVMFFIObjectDecRef(f);
  return out.v_int64;
}

int main(int argc, char** argv) {
  void* testing = NULL;
  if (argc > 1) {
    testing = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (testing == NULL) sx_fatal(dlerror());
  }
  register_types();
  /* warm up what the runtime keeps for the whole process */
  TVMFFIAny warm = arr1("ffi.Array", sx_int(0));
  shash(&warm, false, false);
  sx_release(&warm);
  int64_t live_before = live_objects();
  test_value_hashes();
  test_container_hashes();
  test_tensors();
  test_objects();
  test_mismatch_paths();
  test_structural_key();
  test_walk(testing);
  test_visit();
  test_mutation();
  test_var_remap();
  test_type_attrs();
  int64_t live_after = live_objects();
  CHECK(live_before == live_after, "leaks", "no runtime objects left behind");
  return check_summary();
}
