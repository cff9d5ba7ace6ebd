/* The scenario's checks of the type registry, reflection and type attribute columns. */
#include "scenario.h"

/* ------------------------------------------------------------------------------------------ */
/* 12. type registry and reflection                                                            */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  TVMFFIObject header;
  int64_t x;
  double y;
} PointObj;

static int32_t g_point = -1;
static int g_points_freed = 0;

static void point_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) ++g_points_freed;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static int point_creator(TVMFFIObjectHandle* out) {
  PointObj* p = (PointObj*)calloc(1, sizeof(PointObj));
  p->header.combined_ref_count = ((uint64_t)1 << 32) | 1u;
  p->header.type_index = g_point;
  p->header.deleter = point_deleter;
  p->x = 0;
  p->y = 1.5;
  *out = p;
  return 0;
}

static int point_get_x(void* field, TVMFFIAny* out) {
  *out = any_int(*(int64_t*)field);
  return 0;
}

static int point_set_x(void* field, const TVMFFIAny* value) {
  if (value->type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "x expects an int");
    return -1;
  }
  *(int64_t*)field = value->v_int64;
  return 0;
}

static int point_get_y(void* field, TVMFFIAny* out) {
  *out = any_float(*(double*)field);
  return 0;
}

static int point_set_y(void* field, const TVMFFIAny* value) {
  if (value->type_index != kTVMFFIFloat) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "y expects a float");
    return -1;
  }
  *(double*)field = value->v_float64;
  return 0;
}

/* "norm2": squared norm of a point, implemented as a foreign function object */
static int norm2_call(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  (void)handle;
  if (num_args != 1 || args[0].type_index != g_point) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "norm2 expects a Point");
    return -1;
  }
  PointObj* p = (PointObj*)args[0].v_obj;
  *rv = any_float((double)p->x * (double)p->x + p->y * p->y);
  return 0;
}

static CFunctionObj g_norm2;

static const char* ancestors_str(const TVMFFITypeInfo* info) {
  char* b = next_buf();
  size_t o = 0;
  b[o++] = '[';
  for (int32_t i = 0; i < info->type_depth && o < 3900; ++i) {
    const TVMFFITypeInfo* a = info->type_ancestors[i];
    o += (size_t)snprintf(b + o, 4096 - o, "%s%.*s", i ? "," : "", (int)a->type_key.size,
                          a->type_key.data);
  }
  b[o++] = ']';
  b[o] = '\0';
  return b;
}

static int32_t alloc_index(const char* key, int32_t depth, int32_t slots, int32_t overflow,
                           int32_t parent) {
  TVMFFIByteArray k = ba(key);
  return TVMFFITypeGetOrAllocIndex(&k, -1, depth, slots, overflow, parent);
}

static int32_t g_point3d = -1, g_point_b = -1, g_other = -1;

