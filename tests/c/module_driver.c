/*
 * Drives module loading through the C ABI only (runtime/tests/module_c.rs runs it against
 * ffihub's runtime and Apache's). Usage:
 *
 *   module_driver basic    <module_lib.so> <alias.dso> <not_a_library.so>
 *   module_driver imports  <module_lib.so> <module_lib_import.so>
 *   module_driver syslib
 *   module_driver bin_lib_root   <lib with blob: _lib imports testkind "tk1.">
 *   module_driver bin_custom_root <lib with blob: testkind "tk2." imports _lib>
 *   module_driver load_error <path> <error kind> <message substring>
 *   module_driver after_unload <module_lib.so>   (ffihub's runtime: libraries stay mapped)
 *
 * Prints one line per check that fails and exits 1 if any did; prints "ok <case>" otherwise.
 * Every reference taken is released, so valgrind sees no leak from the driver itself.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

static int failures = 0;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "FAIL line %d: ", __LINE__);        \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
      failures++;                                         \
    }                                                     \
  } while (0)

/* ---- values ---------------------------------------------------------------------------- */

static TVMFFIAny none(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFINone;
  return a;
}

static TVMFFIAny i64(int64_t v) {
  TVMFFIAny a = none();
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static TVMFFIAny boolean(int v) {
  TVMFFIAny a = none();
  a.type_index = kTVMFFIBool;
  a.v_int64 = v != 0;
  return a;
}

static TVMFFIAny cstr(const char* s) {
  TVMFFIAny a = none();
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

static void release(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(a->v_obj);
  *a = none();
}

/* The bytes of a string value (small or object), or NULL. */
static const char* str_data(const TVMFFIAny* a, size_t* len) {
  if (a->type_index == kTVMFFISmallStr) {
    *len = a->small_str_len;
    return a->v_bytes;
  }
  if (a->type_index == kTVMFFIStr) {
    const TVMFFIByteArray* b = (const TVMFFIByteArray*)((const char*)a->v_obj + sizeof(TVMFFIObject));
    *len = b->size;
    return b->data;
  }
  return NULL;
}

static int is_str(const TVMFFIAny* a, const char* expected) {
  size_t len = 0;
  const char* data = str_data(a, &len);
  return data != NULL && len == strlen(expected) && memcmp(data, expected, len) == 0;
}

/* ---- errors ------------------------------------------------------------------------------ */

static char last_kind[256];
static char last_message[4096];

static void take_error(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  last_kind[0] = last_message[0] = 0;
  if (err == NULL) {
    snprintf(last_kind, sizeof(last_kind), "<none raised>");
    return;
  }
  const TVMFFIErrorCell* cell = (const TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
  snprintf(last_kind, sizeof(last_kind), "%.*s", (int)cell->kind.size, cell->kind.data);
  snprintf(last_message, sizeof(last_message), "%.*s", (int)cell->message.size,
           cell->message.data);
  TVMFFIObjectDecRef(err);
}

/* Checks that `rc` failed with `kind` and a message containing `part`. */
static void expect_error(int line, int rc, const char* kind, const char* part) {
  if (rc == 0) {
    fprintf(stderr, "FAIL line %d: expected %s (%s) but the call succeeded\n", line, kind, part);
    failures++;
    return;
  }
  take_error();
  if (strcmp(last_kind, kind) != 0 || strstr(last_message, part) == NULL) {
    fprintf(stderr, "FAIL line %d: expected %s containing \"%s\", got %s: %s\n", line, kind, part,
            last_kind, last_message);
    failures++;
  }
}
#define EXPECT_ERROR(rc, kind, part) expect_error(__LINE__, (rc), (kind), (part))

/* Reports an unexpected error. */
static int ok(int line, int rc) {
  if (rc != 0) {
    take_error();
    fprintf(stderr, "FAIL line %d: unexpected error %s: %s\n", line, last_kind, last_message);
    failures++;
  }
  return rc == 0;
}
#define OK(rc) ok(__LINE__, (rc))

/* ---- calls ------------------------------------------------------------------------------- */

static int call_global(const char* name, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  TVMFFIByteArray bytes = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  *rv = none();
  if (TVMFFIFunctionGetGlobal(&bytes, &f) != 0) return -1;
  if (f == NULL) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "global function not found");
    return -1;
  }
  int rc = TVMFFIFunctionCall(f, args, n, rv);
  TVMFFIObjectDecRef(f);
  return rc;
}

static int call(const TVMFFIAny* f, TVMFFIAny* args, int n, TVMFFIAny* rv) {
  *rv = none();
  return TVMFFIFunctionCall(f->v_obj, args, n, rv);
}

static int load(const char* path, TVMFFIAny* mod) {
  TVMFFIAny arg = cstr(path);
  return call_global("ffi.ModuleLoadFromFile", &arg, 1, mod);
}

/* ffi.ModuleGetFunction / Doc / Metadata / ImplementsFunction. */
static int module_query(const char* global, const TVMFFIAny* mod, const char* name, int imports,
                        TVMFFIAny* rv) {
  TVMFFIAny args[3] = {*mod, cstr(name), boolean(imports)};
  return call_global(global, args, 3, rv);
}

static int get_function(const TVMFFIAny* mod, const char* name, int imports, TVMFFIAny* rv) {
  return module_query("ffi.ModuleGetFunction", mod, name, imports, rv);
}

/* Calls function `name` of `mod` (own functions only) with two ints; returns the int result. */
static int64_t call_ints(int line, const TVMFFIAny* mod, const char* name, int query_imports,
                         int64_t a, int64_t b) {
  TVMFFIAny f, rv;
  int64_t result = INT64_MIN;
  if (!ok(line, get_function(mod, name, query_imports, &f))) return result;
  if (f.type_index != kTVMFFIFunction) {
    fprintf(stderr, "FAIL line %d: no function %s\n", line, name);
    failures++;
    return result;
  }
  TVMFFIAny args[2] = {i64(a), i64(b)};
  if (ok(line, call(&f, args, 2, &rv)) && rv.type_index == kTVMFFIInt) result = rv.v_int64;
  release(&rv);
  release(&f);
  return result;
}

/* Calls the library's call_import(name, args...) (lookup through __tvm_ffi__library_ctx). */
static int call_import(const TVMFFIAny* mod, const char* name, TVMFFIAny* extra, int n,
                       TVMFFIAny* rv) {
  TVMFFIAny f;
  *rv = none();
  int rc = get_function(mod, "call_import", 0, &f);
  if (rc != 0) return rc;
  TVMFFIAny args[4];
  args[0] = cstr(name);
  for (int i = 0; i < n && i < 3; ++i) args[i + 1] = extra[i];
  rc = call(&f, args, n + 1, rv);
  release(&f);
  return rc;
}

static void* ctx_of(const TVMFFIAny* mod) { return (char*)mod->v_obj - 8; }

/* Calls a no-argument function returning an opaque pointer. */
static void* get_ptr(int line, const TVMFFIAny* mod, const char* name) {
  TVMFFIAny f, rv;
  void* out = (void*)-1;
  if (!ok(line, get_function(mod, name, 0, &f)) || f.type_index != kTVMFFIFunction) return out;
  if (ok(line, call(&f, NULL, 0, &rv))) out = rv.type_index == kTVMFFINone ? NULL : rv.v_ptr;
  release(&f);
  return out;
}

static int module_string(const char* global, const TVMFFIAny* mod, const char* expected) {
  TVMFFIAny rv, arg = *mod;
  int good = OK(call_global(global, &arg, 1, &rv)) && is_str(&rv, expected);
  release(&rv);
  return good;
}

static int64_t module_int(const char* global, const TVMFFIAny* mod) {
  TVMFFIAny rv, arg = *mod;
  int64_t v = INT64_MIN;
  if (OK(call_global(global, &arg, 1, &rv)) && rv.type_index == kTVMFFIInt) v = rv.v_int64;
  release(&rv);
  return v;
}

/* Whether the runtime is ffihub's (it has `ffihub.LiveObjectCount`). */
static int on_ffihub(void) {
  TVMFFIByteArray name = {"ffihub.LiveObjectCount", strlen("ffihub.LiveObjectCount")};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&name, &f) != 0 || f == NULL) return 0;
  TVMFFIObjectDecRef(f);
  return 1;
}

