/* The testing-library host's checks of containers both ways and containers mutated across the
 * boundary. */
#include "testing_lib.h"

/* ------------------------------------------------------------------------------------------ */
/* 5. containers, both ways                                                                    */
/* ------------------------------------------------------------------------------------------ */

void test_arrays_and_lists(void) {
  TVMFFIAny rv;
  Pool p = {0};
  int rc;

  /* runtime-built Array read by C++ (typed conversions check every element) */
  TVMFFIAny ints = pool_add(&p, BUILD("ffi.Array", any_int(1), any_int(2), any_int(3)));
  CHECK(ints.type_index == kTVMFFIArray, "ffi.Array type", "type=%d", ints.type_index);
  rc = T("schema_id_arr_int", &rv, ints);
  CHECK(rc == 0 && rv.v_obj == ints.v_obj, "schema_id_arr_int: same array", "rc=%d %s", rc,
        same(rv.v_obj, ints.v_obj));
  EXPECT_VALUE_REL("schema_id_arr_int", rc, &rv, "Array[1, 2, 3]");
  TVMFFIAny mixed = pool_add(&p, BUILD("ffi.Array", any_int(1), pstr(&p, "two")));
  rc = T("schema_id_arr_int", &rv, mixed);
  EXPECT_ERROR("schema_id_arr_int([1, \"two\"])", rc, &rv, "TypeError", NULL);
  rc = T("schema_id_arr_str", &rv, pool_add(&p, BUILD("ffi.Array", pstr(&p, "a"), pstr(&p, "a long string value"))));
  EXPECT_VALUE_REL("schema_id_arr_str", rc, &rv, "Array[\"a\", \"a long string value\"]");
  rc = T("schema_id_arr_obj", &rv, pool_add(&p, BUILD("ffi.Array", ints, mixed)));
  EXPECT_VALUE_REL("schema_id_arr_obj", rc, &rv, "Array[Array[1, 2, 3], Array[1, \"two\"]]");
  rc = T("schema_id_arr_obj", &rv, pool_add(&p, BUILD("ffi.Array", any_int(1))));
  EXPECT_ERROR("schema_id_arr_obj([1])", rc, &rv, "TypeError", NULL);
  rc = T("schema_id_arr", &rv, mixed);
  CHECK(rc == 0 && rv.v_obj == mixed.v_obj, "schema_id_arr: same array", "rc=%d %s", rc,
        same(rv.v_obj, mixed.v_obj));
  any_release(&rv);
  rc = T("schema_id_arr", &rv, pool_add(&p, BUILD("ffi.List", any_int(1))));
  EXPECT_ERROR("schema_id_arr(List)", rc, &rv, "TypeError", NULL);
  rc = T("schema_variant_mix", &rv, ints);
  CHECK(rc == 0 && rv.v_obj == ints.v_obj, "schema_variant_mix(Array[int])", "rc=%d %s %s", rc,
        same(rv.v_obj, ints.v_obj), describe(&rv));
  any_release(&rv);
  TVMFFIAny empty = pool_add(&p, build("ffi.Array", NULL, 0));
  rc = T("schema_id_arr_int", &rv, empty);
  EXPECT_VALUE_REL("schema_id_arr_int(empty)", rc, &rv, "Array[]");

  /* a big runtime-built array read by C++ */
  TVMFFIAny many_args[40];
  for (int i = 0; i < 40; ++i) many_args[i] = any_int(i * i);
  TVMFFIAny many = pool_add(&p, build("ffi.Array", many_args, 40));
  rc = T("schema_id_arr_int", &rv, many);
  CHECK(rc == 0 && rv.v_obj == many.v_obj, "schema_id_arr_int(40 elements)", "rc=%d %s", rc,
        same(rv.v_obj, many.v_obj));
  any_release(&rv);

  /* Lists */
  TVMFFIAny lst = pool_add(&p, BUILD("ffi.List", any_int(4), any_int(5)));
  CHECK(lst.type_index == kTVMFFIList, "ffi.List type", "type=%d", lst.type_index);
  rc = T("schema_id_list_int", &rv, lst);
  CHECK(rc == 0 && rv.v_obj == lst.v_obj, "schema_id_list_int: same list", "rc=%d %s", rc,
        same(rv.v_obj, lst.v_obj));
  EXPECT_VALUE_REL("schema_id_list_int", rc, &rv, "List[4, 5]");
  rc = T("schema_id_list_str", &rv, pool_add(&p, BUILD("ffi.List", pstr(&p, "x"), pstr(&p, "yy"))));
  EXPECT_VALUE_REL("schema_id_list_str", rc, &rv, "List[\"x\", \"yy\"]");
  rc = T("schema_id_list_obj", &rv, pool_add(&p, BUILD("ffi.List", lst, ints)));
  EXPECT_VALUE_REL("schema_id_list_obj", rc, &rv, "List[List[4, 5], Array[1, 2, 3]]");
  /* an Array passed where a List is expected is converted (copied) by C++ */
  rc = T("schema_id_list_int", &rv, ints);
  CHECK(rc == 0 && rv.type_index == kTVMFFIList && rv.v_obj != ints.v_obj, "schema_id_list_int(Array) converts",
        "rc=%d type=%d %s", rc, rv.type_index, same(rv.v_obj, ints.v_obj));
  EXPECT_VALUE_REL("schema_id_list_int(Array)", rc, &rv, "List[1, 2, 3]");
  rc = T("schema_id_list_str", &rv, lst);
  EXPECT_ERROR("schema_id_list_str([4, 5])", rc, &rv, "TypeError", NULL);

  /* a List mutated by the runtime after C++ returned it */
  rc = T("schema_id_list_int", &rv, lst);
  if (EXPECT_OK("schema_id_list_int again", rc)) {
    TVMFFIAny r2;
    int rc2 = G("ffi.ListAppend", &r2, rv, any_int(6));
    EXPECT_OK("ffi.ListAppend", rc2);
    any_release(&r2);
    EXPECT_VALUE("list seen through both handles", 0, &lst, "List[4, 5, 6]");
  }
  any_release(&rv);

  /* Shape */
  TVMFFIAny shape = pool_add(&p, BUILD("ffi.Shape", any_int(2), any_int(3), any_int(4)));
  CHECK(shape.type_index == kTVMFFIShape, "ffi.Shape type", "type=%d %s", shape.type_index, describe(&shape));
  rc = T("schema_id_any", &rv, shape);
  CHECK(rc == 0 && rv.v_obj == shape.v_obj, "schema_id_any(Shape)", "rc=%d %s %s", rc,
        same(rv.v_obj, shape.v_obj), describe(&rv));
  any_release(&rv);
  rc = T("echo", &rv, shape);
  EXPECT_VALUE_REL("echo(Shape)", rc, &rv, "Shape(2, 3, 4)");
  pool_release(&p);
}

