/*
 * Prints `<name>\t<metadata>` for each global function named on the command line, using
 * ffi.GetGlobalFuncMetadata through the C ABI (runtime/tests/module_metadata.rs compares the
 * output of ffihub's runtime and of Apache's with a checked-in copy).
 */
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

int main(int argc, char** argv) {
  const char* getter_name = "ffi.GetGlobalFuncMetadata";
  TVMFFIByteArray getter_bytes = {getter_name, strlen(getter_name)};
  TVMFFIObjectHandle getter = NULL;
  if (TVMFFIFunctionGetGlobal(&getter_bytes, &getter) != 0 || getter == NULL) {
    fprintf(stderr, "no %s\n", getter_name);
    return 1;
  }
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    TVMFFIAny arg, rv;
    memset(&arg, 0, sizeof(arg));
    memset(&rv, 0, sizeof(rv));
    arg.type_index = kTVMFFIRawStr;
    arg.v_c_str = argv[i];
    if (TVMFFIFunctionCall(getter, &arg, 1, &rv) != 0) {
      TVMFFIObjectHandle err = NULL;
      TVMFFIErrorMoveFromRaised(&err);
      fprintf(stderr, "%s: lookup failed\n", argv[i]);
      TVMFFIObjectDecRef(err);
      status = 1;
      continue;
    }
    if (rv.type_index == kTVMFFISmallStr) {
      printf("%s\t%.*s\n", argv[i], (int)rv.small_str_len, rv.v_bytes);
    } else if (rv.type_index == kTVMFFIStr) {
      const TVMFFIByteArray* s = (const TVMFFIByteArray*)((char*)rv.v_obj + sizeof(TVMFFIObject));
      printf("%s\t%.*s\n", argv[i], (int)s->size, s->data);
      TVMFFIObjectDecRef(rv.v_obj);
    } else {
      fprintf(stderr, "%s: metadata is not a string (type %d)\n", argv[i], rv.type_index);
      status = 1;
    }
  }
  TVMFFIObjectDecRef(getter);
  return status;
}