/* ---- cases ------------------------------------------------------------------------------- */

#define CONTEXT_VALUE ((void*)0x1234)

static void case_basic(const char* lib, const char* alias, const char* not_a_library) {
  CHECK(TVMFFIEnvModRegisterContextSymbol("module_test_context_sym", CONTEXT_VALUE) == 0,
        "register context symbol");
  TVMFFIAny mod, rv, f;
  if (!OK(load(lib, &mod))) return;
  CHECK(mod.type_index == kTVMFFIModule, "module type index %d", mod.type_index);
  CHECK(module_string("ffi.ModuleGetKind", &mod, "library"), "kind");
  CHECK(module_int("ffi.ModuleGetPropertyMask", &mod) == 3, "property mask");

  CHECK(call_ints(__LINE__, &mod, "add", 0, 2, 3) == 5, "add");
  CHECK(call_ints(__LINE__, &mod, "sub", 0, 2, 3) == -1, "sub");

  /* metadata and doc */
  OK(module_query("ffi.ModuleGetFunctionMetadata", &mod, "add", 0, &rv));
  CHECK(is_str(&rv, "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":"
                    "{\\\"return\\\":[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":"
                    "\\\"int\\\"},{\\\"type\\\":\\\"int\\\"}]}}\"}"),
        "metadata of add");
  release(&rv);
  OK(module_query("ffi.ModuleGetFunctionDoc", &mod, "add", 0, &rv));
  CHECK(is_str(&rv, "Adds two integers."), "doc of add");
  release(&rv);
  OK(module_query("ffi.ModuleGetFunctionMetadata", &mod, "sub", 1, &rv));
  CHECK(rv.type_index == kTVMFFINone, "sub has no metadata");
  OK(module_query("ffi.ModuleGetFunctionDoc", &mod, "sub", 1, &rv));
  CHECK(rv.type_index == kTVMFFINone, "sub has no doc");
  EXPECT_ERROR(module_query("ffi.ModuleGetFunctionMetadata", &mod, "fail", 0, &rv), "ValueError",
               "no metadata for fail");
  EXPECT_ERROR(module_query("ffi.ModuleGetFunctionDoc", &mod, "fail", 0, &rv), "TypeError",
               "Cannot convert from type `int` to `str`");

  /* missing symbols */
  OK(get_function(&mod, "missing", 1, &rv));
  CHECK(rv.type_index == kTVMFFINone, "missing function is None");
  OK(module_query("ffi.ModuleImplementsFunction", &mod, "missing", 1, &rv));
  CHECK(rv.type_index == kTVMFFIBool && rv.v_int64 == 0, "does not implement missing");
  OK(module_query("ffi.ModuleImplementsFunction", &mod, "add", 0, &rv));
  CHECK(rv.type_index == kTVMFFIBool && rv.v_int64 == 1, "implements add");

  /* errors raised by a library function come through */
  OK(get_function(&mod, "fail", 0, &f));
  EXPECT_ERROR(call(&f, NULL, 0, &rv), "ValueError", "fail was called");
  release(&f);
  OK(get_function(&mod, "add", 0, &f));
  TVMFFIAny bad[1] = {cstr("x")};
  EXPECT_ERROR(call(&f, bad, 1, &rv), "TypeError", "expects two ints");

  /* the context variables */
  CHECK(get_ptr(__LINE__, &mod, "get_ctx") == ctx_of(&mod), "library ctx is the ModuleObj*");
  CHECK(get_ptr(__LINE__, &mod, "get_context_sym") == CONTEXT_VALUE, "context symbol written");

  /* the rest of the module API */
  TVMFFIAny args[3] = {mod, cstr("asm"), none()};
  OK(call_global("ffi.ModuleInspectSource", args, 2, &rv));
  CHECK(is_str(&rv, ""), "no source");
  release(&rv);
  OK(call_global("ffi.ModuleGetWriteFormats", args, 1, &rv));
  CHECK(rv.type_index == kTVMFFIArray, "write formats are an Array");
  if (rv.type_index == kTVMFFIArray) {
    const TVMFFISeqCell* cell = (const TVMFFISeqCell*)((char*)rv.v_obj + sizeof(TVMFFIObject));
    CHECK(cell->size == 0, "no write formats");
  }
  release(&rv);
  args[1] = cstr("/tmp/never-written.so");
  args[2] = cstr("so");
  EXPECT_ERROR(call_global("ffi.ModuleWriteToFile", args, 3, &rv), "RuntimeError",
               "Module[library] does not support WriteToFile");

  /* the function keeps the module (and the library) alive; the last reference unloads it */
  release(&mod);
  void* probe = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
  CHECK(probe != NULL, "library still loaded while a function lives");
  if (probe != NULL) dlclose(probe);
  TVMFFIAny two[2] = {i64(20), i64(22)};
  if (OK(call(&f, two, 2, &rv))) CHECK(rv.type_index == kTVMFFIInt && rv.v_int64 == 42, "add");
  release(&f);
  /* Apache's runtime unmaps the library with its last function; ffihub's keeps it mapped for
     what its code made (ADR 0010, case after_unload). */
  probe = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
  CHECK((probe != NULL) == on_ffihub(), "library %s with its last function",
        probe != NULL ? "still mapped" : "unmapped");
  if (probe != NULL) dlclose(probe);

  /* extension normalization: .dso loads through the .so loader */
  if (OK(load(alias, &mod))) {
    CHECK(call_ints(__LINE__, &mod, "add", 0, 1, 1) == 2, "add through the .dso alias");
    /* pinned modules stay; removing twice is fine */
    OK(call_global("ffi.ModuleGlobalsAdd", &mod, 1, &rv));
    OK(call_global("ffi.ModuleGlobalsRemove", &mod, 1, &rv));
    OK(call_global("ffi.ModuleGlobalsRemove", &mod, 1, &rv));
    release(&mod);
  }

  /* load errors */
  EXPECT_ERROR(load("/nonexistent/libmodule_test.so", &mod), "InternalError",
               "Failed to load dynamic shared library /nonexistent/libmodule_test.so");
  EXPECT_ERROR(load(not_a_library, &mod), "InternalError",
               "Failed to load dynamic shared library");
  EXPECT_ERROR(load("no_extension", &mod), "RuntimeError",
               "Failed to get file format from no_extension");
  EXPECT_ERROR(load("/tmp/module.xyz", &mod), "RuntimeError",
               "Loader for `.xyz` files is not registered, resolved to "
               "(ffi.Module.load_from_file.xyz) in the global registry.");
  TVMFFIAny wrong = i64(3);
  EXPECT_ERROR(call_global("ffi.ModuleGetKind", &wrong, 1, &rv), "TypeError",
               "Mismatched type on argument #0 when calling: `ffi.ModuleGetKind(0: ffi.Module) -> "
               "str`. Expected `ffi.Module` but got `int`");
  /* with several wrong arguments, Apache names the last one (C++ converts right to left) */
  TVMFFIAny three[3] = {i64(1), i64(2), i64(3)};
  EXPECT_ERROR(call_global("ffi.ModuleGetFunction", three, 3, &rv), "TypeError",
               "Mismatched type on argument #1 when calling: `ffi.ModuleGetFunction(0: ffi.Module, "
               "1: str, 2: bool) -> Optional<ffi.Function>`. Expected `str` but got `int`");
}

