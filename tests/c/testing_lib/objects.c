/* The testing-library host's checks of objects (construction, fields, methods) and their
 * ffi.ReprPrint. */
#include "testing_lib.h"

/* ------------------------------------------------------------------------------------------ */
/* 8. objects: construction, fields, methods                                                   */
/* ------------------------------------------------------------------------------------------ */

TVMFFIAny g_kwargs; /* the ffi.GetKwargsObject sentinel */

static void* init_fn(const char* key) {
  const TVMFFIAny* v = type_attr("__ffi_init__", type_index_of(key));
  return v ? v->v_obj : NULL;
}

/* Constructs through the type's __ffi_init__ column entry. */
static int construct(const char* key, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  *rv = any_none();
  void* f = init_fn(key);
  if (f == NULL) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "no __ffi_init__ in the type attribute column");
    return -1;
  }
  return TVMFFIFunctionCall(f, args, n, rv);
}
#define NEW(key, rv, ...) construct(key, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)
#define NEW0(key, rv) construct(key, NULL, 0, rv)

static const TVMFFIFieldInfo* find_field(int32_t ti, const char* name) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
  const TVMFFIFieldInfo* fields[64];
  int n = collect_fields(info, fields, 64);
  for (int i = n - 1; i >= 0; --i) {
    if (ba_eq(fields[i]->name, name)) return fields[i];
  }
  return NULL;
}

/* Finds a method on the type or its ancestors: borrowed Function handle. */
static void* find_method(int32_t ti, const char* name) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
  for (int32_t d = info->type_depth; d >= 0; --d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_methods; ++i) {
      if (ba_eq(t->methods[i].name, name)) return t->methods[i].method.v_obj;
    }
  }
  return NULL;
}

static const char* field_str(const TVMFFIAny* obj, const char* name) {
  const TVMFFIFieldInfo* f = find_field(obj->v_obj->type_index, name);
  if (f == NULL) return "<no such field>";
  TVMFFIAny v;
  int rc = get_field(obj->v_obj, f, &v);
  if (rc != 0) {
    Buf b = {0};
    buf_raised(&b, rc);
    return ring_take(&b);
  }
  const char* d = describe(&v);
  any_release(&v);
  return d;
}

/* Writes a field through its setter (plain function or FunctionObj). */
static int set_field(const TVMFFIAny* obj, const char* name, TVMFFIAny value) {
  const TVMFFIFieldInfo* f = find_field(obj->v_obj->type_index, name);
  if (f == NULL) {
    TVMFFIErrorSetRaisedFromCStr("AttributeError", "no such field");
    return -1;
  }
  void* addr = (char*)obj->v_obj + f->offset;
  if (f->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
    TVMFFIAny rv;
    int rc = F(f->setter, &rv, any_ptr(addr), value);
    any_release(&rv);
    return rc;
  }
  return ((TVMFFIFieldSetter)f->setter)(addr, &value);
}

static int call_method(const TVMFFIAny* self, const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  *rv = any_none();
  void* m = find_method(self->v_obj->type_index, name);
  if (m == NULL) {
    TVMFFIErrorSetRaisedFromCStr("AttributeError", "no such method");
    return -1;
  }
  TVMFFIAny full[16];
  full[0] = *self;
  for (int i = 0; i < n; ++i) full[i + 1] = args[i];
  return TVMFFIFunctionCall(m, full, n + 1, rv);
}
#define METHOD(self, name, rv, ...) call_method(self, name, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), rv)
#define METHOD0(self, name, rv) call_method(self, name, NULL, 0, rv)

void test_int_pair(void) {
  TVMFFIAny obj, rv;
  int rc = NEW("testing.TestIntPair", &obj, any_int(3), any_int(4));
  if (!EXPECT_VALUE("TestIntPair(3, 4)", rc, &obj, "testing.TestIntPair(a=3, b=4)")) {
    any_release(&obj);
    return;
  }
  CHECK(strong_of(obj.v_obj) == 1, "TestIntPair: one reference", "strong=%u", strong_of(obj.v_obj));
  rc = METHOD0(&obj, "sum", &rv);
  EXPECT_VALUE_REL("TestIntPair.sum()", rc, &rv, "7");
  rc = T("TestIntPairSum", &rv, obj);
  EXPECT_VALUE_REL("testing.TestIntPairSum(pair)", rc, &rv, "7");
  rc = T("TestIntPairSum", &rv, any_int(3));
  EXPECT_ERROR("testing.TestIntPairSum(int)", rc, &rv, "TypeError", NULL);
  rc = T("schema_id_object", &rv, obj);
  CHECK(rc == 0 && rv.v_obj == obj.v_obj, "schema_id_object(TestIntPair)", "rc=%d %s", rc,
        same(rv.v_obj, obj.v_obj));
  any_release(&rv);
  rc = NEW("testing.TestIntPair", &rv, any_int(1));
  EXPECT_ERROR("TestIntPair(1): missing argument", rc, &rv, "TypeError", NULL);
  TVMFFIAny s = make_string("b");
  rc = NEW("testing.TestIntPair", &rv, any_int(1), s);
  EXPECT_ERROR("TestIntPair(1, \"b\"): wrong type", rc, &rv, "TypeError", NULL);
  any_release(&s);
  /* read-only fields have no Writable flag */
  const TVMFFIFieldInfo* fa = find_field(obj.v_obj->type_index, "a");
  CHECK(fa && !(fa->flags & kTVMFFIFieldFlagBitMaskWritable), "TestIntPair.a is read-only", "flags=0x%llx",
        fa ? (unsigned long long)fa->flags : 0ULL);
  /* shallow copy through the type attribute */
  const TVMFFIAny* copy_fn = type_attr("__ffi_shallow_copy__", obj.v_obj->type_index);
  if (copy_fn) {
    rc = F(copy_fn->v_obj, &rv, obj);
    CHECK(rc == 0 && rv.v_obj != obj.v_obj && strcmp(describe(&rv), "testing.TestIntPair(a=3, b=4)") == 0,
          "TestIntPair.__ffi_shallow_copy__", "rc=%d %s %s", rc, same(rv.v_obj, obj.v_obj),
          rc == 0 ? describe(&rv) : "-");
    if (rc != 0) EXPECT_OK("TestIntPair.__ffi_shallow_copy__", rc);
    any_release(&rv);
  } else {
    CHECK(0, "TestIntPair.__ffi_shallow_copy__", "absent");
  }
  any_release(&obj);
}