void test_maps(void) {
  TVMFFIAny rv;
  Pool p = {0};
  int rc;

  /* a small runtime-built Map read by C++ */
  TVMFFIAny small = pool_add(&p, BUILD("ffi.Map", pstr(&p, "a"), any_int(1), pstr(&p, "bb"), any_int(2)));
  CHECK(small.type_index == kTVMFFIMap && strcmp(map_layout(&small), "small") == 0, "ffi.Map(2 entries)",
        "type=%d layout=%s %s", small.type_index, map_layout(&small), describe(&small));
  rc = T("schema_id_map_str_int", &rv, small);
  CHECK(rc == 0 && rv.v_obj == small.v_obj, "schema_id_map_str_int(small): same map", "rc=%d %s", rc,
        same(rv.v_obj, small.v_obj));
  any_release(&rv);
  rc = T("schema_id_map_str_str", &rv, small);
  EXPECT_ERROR("schema_id_map_str_str({str: int})", rc, &rv, "TypeError", NULL);
  TVMFFIAny ss = pool_add(
      &p, BUILD("ffi.Map", pstr(&p, "k"), pstr(&p, "v"), pstr(&p, "key two"), pstr(&p, "value two")));
  rc = T("schema_id_map_str_str", &rv, ss);
  EXPECT_VALUE_REL("schema_id_map_str_str", rc, &rv, "Map{\"k\": \"v\", \"key two\": \"value two\"}");
  TVMFFIAny so = pool_add(&p, BUILD("ffi.Map", pstr(&p, "m"), ss, pstr(&p, "s"), pstr(&p, "string object")));
  rc = T("schema_id_map_str_obj", &rv, so);
  EXPECT_VALUE_REL("schema_id_map_str_obj", rc, &rv,
                   "Map{\"m\": Map{\"k\": \"v\", \"key two\": \"value two\"}, \"s\": \"string object\"}");
  TVMFFIAny anykeys = pool_add(&p, BUILD("ffi.Map", any_int(1), pstr(&p, "one"), any_bool(0), any_none()));
  rc = T("schema_id_map", &rv, anykeys);
  CHECK(rc == 0 && rv.v_obj == anykeys.v_obj, "schema_id_map: same map", "rc=%d %s", rc,
        same(rv.v_obj, anykeys.v_obj));
  EXPECT_VALUE_REL("schema_id_map", rc, &rv, "Map{1: \"one\", False: None}");
  rc = T("schema_id_map", &rv, pool_add(&p, BUILD("ffi.Dict", any_int(1), any_int(2))));
  EXPECT_ERROR("schema_id_map(Dict)", rc, &rv, "TypeError", NULL);

  /* a dense runtime-built Map (12 > 4 entries) read by C++ */
  TVMFFIAny dense = pool_add(&p, build_str_int_map("ffi.Map", &p, "key", 12));
  CHECK(strcmp(map_layout(&dense), "dense") == 0, "ffi.Map(12 entries) is dense", "layout=%s %s",
        map_layout(&dense), describe(&dense));
  rc = T("schema_id_map_str_int", &rv, dense);
  CHECK(rc == 0 && rv.v_obj == dense.v_obj, "schema_id_map_str_int(dense): same map", "rc=%d %s", rc,
        same(rv.v_obj, dense.v_obj));
  any_release(&rv);

  /* schema_arr_map_opt: C++ copies our map (copy-on-write) and inserts one key */
  TVMFFIAny arr_opt = pool_add(&p, BUILD("ffi.Array", any_int(1), any_none(), any_int(3)));
  TVMFFIAny full_small = pool_add(&p, BUILD("ffi.Map", pstr(&p, "p"), pool_add(&p, BUILD("ffi.Array", any_int(1))),
                                            pstr(&p, "q"), pool_add(&p, BUILD("ffi.Array")),
                                            pstr(&p, "r"), pool_add(&p, BUILD("ffi.Array", any_int(2), any_int(3))),
                                            pstr(&p, "s"), pool_add(&p, BUILD("ffi.Array", any_int(4)))));
  CHECK(strcmp(map_layout(&full_small), "small") == 0, "map of 4 is small", "layout=%s", map_layout(&full_small));
  rc = T("schema_arr_map_opt", &rv, arr_opt, full_small, pstr(&p, "new key"));
  if (EXPECT_VALUE("schema_arr_map_opt(4 entries + 1)", rc, &rv,
                   "Map{\"p\": Array[1], \"q\": Array[], \"r\": Array[2, 3], \"s\": Array[4], "
                   "\"new key\": Array[1, 3]}")) {
    CHECK(rv.v_obj != full_small.v_obj && strcmp(map_layout(&rv), "dense") == 0,
          "schema_arr_map_opt: C++ built a new dense map", "%s layout=%s", same(rv.v_obj, full_small.v_obj),
          map_layout(&rv));
    int rc2;
    TVMFFIAny got = map_get("ffi.MapGetItem", &rv, "new key", &rc2);
    EXPECT_VALUE_REL("ffi.MapGetItem(C++ dense map, \"new key\")", rc2, &got, "Array[1, 3]");
    got = map_get("ffi.MapGetItem", &rv, "r", &rc2);
    EXPECT_VALUE_REL("ffi.MapGetItem(C++ dense map, \"r\")", rc2, &got, "Array[2, 3]");
    got = map_get("ffi.MapGetItem", &rv, "absent", &rc2);
    EXPECT_ERROR("ffi.MapGetItem(C++ dense map, \"absent\")", rc2, &got, "KeyError", NULL);
    TVMFFIAny cnt;
    rc2 = G("ffi.MapCount", &cnt, rv, pstr(&p, "s"));
    EXPECT_VALUE_REL("ffi.MapCount(C++ dense map, \"s\")", rc2, &cnt, "1");
    rc2 = G("ffi.MapSize", &cnt, rv);
    EXPECT_VALUE_REL("ffi.MapSize(C++ dense map)", rc2, &cnt, "5");
  }
  any_release(&rv);
  EXPECT_VALUE("our map is unchanged", 0, &full_small,
               "Map{\"p\": Array[1], \"q\": Array[], \"r\": Array[2, 3], \"s\": Array[4]}");
  rc = T("schema_arr_map_opt", &rv, arr_opt, full_small, any_none());
  CHECK(rc == 0 && rv.v_obj == full_small.v_obj, "schema_arr_map_opt(None): same map", "rc=%d %s", rc,
        same(rv.v_obj, full_small.v_obj));
  any_release(&rv);
  rc = T("schema_arr_map_opt", &rv, pool_add(&p, BUILD("ffi.Array", pstr(&p, "x"))), full_small, any_none());
  EXPECT_ERROR("schema_arr_map_opt([\"x\"], ...)", rc, &rv, "TypeError", NULL);

  /* a dense map of arrays, grown by C++ from 30 to 31 entries */
  TVMFFIAny big_args[60];
  for (int i = 0; i < 30; ++i) {
    big_args[2 * i] = pstr(&p, fmt("entry number %d", i));
    big_args[2 * i + 1] = pool_add(&p, BUILD("ffi.Array", any_int(i)));
  }
  TVMFFIAny big = pool_add(&p, build("ffi.Map", big_args, 60));
  rc = T("schema_arr_map_opt", &rv, arr_opt, big, pstr(&p, "entry number 30"));
  if (EXPECT_OK("schema_arr_map_opt(30 entries + 1)", rc)) {
    TVMFFIAny cnt;
    int rc2 = G("ffi.MapSize", &cnt, rv);
    EXPECT_VALUE_REL("ffi.MapSize(C++ grown map)", rc2, &cnt, "31");
    int all_ok = 1;
    for (int i = 0; i <= 30; ++i) {
      TVMFFIAny got = map_get("ffi.MapGetItem", &rv, fmt("entry number %d", i), &rc2);
      const char* d = rc2 == 0 ? describe(&got) : "<error>";
      if (rc2 != 0) {
        void* e = take_raised();
        if (e) TVMFFIObjectDecRef(e);
      }
      if (strcmp(d, i < 30 ? fmt("Array[%d]", i) : "Array[1, 3]") != 0) {
        all_ok = 0;
        CHECK(0, "ffi.MapGetItem(C++ grown map)", "entry %d -> %s", i, d);
      }
      any_release(&got);
    }
    CHECK(all_ok, "ffi.MapGetItem finds all 31 entries of the C++ grown map", "%s", all_ok ? "yes" : "no");
    EXPECT_VALUE("iteration order of the C++ grown map", 0, &rv, NULL);
  }
  any_release(&rv);

  /* SchemaAllTypes.merge_map: C++ probes our dense map (count, operator[]) and copies it */
  TVMFFIAny hundred = pool_add(&p, BUILD("ffi.Array", any_int(100)));
  TVMFFIAny seven_eight = pool_add(&p, BUILD("ffi.Array", any_int(7), any_int(8)));
  TVMFFIAny rhs =
      pool_add(&p, BUILD("ffi.Map", pstr(&p, "entry number 3"), hundred, pstr(&p, "fresh"), seven_eight));
  int32_t sat = type_index_of("testing.SchemaAllTypes");
  const TVMFFITypeInfo* info = sat >= 0 ? TVMFFIGetTypeInfo(sat) : NULL;
  void* make_with = NULL;
  void* merge = NULL;
  for (int32_t i = 0; info && i < info->num_methods; ++i) {
    if (ba_eq(info->methods[i].name, "make_with")) make_with = info->methods[i].method.v_obj;
    if (ba_eq(info->methods[i].name, "merge_map")) merge = info->methods[i].method.v_obj;
  }
  if (make_with && merge) {
    TVMFFIAny self;
    rc = F(make_with, &self, any_int(1), any_float(2.0), pstr(&p, "x"));
    if (EXPECT_OK("SchemaAllTypes.make_with", rc)) {
      rc = F(merge, &rv, self, big, rhs);
      if (EXPECT_OK("SchemaAllTypes.merge_map(dense ours, rhs)", rc)) {
        int rc2;
        TVMFFIAny got = map_get("ffi.MapGetItem", &rv, "entry number 3", &rc2);
        EXPECT_VALUE_REL("merge_map: appended to an existing key", rc2, &got, "Array[3, 100]");
        got = map_get("ffi.MapGetItem", &rv, "fresh", &rc2);
        EXPECT_VALUE_REL("merge_map: new key", rc2, &got, "Array[7, 8]");
        got = map_get("ffi.MapGetItem", &rv, "entry number 29", &rc2);
        EXPECT_VALUE_REL("merge_map: untouched key", rc2, &got, "Array[29]");
        TVMFFIAny cnt;
        rc2 = G("ffi.MapSize", &cnt, rv);
        EXPECT_VALUE_REL("merge_map: size", rc2, &cnt, "31");
        CHECK(rv.v_obj != big.v_obj && strcmp(map_layout(&rv), "dense") == 0, "merge_map: a new dense map",
              "%s layout=%s", same(rv.v_obj, big.v_obj), map_layout(&rv));
        EXPECT_VALUE("merge_map: iteration order", 0, &rv, NULL);
      }
      any_release(&rv);
      int rc2;
      TVMFFIAny got = map_get("ffi.MapGetItem", &big, "entry number 3", &rc2);
      EXPECT_VALUE_REL("merge_map left our map unchanged", rc2, &got, "Array[3]");

      /* many keys: C++ probes a 300-entry map of ours 250 times, we probe its 350-entry result */
      Pool q = {0};
      TVMFFIAny* largs = (TVMFFIAny*)calloc(600, sizeof(TVMFFIAny));
      TVMFFIAny* rargs = (TVMFFIAny*)calloc(500, sizeof(TVMFFIAny));
      for (int i = 0; i < 300; ++i) {
        largs[2 * i] = i % 3 == 0 ? pstr(&q, fmt("k%d", i)) : pstr(&q, fmt("a longer key number %d", i));
        largs[2 * i + 1] = pool_add(&q, BUILD("ffi.Array", any_int(i)));
      }
      for (int j = 0; j < 250; ++j) {
        int i = 100 + j; /* 200 existing keys, 50 new ones */
        rargs[2 * j] = i % 3 == 0 ? pstr(&q, fmt("k%d", i)) : pstr(&q, fmt("a longer key number %d", i));
        rargs[2 * j + 1] = pool_add(&q, BUILD("ffi.Array", any_int(-i)));
      }
      TVMFFIAny lhs = pool_add(&q, build("ffi.Map", largs, 600));
      TVMFFIAny rhs2 = pool_add(&q, build("ffi.Map", rargs, 500));
      free(largs);
      free(rargs);
      rc = F(merge, &rv, self, lhs, rhs2);
      if (EXPECT_OK("merge_map(300 ours, 250 ours)", rc)) {
        TVMFFIAny cnt;
        rc2 = G("ffi.MapSize", &cnt, rv);
        EXPECT_VALUE_REL("merge_map(300, 250): size", rc2, &cnt, "350");
        int bad = 0;
        for (int i = 0; i < 350 && bad < 5; ++i) {
          const char* k = i % 3 == 0 ? fmt("k%d", i) : fmt("a longer key number %d", i);
          const char* want = i < 100   ? fmt("Array[%d]", i)
                             : i < 300 ? fmt("Array[%d, %d]", i, -i)
                                       : fmt("Array[%d]", -i);
          TVMFFIAny v = map_get("ffi.MapGetItem", &rv, k, &rc2);
          const char* d = rc2 == 0 ? describe(&v) : "<error>";
          if (rc2 != 0) {
            void* e = take_raised();
            if (e) TVMFFIObjectDecRef(e);
          }
          if (strcmp(d, want) != 0) {
            ++bad;
            CHECK(0, "merge_map(300, 250): lookup", "%s -> %s (expected %s)", k, d, want);
          }
          any_release(&v);
        }
        CHECK(bad == 0, "merge_map(300, 250): all 350 keys found by the runtime in the C++ map", "%s",
              bad ? "no" : "yes");
        EXPECT_VALUE("merge_map(300, 250): iteration order", 0, &rv, NULL);
      }
      any_release(&rv);
      pool_release(&q);
      any_release(&self);
    }
  } else {
    CHECK(0, "SchemaAllTypes methods", "make_with=%s merge_map=%s", make_with ? "yes" : "no",
          merge ? "yes" : "no");
  }

  /* Dict */
  TVMFFIAny dict = pool_add(&p, build_str_int_map("ffi.Dict", &p, "d", 3));
  CHECK(dict.type_index == kTVMFFIDict, "ffi.Dict type", "type=%d layout=%s", dict.type_index, map_layout(&dict));
  rc = T("schema_id_dict_str_int", &rv, dict);
  CHECK(rc == 0 && rv.v_obj == dict.v_obj, "schema_id_dict_str_int: same dict", "rc=%d %s", rc,
        same(rv.v_obj, dict.v_obj));
  EXPECT_VALUE_REL("schema_id_dict_str_int", rc, &rv, "Dict{\"d0\": 0, \"d1\": 10, \"d2\": 20}");
  TVMFFIAny dense_dict = pool_add(&p, build_str_int_map("ffi.Dict", &p, "dict key ", 20));
  CHECK(strcmp(map_layout(&dense_dict), "dense") == 0, "ffi.Dict(20 entries) is dense", "layout=%s",
        map_layout(&dense_dict));
  rc = T("schema_id_dict_str_int", &rv, dense_dict);
  CHECK(rc == 0 && rv.v_obj == dense_dict.v_obj, "schema_id_dict_str_int(dense): same dict", "rc=%d %s", rc,
        same(rv.v_obj, dense_dict.v_obj));
  any_release(&rv);
  rc = T("schema_id_dict_str_str", &rv, dict);
  EXPECT_ERROR("schema_id_dict_str_str({str: int})", rc, &rv, "TypeError", NULL);
  TVMFFIAny dss = pool_add(&p, BUILD("ffi.Dict", pstr(&p, "k"), pstr(&p, "v")));
  rc = T("schema_id_dict_str_str", &rv, dss);
  EXPECT_VALUE_REL("schema_id_dict_str_str", rc, &rv, "Dict{\"k\": \"v\"}");
  /* a Map passed where a Dict is expected is converted (copied) by C++ */
  rc = T("schema_id_dict_str_int", &rv, small);
  CHECK(rc == 0 && rv.type_index == kTVMFFIDict && rv.v_obj != small.v_obj, "schema_id_dict_str_int(Map) converts",
        "rc=%d type=%d %s", rc, rv.type_index, same(rv.v_obj, small.v_obj));
  EXPECT_VALUE_REL("schema_id_dict_str_int(Map)", rc, &rv, "Dict{\"a\": 1, \"bb\": 2}");
  rc = T("schema_id_dict_str_int", &rv, dense);
  CHECK(rc == 0 && rv.type_index == kTVMFFIDict && strcmp(map_layout(&rv), "dense") == 0,
        "schema_id_dict_str_int(dense Map) converts to a dense Dict built by C++", "rc=%d type=%d layout=%s", rc,
        rv.type_index, map_layout(&rv));
  EXPECT_VALUE_REL("schema_id_dict_str_int(dense Map)", rc, &rv, NULL);
  /* Dict mutated by the runtime is seen by C++ */
  TVMFFIAny r2;
  rc = G("ffi.DictSetItem", &r2, dict, pstr(&p, "added"), any_int(99));
  EXPECT_OK("ffi.DictSetItem", rc);
  rc = T("schema_id_dict_str_int", &rv, dict);
  EXPECT_VALUE_REL("schema_id_dict_str_int after DictSetItem", rc, &rv,
                   "Dict{\"d0\": 0, \"d1\": 10, \"d2\": 20, \"added\": 99}");
  rc = G("ffi.DictSetItem", &r2, dict, pstr(&p, "bad"), pstr(&p, "not an int"));
  EXPECT_OK("ffi.DictSetItem(str value)", rc);
  rc = T("schema_id_dict_str_int", &rv, dict);
  EXPECT_ERROR("schema_id_dict_str_int with a str value", rc, &rv, "TypeError", NULL);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */
/* 5b. containers mutated across the boundary                                                  */
/* ------------------------------------------------------------------------------------------ */

/* A String object allocated by C (heap representation even for short content). */
typedef struct {
  TVMFFIObject header;
  TVMFFIByteArray bytes;
  char data[32];
} CStrObj;

static int g_cstr_deleted = 0;

static void cstr_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    ++g_cstr_deleted;
    free(self);
  }
}