/* A global the library finds through TVMFFIEnvModLookupFromImports' registry fallback. */
static int triple(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (n != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "triple expects an int");
    return -1;
  }
  *rv = i64(3 * args[0].v_int64);
  return 0;
}

static void case_imports(const char* lib, const char* import_lib) {
  TVMFFIAny mod, imp, rv, args[2];
  if (!OK(load(lib, &mod))) return;
  if (!OK(load(import_lib, &imp))) return;

  TVMFFIAny mul_args[2] = {i64(6), i64(7)};
  EXPECT_ERROR(call_import(&mod, "mul", mul_args, 2, &rv), "RuntimeError",
               "Cannot find function mul in the imported modules or global registry.");

  args[0] = mod;
  args[1] = imp;
  OK(call_global("ffi.ModuleImportModule", args, 2, &rv));
  OK(get_function(&mod, "mul", 0, &rv));
  CHECK(rv.type_index == kTVMFFINone, "mul is not the module's own");
  CHECK(call_ints(__LINE__, &mod, "mul", 1, 6, 7) == 42, "mul through imports");
  CHECK(call_ints(__LINE__, &mod, "add", 1, 1, 2) == 3, "own add wins over the import's");
  OK(module_query("ffi.ModuleImplementsFunction", &mod, "mul", 1, &rv));
  CHECK(rv.type_index == kTVMFFIBool && rv.v_int64 == 1, "implements mul through imports");
  OK(module_query("ffi.ModuleGetFunctionMetadata", &mod, "mul", 1, &rv));
  CHECK(is_str(&rv, "{\"mul\":true}"), "metadata through imports");
  release(&rv);

  if (OK(call_import(&mod, "mul", mul_args, 2, &rv))) {
    CHECK(rv.type_index == kTVMFFIInt && rv.v_int64 == 42, "call_import(mul)");
  }

  /* registry fallback */
  TVMFFIObjectHandle fn = NULL;
  OK(TVMFFIFunctionCreate(NULL, triple, NULL, &fn));
  TVMFFIByteArray name = {"module_test.triple", strlen("module_test.triple")};
  OK(TVMFFIFunctionSetGlobal(&name, fn, 1));
  TVMFFIObjectDecRef(fn);
  TVMFFIAny five = i64(5);
  if (OK(call_import(&mod, "module_test.triple", &five, 1, &rv))) {
    CHECK(rv.type_index == kTVMFFIInt && rv.v_int64 == 15, "call_import(global)");
  }

  /* cycles are refused */
  args[0] = imp;
  args[1] = mod;
  EXPECT_ERROR(call_global("ffi.ModuleImportModule", args, 2, &rv), "RuntimeError",
               "Cyclic dependency detected during import");
  args[0] = mod;
  EXPECT_ERROR(call_global("ffi.ModuleImportModule", args, 2, &rv), "RuntimeError",
               "Cyclic dependency detected during import");

  /* clearing imports: lookups stop, but the library's cached lookups stay */
  OK(call_global("ffi.ModuleClearImports", &mod, 1, &rv));
  OK(get_function(&mod, "mul", 1, &rv));
  CHECK(rv.type_index == kTVMFFINone, "mul gone after ClearImports");
  release(&imp);
  if (OK(call_import(&mod, "mul", mul_args, 2, &rv))) {
    CHECK(rv.type_index == kTVMFFIInt && rv.v_int64 == 42, "cached call_import(mul)");
  }
  release(&mod);
  TVMFFIAny unreg = cstr("module_test.triple");
  OK(call_global("ffi.FunctionRemoveGlobal", &unreg, 1, &rv));
}