void test_object_base(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int rc = NEW0("testing.TestObjectBase", &obj);
  EXPECT_VALUE("TestObjectBase() uses the defaults", rc, &obj,
               "testing.TestObjectBase(v_i64=10, v_f64=10, v_str=\"hello\")");
  any_release(&obj);
  rc = NEW("testing.TestObjectBase", &obj, any_int(5), any_float(2.5), pstr(&p, "positional"));
  EXPECT_VALUE("TestObjectBase(5, 2.5, str)", rc, &obj,
               "testing.TestObjectBase(v_i64=5, v_f64=2.5, v_str=\"positional\")");
  any_release(&obj);
  rc = NEW("testing.TestObjectBase", &obj, any_int(6), g_kwargs, pstr(&p, "v_str"), pstr(&p, "kw"));
  if (!EXPECT_VALUE("TestObjectBase(6, v_str=kw)", rc, &obj,
                    "testing.TestObjectBase(v_i64=6, v_f64=10, v_str=\"kw\")")) {
    any_release(&obj);
    pool_release(&p);
    return;
  }
  rc = METHOD(&obj, "add_i64", &rv, any_int(4));
  EXPECT_VALUE_REL("TestObjectBase.add_i64(4)", rc, &rv, "10");
  rc = set_field(&obj, "v_i64", any_int(77));
  EXPECT_OK("TestObjectBase.v_i64 = 77", rc);
  rc = set_field(&obj, "v_str", pstr(&p, "a longer string for the setter"));
  EXPECT_OK("TestObjectBase.v_str = str", rc);
  EXPECT_VALUE("TestObjectBase after setters", 0, &obj,
               "testing.TestObjectBase(v_i64=77, v_f64=10, v_str=\"a longer string for the setter\")");
  rc = METHOD(&obj, "add_i64", &rv, any_int(-7));
  EXPECT_VALUE_REL("TestObjectBase.add_i64(-7) after the setter", rc, &rv, "70");
  rc = set_field(&obj, "v_i64", pstr(&p, "not an int"));
  EXPECT_ERROR("TestObjectBase.v_i64 = str", rc, &rv, "TypeError", NULL);
  const TVMFFIFieldInfo* f64 = find_field(obj.v_obj->type_index, "v_f64");
  CHECK(f64 && !(f64->flags & kTVMFFIFieldFlagBitMaskWritable) && (f64->flags & kTVMFFIFieldFlagBitMaskHasDefault),
        "TestObjectBase.v_f64 is read-only with a default", "flags=0x%llx",
        f64 ? (unsigned long long)f64->flags : 0ULL);
  rc = NEW("testing.TestObjectBase", &rv, g_kwargs, pstr(&p, "v_unknown"), any_int(1));
  EXPECT_ERROR("TestObjectBase(v_unknown=1)", rc, &rv, "TypeError",
               "testing.TestObjectBase.__ffi_init__() got an unexpected keyword argument 'v_unknown'");
  rc = NEW("testing.TestObjectBase", &rv, any_int(1), any_float(2), pstr(&p, "s"), any_int(4));
  EXPECT_ERROR("TestObjectBase(4 positional)", rc, &rv, "TypeError",
               "testing.TestObjectBase.__ffi_init__() takes at most 3 positional argument(s), but 4 were given");
  rc = NEW("testing.TestObjectBase", &rv, pstr(&p, "wrong"));
  EXPECT_ERROR("TestObjectBase(str)", rc, &rv, "TypeError", NULL);
  any_release(&obj);

  /* the derived type: inherited fields and methods, containers as field values */
  TVMFFIAny map = pool_add(&p, build_str_int_map("ffi.Map", &p, "m", 6));
  TVMFFIAny arr = pool_add(&p, BUILD("ffi.Array", any_int(1), pstr(&p, "two"), any_float(3.0)));
  rc = NEW("testing.TestObjectDerived", &obj, g_kwargs, pstr(&p, "v_map"), map, pstr(&p, "v_array"), arr,
           pstr(&p, "v_i64"), any_int(20));
  if (EXPECT_VALUE("TestObjectDerived(v_map=, v_array=, v_i64=20)", rc, &obj,
                   "testing.TestObjectDerived(v_i64=20, v_f64=10, v_str=\"hello\", v_map=Map{\"m0\": 0, "
                   "\"m1\": 10, \"m2\": 20, \"m3\": 30, \"m4\": 40, \"m5\": 50}, v_array=Array[1, \"two\", 3])")) {
    rc = METHOD(&obj, "add_i64", &rv, any_int(1));
    EXPECT_VALUE_REL("TestObjectDerived.add_i64(1) (inherited)", rc, &rv, "21");
    const TVMFFIFieldInfo* fm = find_field(obj.v_obj->type_index, "v_map");
    TVMFFIAny got;
    rc = get_field(obj.v_obj, fm, &got);
    CHECK(rc == 0 && got.v_obj == map.v_obj, "TestObjectDerived.v_map holds our map", "rc=%d %s", rc,
          same(got.v_obj, map.v_obj));
    any_release(&got);
    TVMFFIAny other = pool_add(&p, BUILD("ffi.Map", pstr(&p, "only"), any_none()));
    rc = set_field(&obj, "v_map", other);
    EXPECT_OK("TestObjectDerived.v_map = other map", rc);
    CHECK(strcmp(field_str(&obj, "v_map"), "Map{\"only\": None}") == 0, "TestObjectDerived.v_map after set",
          "%s", field_str(&obj, "v_map"));
    rc = set_field(&obj, "v_array", any_int(1));
    EXPECT_ERROR("TestObjectDerived.v_array = 1", rc, &rv, "TypeError", NULL);
  }
  any_release(&obj);
  rc = NEW("testing.TestObjectDerived", &obj, map, arr, any_int(1), any_float(2), pstr(&p, "pos"));
  EXPECT_VALUE("TestObjectDerived(positional: required fields first)", rc, &obj, NULL);
  any_release(&obj);
  rc = NEW0("testing.TestObjectDerived", &rv);
  EXPECT_ERROR("TestObjectDerived(): missing required argument", rc, &rv, "TypeError",
               "testing.TestObjectDerived.__ffi_init__() missing required argument: 'v_map'");
  pool_release(&p);
}

void test_cxx_classes(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int rc = NEW("testing.TestCxxClassBase", &obj, any_int(1), any_int(2));
  EXPECT_VALUE("TestCxxClassBase(1, 2)", rc, &obj, "testing.TestCxxClassBase(v_i64=1, v_i32=2)");
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerived", &obj, any_int(1), any_int(2), any_float(3.5));
  EXPECT_VALUE("TestCxxClassDerived(1, 2, 3.5)", rc, &obj,
               "testing.TestCxxClassDerived(v_i64=1, v_i32=2, v_f64=3.5, v_f32=8)");
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerivedDerived", &obj, any_int(1), any_int(2), any_float(3.5), any_bool(1));
  if (EXPECT_VALUE("TestCxxClassDerivedDerived(1, 2, 3.5, True)", rc, &obj,
                   "testing.TestCxxClassDerivedDerived(v_i64=1, v_i32=2, v_f64=3.5, v_f32=8, "
                   "v_str=\"default\", v_bool=True)")) {
    EXPECT_OK("DerivedDerived.v_i32 = -7", set_field(&obj, "v_i32", any_int(-7)));
    EXPECT_OK("DerivedDerived.v_f32 = 0.25", set_field(&obj, "v_f32", any_float(0.25)));
    EXPECT_OK("DerivedDerived.v_str = str", set_field(&obj, "v_str", pstr(&p, "changed")));
    EXPECT_OK("DerivedDerived.v_bool = False", set_field(&obj, "v_bool", any_bool(0)));
    EXPECT_VALUE("TestCxxClassDerivedDerived after setters", 0, &obj,
                 "testing.TestCxxClassDerivedDerived(v_i64=1, v_i32=-7, v_f64=3.5, v_f32=0.25, "
                 "v_str=\"changed\", v_bool=False)");
  }
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerivedDerived", &obj, g_kwargs, pstr(&p, "v_bool"), any_bool(0),
           pstr(&p, "v_f64"), any_float(-1), pstr(&p, "v_i32"), any_int(3), pstr(&p, "v_i64"), any_int(4),
           pstr(&p, "v_str"), pstr(&p, "kw"));
  EXPECT_VALUE("TestCxxClassDerivedDerived(all keywords)", rc, &obj,
               "testing.TestCxxClassDerivedDerived(v_i64=4, v_i32=3, v_f64=-1, v_f32=8, v_str=\"kw\", "
               "v_bool=False)");
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerivedDerived", &rv, any_int(1), any_int(2), any_float(3.5));
  EXPECT_ERROR("TestCxxClassDerivedDerived(1, 2, 3.5): missing v_bool", rc, &rv, "TypeError",
               "testing.TestCxxClassDerivedDerived.__ffi_init__() missing required argument: 'v_bool'");
  pool_release(&p);
}

