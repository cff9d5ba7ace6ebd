/* The scenario's checks of functions and the global registry. */
#include "scenario.h"

/* ------------------------------------------------------------------------------------------ */
/* 10. functions                                                                               */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  int calls;
  int deleted;
  void* last_handle;
} FnCtx;

static void fn_ctx_deleter(void* self) { ((FnCtx*)self)->deleted++; }

static int fn_add(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  FnCtx* ctx = (FnCtx*)handle;
  ctx->calls++;
  ctx->last_handle = handle;
  if (num_args != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add expects two ints");
    return -1;
  }
  rv->type_index = kTVMFFIInt;
  rv->zero_padding = 0;
  rv->v_int64 = args[0].v_int64 + args[1].v_int64;
  return 0;
}

static int fn_mul(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  FnCtx* ctx = (FnCtx*)handle;
  ctx->calls++;
  if (num_args != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "mul expects two ints");
    return -1;
  }
  rv->type_index = kTVMFFIInt;
  rv->zero_padding = 0;
  rv->v_int64 = args[0].v_int64 * args[1].v_int64;
  return 0;
}

/* returns a heap string */
static int fn_greet(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  (void)handle;
  (void)args;
  (void)num_args;
  TVMFFIByteArray s = ba("greetings from a C callback");
  return TVMFFIStringFromByteArray(&s, rv);
}

static void* g_quirk_handle = NULL;
static int fn_quirk(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  (void)args;
  g_quirk_handle = handle;
  rv->type_index = kTVMFFIInt;
  rv->zero_padding = 0;
  rv->v_int64 = num_args;
  return 0;
}

static int fn_fail(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* rv) {
  (void)handle;
  (void)args;
  (void)num_args;
  (void)rv;
  const char* parts[] = {"callback ", "failed"};
  TVMFFIErrorSetRaisedFromCStrParts("ValueError", parts, 2);
  return -1;
}

static void* make_function(FnCtx* ctx, TVMFFISafeCallType call) {
  void* f = NULL;
  int rc = TVMFFIFunctionCreate(ctx, call, ctx ? fn_ctx_deleter : NULL, &f);
  EXPECT_OK("function.create", rc);
  return f;
}