static int sys_add_one(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)n;
  *rv = i64(args[0].v_int64 + 1);
  return 0;
}

static int sys_add_two(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)n;
  *rv = i64(args[0].v_int64 + 2);
  return 0;
}

static int sys_doc(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self, (void)args, (void)n;
  TVMFFIByteArray bytes = {"prefixed doc", 12};
  return TVMFFIStringFromByteArray(&bytes, rv);
}

static void* syslib_ctx = NULL;
static void* syslib_context_sym = NULL;

static int64_t call_one(int line, const TVMFFIAny* mod, const char* name, int64_t v) {
  TVMFFIAny f, rv, arg = i64(v);
  int64_t out = INT64_MIN;
  if (!ok(line, get_function(mod, name, 0, &f)) || f.type_index != kTVMFFIFunction) {
    fprintf(stderr, "FAIL line %d: no system-library function %s\n", line, name);
    failures++;
    return out;
  }
  if (ok(line, call(&f, &arg, 1, &rv)) && rv.type_index == kTVMFFIInt) out = rv.v_int64;
  release(&f);
  return out;
}

static int syslib(const char* prefix, TVMFFIAny* mod) {
  TVMFFIAny arg = cstr(prefix);
  return call_global("ffi.SystemLib", &arg, prefix ? 1 : 0, mod);
}