void test_auto_init(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int rc;
  TVMFFIAny k_c = pstr(&p, "c"), k_b = pstr(&p, "b"), k_d = pstr(&p, "d");

  /* a positional required, b init=False default 42, c kw_only required, d positional default 99 */
  rc = NEW("testing.TestCxxAutoInit", &obj, any_int(1), g_kwargs, k_c, any_int(3));
  EXPECT_VALUE("TestCxxAutoInit(1, c=3)", rc, &obj, "testing.TestCxxAutoInit(a=1, b=42, c=3, d=99)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInit", &obj, any_int(1), any_int(4), g_kwargs, k_c, any_int(3));
  EXPECT_VALUE("TestCxxAutoInit(1, 4, c=3)", rc, &obj, "testing.TestCxxAutoInit(a=1, b=42, c=3, d=4)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInit", &obj, g_kwargs, k_d, any_int(5), k_c, any_int(6), pstr(&p, "a"),
           any_int(7));
  EXPECT_VALUE("TestCxxAutoInit(d=5, c=6, a=7)", rc, &obj, "testing.TestCxxAutoInit(a=7, b=42, c=6, d=5)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1));
  EXPECT_ERROR("TestCxxAutoInit(1): missing keyword-only c", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() missing required keyword-only argument: 'c'");
  rc = NEW("testing.TestCxxAutoInit", &rv, g_kwargs, k_c, any_int(3));
  EXPECT_ERROR("TestCxxAutoInit(c=3): missing a", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() missing required argument: 'a'");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), g_kwargs, k_c, any_int(3), k_b, any_int(0));
  EXPECT_ERROR("TestCxxAutoInit(b=0): init=False field", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() got an unexpected keyword argument 'b'");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), any_int(2), any_int(3));
  EXPECT_ERROR("TestCxxAutoInit(1, 2, 3)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() takes at most 2 positional argument(s), but 3 were given");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), any_int(2), any_int(3), g_kwargs, k_c, any_int(3));
  EXPECT_ERROR("TestCxxAutoInit(1, 2, 3, c=3)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() takes at most 2 positional argument(s), but 3 were given");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), g_kwargs, k_c, any_int(3), k_c, any_int(4));
  EXPECT_ERROR("TestCxxAutoInit(1, c=3, c=4)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() got multiple values for argument 'c'");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), g_kwargs, k_c);
  EXPECT_ERROR("TestCxxAutoInit(1, KWARGS, \"c\")", rc, &rv, "TypeError",
               "testing.TestCxxAutoInit.__ffi_init__() KWARGS requires an even number of key-value arguments");
  rc = NEW("testing.TestCxxAutoInit", &rv, any_int(1), g_kwargs, k_c, pstr(&p, "three"));
  EXPECT_ERROR("TestCxxAutoInit(1, c=str)", rc, &rv, "TypeError", NULL);

  rc = NEW("testing.TestCxxAutoInitSimple", &obj, any_int(1), any_int(2));
  EXPECT_VALUE("TestCxxAutoInitSimple(1, 2)", rc, &obj, "testing.TestCxxAutoInitSimple(x=1, y=2)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitSimple", &obj, any_int(1), g_kwargs, pstr(&p, "y"), any_int(2));
  EXPECT_VALUE("TestCxxAutoInitSimple(1, y=2)", rc, &obj, "testing.TestCxxAutoInitSimple(x=1, y=2)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitSimple", &rv, any_int(1));
  EXPECT_ERROR("TestCxxAutoInitSimple(1)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInitSimple.__ffi_init__() missing required argument: 'y'");

  rc = NEW0("testing.TestCxxAutoInitAllInitOff", &obj);
  EXPECT_VALUE("TestCxxAutoInitAllInitOff()", rc, &obj, "testing.TestCxxAutoInitAllInitOff(x=7, y=9, z=1234)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitAllInitOff", &rv, any_int(1));
  EXPECT_ERROR("TestCxxAutoInitAllInitOff(1)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInitAllInitOff.__ffi_init__() takes at most 0 positional argument(s), "
               "but 1 were given");

  rc = NEW("testing.TestCxxAutoInitKwOnlyDefaults", &obj, any_int(1), g_kwargs, pstr(&p, "k_required"), any_int(2));
  EXPECT_VALUE("TestCxxAutoInitKwOnlyDefaults(1, k_required=2)", rc, &obj,
               "testing.TestCxxAutoInitKwOnlyDefaults(p_required=1, p_default=11, k_required=2, k_default=22, "
               "hidden=33)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitKwOnlyDefaults", &obj, any_int(1), any_int(12), g_kwargs,
           pstr(&p, "k_default"), any_int(23), pstr(&p, "k_required"), any_int(2));
  EXPECT_VALUE("TestCxxAutoInitKwOnlyDefaults(1, 12, k_default=23, k_required=2)", rc, &obj,
               "testing.TestCxxAutoInitKwOnlyDefaults(p_required=1, p_default=12, k_required=2, k_default=23, "
               "hidden=33)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitKwOnlyDefaults", &rv, any_int(1), g_kwargs, pstr(&p, "hidden"), any_int(0),
           pstr(&p, "k_required"), any_int(2));
  EXPECT_ERROR("TestCxxAutoInitKwOnlyDefaults(hidden=0)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInitKwOnlyDefaults.__ffi_init__() got an unexpected keyword argument 'hidden'");

  /* inheritance: parent fields first, required before defaulted among the positionals */
  rc = NEW("testing.TestCxxAutoInitChild", &obj, any_int(1), any_int(2), g_kwargs, pstr(&p, "child_kw_only"),
           any_int(3));
  EXPECT_VALUE("TestCxxAutoInitChild(1, 2, child_kw_only=3)", rc, &obj,
               "testing.TestCxxAutoInitChild(parent_required=1, parent_default=5, child_required=2, "
               "child_kw_only=3)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitChild", &obj, any_int(1), any_int(2), any_int(6), g_kwargs,
           pstr(&p, "child_kw_only"), any_int(3));
  EXPECT_VALUE("TestCxxAutoInitChild(1, 2, 6, child_kw_only=3)", rc, &obj,
               "testing.TestCxxAutoInitChild(parent_required=1, parent_default=6, child_required=2, "
               "child_kw_only=3)");
  any_release(&obj);
  rc = NEW("testing.TestCxxAutoInitChild", &rv, any_int(1), g_kwargs, pstr(&p, "child_kw_only"), any_int(3));
  EXPECT_ERROR("TestCxxAutoInitChild(1, child_kw_only=3)", rc, &rv, "TypeError",
               "testing.TestCxxAutoInitChild.__ffi_init__() missing required argument: 'child_required'");
  rc = NEW("testing.TestCxxAutoInitParent", &obj, any_int(8));
  EXPECT_VALUE("TestCxxAutoInitParent(8)", rc, &obj,
               "testing.TestCxxAutoInitParent(parent_required=8, parent_default=5)");
  any_release(&obj);

  /* all keyword-only */
  rc = NEW("testing.TestCxxKwOnly", &obj, g_kwargs, pstr(&p, "x"), any_int(1), pstr(&p, "y"), any_int(2),
           pstr(&p, "z"), any_int(3));
  EXPECT_VALUE("TestCxxKwOnly(x=1, y=2, z=3)", rc, &obj, "testing.TestCxxKwOnly(x=1, y=2, z=3, w=100)");
  any_release(&obj);
  rc = NEW("testing.TestCxxKwOnly", &rv, any_int(1));
  EXPECT_ERROR("TestCxxKwOnly(1)", rc, &rv, "TypeError",
               "testing.TestCxxKwOnly.__ffi_init__() takes at most 0 positional argument(s), but 1 were given");
  rc = NEW("testing.TestCxxKwOnly", &rv, g_kwargs, pstr(&p, "x"), any_int(1), pstr(&p, "y"), any_int(2));
  EXPECT_ERROR("TestCxxKwOnly(x=1, y=2): missing z", rc, &rv, "TypeError",
               "testing.TestCxxKwOnly.__ffi_init__() missing required keyword-only argument: 'z'");

  /* init subset */
  rc = NEW("testing.TestCxxInitSubset", &obj, any_int(5));
  if (EXPECT_VALUE("TestCxxInitSubset(5)", rc, &obj,
                   "testing.TestCxxInitSubset(required_field=5, optional_field=-1, note=\"default\")")) {
    EXPECT_OK("TestCxxInitSubset.note = str", set_field(&obj, "note", pstr(&p, "set later")));
    EXPECT_OK("TestCxxInitSubset.optional_field = 2", set_field(&obj, "optional_field", any_int(2)));
    EXPECT_VALUE("TestCxxInitSubset after setters", 0, &obj,
                 "testing.TestCxxInitSubset(required_field=5, optional_field=2, note=\"set later\")");
  }
  any_release(&obj);
  rc = NEW0("testing.TestCxxInitSubset", &rv);
  EXPECT_ERROR("TestCxxInitSubset()", rc, &rv, "TypeError",
               "testing.TestCxxInitSubset.__ffi_init__() missing required argument: 'required_field'");
  rc = NEW("testing.TestCxxInitSubset", &rv, any_int(5), g_kwargs, pstr(&p, "note"), pstr(&p, "x"));
  EXPECT_ERROR("TestCxxInitSubset(5, note=x)", rc, &rv, "TypeError",
               "testing.TestCxxInitSubset.__ffi_init__() got an unexpected keyword argument 'note'");

  /* no __ffi_init__: allocate with __ffi_new__ and fill in through the setters */
  const TVMFFIAny* new_fn = type_attr("__ffi_new__", type_index_of("testing.TestCxxNoAutoInit"));
  if (new_fn != NULL) {
    rc = call_fn(new_fn->v_obj, NULL, 0, &obj);
    if (EXPECT_OK("TestCxxNoAutoInit.__ffi_new__()", rc)) {
      EXPECT_OK("TestCxxNoAutoInit.x = 3", set_field(&obj, "x", any_int(3)));
      EXPECT_OK("TestCxxNoAutoInit.y = 4", set_field(&obj, "y", any_int(4)));
      EXPECT_VALUE("TestCxxNoAutoInit via __ffi_new__ + setters", 0, &obj, "testing.TestCxxNoAutoInit(x=3, y=4)");
    }
    any_release(&obj);
  } else {
    CHECK(0, "TestCxxNoAutoInit.__ffi_new__", "absent");
  }
  rc = NEW0("testing.TestCxxNoAutoInit", &rv);
  EXPECT_ERROR("TestCxxNoAutoInit has no __ffi_init__", rc, &rv, "RuntimeError",
               "no __ffi_init__ in the type attribute column");

  rc = NEW("testing.TestNonCopyable", &obj, any_int(9));
  EXPECT_VALUE("TestNonCopyable(9)", rc, &obj, "testing.TestNonCopyable(value=9)");
  CHECK(rc == 0 && type_attr("__ffi_shallow_copy__", obj.v_obj->type_index) == NULL,
        "TestNonCopyable has no __ffi_shallow_copy__", "%s", "checked");
  any_release(&obj);
  pool_release(&p);
}

