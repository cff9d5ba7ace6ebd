/* The testing-library host's checks of the library's global functions, scalar functions, errors
 * and callbacks. */
#include "testing_lib.h"

/* ------------------------------------------------------------------------------------------ */
/* 1. the library's global functions                                                           */
/* ------------------------------------------------------------------------------------------ */

void test_global_table(void) {
  TVMFFIAny functor;
  int rc = G0("ffi.FunctionListGlobalNamesFunctor", &functor);
  if (!EXPECT_OK("globals.list", rc)) return;
  TVMFFIAny count;
  rc = F(functor.v_obj, &count, any_int(-1));
  if (!EXPECT_OK("globals.count", rc)) {
    any_release(&functor);
    return;
  }
  char* names[1024];
  int num_testing = 0;
  for (int64_t i = 0; i < count.v_int64; ++i) {
    TVMFFIAny name;
    rc = F(functor.v_obj, &name, any_int(i));
    if (rc != 0) {
      EXPECT_OK("globals.name", rc);
      break;
    }
    TVMFFIByteArray s = any_bytes(&name);
    if (s.size > 8 && memcmp(s.data, "testing.", 8) == 0 && num_testing < 1024) {
      names[num_testing] = (char*)malloc(s.size - 8 + 1);
      memcpy(names[num_testing], s.data + 8, s.size - 8);
      names[num_testing][s.size - 8] = '\0';
      ++num_testing;
    }
    any_release(&name);
  }
  any_release(&functor);
  qsort(names, (size_t)num_testing, sizeof(char*), cmp_str);
  int unlisted = 0;
  for (int i = 0; i < num_testing; ++i) {
    int found = 0;
    for (int j = 0; j < NUM_TESTING_FNS; ++j) found |= strcmp(names[i], g_testing_fns[j].name) == 0;
    if (!found) {
      CHECK(0, "globals.unlisted", "testing.%s is registered but not in g_testing_fns", names[i]);
      ++unlisted;
    }
  }
  CHECK(num_testing == NUM_TESTING_FNS && unlisted == 0, "globals.testing-count",
        "registered=%d listed=%d unlisted=%d", num_testing, NUM_TESTING_FNS, unlisted);
  for (int i = 0; i < num_testing; ++i) free(names[i]);

  /* each function's metadata (type_schema and user metadata) as the library registered it */
  for (int j = 0; j < NUM_TESTING_FNS; ++j) {
    TVMFFIAny name = make_string(fmt("testing.%s", g_testing_fns[j].name));
    TVMFFIAny md;
    rc = G("ffi.GetGlobalFuncMetadata", &md, name);
    EXPECT_VALUE(fmt("globals.metadata testing.%s", g_testing_fns[j].name), rc, &md, NULL);
    any_release(&md);
    any_release(&name);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* 2. scalar functions                                                                         */
/* ------------------------------------------------------------------------------------------ */

static int add_one_c_called = 0;

void test_scalars(void) {
  TVMFFIAny rv;
  Pool p = {0};
  int rc;

  rc = T("add_one", &rv, any_int(41));
  EXPECT_VALUE_REL("add_one(41)", rc, &rv, "42");
  rc = T("add_one", &rv, any_bool(1));
  EXPECT_VALUE_REL("add_one(True)", rc, &rv, "2");
  rc = T("add_one", &rv, pstr(&p, "x"));
  /* the typed wrapper rejects a string (message produced by the library's header code) */
  EXPECT_ERROR("add_one(str)", rc, &rv, "TypeError", NULL);
  rc = T0("add_one", &rv);
  EXPECT_ERROR("add_one()", rc, &rv, "TypeError", NULL);

  rc = T("echo", &rv, any_int(7));
  EXPECT_VALUE_REL("echo(7)", rc, &rv, "7");
  rc = T("echo", &rv, any_raw_str("raw c string"));
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && any_str_eq(&rv, "raw c string"),
        "echo(raw-str) becomes String", "rc=%d type=%d value=%s", rc, rv.type_index, describe(&rv));
  any_release(&rv);
  rc = T("echo", &rv, any_raw_str("short"));
  CHECK(rc == 0 && rv.type_index == kTVMFFISmallStr && any_str_eq(&rv, "short"),
        "echo(raw-str) becomes SmallStr", "rc=%d type=%d value=%s", rc, rv.type_index,
        describe(&rv));
  any_release(&rv);
  TVMFFIAny heap = pstr(&p, "a string long enough for the heap");
  uint32_t before = strong_of(heap.v_obj);
  rc = T("echo", &rv, heap);
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && rv.v_obj == heap.v_obj &&
            strong_of(heap.v_obj) == before + 1,
        "echo(String) returns the same object +1", "rc=%d %s strong=%u->%u", rc,
        same(rv.v_obj, heap.v_obj), before, strong_of(heap.v_obj));
  any_release(&rv);
  CHECK(strong_of(heap.v_obj) == before, "echo(String) released", "strong=%u", strong_of(heap.v_obj));

  rc = T("nop", &rv, any_int(1), any_float(2.0), heap);
  EXPECT_VALUE_REL("nop(1, 2.0, str)", rc, &rv, "None");
  rc = T0("schema_packed", &rv);
  EXPECT_VALUE_REL("schema_packed()", rc, &rv, "None");
  rc = T("schema_packed", &rv, any_int(1), heap);
  EXPECT_VALUE_REL("schema_packed(1, str)", rc, &rv, "None");
  rc = T0("schema_no_args", &rv);
  EXPECT_VALUE_REL("schema_no_args()", rc, &rv, "1");
  rc = T("schema_no_return", &rv, any_int(5));
  EXPECT_VALUE_REL("schema_no_return(5)", rc, &rv, "None");
  rc = T0("schema_no_args_no_return", &rv);
  EXPECT_VALUE_REL("schema_no_args_no_return()", rc, &rv, "None");

  rc = T("schema_id_int", &rv, any_int(-9000000000LL));
  EXPECT_VALUE_REL("schema_id_int", rc, &rv, "-9000000000");
  rc = T("schema_id_int", &rv, any_float(1.5));
  EXPECT_ERROR("schema_id_int(float)", rc, &rv, "TypeError", NULL);
  rc = T("schema_id_float", &rv, any_float(2.25));
  EXPECT_VALUE_REL("schema_id_float", rc, &rv, "2.25");
  rc = T("schema_id_float", &rv, any_int(3));
  EXPECT_VALUE_REL("schema_id_float(int)", rc, &rv, "3");
  rc = T("schema_id_bool", &rv, any_bool(1));
  EXPECT_VALUE_REL("schema_id_bool", rc, &rv, "True");
  rc = T("schema_id_bool", &rv, any_int(0));
  EXPECT_VALUE_REL("schema_id_bool(int 0)", rc, &rv, "False");
  rc = T("schema_id_device", &rv, any_device(kDLCUDA, 3));
  EXPECT_VALUE_REL("schema_id_device", rc, &rv, "device(2:3)");
  DLDataType f32;
  TVMFFIByteArray f32s = ba("float32");
  EXPECT_OK("dtype float32", TVMFFIDataTypeFromString(&f32s, &f32));
  TVMFFIAny dt = any_dtype(f32.code, f32.bits, f32.lanes);
  rc = T("schema_id_dtype", &rv, dt);
  EXPECT_VALUE_REL("schema_id_dtype", rc, &rv, "dtype(float32)");
  rc = T("schema_id_dtype", &rv, pstr(&p, "int8x4"));
  EXPECT_VALUE_REL("schema_id_dtype(str)", rc, &rv, "dtype(int8x4)");

  rc = T("schema_id_string", &rv, pstr(&p, "hi"));
  CHECK(rc == 0 && rv.type_index == kTVMFFISmallStr && any_str_eq(&rv, "hi"), "schema_id_string(small)",
        "rc=%d type=%d value=%s", rc, rv.type_index, describe(&rv));
  any_release(&rv);
  rc = T("schema_id_string", &rv, heap);
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && rv.v_obj == heap.v_obj, "schema_id_string(heap)",
        "rc=%d type=%d %s value=%s", rc, rv.type_index, same(rv.v_obj, heap.v_obj), describe(&rv));
  any_release(&rv);
  rc = T("schema_id_string", &rv, any_raw_str("from a const char*"));
  EXPECT_VALUE_REL("schema_id_string(raw)", rc, &rv, "\"from a const char*\"");
  rc = T("schema_id_string", &rv, any_int(1));
  EXPECT_ERROR("schema_id_string(int)", rc, &rv, "TypeError", NULL);
  static const char bytes_small[] = {'a', 0, 'b'};
  rc = T("schema_id_bytes", &rv, pool_add(&p, make_bytes(bytes_small, 3)));
  CHECK(rc == 0 && rv.type_index == kTVMFFISmallBytes, "schema_id_bytes(small)", "rc=%d type=%d value=%s",
        rc, rv.type_index, describe(&rv));
  any_release(&rv);
  TVMFFIAny big_bytes = pool_add(&p, make_bytes("0123456789abcdef\xff", 17));
  rc = T("schema_id_bytes", &rv, big_bytes);
  CHECK(rc == 0 && rv.type_index == kTVMFFIBytes && rv.v_obj == big_bytes.v_obj,
        "schema_id_bytes(heap)", "rc=%d type=%d %s value=%s", rc, rv.type_index,
        same(rv.v_obj, big_bytes.v_obj), describe(&rv));
  any_release(&rv);
  TVMFFIByteArray raw_bytes = {"xyz", 3};
  TVMFFIAny bap = any_none();
  bap.type_index = kTVMFFIByteArrayPtr;
  bap.v_ptr = &raw_bytes;
  rc = T("schema_id_bytes", &rv, bap);
  EXPECT_VALUE_REL("schema_id_bytes(ByteArray*)", rc, &rv, "b\"xyz\"");

  rc = T("schema_id_opt_int", &rv, any_none());
  EXPECT_VALUE_REL("schema_id_opt_int(None)", rc, &rv, "None");
  rc = T("schema_id_opt_int", &rv, any_int(4));
  EXPECT_VALUE_REL("schema_id_opt_int(4)", rc, &rv, "4");
  rc = T("schema_id_opt_str", &rv, any_none());
  EXPECT_VALUE_REL("schema_id_opt_str(None)", rc, &rv, "None");
  rc = T("schema_id_opt_str", &rv, pstr(&p, "opt"));
  EXPECT_VALUE_REL("schema_id_opt_str(str)", rc, &rv, "\"opt\"");
  rc = T("schema_id_opt_obj", &rv, any_none());
  EXPECT_VALUE_REL("schema_id_opt_obj(None)", rc, &rv, "None");
  rc = T("schema_id_opt_obj", &rv, heap);
  CHECK(rc == 0 && rv.v_obj == heap.v_obj, "schema_id_opt_obj(String)", "rc=%d %s", rc,
        same(rv.v_obj, heap.v_obj));
  any_release(&rv);

  rc = T("schema_id_variant_int_str", &rv, any_int(12));
  EXPECT_VALUE_REL("schema_id_variant_int_str(int)", rc, &rv, "12");
  rc = T("schema_id_variant_int_str", &rv, pstr(&p, "twelve"));
  EXPECT_VALUE_REL("schema_id_variant_int_str(str)", rc, &rv, "\"twelve\"");
  rc = T("schema_id_variant_int_str", &rv, any_float(1.5));
  EXPECT_ERROR("schema_id_variant_int_str(float)", rc, &rv, "TypeError", NULL);
  rc = T("schema_variant_mix", &rv, any_int(3));
  EXPECT_VALUE_REL("schema_variant_mix(int)", rc, &rv, "3");
  rc = T("schema_variant_mix", &rv, pstr(&p, "s"));
  EXPECT_VALUE_REL("schema_variant_mix(str)", rc, &rv, "\"s\"");

  rc = T("schema_id_any", &rv, any_float(0.5));
  EXPECT_VALUE_REL("schema_id_any(float)", rc, &rv, "0.5");
  rc = T("schema_id_any", &rv, any_ptr(&add_one_c_called));
  EXPECT_VALUE_REL("schema_id_any(ptr)", rc, &rv, "ptr");
  rc = T("schema_id_any", &rv, heap);
  CHECK(rc == 0 && rv.v_obj == heap.v_obj, "schema_id_any(String)", "rc=%d %s", rc,
        same(rv.v_obj, heap.v_obj));
  any_release(&rv);
  rc = T("schema_id_object", &rv, heap);
  CHECK(rc == 0 && rv.v_obj == heap.v_obj && rv.type_index == kTVMFFIStr, "schema_id_object(String)",
        "rc=%d %s type=%d", rc, same(rv.v_obj, heap.v_obj), rv.type_index);
  any_release(&rv);
  rc = T("schema_id_object", &rv, any_int(1));
  EXPECT_ERROR("schema_id_object(int)", rc, &rv, "TypeError", NULL);

  /* use counts as C++ code sees them (arguments are borrowed: no extra reference) */
  TVMFFIAny arr = pool_add(&p, BUILD("ffi.Array", any_int(1)));
  rc = T("object_use_count", &rv, arr);
  EXPECT_VALUE_REL("object_use_count(array)", rc, &rv, "1");
  TVMFFIAny arr2 = BUILD("ffi.Array", arr, arr);
  rc = T("object_use_count", &rv, arr);
  EXPECT_VALUE_REL("object_use_count(array held twice)", rc, &rv, "3");
  any_release(&arr2);
  rc = T("object_use_count", &rv, arr);
  EXPECT_VALUE_REL("object_use_count(array released)", rc, &rv, "1");

  /* raw C symbols handed out as integers */
  rc = T0("get_add_one_c_symbol", &rv);
  if (EXPECT_OK("get_add_one_c_symbol", rc)) {
    TVMFFISafeCallType fn = (TVMFFISafeCallType)(intptr_t)rv.v_int64;
    TVMFFIAny a = any_int(100), out = any_none();
    int rc2 = fn(NULL, &a, 1, &out);
    CHECK(rv.type_index == kTVMFFIInt && rc2 == 0 && out.type_index == kTVMFFIInt && out.v_int64 == 101,
          "get_add_one_c_symbol: call", "type=%d rc=%d result=%s", rv.type_index, rc2, describe(&out));
    any_release(&out);
    TVMFFIAny s = make_string("not an int");
    rc2 = fn(NULL, &s, 1, &out);
    EXPECT_ERROR("get_add_one_c_symbol: call(str)", rc2, &out, "TypeError", NULL);
    any_release(&s);
  }
  rc = T0("get_mlir_add_one_c_symbol", &rv);
  if (EXPECT_OK("get_mlir_add_one_c_symbol", rc)) {
    void (*fn)(void**) = (void (*)(void**))(intptr_t)rv.v_int64;
    void* handle = NULL;
    TVMFFIAny a = any_int(-5), out = any_none();
    const TVMFFIAny* args = &a;
    int32_t nargs = 1;
    TVMFFIAny* outp = &out;
    int ret_code = 77;
    void* packed[5] = {&handle, &args, &nargs, &outp, &ret_code};
    fn(packed);
    CHECK(ret_code == 0 && out.type_index == kTVMFFIInt && out.v_int64 == -4,
          "get_mlir_add_one_c_symbol: call", "ret_code=%d result=%s", ret_code, describe(&out));
    any_release(&out);
  }
  pool_release(&p);
}