static void case_syslib(void) {
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_pa.add", (void*)sys_add_one);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_pb.add", (void*)sys_add_two);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_shared_fn", (void*)sys_add_one);
  TVMFFIEnvModRegisterSystemLibSymbol("pa.__tvm_ffi__doc_add", (void*)sys_doc);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi__library_ctx", (void*)&syslib_ctx);
  TVMFFIEnvModRegisterSystemLibSymbol("syslib_context_sym", (void*)&syslib_context_sym);
  TVMFFIEnvModRegisterContextSymbol("syslib_context_sym", CONTEXT_VALUE);

  TVMFFIAny a, a2, b, root, rv;
  if (!OK(syslib("pa.", &a)) || !OK(syslib("pa.", &a2)) || !OK(syslib("pb.", &b))) return;
  CHECK(a.v_obj == a2.v_obj, "one module per prefix");
  CHECK(a.v_obj != b.v_obj, "distinct prefixes, distinct modules");
  CHECK(syslib_ctx == ctx_of(&b), "library ctx of the system library is the last one made");
  CHECK(syslib_context_sym == CONTEXT_VALUE, "context symbol written into the system library");
  CHECK(module_string("ffi.ModuleGetKind", &a, "library"), "kind");
  CHECK(module_int("ffi.ModuleGetPropertyMask", &a) == 3, "mask");
  CHECK(call_one(__LINE__, &a, "add", 10) == 11, "pa.add");
  CHECK(call_one(__LINE__, &b, "add", 10) == 12, "pb.add");
  CHECK(call_one(__LINE__, &a, "shared_fn", 1) == 2, "unprefixed fallback");
  OK(module_query("ffi.ModuleGetFunctionDoc", &a, "add", 0, &rv));
  CHECK(is_str(&rv, "prefixed doc"), "doc through the prefix");
  release(&rv);
  OK(module_query("ffi.ModuleGetFunctionDoc", &b, "add", 0, &rv));
  CHECK(rv.type_index == kTVMFFINone, "pb.add has no doc");

  if (OK(syslib(NULL, &root))) {
    CHECK(syslib_ctx == ctx_of(&root), "ctx follows the newest system library");
    CHECK(call_one(__LINE__, &root, "pa.add", 1) == 2, "full name through the empty prefix");
    OK(get_function(&root, "add", 0, &rv));
    CHECK(rv.type_index == kTVMFFINone, "no unprefixed add");
    release(&root);
  }
  TVMFFIAny wrong = i64(3);
  EXPECT_ERROR(call_global("ffi.SystemLib", &wrong, 1, &rv), "TypeError",
               "Cannot convert from type `int` to `str`");
  release(&a);
  release(&a2);
  release(&b);
}