static TVMFFIAny small_map_for_variant(Pool* p) {
  return pool_add(p, BUILD("ffi.Map", pstr(p, "vk"), any_int(1)));
}

void test_schema_all_types(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int32_t ti = type_index_of("testing.SchemaAllTypes");
  void* make_with = find_method(ti, "make_with");
  if (make_with == NULL) {
    CHECK(0, "SchemaAllTypes.make_with", "absent");
    return;
  }
  CHECK(type_attr("__ffi_init__", ti) == NULL, "SchemaAllTypes has no __ffi_init__ (no default constructor)",
        "%s", "checked");
  int rc = F(make_with, &obj, any_int(7), any_float(0.5), pstr(&p, "made"));
  if (!EXPECT_VALUE("SchemaAllTypes.make_with(7, 0.5, made)", rc, &obj,
                    "testing.SchemaAllTypes(v_bool=True, v_int=7, v_float=0.5, v_device=device(1:0), "
                    "v_dtype=dtype(float32), v_string=\"made\", v_bytes=b\"\", v_opt_int=None, v_opt_str=None, "
                    "v_arr_int=Array[], v_arr_str=Array[], v_map_str_int=Map{}, v_map_str_arr_int=Map{}, "
                    "v_variant=\"v\", v_opt_arr_variant=None)")) {
    any_release(&obj);
    pool_release(&p);
    return;
  }
  rc = METHOD(&obj, "add_int", &rv, any_int(5));
  EXPECT_VALUE_REL("SchemaAllTypes.add_int(5)", rc, &rv, "12");
  TVMFFIAny arr = pool_add(&p, BUILD("ffi.Array", any_int(1), any_int(2)));
  rc = METHOD(&obj, "append_int", &rv, arr, any_int(9));
  CHECK(rc == 0 && rv.v_obj != arr.v_obj, "SchemaAllTypes.append_int: a new array", "rc=%d %s", rc,
        same(rv.v_obj, arr.v_obj));
  EXPECT_VALUE_REL("SchemaAllTypes.append_int([1, 2], 9)", rc, &rv, "Array[1, 2, 9]");
  EXPECT_VALUE("append_int left our array unchanged", 0, &arr, "Array[1, 2]");
  rc = METHOD(&obj, "maybe_concat", &rv, pstr(&p, "ab"), pstr(&p, "cd"));
  EXPECT_VALUE_REL("SchemaAllTypes.maybe_concat(ab, cd)", rc, &rv, "\"abcd\"");
  rc = METHOD(&obj, "maybe_concat", &rv, any_none(), pstr(&p, "cd"));
  EXPECT_VALUE_REL("SchemaAllTypes.maybe_concat(None, cd)", rc, &rv, "\"cd\"");
  rc = METHOD(&obj, "maybe_concat", &rv, any_none(), any_none());
  EXPECT_VALUE_REL("SchemaAllTypes.maybe_concat(None, None)", rc, &rv, "None");
  rc = METHOD(&obj, "add_int", &rv, pstr(&p, "x"));
  EXPECT_ERROR("SchemaAllTypes.add_int(str)", rc, &rv, "TypeError", NULL);
  TVMFFIAny pair;
  rc = NEW("testing.TestIntPair", &pair, any_int(1), any_int(2));
  if (rc == 0) {
    void* add_int = find_method(ti, "add_int");
    rc = F(add_int, &rv, pair, any_int(1));
    EXPECT_ERROR("SchemaAllTypes.add_int(self=TestIntPair)", rc, &rv, "TypeError", NULL);
    any_release(&pair);
  }

  /* setters with runtime-built values, read back through the getters */
  TVMFFIAny dense = pool_add(&p, build_str_int_map("ffi.Map", &p, "field key ", 9));
  TVMFFIAny arrs = pool_add(&p, BUILD("ffi.Map", pstr(&p, "xs"), arr));
  TVMFFIAny variants = pool_add(&p, BUILD("ffi.Array", any_int(1), pstr(&p, "one")));
  static const char raw[] = {1, 2, 3, 0, 4, 5, 6, 7, 8};
  EXPECT_OK("v_bool = False", set_field(&obj, "v_bool", any_bool(0)));
  EXPECT_OK("v_int = -3", set_field(&obj, "v_int", any_int(-3)));
  EXPECT_OK("v_float = 1", set_field(&obj, "v_float", any_int(1)));
  EXPECT_OK("v_device = cuda:1", set_field(&obj, "v_device", any_device(kDLCUDA, 1)));
  EXPECT_OK("v_dtype = bfloat16", set_field(&obj, "v_dtype", pstr(&p, "bfloat16")));
  EXPECT_OK("v_string = raw str", set_field(&obj, "v_string", any_raw_str("from raw")));
  EXPECT_OK("v_bytes = bytes", set_field(&obj, "v_bytes", pool_add(&p, make_bytes(raw, sizeof raw))));
  EXPECT_OK("v_opt_int = 5", set_field(&obj, "v_opt_int", any_int(5)));
  EXPECT_OK("v_opt_str = str", set_field(&obj, "v_opt_str", pstr(&p, "opt")));
  EXPECT_OK("v_arr_int = [1, 2]", set_field(&obj, "v_arr_int", arr));
  EXPECT_OK("v_arr_str = []", set_field(&obj, "v_arr_str", pool_add(&p, BUILD("ffi.Array"))));
  EXPECT_OK("v_map_str_int = dense map", set_field(&obj, "v_map_str_int", dense));
  EXPECT_OK("v_map_str_arr_int = map", set_field(&obj, "v_map_str_arr_int", arrs));
  EXPECT_OK("v_variant = map", set_field(&obj, "v_variant", small_map_for_variant(&p)));
  EXPECT_OK("v_opt_arr_variant = [1, one]", set_field(&obj, "v_opt_arr_variant", variants));
  EXPECT_VALUE("SchemaAllTypes after setters", 0, &obj,
               "testing.SchemaAllTypes(v_bool=False, v_int=-3, v_float=1, v_device=device(2:1), "
               "v_dtype=dtype(bfloat16), v_string=\"from raw\", v_bytes=b\"\\x01\\x02\\x03\\x00\\x04\\x05\\x06\\x07\\x08\", "
               "v_opt_int=5, v_opt_str=\"opt\", v_arr_int=Array[1, 2], v_arr_str=Array[], "
               "v_map_str_int=Map{\"field key 0\": 0, \"field key 1\": 10, \"field key 2\": 20, \"field key 3\": 30, "
               "\"field key 4\": 40, \"field key 5\": 50, \"field key 6\": 60, \"field key 7\": 70, "
               "\"field key 8\": 80}, v_map_str_arr_int=Map{\"xs\": Array[1, 2]}, v_variant=Map{\"vk\": 1}, "
               "v_opt_arr_variant=Array[1, \"one\"])");
  const TVMFFIFieldInfo* fm = find_field(ti, "v_map_str_int");
  TVMFFIAny got;
  rc = get_field(obj.v_obj, fm, &got);
  CHECK(rc == 0 && got.v_obj == dense.v_obj, "v_map_str_int holds our dense map", "rc=%d %s layout=%s", rc,
        same(got.v_obj, dense.v_obj), map_layout(&got));
  any_release(&got);
  rc = set_field(&obj, "v_int", pstr(&p, "x"));
  EXPECT_ERROR("v_int = str", rc, &rv, "TypeError", NULL);
  rc = set_field(&obj, "v_arr_int", variants);
  EXPECT_ERROR("v_arr_int = [1, \"one\"]", rc, &rv, "TypeError", NULL);
  rc = set_field(&obj, "v_variant", any_int(3));
  EXPECT_ERROR("v_variant = 3", rc, &rv, "TypeError", NULL);
  rc = set_field(&obj, "v_opt_int", any_none());
  EXPECT_OK("v_opt_int = None", rc);
  CHECK(strcmp(field_str(&obj, "v_opt_int"), "None") == 0, "v_opt_int back to None", "%s",
        field_str(&obj, "v_opt_int"));
  any_release(&obj);
  pool_release(&p);
}