/* testing.run_check_signal prints on std::cout: capture fd 1 around the call. */
void test_run_check_signal(void) {
  fflush(stdout);
  int saved = dup(1);
  int fds[2];
  if (saved < 0 || pipe(fds) != 0) die("pipe");
  dup2(fds[1], 1);
  TVMFFIAny rv;
  int rc = T("run_check_signal", &rv, any_int(1));
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fds[1]);
  char text[256];
  ssize_t n = read(fds[0], text, sizeof text - 1);
  close(fds[0]);
  text[n > 0 ? n : 0] = '\0';
  size_t len = strlen(text);
  CHECK(rc == 0 && rv.type_index == kTVMFFINone &&
            strcmp(text, "Function finished without catching signal\n") == 0,
        "run_check_signal(1)", "rc=%d result=%s printed=%s", rc, describe(&rv), quote_n(text, len));
  any_release(&rv);
}

/* ------------------------------------------------------------------------------------------ */
/* 3. errors                                                                                   */
/* ------------------------------------------------------------------------------------------ */

void test_errors(void) {
  TVMFFIAny rv;
  Pool p = {0};
  int rc = T("test_raise_error", &rv, pstr(&p, "ValueError"), pstr(&p, "bad value from C++"));
  EXPECT_ERROR("test_raise_error(ValueError)", rc, &rv, "ValueError", "bad value from C++");
  rc = T("test_raise_error", &rv, pstr(&p, "MyCustomError"), pstr(&p, ""));
  EXPECT_ERROR("test_raise_error(custom kind, empty message)", rc, &rv, "MyCustomError", "");
  /* the raised error carries a backtrace that names the throwing function */
  rc = T("test_raise_error", &rv, pstr(&p, "RuntimeError"), pstr(&p, "with backtrace"));
  void* err = take_raised();
  if (err != NULL) {
    TVMFFIErrorCell* cell = error_cell(err);
    int has_frame = memmem(cell->backtrace.data, cell->backtrace.size, "TestRaiseError",
                           strlen("TestRaiseError")) != NULL;
    CHECK(rc == -1 && ba_eq(cell->kind, "RuntimeError") && has_frame,
          "test_raise_error: backtrace names TestRaiseError", "rc=%d kind=%s frame=%s", rc,
          qba(cell->kind), has_frame ? "yes" : "no");
    TVMFFIObjectDecRef(err);
  } else {
    CHECK(0, "test_raise_error: backtrace", "rc=%d no error raised", rc);
  }
  rc = T("test_raise_error", &rv, pstr(&p, "ValueError"));
  EXPECT_ERROR("test_raise_error(one arg)", rc, &rv, "TypeError", NULL);
  pool_release(&p);
}