/* ffi.Module.load_from_bytes.testkind: the payload is a system-library prefix. */
static int load_testkind(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  const TVMFFIByteArray* bytes = NULL;
  TVMFFIByteArray small;
  if (n != 1) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "load_from_bytes takes one argument");
    return -1;
  }
  if (args[0].type_index == kTVMFFIBytes) {
    bytes = (const TVMFFIByteArray*)((char*)args[0].v_obj + sizeof(TVMFFIObject));
  } else if (args[0].type_index == kTVMFFISmallBytes) {
    small.data = args[0].v_bytes;
    small.size = args[0].small_str_len;
    bytes = &small;
  } else {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "load_from_bytes expects bytes");
    return -1;
  }
  char prefix[64];
  snprintf(prefix, sizeof(prefix), "%.*s", (int)bytes->size, bytes->data);
  TVMFFIAny arg = cstr(prefix);
  return call_global("ffi.SystemLib", &arg, 1, rv);
}

static void register_testkind(void) {
  TVMFFIObjectHandle fn = NULL;
  OK(TVMFFIFunctionCreate(NULL, load_testkind, NULL, &fn));
  TVMFFIByteArray name = {"ffi.Module.load_from_bytes.testkind",
                          strlen("ffi.Module.load_from_bytes.testkind")};
  OK(TVMFFIFunctionSetGlobal(&name, fn, 1));
  TVMFFIObjectDecRef(fn);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_tk1.mul", (void*)sys_add_two);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_tk2.mul", (void*)sys_add_one);
}