void test_type_indices(void) {
  g_point = alloc_index("scenario.Point", 1, 2, 0, kTVMFFIObject);
  register_dyn(g_point, "Point");
  CHECK(g_point >= kTVMFFIDynObjectBegin, "type.alloc", "key=\"scenario.Point\" index=%s",
        g_point >= kTVMFFIDynObjectBegin ? "dyn" : tidx(g_point));
  int32_t again = alloc_index("scenario.Point", 1, 0, 1, kTVMFFIObject);
  CHECK(again == g_point, "type.alloc-again", "index=%s", tidx(again));

  /* query-only mode */
  int32_t q = alloc_index("scenario.NotRegistered", 1, 0, 1, -2);
  CHECK(q == -2, "type.query-unknown", "result=%d", q);
  q = alloc_index("scenario.Point", 1, 0, 1, -2);
  CHECK(q == g_point, "type.query-known", "result=%s", tidx(q));
  q = alloc_index("ffi.String", 1, 0, 1, -2);
  CHECK(q == kTVMFFIStr, "type.query-static", "result=%s", tidx(q));
  int32_t unknown_after = alloc_index("scenario.NotRegistered", 1, 0, 1, -2);
  CHECK(unknown_after == -2, "type.query-does-not-register", "result=%d", unknown_after);

  /* children come from the parent's reserved slots */
  g_point3d = alloc_index("scenario.Point3D", 2, 0, 0, g_point);
  register_dyn(g_point3d, "Point3D");
  g_point_b = alloc_index("scenario.PointB", 2, 0, 0, g_point);
  register_dyn(g_point_b, "PointB");
  CHECK(g_point3d == g_point + 1 && g_point_b == g_point + 2, "type.child-slots",
        "Point3D=<Point>%+d PointB=<Point>%+d", g_point3d - g_point, g_point_b - g_point);
  /* the next dynamic type comes after the parent's whole reserved range */
  g_other = alloc_index("scenario.Other", 1, 0, 1, kTVMFFIObject);
  register_dyn(g_other, "Other");
  CHECK(g_other == g_point + 3, "type.after-reserved-range", "Other=<Point>%+d", g_other - g_point);

  /* key -> index */
  struct {
    const char* key;
    int32_t expect;
  } keys[] = {{"ffi.Object", kTVMFFIObject}, {"ffi.String", kTVMFFIStr},  {"ffi.Bytes", kTVMFFIBytes},
              {"ffi.Error", kTVMFFIError},   {"ffi.Function", kTVMFFIFunction}, {"ffi.Shape", kTVMFFIShape},
              {"ffi.Tensor", kTVMFFITensor}, {"ffi.Array", kTVMFFIArray}, {"ffi.Map", kTVMFFIMap},
              {"ffi.Module", kTVMFFIModule}, {"ffi.OpaquePyObject", kTVMFFIOpaquePyObject},
              {"ffi.List", kTVMFFIList},     {"ffi.Dict", kTVMFFIDict},   {"ffi.BigInt", kTVMFFIBigInt},
              {"scenario.Point", -100}};
  char name[96];
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i) {
    TVMFFIByteArray k = ba(keys[i].key);
    int32_t idx = -77;
    int rc = TVMFFITypeKeyToIndex(&k, &idx);
    int32_t expect = keys[i].expect == -100 ? g_point : keys[i].expect;
    snprintf(name, sizeof(name), "type.key-to-index[%s]", keys[i].key);
    EXPECT_OK(name, rc);
    CHECK(rc == 0 && idx == expect, name, "rc=%d index=%s", rc, tidx(idx));
  }
  TVMFFIByteArray k = ba("scenario.NoSuchType");
  int32_t idx = -77;
  int rc = TVMFFITypeKeyToIndex(&k, &idx);
  /* Apache: InternalError "Check failed: (it != type_key2index_.end()) is false: Cannot find
     type `scenario.NoSuchType`" */
  EXPECT_ERROR("type.key-to-index-unknown", rc, "InternalError",
               "Check failed: (it != type_key2index_.end()) is false: Cannot find type "
               "`scenario.NoSuchType`");
  CHECK(idx == -77, "type.key-to-index-unknown-untouched", "out=%s", idx == -77 ? "untouched" : "written");
}

static void print_type_info(const char* name, int32_t index, const char* key, int32_t depth) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
  if (info == NULL) {
    CHECK(0, name, "info=%s", "null");
    return;
  }
  const TVMFFITypeInfo* again = TVMFFIGetTypeInfo(index);
  int anc_ok = 1;
  for (int32_t i = 0; i < info->type_depth; ++i) {
    const TVMFFITypeInfo* a = info->type_ancestors[i];
    if (a != TVMFFIGetTypeInfo(a->type_index)) anc_ok = 0;
  }
  CHECK(info->type_index == index && ba_eq(info->type_key, key) && info->type_depth == depth &&
            again == info && anc_ok,
        name, "type_index=%s key=%s depth=%d ancestors=%s type_key_hash=%llu stable_ptr=%d ancestor_ptrs_are_type_infos=%d",
        tidx(info->type_index), qba(info->type_key), info->type_depth, ancestors_str(info),
        (unsigned long long)info->type_key_hash, again == info, anc_ok);
}

static const TVMFFITypeInfo* g_point_info = NULL;