/* ------------------------------------------------------------------------------------------ */
/* 4. callbacks                                                                                */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  int calls;
  int deleted;
  char seen[512];
} CallbackCtx;

/* Sums Int/Bool/Float arguments; records a rendering of all arguments; "raise" -> ValueError. */
static int cb_sum(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  CallbackCtx* ctx = (CallbackCtx*)self;
  ++ctx->calls;
  Buf b = {0};
  double total = 0;
  int any_float_arg = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (i) buf_puts(&b, ", ");
    describe_into(&b, &args[i], 0);
    if (args[i].type_index == kTVMFFIInt || args[i].type_index == kTVMFFIBool) {
      total += (double)args[i].v_int64;
    } else if (args[i].type_index == kTVMFFIFloat) {
      total += args[i].v_float64;
      any_float_arg = 1;
    } else if (any_str_eq(&args[i], "raise")) {
      free(b.data);
      TVMFFIErrorSetRaisedFromCStr("ValueError", "raised by the C callback");
      return -1;
    } else if (any_str_eq(&args[i], "make string")) {
      /* returns a new heap String: the reference moves through C++ to the caller */
      free(b.data);
      *rv = make_string("a string made by the C callback");
      return 0;
    } else if (any_str_eq(&args[i], "reenter")) {
      /* calls back into the testing library from inside a call made by it */
      free(b.data);
      TVMFFIAny inner = any_int(99);
      return call_global("testing.add_one", &inner, 1, rv);
    }
  }
  snprintf(ctx->seen, sizeof ctx->seen, "%s", b.data ? b.data : "");
  free(b.data);
  if (any_float_arg) {
    rv->type_index = kTVMFFIFloat;
    rv->v_float64 = total;
  } else {
    rv->type_index = kTVMFFIInt;
    rv->v_int64 = (int64_t)total;
  }
  return 0;
}