void test_functions(void) {
  FnCtx ctx = {0, 0, NULL};
  void* f = make_function(&ctx, fn_add);
  if (f == NULL) return;
  TVMFFIFunctionCell* cell = function_cell(f);
  CHECK(((TVMFFIObject*)f)->type_index == kTVMFFIFunction && strong_of(f) == 1 && weak_of(f) == 1 &&
            cell->safe_call != NULL && cell->cpp_call == NULL,
        "function.create", "type_index=%d strong=%u weak=%u safe_call=%s cpp_call=%s",
        ((TVMFFIObject*)f)->type_index, strong_of(f), weak_of(f), cell->safe_call ? "set" : "null",
        cell->cpp_call ? "set" : "null");

  TVMFFIAny args[2] = {any_int(2), any_int(40)};
  TVMFFIAny rv = any_none();
  int rc = TVMFFIFunctionCall(f, args, 2, &rv);
  CHECK(rc == 0 && rv.type_index == kTVMFFIInt && rv.v_int64 == 42 && ctx.calls == 1 &&
            ctx.last_handle == &ctx,
        "function.call", "rc=%d type_index=%d value=%lld calls=%d handle=%s", rc, rv.type_index,
        (long long)rv.v_int64, ctx.calls, ctx.last_handle == &ctx ? "self" : "other");

  /* an error raised by the callee propagates */
  TVMFFIAny bad_args[1] = {any_float(1.0)};
  rv = any_none();
  rc = TVMFFIFunctionCall(f, bad_args, 1, &rv);
  EXPECT_ERROR("function.call-error-propagates", rc, "TypeError", "add expects two ints");

  TVMFFIObjectDecRef(f);
  CHECK(ctx.deleted == 1, "function.deleter-on-last-decref", "deleter_calls=%d", ctx.deleted);

  /* an extra reference delays the deleter */
  FnCtx ctx2 = {0, 0, NULL};
  void* g = make_function(&ctx2, fn_fail);
  TVMFFIObjectIncRef(g);
  TVMFFIObjectDecRef(g);
  CHECK(ctx2.deleted == 0 && strong_of(g) == 1, "function.deleter-waits", "deleter_calls=%d strong=%u",
        ctx2.deleted, strong_of(g));
  rv = any_none();
  rc = TVMFFIFunctionCall(g, NULL, 0, &rv);
  EXPECT_ERROR("function.call-error-from-parts", rc, "ValueError", "callback failed");
  TVMFFIObjectDecRef(g);
  CHECK(ctx2.deleted == 1, "function.deleter-after-last", "deleter_calls=%d", ctx2.deleted);

  /* returning an owned heap string */
  void* h = make_function(NULL, fn_greet);
  rv = any_none();
  rc = TVMFFIFunctionCall(h, NULL, 0, &rv);
  CHECK(rc == 0 && rv.type_index == kTVMFFIStr && strong_of(rv.v_obj) == 1 &&
            ba_eq(any_bytes(&rv), "greetings from a C callback"),
        "function.returns-owned-string", "rc=%d type_index=%d strong=%u content=%s", rc,
        rv.type_index, rv.type_index == kTVMFFIStr ? strong_of(rv.v_obj) : 0, qba(any_bytes(&rv)));
  any_release(&rv);
  TVMFFIObjectDecRef(h);

  /* self == NULL && deleter == NULL: the callee receives the function object itself */
  void* q = NULL;
  rc = TVMFFIFunctionCreate(NULL, fn_quirk, NULL, &q);
  EXPECT_OK("function.null-self", rc);
  if (q != NULL) {
    TVMFFIAny three[3] = {any_int(1), any_int(2), any_int(3)};
    rv = any_none();
    rc = TVMFFIFunctionCall(q, three, 3, &rv);
    CHECK(rc == 0 && rv.v_int64 == 3 && g_quirk_handle == q, "function.null-self-gets-function",
          "rc=%d value=%lld handle=%s", rc, (long long)rv.v_int64,
          g_quirk_handle == q ? "function-object" : "other");
    TVMFFIObjectDecRef(q);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* 11. global registry                                                                         */
/* ------------------------------------------------------------------------------------------ */

static const char* kMulMetadata =
    "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{\\\"return\\\":"
    "[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":\\\"int\\\"},{\\\"type\\\":"
    "\\\"int\\\"}]}}\",\"origin\":\"scenario.c\"}";

static int remove_global(const char* name, int* removed) {
  TVMFFIAny rv;
  int rc = call_global_str("ffi.FunctionRemoveGlobal", name, &rv);
  *removed = rv.type_index == kTVMFFIBool ? (int)rv.v_int64 : -1;
  any_release(&rv);
  return rc;
}

void test_globals(void) {
  /* unknown name: rc 0, out NULL */
  TVMFFIByteArray unknown = ba("scenario.does_not_exist");
  void* out = (void*)0x1;
  int rc = TVMFFIFunctionGetGlobal(&unknown, &out);
  CHECK(rc == 0 && out == NULL, "global.get-unknown", "rc=%d out=%s", rc, out ? "set" : "null");

  FnCtx c1 = {0, 0, NULL}, c2 = {0, 0, NULL}, c3 = {0, 0, NULL};
  void* f1 = make_function(&c1, fn_add);
  void* f2 = make_function(&c2, fn_add);
  void* f3 = make_function(&c3, fn_mul);
  if (!f1 || !f2 || !f3) return;

  TVMFFIByteArray name = ba("scenario.add");
  rc = TVMFFIFunctionSetGlobal(&name, f1, 0);
  EXPECT_OK("global.set", rc);
  CHECK(rc == 0 && strong_of(f1) == 2, "global.set", "rc=%d strong=%u", rc, strong_of(f1));

  rc = TVMFFIFunctionSetGlobal(&name, f2, 0);
  /* Apache: RuntimeError "Global Function `scenario.add` is already registered" */
  EXPECT_ERROR("global.set-duplicate", rc, "RuntimeError",
               "Global Function `scenario.add` is already registered");
  CHECK(strong_of(f1) == 2 && strong_of(f2) == 1, "global.set-duplicate-keeps-old",
        "old.strong=%u new.strong=%u", strong_of(f1), strong_of(f2));

  rc = TVMFFIFunctionSetGlobal(&name, f2, 1);
  CHECK(rc == 0 && strong_of(f1) == 1 && strong_of(f2) == 2, "global.set-override",
        "rc=%d old.strong=%u new.strong=%u", rc, strong_of(f1), strong_of(f2));

  void* got = get_global("scenario.add");
  CHECK(got == f2 && strong_of(f2) == 3, "global.get", "ptr=%s strong=%u",
        got == f2 ? "registered" : "other", strong_of(f2));
  if (got != NULL) {
    TVMFFIAny args[2] = {any_int(20), any_int(22)};
    TVMFFIAny rv = any_none();
    rc = TVMFFIFunctionCall(got, args, 2, &rv);
    CHECK(rc == 0 && rv.v_int64 == 42 && c2.calls == 1 && c1.calls == 0, "global.call",
          "rc=%d value=%lld new.calls=%d old.calls=%d", rc, (long long)rv.v_int64, c2.calls,
          c1.calls);
    TVMFFIObjectDecRef(got);
  }

  /* registration from a method info keeps doc, metadata and flags */
  TVMFFIMethodInfo mi;
  memset(&mi, 0, sizeof(mi));
  mi.name = ba("scenario.mul");
  mi.doc = ba("Multiplies two integers.");
  mi.metadata = ba(kMulMetadata);
  mi.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
  mi.method = any_obj(f3);
  rc = TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 0);
  CHECK(rc == 0 && strong_of(f3) == 2, "global.set-from-method-info", "rc=%d strong=%u", rc,
        strong_of(f3));
  EXPECT_OK("global.set-from-method-info", rc);

  rc = TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 0);
  /* Apache: RuntimeError "Global Function `scenario.mul` is already registered, possible
     causes:\n- Two GlobalDef().def registrations for the same function \nPlease remove the
     duplicate registration." (also printed to stderr) */
  EXPECT_ERROR("global.set-from-method-info-duplicate", rc, "RuntimeError",
               "Global Function `scenario.mul` is already registered, possible causes:\n"
               "- Two GlobalDef().def registrations for the same function \n"
               "Please remove the duplicate registration.");
  rc = TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 1);
  CHECK(rc == 0 && strong_of(f3) == 2, "global.set-from-method-info-override", "rc=%d strong=%u",
        rc, strong_of(f3));

  TVMFFIAny rv;
  rc = call_global_str("ffi.GetGlobalFuncMetadata", "scenario.mul", &rv);
  EXPECT_OK("global.metadata", rc);
  CHECK(rc == 0 && ba_eq(any_bytes(&rv), kMulMetadata), "global.metadata", "rc=%d metadata=%s", rc,
        qba(any_bytes(&rv)));
  any_release(&rv);

  rc = call_global_str("ffi.GetGlobalFuncMetadata", "scenario.add", &rv);
  CHECK(rc == 0 && any_bytes(&rv).size == 0 &&
            (rv.type_index == kTVMFFISmallStr || rv.type_index == kTVMFFIStr),
        "global.metadata-plain-set", "rc=%d metadata=%s", rc, qba(any_bytes(&rv)));
  any_release(&rv);

  rc = call_global_str("ffi.GetGlobalFuncMetadata", "scenario.nope", &rv);
  /* Apache: RuntimeError "Global Function is not found: scenario.nope" */
  EXPECT_ERROR("global.metadata-unknown", rc, "RuntimeError",
               "Global Function is not found: scenario.nope");

  got = get_global("scenario.mul");
  if (got != NULL) {
    TVMFFIAny args[2] = {any_int(6), any_int(7)};
    rv = any_none();
    rc = TVMFFIFunctionCall(got, args, 2, &rv);
    CHECK(rc == 0 && rv.v_int64 == 42 && got == f3, "global.call-method-info", "rc=%d value=%lld ptr=%s",
          rc, (long long)rv.v_int64, got == f3 ? "registered" : "other");
    TVMFFIObjectDecRef(got);
  } else {
    CHECK(0, "global.call-method-info", "lookup=%s", "null");
  }

  /* remove the globals again (this also releases the registry's references) */
  int removed = -1;
  rc = remove_global("scenario.add", &removed);
  CHECK(rc == 0 && removed == 1 && strong_of(f2) == 1, "global.remove", "rc=%d removed=%d strong=%u",
        rc, removed, strong_of(f2));
  rc = remove_global("scenario.add", &removed);
  CHECK(rc == 0 && removed == 0, "global.remove-again", "rc=%d removed=%d", rc, removed);
  rc = remove_global("scenario.mul", &removed);
  CHECK(rc == 0 && removed == 1 && strong_of(f3) == 1, "global.remove-method-info",
        "rc=%d removed=%d strong=%u", rc, removed, strong_of(f3));
  out = (void*)0x1;
  TVMFFIByteArray mul_name = ba("scenario.mul");
  rc = TVMFFIFunctionGetGlobal(&mul_name, &out);
  CHECK(rc == 0 && out == NULL, "global.get-removed", "rc=%d out=%s", rc, out ? "set" : "null");

  TVMFFIObjectDecRef(f1);
  TVMFFIObjectDecRef(f2);
  TVMFFIObjectDecRef(f3);
  CHECK(c1.deleted == 1 && c2.deleted == 1 && c3.deleted == 1, "global.functions-freed",
        "deleter_calls=%d,%d,%d", c1.deleted, c2.deleted, c3.deleted);
}