void test_type_info(void) {
  g_point_info = TVMFFIGetTypeInfo(g_point);
  print_type_info("typeinfo.object", kTVMFFIObject, "ffi.Object", 0);
  print_type_info("typeinfo.string", kTVMFFIStr, "ffi.String", 1);
  print_type_info("typeinfo.function", kTVMFFIFunction, "ffi.Function", 1);
  print_type_info("typeinfo.point", g_point, "scenario.Point", 1);
  print_type_info("typeinfo.point3d", g_point3d, "scenario.Point3D", 2);

  const TVMFFITypeInfo* obj = TVMFFIGetTypeInfo(kTVMFFIObject);
  CHECK(obj->metadata != NULL && obj->metadata->total_size == 24 && obj->metadata->creator == NULL &&
            obj->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindUnsupported,
        "typeinfo.object-metadata", "metadata=%s total_size=%d creator=%s kind=%d",
        obj->metadata ? "set" : "null", obj->metadata ? obj->metadata->total_size : -1,
        obj->metadata && obj->metadata->creator ? "set" : "null",
        obj->metadata ? (int)obj->metadata->structural_eq_hash_kind : -1);
  const TVMFFITypeInfo* str = TVMFFIGetTypeInfo(kTVMFFIStr);
  CHECK(str->metadata == NULL && str->type_ancestors[0] == obj, "typeinfo.string-no-metadata",
        "metadata=%s parent=%s", str->metadata ? "set" : "null",
        str->type_ancestors[0] == obj ? "ffi.Object" : "other");
  const TVMFFITypeInfo* p3 = TVMFFIGetTypeInfo(g_point3d);
  const TVMFFITypeInfo* p = TVMFFIGetTypeInfo(g_point);
  CHECK(p3->type_ancestors[0] == obj && p3->type_ancestors[1] == p && p->num_fields == 0 &&
            p->num_methods == 0 && p->metadata == NULL,
        "typeinfo.point-fresh", "point3d.ancestors=%s point.fields=%d methods=%d metadata=%s",
        (p3->type_ancestors[0] == obj && p3->type_ancestors[1] == p) ? "[object,point]" : "other",
        p->num_fields, p->num_methods, p->metadata ? "set" : "null");
}

static const char* kXMetadata = "{\"type_schema\":\"{\\\"type\\\":\\\"int\\\"}\"}";
static const char* kYMetadata = "{\"type_schema\":\"{\\\"type\\\":\\\"float\\\"}\"}";