void test_other_objects(void) {
  TVMFFIAny obj, rv;
  Pool p = {0};
  int rc = T0("make_unregistered_object", &obj);
  if (EXPECT_VALUE("make_unregistered_object()", rc, &obj, "testing.TestUnregisteredObject(v1=41, v2=42)")) {
    rc = METHOD0(&obj, "get_v1_plus_one", &rv);
    EXPECT_VALUE_REL("TestUnregisteredObject.get_v1_plus_one() (base method)", rc, &rv, "42");
    rc = METHOD0(&obj, "get_v2_plus_two", &rv);
    EXPECT_VALUE_REL("TestUnregisteredObject.get_v2_plus_two()", rc, &rv, "44");
    rc = T("object_use_count", &rv, obj);
    EXPECT_VALUE_REL("object_use_count(unregistered object)", rc, &rv, "1");
  }
  any_release(&obj);
  rc = NEW("testing.TestUnregisteredObject", &obj, any_int(1), any_int(2));
  EXPECT_VALUE("TestUnregisteredObject(1, 2)", rc, &obj, "testing.TestUnregisteredObject(v1=1, v2=2)");
  any_release(&obj);
  rc = NEW("testing.TestUnregisteredBaseObject", &obj, any_int(10));
  if (EXPECT_VALUE("TestUnregisteredBaseObject(10)", rc, &obj, "testing.TestUnregisteredBaseObject(v1=10)")) {
    rc = METHOD0(&obj, "get_v1_plus_one", &rv);
    EXPECT_VALUE_REL("TestUnregisteredBaseObject.get_v1_plus_one()", rc, &rv, "11");
    void* derived_only = find_method(type_index_of("testing.TestUnregisteredObject"), "get_v2_plus_two");
    if (derived_only) {
      rc = F(derived_only, &rv, obj);
      EXPECT_ERROR("get_v2_plus_two(self=base object)", rc, &rv, "TypeError", NULL);
    }
  }
  any_release(&obj);

  rc = T("make_visit_region_graph", &obj, any_bool(0));
  EXPECT_VALUE("make_visit_region_graph(False)", rc, &obj, "testing.TestVisitRegions(simple=1, pattern=2, ordinary=3)");
  any_release(&obj);
  rc = T("make_visit_region_graph", &obj, any_bool(1));
  EXPECT_VALUE("make_visit_region_graph(True)", rc, &obj,
               "testing.TestVisitHook(child=testing.TestVisitRegions(simple=1, pattern=2, ordinary=3))");
  any_release(&obj);

  TVMFFIAny alpha, alpha2;
  rc = T("enum_variant_get", &alpha, pstr(&p, "Alpha"));
  if (EXPECT_VALUE("enum_variant_get(Alpha)", rc, &alpha, NULL)) {
    CHECK(strcmp(type_key_of(alpha.type_index), "testing.TestEnumVariant") == 0, "enum_variant_get(Alpha): type",
          "%s", type_key_of(alpha.type_index));
    rc = T("enum_variant_get", &alpha2, pstr(&p, "Alpha"));
    CHECK(rc == 0 && alpha2.v_obj == alpha.v_obj, "enum_variant_get(Alpha) is a singleton", "rc=%d %s", rc,
          same(alpha2.v_obj, alpha.v_obj));
    any_release(&alpha2);
  }
  rc = T("enum_variant_get", &rv, pstr(&p, "Beta"));
  EXPECT_VALUE("enum_variant_get(Beta)", rc, &rv, NULL);
  CHECK(rc == 0 && rv.v_obj != alpha.v_obj, "Beta is another instance", "%s", same(rv.v_obj, alpha.v_obj));
  any_release(&rv);
  any_release(&alpha);
  rc = T("enum_variant_get", &rv, pstr(&p, "Gamma"));
  EXPECT_ERROR("enum_variant_get(Gamma)", rc, &rv, "ValueError",
               "Enum `testing.TestEnumVariant` has no instance with index Gamma");
  pool_release(&p);
}