static void unregister_testkind(void) {
  TVMFFIAny rv, name = cstr("ffi.Module.load_from_bytes.testkind");
  OK(call_global("ffi.FunctionRemoveGlobal", &name, 1, &rv));
}

/* Blob: module 0 = "_lib" importing module 1 = testkind "tk1.". */
static void case_bin_lib_root(const char* lib) {
  register_testkind();
  TVMFFIAny mod, rv, f;
  if (OK(load(lib, &mod))) {
    CHECK(module_string("ffi.ModuleGetKind", &mod, "library"), "root kind");
    CHECK(get_ptr(__LINE__, &mod, "get_ctx") == ctx_of(&mod), "ctx is the _lib module (root)");
    OK(get_function(&mod, "root_fn", 0, &rv));
    CHECK(rv.type_index == kTVMFFIFunction, "root_fn is the library's own");
    release(&rv);
    OK(get_function(&mod, "mul", 0, &rv));
    CHECK(rv.type_index == kTVMFFINone, "mul is not the library's own");
    OK(get_function(&mod, "mul", 1, &f));
    CHECK(f.type_index == kTVMFFIFunction, "mul found through the testkind import");
    if (f.type_index == kTVMFFIFunction) {
      TVMFFIAny arg = i64(40);
      if (OK(call(&f, &arg, 1, &rv))) CHECK(rv.v_int64 == 42, "tk1.mul(40)");
    }
    release(&f);
    TVMFFIAny arg = i64(1);
    if (OK(call_import(&mod, "mul", &arg, 1, &rv))) CHECK(rv.v_int64 == 3, "call_import(mul)");
    release(&mod);
  }
  unregister_testkind();
}

/* Blob: module 0 = testkind "tk2." importing module 1 = "_lib". */
static void case_bin_custom_root(const char* lib) {
  register_testkind();
  TVMFFIAny mod, tk2, rv;
  if (OK(load(lib, &mod))) {
    if (OK(syslib("tk2.", &tk2))) {
      CHECK(mod.v_obj == tk2.v_obj, "root is the module the testkind loader made");
      release(&tk2);
    }
    OK(get_function(&mod, "root_fn", 0, &rv));
    CHECK(rv.type_index == kTVMFFINone, "root_fn is not the root's own");
    CHECK(call_ints(__LINE__, &mod, "add", 1, 2, 2) == 4, "add found in the _lib import");
    TVMFFIAny f;
    OK(get_function(&mod, "get_ctx", 1, &f));
    if (f.type_index == kTVMFFIFunction) {
      if (OK(call(&f, NULL, 0, &rv))) {
        CHECK(rv.type_index == kTVMFFIOpaquePtr && rv.v_ptr != ctx_of(&mod),
              "ctx is the _lib module, not the root");
      }
      release(&f);
    }
    /* drop the import again: the system library is a process-wide singleton */
    OK(call_global("ffi.ModuleClearImports", &mod, 1, &rv));
    release(&mod);
  }
  unregister_testkind();
}