void test_fields(void) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(g_point);
  /* strings come from a buffer we overwrite afterwards: the registry must copy them */
  char name_buf[8] = "x";
  char doc_buf[32] = "The x coordinate.";
  TVMFFIFieldInfo fx;
  memset(&fx, 0, sizeof(fx));
  fx.name = ba(name_buf);
  fx.doc = ba(doc_buf);
  fx.metadata = ba(kXMetadata);
  fx.flags = kTVMFFIFieldFlagBitMaskWritable;
  fx.size = 8;
  fx.alignment = 8;
  fx.offset = 24;
  fx.getter = point_get_x;
  fx.setter = (void*)point_set_x;
  fx.default_value_or_factory = any_int(99); /* no HasDefault flag: must be stored as None */
  fx.field_static_type_index = kTVMFFIInt;
  int rc = TVMFFITypeRegisterField(g_point, &fx);
  EXPECT_OK("field.register-x", rc);
  memset(name_buf, 'Z', sizeof(name_buf) - 1);
  memset(doc_buf, 'Z', sizeof(doc_buf) - 1);

  TVMFFIFieldInfo fy;
  memset(&fy, 0, sizeof(fy));
  fy.name = ba("y");
  fy.doc = ba("");
  fy.metadata = ba(kYMetadata);
  fy.flags = kTVMFFIFieldFlagBitMaskWritable | kTVMFFIFieldFlagBitMaskHasDefault;
  fy.size = 8;
  fy.alignment = 8;
  fy.offset = 32;
  fy.getter = point_get_y;
  fy.setter = (void*)point_set_y;
  fy.default_value_or_factory = any_float(1.5);
  fy.field_static_type_index = kTVMFFIFloat;
  rc = TVMFFITypeRegisterField(g_point, &fy);
  EXPECT_OK("field.register-y", rc);

  TVMFFIFieldInfo flabel;
  memset(&flabel, 0, sizeof(flabel));
  flabel.name = ba("label");
  flabel.doc = ba("A read-only label with a small-string default.");
  flabel.metadata = ba("");
  flabel.flags = kTVMFFIFieldFlagBitMaskHasDefault | kTVMFFIFieldFlagBitMaskReprOff;
  flabel.size = 8;
  flabel.alignment = 8;
  flabel.offset = 24;
  flabel.getter = point_get_x;
  flabel.setter = NULL;
  flabel.default_value_or_factory = any_raw_str("origin"); /* AnyView: stored as an owned String */
  flabel.field_static_type_index = -1;
  rc = TVMFFITypeRegisterField(g_point, &flabel);
  EXPECT_OK("field.register-label", rc);

  info = TVMFFIGetTypeInfo(g_point);
  CHECK(info->num_fields == 3, "field.count", "num_fields=%d", info->num_fields);
  if (info->num_fields != 3) return;
  const TVMFFIFieldInfo* x = &info->fields[0];
  const TVMFFIFieldInfo* y = &info->fields[1];
  const TVMFFIFieldInfo* l = &info->fields[2];
  CHECK(ba_eq(x->name, "x") && ba_eq(x->doc, "The x coordinate.") && ba_eq(x->metadata, kXMetadata) &&
            x->flags == 1 && x->size == 8 && x->alignment == 8 && x->offset == 24 &&
            x->getter == point_get_x && x->setter == (void*)point_set_x &&
            x->default_value_or_factory.type_index == kTVMFFINone && x->field_static_type_index == 1,
        "field.x", "name=%s doc=%s metadata=%s flags=%lld size=%lld align=%lld offset=%lld getter=%s setter=%s default.type_index=%d static_type_index=%d",
        qba(x->name), qba(x->doc), qba(x->metadata), (long long)x->flags, (long long)x->size,
        (long long)x->alignment, (long long)x->offset, x->getter == point_get_x ? "ours" : "other",
        x->setter == (void*)point_set_x ? "ours" : "other", x->default_value_or_factory.type_index,
        x->field_static_type_index);
  CHECK(ba_eq(y->name, "y") && y->doc.size == 0 && ba_eq(y->metadata, kYMetadata) && y->flags == 3 &&
            y->offset == 32 && y->getter == point_get_y &&
            y->default_value_or_factory.type_index == kTVMFFIFloat &&
            y->default_value_or_factory.v_float64 == 1.5 && y->field_static_type_index == 3,
        "field.y", "name=%s doc_size=%zu metadata=%s flags=%lld offset=%lld default=%d:%g static_type_index=%d",
        qba(y->name), y->doc.size, qba(y->metadata), (long long)y->flags, (long long)y->offset,
        y->default_value_or_factory.type_index, y->default_value_or_factory.v_float64,
        y->field_static_type_index);
  TVMFFIAny ld = l->default_value_or_factory;
  CHECK(ba_eq(l->name, "label") && l->metadata.size == 0 && l->flags == 66 && l->setter == NULL &&
            ld.type_index == kTVMFFISmallStr && ba_eq(any_bytes(&ld), "origin") &&
            l->field_static_type_index == -1,
        "field.label", "name=%s doc=%s metadata_size=%zu flags=%lld setter=%s default.type_index=%d default=%s static_type_index=%d",
        qba(l->name), qba(l->doc), l->metadata.size, (long long)l->flags, l->setter ? "set" : "null",
        ld.type_index, qba(any_bytes(&ld)), l->field_static_type_index);

  /* duplicate field name */
  TVMFFIFieldInfo dup = fx;
  dup.name = ba("x");
  rc = TVMFFITypeRegisterField(g_point, &dup);
  /* Apache: InternalError "Check failed: (std::string_view(existing.name.data,
     existing.name.size) != new_name) is false: Duplicate field name \"x\" in type
     \"scenario.Point\"" */
  EXPECT_ERROR("field.duplicate", rc, "InternalError",
               "Check failed: (std::string_view(existing.name.data, existing.name.size) != "
               "new_name) is false: Duplicate field name \"x\" in type \"scenario.Point\"");
  info = TVMFFIGetTypeInfo(g_point);
  CHECK(info->num_fields == 3, "field.duplicate-not-added", "num_fields=%d", info->num_fields);

  /* a child may re-register an ancestor's field name (Apache only warns on stderr) */
  TVMFFIFieldInfo shadow = fx;
  shadow.name = ba("x");
  shadow.doc = ba("");
  rc = TVMFFITypeRegisterField(g_point3d, &shadow);
  EXPECT_OK("field.shadow-ancestor", rc);
  CHECK(rc == 0 && TVMFFIGetTypeInfo(g_point3d)->num_fields == 1 &&
            TVMFFIGetTypeInfo(g_point)->num_fields == 3,
        "field.shadow-ancestor", "rc=%d child.num_fields=%d parent.num_fields=%d", rc,
        TVMFFIGetTypeInfo(g_point3d)->num_fields, TVMFFIGetTypeInfo(g_point)->num_fields);
}