void test_more_objects(void) {
  TVMFFIAny obj, rv, base;
  Pool p = {0};
  int rc = NEW("testing.TestObjectBase", &base, any_int(1));
  if (!EXPECT_OK("TestObjectBase(1)", rc)) return;
  rc = NEW("testing.TestObjectPtrHolder", &obj, base);
  EXPECT_VALUE("TestObjectPtrHolder(base)", rc, &obj,
               "testing.TestObjectPtrHolder(value=testing.TestObjectBase(v_i64=1, v_f64=10, v_str=\"hello\"), "
               "optional_value=None)");
  if (rc == 0) {
    EXPECT_OK("TestObjectPtrHolder.optional_value = base", set_field(&obj, "optional_value", base));
    CHECK(strong_of(base.v_obj) == 3, "the holder keeps two references", "strong=%u", strong_of(base.v_obj));
    rc = set_field(&obj, "value", any_none());
    EXPECT_ERROR("TestObjectPtrHolder.value = None", rc, &rv, "TypeError", NULL);
    rc = set_field(&obj, "value", pstr(&p, "str"));
    EXPECT_ERROR("TestObjectPtrHolder.value = str", rc, &rv, "TypeError", NULL);
  }
  any_release(&obj);
  CHECK(strong_of(base.v_obj) == 1, "holder released its references", "strong=%u", strong_of(base.v_obj));
  rc = NEW0("testing.TestObjectPtrHolder", &rv);
  EXPECT_ERROR("TestObjectPtrHolder()", rc, &rv, "TypeError",
               "testing.TestObjectPtrHolder.__ffi_init__() missing required argument: 'value'");

  rc = NEW("testing.TestDeepCopyEdges", &obj, any_int(5), base);
  EXPECT_VALUE("TestDeepCopyEdges(5, base)", rc, &obj,
               "testing.TestDeepCopyEdges(v_any=5, v_obj=testing.TestObjectBase(v_i64=1, v_f64=10, v_str=\"hello\"))");
  if (rc == 0) {
    EXPECT_OK("TestDeepCopyEdges.v_any = raw str", set_field(&obj, "v_any", any_raw_str("a raw C string, long")));
    EXPECT_OK("TestDeepCopyEdges.v_obj = None", set_field(&obj, "v_obj", any_none()));
    EXPECT_VALUE("TestDeepCopyEdges after setters", 0, &obj,
                 "testing.TestDeepCopyEdges(v_any=\"a raw C string, long\", v_obj=None)");
  }
  any_release(&obj);
  any_release(&base);

  rc = NEW("testing.TestCompare", &obj, any_int(1), pstr(&p, "name"), any_int(2));
  EXPECT_VALUE_REL("TestCompare(1, name, 2)", rc, &obj, "testing.TestCompare(key=1, name=\"name\", ignored_field=2)");
  rc = NEW("testing.TestHash", &obj, any_int(1), pstr(&p, "name"), any_int(2));
  EXPECT_VALUE_REL("TestHash(1, name, 2)", rc, &obj, "testing.TestHash(key=1, name=\"name\", hash_ignored=2)");
  rc = NEW("testing.TestCustomHash", &obj, any_int(3), pstr(&p, "label"));
  EXPECT_VALUE_REL("TestCustomHash(3, label)", rc, &obj, "testing.TestCustomHash(key=3, label=\"label\")");
  rc = NEW("testing.TestCustomCompare", &obj, any_int(4), pstr(&p, "label"));
  EXPECT_VALUE_REL("TestCustomCompare(4, label)", rc, &obj, "testing.TestCustomCompare(key=4, label=\"label\")");
  rc = NEW("testing.TestEqWithoutHash", &obj, any_int(5), pstr(&p, "label"));
  EXPECT_VALUE_REL("TestEqWithoutHash(5, label)", rc, &obj, "testing.TestEqWithoutHash(key=5, label=\"label\")");
  rc = NEW("testing.TestCustomHash", &rv, any_int(3));
  EXPECT_ERROR("TestCustomHash(3)", rc, &rv, "TypeError", NULL);

  rc = NEW("testing.TestCxxClassHiddenField", &obj, any_int(1), any_int(2));
  EXPECT_VALUE_REL("TestCxxClassHiddenField(1, 2)", rc, &obj, "testing.TestCxxClassHiddenField(v_i64=1, v_i32=2)");
  /* a class with a vtable: the handle points 8 bytes into the C++ object */
  rc = NEW("testing.TestCxxClassPolymorphic", &obj, any_int(-8));
  if (EXPECT_VALUE("TestCxxClassPolymorphic(-8)", rc, &obj, "testing.TestCxxClassPolymorphic(v_i64=-8)")) {
    EXPECT_OK("TestCxxClassPolymorphic.v_i64 = 9", set_field(&obj, "v_i64", any_int(9)));
    EXPECT_VALUE("TestCxxClassPolymorphic after the setter", 0, &obj, "testing.TestCxxClassPolymorphic(v_i64=9)");
    const TVMFFIAny* copy_fn = type_attr("__ffi_shallow_copy__", obj.v_obj->type_index);
    if (copy_fn) {
      rc = F(copy_fn->v_obj, &rv, obj);
      EXPECT_VALUE_REL("TestCxxClassPolymorphic.__ffi_shallow_copy__", rc, &rv,
                       "testing.TestCxxClassPolymorphic(v_i64=9)");
    }
  }
  any_release(&obj);
  rc = NEW0("testing.TestCxxEnumHolder", &rv);
  EXPECT_ERROR("TestCxxEnumHolder()", rc, &rv, "TypeError",
               "testing.TestCxxEnumHolder.__ffi_init__() missing required argument: 'priority'");

  /* __ffi_convert__ of TestIntPair */
  rc = NEW("testing.TestIntPair", &obj, any_int(5), any_int(6));
  const TVMFFIAny* conv = rc == 0 ? type_attr("__ffi_convert__", obj.v_obj->type_index) : NULL;
  if (conv) {
    rc = F(conv->v_obj, &rv, obj);
    CHECK(rc == 0 && rv.v_obj == obj.v_obj, "TestIntPair.__ffi_convert__(pair)", "rc=%d %s", rc,
          same(rv.v_obj, obj.v_obj));
    any_release(&rv);
    rc = F(conv->v_obj, &rv, any_int(1));
    EXPECT_ERROR("TestIntPair.__ffi_convert__(1)", rc, &rv, "TypeError", NULL);
  } else {
    CHECK(0, "TestIntPair.__ffi_convert__", "absent");
  }
  /* __ffi_new__ gives a zero-initialised instance */
  const TVMFFIAny* new_fn = type_attr("__ffi_new__", type_index_of("testing.TestIntPair"));
  if (new_fn) {
    rc = call_fn(new_fn->v_obj, NULL, 0, &rv);
    EXPECT_VALUE_REL("TestIntPair.__ffi_new__()", rc, &rv, "testing.TestIntPair(a=0, b=0)");
  }
  any_release(&obj);

  /* the query-only mode of TVMFFITypeGetOrAllocIndex finds registered keys */
  TVMFFIByteArray key = ba("testing.TestIntPair");
  int32_t q = TVMFFITypeGetOrAllocIndex(&key, -1, -1, 0, 0, -2);
  TVMFFIByteArray missing = ba("testing.NoSuchType");
  int32_t q2 = TVMFFITypeGetOrAllocIndex(&missing, -1, -1, 0, 0, -2);
  CHECK(q == type_index_of("testing.TestIntPair") && q2 == -2, "TVMFFITypeGetOrAllocIndex query mode",
        "known=%s unknown=%d", q == type_index_of("testing.TestIntPair") ? "same index" : "other", q2);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */
/* 9. ffi.ReprPrint of testing objects                                                         */
/* ------------------------------------------------------------------------------------------ */

static void expect_repr(const char* name, const TVMFFIAny* v, const char* expected, int line) {
  TVMFFIAny rv;
  int rc = G("ffi.ReprPrint", &rv, *v);
  if (rc != 0) {
    expect_value(name, rc, &rv, expected, __FILE__, line);
    return;
  }
  TVMFFIByteArray s = any_bytes(&rv);
  int ok = (rv.type_index == kTVMFFISmallStr || rv.type_index == kTVMFFIStr) &&
           (expected == NULL || ba_eq(s, expected));
  if (ok) {
    check_impl(1, line, name, "%s", quote_n(s.data, s.size));
  } else {
    check_impl(0, line, name, "type=%d %s (expected %s)", rv.type_index, quote_n(s.data, s.size),
               expected ? quote_n(expected, strlen(expected)) : "-");
  }
  any_release(&rv);
}
#define EXPECT_REPR(name, v, expected) expect_repr(name, v, expected, __LINE__)

void test_repr(void) {
  TVMFFIAny obj;
  Pool p = {0};
  int rc = NEW("testing.TestIntPair", &obj, any_int(3), any_int(4));
  if (EXPECT_OK("repr: TestIntPair", rc)) EXPECT_REPR("repr TestIntPair", &obj, "testing.TestIntPair(a=3, b=4)");
  any_release(&obj);
  TVMFFIAny map = pool_add(&p, BUILD("ffi.Map", pstr(&p, "k"), any_int(1)));
  TVMFFIAny arr = pool_add(&p, BUILD("ffi.Array", any_int(1), pstr(&p, "two"), any_none()));
  rc = NEW("testing.TestObjectDerived", &obj, map, arr);
  if (EXPECT_OK("repr: TestObjectDerived", rc))
    EXPECT_REPR("repr TestObjectDerived", &obj,
                "testing.TestObjectDerived(v_i64=10, v_f64=10, v_str=\"hello\", v_map={\"k\": 1}, "
                "v_array=(1, \"two\", None))");
  any_release(&obj);
  rc = NEW("testing.TestCxxClassDerivedDerived", &obj, any_int(1), any_int(2), any_float(3.5), any_bool(1));
  if (EXPECT_OK("repr: TestCxxClassDerivedDerived", rc))
    EXPECT_REPR("repr TestCxxClassDerivedDerived (repr-off fields hidden)", &obj,
                "testing.TestCxxClassDerivedDerived(v_f64=3.5, v_f32=8, v_str=\"default\", v_bool=True)");
  any_release(&obj);
  rc = T0("make_unregistered_object", &obj);
  if (EXPECT_OK("repr: make_unregistered_object", rc))
    EXPECT_REPR("repr TestUnregisteredObject", &obj, "testing.TestUnregisteredObject(v1=41, v2=42)");
  any_release(&obj);
  rc = T("make_visit_region_graph", &obj, any_bool(1));
  if (EXPECT_OK("repr: make_visit_region_graph", rc))
    EXPECT_REPR("repr TestVisitHook", &obj,
                "testing.TestVisitHook(child=testing.TestVisitRegions(simple=1, pattern=2, ordinary=3))");
  any_release(&obj);
  rc = T("enum_variant_get", &obj, pstr(&p, "Beta"));
  if (EXPECT_OK("repr: enum", rc)) EXPECT_REPR("repr TestEnumVariant", &obj, "testing.TestEnumVariant.Beta");
  any_release(&obj);
  rc = NEW("testing.TestCxxInitSubset", &obj, any_int(5));
  if (EXPECT_OK("repr: TestCxxInitSubset", rc))
    EXPECT_REPR("repr TestCxxInitSubset", &obj,
                "testing.TestCxxInitSubset(required_field=5, optional_field=-1, note=\"default\")");
  any_release(&obj);
  void* make_with = find_method(type_index_of("testing.SchemaAllTypes"), "make_with");
  if (make_with) {
    rc = F(make_with, &obj, any_int(7), any_float(0.5), pstr(&p, "made"));
    if (EXPECT_OK("repr: SchemaAllTypes", rc))
      EXPECT_REPR("repr SchemaAllTypes", &obj,
                "testing.SchemaAllTypes(v_bool=True, v_int=7, v_float=0.5, v_device=cpu:0, v_dtype=float32, "
                "v_string=\"made\", v_bytes=b\"\", v_opt_int=None, v_opt_str=None, v_arr_int=(), v_arr_str=(), "
                "v_map_str_int={}, v_map_str_arr_int={}, v_variant=\"v\", v_opt_arr_variant=None)");
    any_release(&obj);
  }
  EXPECT_REPR("repr KWARGS sentinel", &g_kwargs, "<KWARGS>");

  /* float formatting (std::ostream defaults) and string escaping */
  TVMFFIAny floats = pool_add(&p, BUILD("ffi.Array", any_float(1.234567891), any_float(1e20), any_float(1e-7),
                                        any_float(-0.0), any_float(1.0 / 0.0), any_float(-1.0 / 0.0),
                                        any_float(100000.0), any_float(1234567.0), any_float(0.1)));
  TVMFFIAny odd = pstr(&p, "q\"b\\s\nn\tt\rr\x01_\x7f \xc3\xa9 \x1b[31mred\x1b[0m end");
  TVMFFIAny bytes = pool_add(&p, make_bytes("a\"\\\x00\xff\n", 6));
  rc = NEW("testing.TestDeepCopyEdges", &obj, floats, odd);
  if (EXPECT_OK("repr: TestDeepCopyEdges", rc))
    EXPECT_REPR("repr floats and an escaped string", &obj,
                "testing.TestDeepCopyEdges(v_any=(1.23457, 1e+20, 1e-07, -0, inf, -inf, 100000, 1.23457e+06, "
                "0.1), v_obj=\"q\\\"b\\\\s\\nn\\tt\\rr\\x01_\\x7f \\u00e9 \\x1b[31mred\\x1b[0m end\")");
  any_release(&obj);
  rc = NEW("testing.TestDeepCopyEdges", &obj, bytes, pool_add(&p, BUILD("ffi.Shape", any_int(2), any_int(0))));
  if (EXPECT_OK("repr: TestDeepCopyEdges(bytes, shape)", rc))
    EXPECT_REPR("repr bytes and a shape", &obj,
                "testing.TestDeepCopyEdges(v_any=b\"a\\x22\\x5c\\x00\\xff\\x0a\", v_obj=Shape(2, 0))");
  any_release(&obj);
  rc = T("echo", &obj, any_float(2.5e-10));
  if (EXPECT_OK("repr: float", rc)) EXPECT_REPR("repr float", &obj, "2.5e-10");
  any_release(&obj);
  TVMFFIAny pod = any_device(kDLCUDA, 1);
  EXPECT_REPR("repr device", &pod, "cuda:1");
  pod = any_dtype(kDLBfloat, 16, 1);
  EXPECT_REPR("repr dtype", &pod, "bfloat16");
  pod = any_bool(0);
  EXPECT_REPR("repr bool", &pod, "False");
  pod = any_none();
  EXPECT_REPR("repr None", &pod, "None");

  /* containers built by C++ (and a tensor) */
  static DLManagedTensor mt;
  static float data[6];
  static int64_t shape[2] = {3, 2};
  memset(&mt, 0, sizeof mt);
  mt.dl_tensor.data = data;
  mt.dl_tensor.device.device_type = kDLCPU;
  mt.dl_tensor.ndim = 2;
  mt.dl_tensor.dtype.code = kDLInt;
  mt.dl_tensor.dtype.bits = 16;
  mt.dl_tensor.dtype.lanes = 1;
  mt.dl_tensor.shape = shape;
  void* t = NULL;
  if (EXPECT_OK("repr: tensor", TVMFFITensorFromDLPack(&mt, 0, 0, &t))) {
    TVMFFIAny ta = any_obj(t);
    rc = T("make_nested_map_with_tensor", &obj, ta, ta);
    if (EXPECT_OK("repr: make_nested_map_with_tensor", rc))
      EXPECT_REPR("repr C++ nested map", &obj,
                  "{\"array\": (int16[3, 2]@cpu:0, int16[3, 2]@cpu:0), \"map\": {\"t\": int16[3, 2]@cpu:0}, "
                  "\"scalar\": 99}");
    any_release(&obj);
    rc = T("make_list_with_tensor", &obj, ta, any_int(3));
    if (EXPECT_OK("repr: make_list_with_tensor", rc))
      EXPECT_REPR("repr C++ list", &obj, "[int16[3, 2]@cpu:0, 3]");
    any_release(&obj);
    rc = T("make_dict_with_tensor", &obj, ta);
    if (EXPECT_OK("repr: make_dict_with_tensor", rc))
      EXPECT_REPR("repr C++ dict", &obj, "{\"tensor\": int16[3, 2]@cpu:0, \"value\": 42}");
    any_release(&obj);
    rc = T("make_array_with_mixed", &obj, ta, any_int(-2));
    if (EXPECT_OK("repr: make_array_with_mixed", rc))
      EXPECT_REPR("repr C++ array", &obj, "(int16[3, 2]@cpu:0, -2, \"hello\")");
    any_release(&obj);
    TVMFFIObjectDecRef(t);
  }
  TVMFFIAny one = pool_add(&p, BUILD("ffi.Array", any_int(1)));
  EXPECT_REPR("repr one-element array", &one, "(1,)");

  /* shared and cyclic references */
  TVMFFIAny pair;
  rc = NEW("testing.TestIntPair", &pair, any_int(1), any_int(2));
  if (EXPECT_OK("repr: pair", rc)) {
    TVMFFIAny dag = pool_add(&p, BUILD("ffi.Array", pair, pair));
    EXPECT_REPR("repr shared object", &dag, "(testing.TestIntPair(a=1, b=2), testing.TestIntPair(a=1, b=2))");
  }
  any_release(&pair);
  TVMFFIAny empty_map = pool_add(&p, BUILD("ffi.Map"));
  TVMFFIAny empty_arr = pool_add(&p, BUILD("ffi.Array"));
  rc = NEW("testing.TestObjectDerived", &obj, empty_map, empty_arr);
  if (EXPECT_OK("repr: cycle", rc)) {
    TVMFFIAny loop = BUILD("ffi.Array", obj);
    EXPECT_OK("cycle: v_array = [self]", set_field(&obj, "v_array", loop));
    any_release(&loop);
    EXPECT_REPR("repr cycle", &obj,
                "testing.TestObjectDerived(v_i64=10, v_f64=10, v_str=\"hello\", v_map={}, v_array=(...,))");
    /* break the cycle so that everything is freed */
    EXPECT_OK("cycle: v_array = []", set_field(&obj, "v_array", empty_arr));
  }
  any_release(&obj);
  pool_release(&p);
}