static TVMFFIAny make_cstr(const char* s) {
  CStrObj* o = (CStrObj*)calloc(1, sizeof(CStrObj));
  o->header.combined_ref_count = ((uint64_t)1 << 32) | 1u;
  o->header.type_index = kTVMFFIStr;
  o->header.deleter = cstr_deleter;
  snprintf(o->data, sizeof o->data, "%s", s);
  o->bytes.data = o->data;
  o->bytes.size = strlen(o->data);
  return any_obj(o);
}

/* Finds a method registered on the type itself: borrowed Function handle. */
static void* find_method_early(int32_t ti, const char* name) {
  const TVMFFITypeInfo* info = ti >= 0 ? TVMFFIGetTypeInfo(ti) : NULL;
  for (int32_t i = 0; info && i < info->num_methods; ++i) {
    if (ba_eq(info->methods[i].name, name)) return info->methods[i].method.v_obj;
  }
  return NULL;
}

void test_container_mutations(void) {
  TVMFFIAny rv, r2;
  Pool p = {0};
  int rc;

  /* a dense Dict built by C++ (Map -> Dict conversion), grown and edited by the runtime */
  TVMFFIAny src = pool_add(&p, build_str_int_map("ffi.Map", &p, "key", 12));
  TVMFFIAny cdict;
  rc = T("schema_id_dict_str_int", &cdict, src);
  if (EXPECT_OK("C++ dense Dict", rc)) {
    CHECK(cdict.type_index == kTVMFFIDict && strcmp(map_layout(&cdict), "dense") == 0, "C++ dense Dict layout",
          "type=%d layout=%s", cdict.type_index, map_layout(&cdict));
    void* before = cdict.v_obj;
    int ok = 1;
    for (int i = 0; i < 40 && ok; ++i) {
      rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, fmt("extra %d", i)), any_int(1000 + i));
      ok = EXPECT_OK("ffi.DictSetItem(C++ dense Dict)", rc);
    }
    rc = G("ffi.DictErase", &r2, cdict, pstr(&p, "key3"));
    EXPECT_OK("ffi.DictErase(key3)", rc);
    rc = G("ffi.DictErase", &r2, cdict, pstr(&p, "extra 7"));
    EXPECT_OK("ffi.DictErase(extra 7)", rc);
    rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, "key3"), any_int(-3));
    EXPECT_OK("ffi.DictSetItem(key3 again)", rc);
    rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, "key5"), any_int(-5));
    EXPECT_OK("ffi.DictSetItem(key5 overwritten)", rc);
    rc = G("ffi.DictSize", &rv, cdict);
    EXPECT_VALUE_REL("C++ Dict grown by the runtime: size", rc, &rv, "51");
    CHECK(cdict.v_obj == before, "the Dict keeps its identity", "%s", same(cdict.v_obj, before));
    EXPECT_VALUE("C++ Dict grown by the runtime: iteration order", 0, &cdict, NULL);
    rc = T("schema_id_dict_str_int", &rv, cdict);
    CHECK(rc == 0 && rv.v_obj == cdict.v_obj, "C++ reads the grown Dict back", "rc=%d %s", rc,
          same(rv.v_obj, cdict.v_obj));
    any_release(&rv);
    int rc2;
    TVMFFIAny got = map_get("ffi.DictGetItem", &cdict, "key3", &rc2);
    EXPECT_VALUE_REL("ffi.DictGetItem(key3)", rc2, &got, "-3");
    got = map_get("ffi.DictGetItem", &cdict, "extra 39", &rc2);
    EXPECT_VALUE_REL("ffi.DictGetItem(extra 39)", rc2, &got, "1039");
    got = map_get("ffi.DictGetItem", &cdict, "extra 7", &rc2);
    EXPECT_ERROR("ffi.DictGetItem(extra 7) after erase", rc2, &got, "KeyError", NULL);
    rc = G("ffi.DictClear", &r2, cdict);
    EXPECT_OK("ffi.DictClear", rc);
    rc = T("schema_id_dict_str_int", &rv, cdict);
    EXPECT_VALUE_REL("C++ reads the cleared Dict", rc, &rv, "Dict{}");
    rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, "after clear"), any_int(1));
    EXPECT_OK("ffi.DictSetItem after clear", rc);
    EXPECT_VALUE("Dict after clear + set", 0, &cdict, "Dict{\"after clear\": 1}");
  }
  any_release(&cdict);

  /* a small Dict built by C++ turns dense in place when the runtime adds entries */
  static DLManagedTensor mt;
  static float data[2] = {1, 2};
  static int64_t shape[1] = {2};
  memset(&mt, 0, sizeof mt);
  mt.dl_tensor.data = data;
  mt.dl_tensor.device.device_type = kDLCPU;
  mt.dl_tensor.ndim = 1;
  mt.dl_tensor.dtype.code = kDLFloat;
  mt.dl_tensor.dtype.bits = 32;
  mt.dl_tensor.dtype.lanes = 1;
  mt.dl_tensor.shape = shape;
  void* t = NULL;
  if (EXPECT_OK("tensor for make_dict_with_tensor", TVMFFITensorFromDLPack(&mt, 0, 0, &t))) {
    TVMFFIAny ta = any_obj(t);
    rc = T("make_dict_with_tensor", &cdict, ta);
    if (EXPECT_OK("make_dict_with_tensor", rc)) {
      void* before = cdict.v_obj;
      for (int i = 0; i < 6; ++i) {
        rc = G("ffi.DictSetItem", &r2, cdict, pstr(&p, fmt("k%d", i)), any_int(i));
        EXPECT_OK("ffi.DictSetItem(C++ small Dict)", rc);
      }
      CHECK(cdict.v_obj == before && strcmp(map_layout(&cdict), "dense") == 0, "C++ small Dict became dense in place",
            "%s layout=%s", same(cdict.v_obj, before), map_layout(&cdict));
      EXPECT_VALUE("C++ small Dict grown by the runtime", 0, &cdict,
                   "Dict{\"tensor\": Tensor(code2/32[2] dev 1:0), \"value\": 42, \"k0\": 0, \"k1\": 1, \"k2\": 2, "
                   "\"k3\": 3, \"k4\": 4, \"k5\": 5}");
      rc = G("ffi.DictErase", &r2, cdict, pstr(&p, "tensor"));
      EXPECT_OK("ffi.DictErase(tensor)", rc);
      rc = T("schema_id_dict_str_int", &rv, cdict);
      CHECK(rc == 0 && rv.v_obj == cdict.v_obj, "C++ reads it as Dict<str, int>", "rc=%d %s", rc,
            same(rv.v_obj, cdict.v_obj));
      any_release(&rv);
    }
    any_release(&cdict);
    CHECK(strong_of(t) == 1, "tensor released by the dict", "strong=%u", strong_of(t));
    TVMFFIObjectDecRef(t);
  }

  /* a List built by C++, edited by the runtime, read back by C++ */
  TVMFFIAny clist;
  void* t2 = NULL;
  memset(&mt, 0, sizeof mt);
  mt.dl_tensor.data = data;
  mt.dl_tensor.device.device_type = kDLCPU;
  mt.dl_tensor.ndim = 1;
  mt.dl_tensor.dtype.code = kDLFloat;
  mt.dl_tensor.dtype.bits = 32;
  mt.dl_tensor.dtype.lanes = 1;
  mt.dl_tensor.shape = shape;
  if (EXPECT_OK("tensor for make_list_with_tensor", TVMFFITensorFromDLPack(&mt, 0, 0, &t2))) {
    rc = T("make_list_with_tensor", &clist, any_obj(t2), any_int(7));
    TVMFFIObjectDecRef(t2);
    if (EXPECT_OK("make_list_with_tensor", rc)) {
      void* before = clist.v_obj;
      for (int i = 0; i < 20; ++i) {
        rc = G("ffi.ListAppend", &r2, clist, any_int(i));
        if (!EXPECT_OK("ffi.ListAppend(C++ List)", rc)) break;
      }
      rc = G("ffi.ListErase", &r2, clist, any_int(0));
      EXPECT_OK("ffi.ListErase(0) drops the tensor", rc);
      rc = G("ffi.ListInsert", &r2, clist, any_int(1), any_int(-1));
      EXPECT_OK("ffi.ListInsert(1, -1)", rc);
      rc = G("ffi.ListPop", &rv, clist, any_int(5));
      EXPECT_VALUE_REL("ffi.ListPop(5)", rc, &rv, "3");
      rc = G("ffi.ListEraseRange", &r2, clist, any_int(10), any_int(15));
      EXPECT_OK("ffi.ListEraseRange(10, 15)", rc);
      rc = G("ffi.ListSetItem", &r2, clist, any_int(0), any_int(70));
      EXPECT_OK("ffi.ListSetItem(0, 70)", rc);
      rc = G("ffi.ListReverse", &r2, clist);
      EXPECT_OK("ffi.ListReverse", rc);
      CHECK(clist.v_obj == before, "the List keeps its identity", "%s", same(clist.v_obj, before));
      rc = T("schema_id_list_int", &rv, clist);
      CHECK(rc == 0 && rv.v_obj == clist.v_obj, "C++ reads the edited List as List<int>", "rc=%d %s", rc,
            same(rv.v_obj, clist.v_obj));
      EXPECT_VALUE_REL("C++ List edited by the runtime", rc, &rv,
                       "List[19, 18, 17, 16, 15, 14, 8, 7, 6, 5, 4, 2, 1, 0, -1, 70]");
      rc = G("ffi.ListContains", &rv, clist, any_int(15));
      EXPECT_VALUE_REL("ffi.ListContains(15)", rc, &rv, "True");
    }
    any_release(&clist);
  }

  /* a List built by the runtime and grown well past its first capacity, read by C++ */
  TVMFFIAny ours = pool_add(&p, BUILD("ffi.List"));
  for (int i = 0; i < 100; ++i) {
    rc = G("ffi.ListAppend", &r2, ours, any_int(i * 3));
    if (!EXPECT_OK("ffi.ListAppend(our List)", rc)) break;
  }
  rc = T("schema_id_list_int", &rv, ours);
  CHECK(rc == 0 && rv.v_obj == ours.v_obj, "C++ reads our grown List", "rc=%d %s", rc, same(rv.v_obj, ours.v_obj));
  any_release(&rv);
  rc = G("ffi.ListGetItem", &rv, ours, any_int(99));
  EXPECT_VALUE_REL("ffi.ListGetItem(99)", rc, &rv, "297");
  rc = G("ffi.ListGetItem", &rv, ours, any_int(100));
  EXPECT_ERROR("ffi.ListGetItem(100)", rc, &rv, "IndexError", NULL);
  rc = G("ffi.ArrayGetItem", &rv, pool_add(&p, BUILD("ffi.Array", any_int(1))), any_int(-1));
  EXPECT_ERROR("ffi.ArrayGetItem(-1)", rc, &rv, "IndexError", NULL);

  /* a heap String with short content equals (and hashes like) the small string */
  g_cstr_deleted = 0;
  TVMFFIAny hq = make_cstr("q"), hr = make_cstr("r");
  TVMFFIAny both = BUILD("ffi.Map", hq, any_int(1), pstr(&p, "q"), any_int(2));
  EXPECT_VALUE_REL("ffi.Map(heap \"q\": 1, small \"q\": 2)", 0, &both, "Map{\"q\": 2}");
  TVMFFIAny arr_opt = pool_add(&p, BUILD("ffi.Array", any_int(1), any_none(), any_int(3)));
  TVMFFIAny small4 = pool_add(&p, BUILD("ffi.Map", pstr(&p, "p"), pool_add(&p, BUILD("ffi.Array", any_int(1))),
                                        pstr(&p, "q"), pool_add(&p, BUILD("ffi.Array")),
                                        pstr(&p, "r"), pool_add(&p, BUILD("ffi.Array", any_int(2), any_int(3))),
                                        pstr(&p, "s"), pool_add(&p, BUILD("ffi.Array", any_int(4)))));
  rc = T("schema_arr_map_opt", &rv, arr_opt, small4, pstr(&p, "added"));
  if (EXPECT_OK("schema_arr_map_opt", rc)) {
    TVMFFIAny got;
    int rc2 = G("ffi.MapGetItem", &got, rv, hr);
    EXPECT_VALUE_REL("ffi.MapGetItem(C++ dense map, heap \"r\")", rc2, &got, "Array[2, 3]");
  }
  any_release(&rv);
  int32_t sat = type_index_of("testing.SchemaAllTypes");
  void* make_with = find_method_early(sat, "make_with");
  void* merge = find_method_early(sat, "merge_map");
  if (make_with && merge) {
    TVMFFIAny self;
    rc = F(make_with, &self, any_int(1), any_float(2.0), pstr(&p, "x"));
    if (EXPECT_OK("SchemaAllTypes.make_with", rc)) {
      /* C++ probes our small map with a heap key: found -> appended (not replaced) */
      TVMFFIAny rhs = pool_add(&p, BUILD("ffi.Map", hr, pool_add(&p, BUILD("ffi.Array", any_int(5)))));
      rc = F(merge, &rv, self, small4, rhs);
      if (EXPECT_OK("merge_map(small ours, {heap \"r\": [5]})", rc)) {
        int rc2;
        TVMFFIAny got = map_get("ffi.MapGetItem", &rv, "r", &rc2);
        EXPECT_VALUE_REL("merge_map(small ours, {heap \"r\": [5]}): C++ found the small key", rc2, &got,
                         "Array[2, 3, 5]");
        EXPECT_VALUE("merge_map(small ours, {heap \"r\": [5]})", 0, &rv, NULL);
      }
      any_release(&rv);
      any_release(&self);
    }
  }
  any_release(&hq);
  any_release(&hr);
  pool_release(&p);
  CHECK(g_cstr_deleted == 2, "C-allocated strings released by everyone", "deleted=%d", g_cstr_deleted);
}