void test_metadata_and_accessors(void) {
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  char doc_buf[32] = "A point in the plane.";
  md.doc = ba(doc_buf);
  md.creator = point_creator;
  md.total_size = (int32_t)sizeof(PointObj);
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  int rc = TVMFFITypeRegisterMetadata(g_point, &md);
  EXPECT_OK("metadata.register", rc);
  memset(doc_buf, 'Z', sizeof(doc_buf) - 1);
  const TVMFFITypeMetadata* got = TVMFFIGetTypeInfo(g_point)->metadata;
  CHECK(rc == 0 && got != NULL && ba_eq(got->doc, "A point in the plane.") &&
            got->creator == point_creator && got->total_size == 40 &&
            got->structural_eq_hash_kind == kTVMFFISEqHashKindTreeNode,
        "metadata.read-back", "rc=%d doc=%s creator=%s total_size=%d kind=%d", rc,
        got ? qba(got->doc) : "-", got && got->creator == point_creator ? "ours" : "other",
        got ? got->total_size : -1, got ? (int)got->structural_eq_hash_kind : -1);

  TVMFFITypeMetadata md2 = md;
  md2.doc = ba("second");
  rc = TVMFFITypeRegisterMetadata(g_point, &md2);
  /* Apache: RuntimeError "Overriding scenario.Point, possible causes:\n- two ObjectDef<T>() calls
     for the same T \n- when we forget to assign _type_key to ObjectRef<Y> that inherits from
     T\n- another type with the same key is already registered\nCross check the reflection
     registration." (also printed to stderr) */
  EXPECT_ERROR("metadata.duplicate", rc, "RuntimeError",
               "Overriding scenario.Point, possible causes:\n"
               "- two ObjectDef<T>() calls for the same T \n"
               "- when we forget to assign _type_key to ObjectRef<Y> that inherits from T\n"
               "- another type with the same key is already registered\n"
               "Cross check the reflection registration.");
  got = TVMFFIGetTypeInfo(g_point)->metadata;
  CHECK(got != NULL && ba_eq(got->doc, "A point in the plane."), "metadata.duplicate-keeps-first",
        "doc=%s", got ? qba(got->doc) : "-");
  CHECK(TVMFFIGetTypeInfo(g_point3d)->metadata == NULL, "metadata.child-has-none", "metadata=%s",
        TVMFFIGetTypeInfo(g_point3d)->metadata ? "set" : "null");

  /* create an instance through the registered creator; use getters/setters from the TypeInfo */
  void* obj = NULL;
  rc = got ? got->creator(&obj) : -1;
  CHECK(rc == 0 && obj != NULL && ((TVMFFIObject*)obj)->type_index == g_point, "metadata.creator",
        "rc=%d type_index=%s", rc, obj ? tidx(((TVMFFIObject*)obj)->type_index) : "-");
  if (obj == NULL) return;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(g_point);
  const TVMFFIFieldInfo* fx = &info->fields[0];
  const TVMFFIFieldInfo* fy = &info->fields[1];
  TVMFFIAny v = any_none();
  rc = fx->getter((char*)obj + fx->offset, &v);
  CHECK(rc == 0 && v.type_index == kTVMFFIInt && v.v_int64 == 0, "field.get-x", "value=%lld",
        (long long)v.v_int64);
  TVMFFIAny seven = any_int(7);
  rc = ((TVMFFIFieldSetter)fx->setter)((char*)obj + fx->offset, &seven);
  TVMFFIAny two = any_float(2.0);
  int rc2 = ((TVMFFIFieldSetter)fy->setter)((char*)obj + fy->offset, &two);
  fx->getter((char*)obj + fx->offset, &v);
  CHECK(rc == 0 && rc2 == 0 && v.v_int64 == 7 && ((PointObj*)obj)->y == 2.0, "field.set",
        "x=%lld y=%g", (long long)v.v_int64, ((PointObj*)obj)->y);
  TVMFFIAny wrong = any_float(1.0);
  rc = ((TVMFFIFieldSetter)fx->setter)((char*)obj + fx->offset, &wrong);
  EXPECT_ERROR("field.set-wrong-type", rc, "TypeError", "x expects an int");

  /* methods: a foreign function object, retained by the registry */
  memset(&g_norm2, 0, sizeof(g_norm2));
  g_norm2.header.combined_ref_count = ((uint64_t)1 << 32) | 1u;
  g_norm2.header.type_index = kTVMFFIFunction;
  g_norm2.header.deleter = cfunc_deleter;
  g_norm2.cell.safe_call = norm2_call;
  g_norm2.cell.cpp_call = NULL;
  TVMFFIMethodInfo m;
  memset(&m, 0, sizeof(m));
  m.name = ba("norm2");
  m.doc = ba("Squared Euclidean norm.");
  m.metadata = ba("{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"}\"}");
  m.flags = 0;
  m.method = any_obj(&g_norm2);
  rc = TVMFFITypeRegisterMethod(g_point, &m);
  EXPECT_OK("method.register", rc);
  CHECK(rc == 0 && strong_of(&g_norm2) == 2, "method.register-retains", "rc=%d strong=%u", rc,
        strong_of(&g_norm2));
  TVMFFIMethodInfo m2 = m;
  m2.name = ba("origin");
  m2.doc = ba("");
  m2.metadata = ba("");
  m2.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
  rc = TVMFFITypeRegisterMethod(g_point, &m2);
  EXPECT_OK("method.register-static", rc);
  rc = TVMFFITypeRegisterMethod(g_point, &m); /* same name again: an overload, allowed */
  EXPECT_OK("method.register-overload", rc);
  info = TVMFFIGetTypeInfo(g_point);
  CHECK(info->num_methods == 3 && strong_of(&g_norm2) == 4, "method.count",
        "num_methods=%d strong=%u", info->num_methods, strong_of(&g_norm2));
  if (info->num_methods == 3) {
    const TVMFFIMethodInfo* a = &info->methods[0];
    const TVMFFIMethodInfo* b = &info->methods[1];
    const TVMFFIMethodInfo* c = &info->methods[2];
    CHECK(ba_eq(a->name, "norm2") && ba_eq(a->doc, "Squared Euclidean norm.") &&
              ba_eq(a->metadata, "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"}\"}") &&
              a->flags == 0 && a->method.type_index == kTVMFFIFunction &&
              a->method.v_obj == &g_norm2.header,
          "method.read-back", "name=%s doc=%s metadata=%s flags=%lld method.type_index=%d method=%s",
          qba(a->name), qba(a->doc), qba(a->metadata), (long long)a->flags, a->method.type_index,
          a->method.v_obj == &g_norm2.header ? "ours" : "other");
    CHECK(ba_eq(b->name, "origin") && b->flags == 4 && ba_eq(c->name, "norm2") && c->flags == 0,
          "method.read-back-order", "second=%s flags=%lld third=%s flags=%lld", qba(b->name),
          (long long)b->flags, qba(c->name), (long long)c->flags);
    TVMFFIAny arg = any_obj(obj);
    TVMFFIAny rv = any_none();
    rc = TVMFFIFunctionCall(a->method.v_obj, &arg, 1, &rv);
    CHECK(rc == 0 && rv.type_index == kTVMFFIFloat && rv.v_float64 == 53.0, "method.call",
          "rc=%d type_index=%d value=%g", rc, rv.type_index, rv.v_float64);
  }
  TVMFFIObjectDecRef(obj);
  CHECK(g_points_freed == 1, "metadata.instance-freed", "freed=%d", g_points_freed);
  /* header code caches TypeInfo pointers: registering fields, methods and metadata (and more
     types) must not move them */
  CHECK(TVMFFIGetTypeInfo(g_point) == g_point_info, "typeinfo.stable-after-registration",
        "ptr=%s", same(TVMFFIGetTypeInfo(g_point), g_point_info));
}

