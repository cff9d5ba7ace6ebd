/* The testing-library host's checks of the library as a module, and the system library. */
#include "testing_lib.h"

/* ------------------------------------------------------------------------------------------ */
/* 10. the library as a module, and the system library                                         */
/* ------------------------------------------------------------------------------------------ */

void test_modules(const char* path) {
  TVMFFIAny mod, rv;
  Pool p = {0};
  int rc = G("ffi.ModuleLoadFromFile", &mod, pstr(&p, path));
  if (!EXPECT_OK("ffi.ModuleLoadFromFile(testing lib)", rc)) {
    pool_release(&p);
    return;
  }
  CHECK(mod.type_index == kTVMFFIModule, "module type", "type=%d", mod.type_index);
  rc = G("ffi.ModuleGetKind", &rv, mod);
  EXPECT_VALUE_REL("ffi.ModuleGetKind", rc, &rv, "\"library\"");
  rc = G("ffi.ModuleGetPropertyMask", &rv, mod);
  EXPECT_VALUE_REL("ffi.ModuleGetPropertyMask", rc, &rv, "3");
  rc = G("ffi.ModuleImplementsFunction", &rv, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleImplementsFunction(testing_dll_schema_id_int)", rc, &rv, "True");
  rc = G("ffi.ModuleImplementsFunction", &rv, mod, pstr(&p, "no_such_function"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleImplementsFunction(no_such_function)", rc, &rv, "False");
  rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "no_such_function"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleGetFunction(no_such_function)", rc, &rv, "None");
  rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "no_such_function"), any_bool(1));
  EXPECT_VALUE_REL("ffi.ModuleGetFunction(no_such_function, query_imports)", rc, &rv, "None");
  rc = G("ffi.ModuleGetWriteFormats", &rv, mod);
  EXPECT_VALUE_REL("ffi.ModuleGetWriteFormats", rc, &rv, "Array[]");
  rc = G("ffi.ModuleInspectSource", &rv, mod, pstr(&p, ""));
  EXPECT_VALUE_REL("ffi.ModuleInspectSource", rc, &rv, "\"\"");
  rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(1));
  EXPECT_VALUE_REL("ffi.ModuleGetFunction(testing_dll_schema_id_int, query_imports)", rc, &rv, "Function");
  rc = G("ffi.ReprPrint", &rv, mod);
  EXPECT_VALUE_REL("ffi.ReprPrint(module)", rc, &rv, NULL);
  rc = G("ffi.ModuleGetFunction", &rv, mod, any_int(1), any_bool(0));
  EXPECT_ERROR("ffi.ModuleGetFunction(mod, 1)", rc, &rv, "TypeError", NULL);
  rc = G("ffi.ModuleLoadFromFile", &rv, pstr(&p, "/nonexistent/libnothing.so"));
  EXPECT_ERROR_KIND("ffi.ModuleLoadFromFile(missing file)", rc, &rv, "InternalError");

  TVMFFIAny id_int;
  rc = G("ffi.ModuleGetFunction", &id_int, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(0));
  if (EXPECT_VALUE("ffi.ModuleGetFunction(testing_dll_schema_id_int)", rc, &id_int, "Function")) {
    rc = F(id_int.v_obj, &rv, any_int(41));
    EXPECT_VALUE_REL("testing_dll_schema_id_int(41)", rc, &rv, "41");
    rc = F(id_int.v_obj, &rv, pstr(&p, "x"));
    EXPECT_ERROR("testing_dll_schema_id_int(str)", rc, &rv, "TypeError", NULL);
  }
  rc = G("ffi.ModuleGetFunctionMetadata", &rv, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(0));
  /* the metadata JSON; its type_schema value is itself JSON encoded as a string */
  static const char id_int_metadata[] =
      "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{\\\"return\\\":"
      "[{\\\"type\\\":\\\"int\\\"}],\\\"params\\\":[{\\\"type\\\":\\\"int\\\"}]}}\"}";
  EXPECT_VALUE_REL("ffi.ModuleGetFunctionMetadata(testing_dll_schema_id_int)", rc, &rv,
                   quote_n(id_int_metadata, strlen(id_int_metadata)));
  rc = G("ffi.ModuleGetFunctionDoc", &rv, mod, pstr(&p, "testing_dll_schema_id_int"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleGetFunctionDoc(testing_dll_schema_id_int)", rc, &rv, "None");
  rc = G("ffi.ModuleGetFunctionDoc", &rv, mod, pstr(&p, "testing_dll_test_add_with_docstring"), any_bool(0));
  if (EXPECT_OK("ffi.ModuleGetFunctionDoc(testing_dll_test_add_with_docstring)", rc)) {
    TVMFFIByteArray doc = any_bytes(&rv);
    CHECK(doc.size > 36 && memcmp(doc.data, "Add two integers and return the sum.", 36) == 0,
          "ffi.ModuleGetFunctionDoc(testing_dll_test_add_with_docstring)", "%s", describe(&rv));
  }
  any_release(&rv);
  rc = G("ffi.ModuleGetFunctionMetadata", &rv, mod, pstr(&p, "no_such_function"), any_bool(0));
  EXPECT_VALUE_REL("ffi.ModuleGetFunctionMetadata(no_such_function)", rc, &rv, "None");
  /* imports: the system library imported into the DSO module */
  TVMFFIAny sysmod;
  rc = G("ffi.SystemLib", &sysmod, pstr(&p, "testing."));
  if (EXPECT_OK("ffi.SystemLib for import", rc)) {
    rc = G("ffi.ModuleImportModule", &rv, mod, sysmod);
    EXPECT_VALUE_REL("ffi.ModuleImportModule(dso, system lib)", rc, &rv, "None");
    rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "add_one"), any_bool(0));
    EXPECT_VALUE_REL("ffi.ModuleGetFunction(dso, add_one, no imports)", rc, &rv, "None");
    rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "add_one"), any_bool(1));
    if (EXPECT_VALUE("ffi.ModuleGetFunction(dso, add_one, query_imports)", rc, &rv, "Function")) {
      TVMFFIAny r2;
      int rc2 = F(rv.v_obj, &r2, any_int(-1));
      EXPECT_VALUE_REL("imported add_one(-1)", rc2, &r2, "0");
    }
    any_release(&rv);
    rc = G("ffi.ModuleImplementsFunction", &rv, mod, pstr(&p, "add_one"), any_bool(1));
    EXPECT_VALUE_REL("ffi.ModuleImplementsFunction(dso, add_one, query_imports)", rc, &rv, NULL);
    rc = G("ffi.ReprPrint", &rv, mod);
    EXPECT_VALUE_REL("ffi.ReprPrint(module with an import)", rc, &rv, NULL);
    rc = G("ffi.ModuleClearImports", &rv, mod);
    EXPECT_VALUE_REL("ffi.ModuleClearImports(dso)", rc, &rv, "None");
    rc = G("ffi.ModuleGetFunction", &rv, mod, pstr(&p, "add_one"), any_bool(1));
    EXPECT_VALUE_REL("ffi.ModuleGetFunction(dso, add_one, query_imports) after clear", rc, &rv, "None");
  }
  any_release(&sysmod);

  TVMFFIAny add;
  rc = G("ffi.ModuleGetFunction", &add, mod, pstr(&p, "testing_dll_test_add_with_docstring"), any_bool(0));
  /* the function keeps the module alive */
  any_release(&mod);
  if (EXPECT_OK("ffi.ModuleGetFunction(testing_dll_test_add_with_docstring)", rc)) {
    rc = F(add.v_obj, &rv, any_int(2), any_int(40));
    EXPECT_VALUE_REL("testing_dll_test_add_with_docstring(2, 40) after the module handle is released", rc, &rv, "42");
  }
  any_release(&add);
  any_release(&id_int);

  /* the system library: the symbol __tvm_ffi_testing.add_one registered at load time */
  TVMFFIAny sys, sys2;
  rc = G("ffi.SystemLib", &sys, pstr(&p, "testing."));
  if (EXPECT_OK("ffi.SystemLib(\"testing.\")", rc)) {
    rc = G("ffi.ModuleGetFunction", &rv, sys, pstr(&p, "add_one"), any_bool(0));
    if (EXPECT_VALUE("SystemLib(testing.).add_one", rc, &rv, "Function")) {
      TVMFFIAny r2;
      int rc2 = F(rv.v_obj, &r2, any_int(10));
      EXPECT_VALUE_REL("SystemLib(testing.).add_one(10)", rc2, &r2, "11");
    }
    any_release(&rv);
    rc = G("ffi.SystemLib", &sys2, pstr(&p, "testing."));
    CHECK(rc == 0 && sys2.v_obj == sys.v_obj, "ffi.SystemLib(\"testing.\") is a singleton", "rc=%d %s", rc,
          same(sys2.v_obj, sys.v_obj));
    any_release(&sys2);
    rc = G("ffi.ModuleGetKind", &rv, sys);
    EXPECT_VALUE_REL("ffi.ModuleGetKind(system lib)", rc, &rv, "\"library\"");
    rc = G("ffi.ModuleGetFunction", &rv, sys, pstr(&p, "missing"), any_bool(0));
    EXPECT_VALUE_REL("SystemLib(testing.).missing", rc, &rv, "None");
    rc = G("ffi.ModuleImplementsFunction", &rv, sys, pstr(&p, "add_one"), any_bool(0));
    EXPECT_VALUE_REL("ffi.ModuleImplementsFunction(system lib, add_one)", rc, &rv, "True");
    rc = G("ffi.ModuleGetPropertyMask", &rv, sys);
    EXPECT_VALUE_REL("ffi.ModuleGetPropertyMask(system lib)", rc, &rv, NULL);
  }
  any_release(&sys);
  rc = G0("ffi.SystemLib", &sys);
  if (EXPECT_OK("ffi.SystemLib()", rc)) {
    rc = G("ffi.ModuleGetFunction", &rv, sys, pstr(&p, "testing.add_one"), any_bool(0));
    if (EXPECT_VALUE("SystemLib().testing.add_one", rc, &rv, "Function")) {
      TVMFFIAny r2;
      int rc2 = F(rv.v_obj, &r2, any_int(1));
      EXPECT_VALUE_REL("SystemLib().testing.add_one(1)", rc2, &r2, "2");
    }
    any_release(&rv);
  }
  any_release(&sys);
  pool_release(&p);
}