static void case_load_error(const char* path, const char* kind, const char* part) {
  register_testkind();
  TVMFFIAny mod;
  int rc = load(path, &mod);
  if (rc == 0) release(&mod);
  expect_error(__LINE__, rc, kind, part);
  if (rc != 0 && failures == 0) printf("error %s: %s\n", last_kind, last_message);
  unregister_testkind();
}

/* Calls a module function without arguments (or with one), returning its owned result. */
static int call_module(const TVMFFIAny* mod, const char* name, TVMFFIAny* arg, TVMFFIAny* rv) {
  TVMFFIAny f;
  *rv = none();
  int rc = get_function(mod, name, 0, &f);
  if (rc != 0) return rc;
  rc = call(&f, arg, arg != NULL ? 1 : 0, rv);
  release(&f);
  return rc;
}

/*
 * A closure, an opaque object and a global function made by a library's code, used after every
 * module of the library was released: the library must still be mapped (ADR 0010), so they work
 * and their deleters run; loading it again finds the same copy (its static state kept).
 */
static void case_after_unload(const char* lib) {
  TVMFFIAny mod, closure, opaque, rv, arg;
  if (!OK(load(lib, &mod))) return;
  arg = i64(5);
  OK(call_module(&mod, "make_closure", &arg, &closure));
  OK(call_module(&mod, "make_opaque", NULL, &opaque));
  arg = cstr("module_test.after_unload");
  OK(call_module(&mod, "register_global", &arg, &rv));
  CHECK(closure.type_index == kTVMFFIFunction, "closure type index %d", closure.type_index);
  CHECK(opaque.type_index == kTVMFFIOpaquePyObject, "opaque type index %d", opaque.type_index);
  release(&mod);

  void* still = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
  CHECK(still != NULL, "the library was unmapped when its last module went");
  if (still != NULL) dlclose(still);

  arg = i64(1);
  if (OK(call(&closure, &arg, 1, &rv))) CHECK(rv.type_index == kTVMFFIInt && rv.v_int64 == 6, "closure");
  release(&rv);
  release(&closure);
  release(&opaque);
  arg = i64(1);
  if (OK(call_global("module_test.after_unload", &arg, 1, &rv))) {
    CHECK(rv.type_index == kTVMFFIInt && rv.v_int64 == 101, "global");
  }
  release(&rv);

  if (!OK(load(lib, &mod))) return;
  if (OK(call_module(&mod, "deleted", NULL, &rv))) {
    CHECK(rv.type_index == kTVMFFIInt && rv.v_int64 == 2, "deleters run: %lld",
          (long long)rv.v_int64);
  }
  release(&rv);
  release(&mod);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: module_driver CASE ARGS...\n");
    return 2;
  }
  const char* c = argv[1];
  if (strcmp(c, "basic") == 0 && argc == 5) {
    case_basic(argv[2], argv[3], argv[4]);
  } else if (strcmp(c, "imports") == 0 && argc == 4) {
    case_imports(argv[2], argv[3]);
  } else if (strcmp(c, "syslib") == 0 && argc == 2) {
    case_syslib();
  } else if (strcmp(c, "bin_lib_root") == 0 && argc == 3) {
    case_bin_lib_root(argv[2]);
  } else if (strcmp(c, "bin_custom_root") == 0 && argc == 3) {
    case_bin_custom_root(argv[2]);
  } else if (strcmp(c, "after_unload") == 0 && argc == 3) {
    case_after_unload(argv[2]);
  } else if (strcmp(c, "load_error") == 0 && argc == 5) {
    case_load_error(argv[2], argv[3], argv[4]);
  } else {
    fprintf(stderr, "unknown case or wrong arguments: %s\n", c);
    return 2;
  }
  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed in case %s\n", failures, c);
    return 1;
  }
  printf("ok %s\n", c);
  return 0;
}