/* ------------------------------------------------------------------------------------------ */
/* 13. type attribute columns                                                                  */
/* ------------------------------------------------------------------------------------------ */

static const TVMFFIAny* column_entry(const TVMFFITypeAttrColumn* col, int32_t type_index) {
  int32_t i = type_index - col->begin_index;
  if (i < 0 || i >= col->size) return NULL;
  return &col->data[i];
}

static const char* entry_str(const TVMFFIAny* e) {
  char* b = next_buf();
  if (e == NULL) {
    snprintf(b, 4096, "out-of-range");
  } else if (e->type_index == kTVMFFINone) {
    snprintf(b, 4096, "none");
  } else if (e->type_index == kTVMFFIInt) {
    snprintf(b, 4096, "int:%lld", (long long)e->v_int64);
  } else if (e->type_index == kTVMFFISmallStr || e->type_index == kTVMFFIStr) {
    snprintf(b, 4096, "str:%s", qba(any_bytes(e)));
  } else {
    snprintf(b, 4096, "type_index:%d", e->type_index);
  }
  return b;
}

void test_attrs(void) {
  TVMFFIByteArray unknown = ba("scenario.no_such_column");
  const TVMFFITypeAttrColumn* none = TVMFFIGetTypeAttrColumn(&unknown);
  CHECK(none == NULL, "attr.unknown-column", "column=%s", none ? "set" : "null");

  TVMFFIByteArray name = ba("scenario.attr");
  TVMFFIAny ignored = any_int(-1);
  int rc = TVMFFITypeRegisterAttr(kTVMFFINone, &name, &ignored);
  EXPECT_OK("attr.ensure-column", rc);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  CHECK(rc == 0 && col != NULL && col->size == 0, "attr.ensure-column", "rc=%d column=%s size=%d",
        rc, col ? "set" : "null", col ? col->size : -1);
  if (col == NULL) return;

  TVMFFIAny v65 = any_int(65);
  rc = TVMFFITypeRegisterAttr(kTVMFFIStr, &name, &v65);
  EXPECT_OK("attr.register-static", rc);
  const TVMFFIAny* e = column_entry(col, kTVMFFIStr);
  CHECK(rc == 0 && e != NULL && e->type_index == kTVMFFIInt && e->v_int64 == 65,
        "attr.register-static", "rc=%d entry[ffi.String]=%s", rc, entry_str(e));

  /* growing the column to a dynamic index keeps the column pointer */
  TVMFFIAny v100 = any_int(100);
  rc = TVMFFITypeRegisterAttr(g_point, &name, &v100);
  EXPECT_OK("attr.register-dyn", rc);
  const TVMFFITypeAttrColumn* col2 = TVMFFIGetTypeAttrColumn(&name);
  const TVMFFIAny* ep = column_entry(col, g_point);
  const TVMFFIAny* es = column_entry(col, kTVMFFIStr);
  CHECK(col2 == col && ep != NULL && ep->type_index == kTVMFFIInt && ep->v_int64 == 100 && es != NULL &&
            es->v_int64 == 65,
        "attr.register-dyn", "column_ptr=%s entry[Point]=%s entry[ffi.String]=%s",
        same(col2, col), entry_str(ep), entry_str(es));
  TVMFFIAny v102 = any_int(102);
  rc = TVMFFITypeRegisterAttr(g_point_b, &name, &v102);
  EXPECT_OK("attr.register-child", rc);
  const TVMFFIAny* e3d = column_entry(col, g_point3d);
  const TVMFFIAny* eb = column_entry(col, g_point_b);
  const TVMFFIAny* ebytes = column_entry(col, kTVMFFIBytes);
  CHECK(TVMFFIGetTypeAttrColumn(&name) == col && eb != NULL && eb->v_int64 == 102 && e3d != NULL &&
            e3d->type_index == kTVMFFINone && (ebytes == NULL || ebytes->type_index == kTVMFFINone),
        "attr.register-child", "column_ptr=%s entry[PointB]=%s entry[Point3D]=%s entry[ffi.Bytes]=%s",
        same(TVMFFIGetTypeAttrColumn(&name), col), entry_str(eb), entry_str(e3d),
        ebytes == NULL ? "none" : entry_str(ebytes));

  TVMFFIAny dupv = any_int(5);
  rc = TVMFFITypeRegisterAttr(g_point, &name, &dupv);
  /* Apache: RuntimeError "TypeAttr `scenario.attr` is already registered for type index <Point>.
     To update the stored value, register a mutable container (e.g., Dict/List) once and mutate
     it in place on subsequent calls." (<Point> is the decimal dynamic index) */
  EXPECT_ERROR("attr.duplicate", rc, "RuntimeError", NULL);
  {
    /* the message names the dynamic index: compare it with the index spelled out */
    TVMFFIAny again = any_int(6);
    rc = TVMFFITypeRegisterAttr(g_point, &name, &again);
    void* err = take_raised();
    char expect[512];
    snprintf(expect, sizeof(expect),
             "TypeAttr `scenario.attr` is already registered for type index %d. To update the "
             "stored value, register a mutable container (e.g., Dict/List) once and mutate it in "
             "place on subsequent calls.",
             g_point);
    CHECK(rc == -1 && err != NULL && ba_eq(error_cell(err)->kind, "RuntimeError") &&
              ba_eq(error_cell(err)->message, expect),
          "attr.duplicate-message", "kind=%s message=%s", err ? qba(error_cell(err)->kind) : "-",
          err ? qba(error_cell(err)->message) : "-");
    if (err) TVMFFIObjectDecRef(err);
  }
  ep = column_entry(col, g_point);
  CHECK(ep != NULL && ep->v_int64 == 100, "attr.duplicate-keeps-first", "entry[Point]=%s",
        entry_str(ep));

  /* a raw C string value is stored as an owned String */
  TVMFFIByteArray name2 = ba("scenario.attr_str");
  TVMFFIAny tag = any_raw_str("tag");
  rc = TVMFFITypeRegisterAttr(g_point3d, &name2, &tag);
  EXPECT_OK("attr.register-raw-str", rc);
  const TVMFFITypeAttrColumn* col3 = TVMFFIGetTypeAttrColumn(&name2);
  const TVMFFIAny* et = col3 ? column_entry(col3, g_point3d) : NULL;
  const TVMFFIAny* ep3 = col3 ? column_entry(col3, g_point) : NULL;
  CHECK(col3 != NULL && col3 != col && et != NULL && et->type_index == kTVMFFISmallStr &&
            ba_eq(any_bytes(et), "tag") && (ep3 == NULL || ep3->type_index == kTVMFFINone),
        "attr.register-raw-str", "column=%s entry[Point3D]=%s entry[Point]=%s",
        col3 == NULL ? "null" : (col3 == col ? "same-as-first" : "distinct"), entry_str(et),
        ep3 == NULL ? "none" : entry_str(ep3));
}