static void cb_deleter(void* self) { ((CallbackCtx*)self)->deleted++; }

void test_callbacks(void) {
  TVMFFIAny rv;
  Pool p = {0};
  CallbackCtx ctx;
  memset(&ctx, 0, sizeof ctx);
  void* fn = NULL;
  if (!EXPECT_OK("callback create", TVMFFIFunctionCreate(&ctx, cb_sum, cb_deleter, &fn))) return;
  TVMFFIAny f = any_obj(fn);

  int rc = T("apply", &rv, f, any_int(1), any_int(2), any_int(39));
  EXPECT_VALUE_REL("apply(cb, 1, 2, 39)", rc, &rv, "42");
  CHECK(ctx.calls == 1 && strcmp(ctx.seen, "1, 2, 39") == 0, "apply: callback saw its arguments",
        "calls=%d args=%s", ctx.calls, quote_n(ctx.seen, strlen(ctx.seen)));
  rc = T("apply", &rv, f, any_float(0.5), pstr(&p, "str arg"));
  EXPECT_VALUE_REL("apply(cb, 0.5, str)", rc, &rv, "0.5");
  CHECK(strcmp(ctx.seen, "0.5, \"str arg\"") == 0, "apply: callback saw a string",
        "args=%s", quote_n(ctx.seen, strlen(ctx.seen)));
  rc = T("apply", &rv, f, pstr(&p, "raise"));
  EXPECT_ERROR("apply(cb raising)", rc, &rv, "ValueError", "raised by the C callback");
  rc = T("apply", &rv, any_int(1));
  EXPECT_ERROR("apply(not a function)", rc, &rv, "TypeError", NULL);
  rc = T("apply", &rv, f, pstr(&p, "make string"));
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && strong_of(rv.v_obj) == 1, "apply(cb returning a new String)",
        "rc=%d %s strong=%u", rc, describe(&rv), rc == 0 && is_obj(&rv) ? strong_of(rv.v_obj) : 0);
  any_release(&rv);
  rc = T("apply", &rv, f, pstr(&p, "reenter"));
  EXPECT_VALUE_REL("apply(cb calling testing.add_one)", rc, &rv, "100");
  /* the callback reaches C++ through testing.apply twice */
  rc = T("apply", &rv, pool_add(&p, get_global_any("testing.apply")), f, any_int(20), any_int(22));
  EXPECT_VALUE_REL("apply(testing.apply, cb, 20, 22)", rc, &rv, "42");

  /* a Function through a typed signature comes back as the same object */
  uint32_t before = strong_of(fn);
  rc = T("schema_id_func", &rv, f);
  CHECK(rc == 0 && rv.type_index == kTVMFFIFunction && rv.v_obj == fn, "schema_id_func",
        "rc=%d type=%d %s", rc, rv.type_index, same(rv.v_obj, fn));
  if (rc == 0 && rv.type_index == kTVMFFIFunction) {
    TVMFFIAny r2;
    int rc2 = F(rv.v_obj, &r2, any_int(5), any_int(6));
    EXPECT_VALUE_REL("schema_id_func: call result", rc2, &r2, "11");
  }
  any_release(&rv);
  rc = T("schema_id_func_typed", &rv, f);
  CHECK(rc == 0 && rv.type_index == kTVMFFIFunction && rv.v_obj == fn, "schema_id_func_typed",
        "rc=%d type=%d %s", rc, rv.type_index, same(rv.v_obj, fn));
  if (rc == 0 && rv.type_index == kTVMFFIFunction) {
    TVMFFIAny r2;
    int rc2 = F(rv.v_obj, &r2, any_int(1), any_float(2.5), f);
    EXPECT_VALUE_REL("schema_id_func_typed: call result", rc2, &r2, "3.5");
    CHECK(strcmp(ctx.seen, "1, 2.5, Function") == 0, "schema_id_func_typed: callback args",
          "args=%s", quote_n(ctx.seen, strlen(ctx.seen)));
  }
  any_release(&rv);
  rc = T("schema_id_func", &rv, any_int(3));
  EXPECT_ERROR("schema_id_func(int)", rc, &rv, "TypeError", NULL);
  CHECK(strong_of(fn) == before && ctx.deleted == 0, "callback refcount balanced",
        "strong=%u deleted=%d", strong_of(fn), ctx.deleted);
  TVMFFIObjectDecRef(fn);
  CHECK(ctx.deleted == 1, "callback deleter called once", "deleted=%d", ctx.deleted);
  pool_release(&p);
}
