/*
 * A C host of the demo extension: loads libffihub_demo.so with dlopen (its load-time
 * registration runs), calls demo functions that fail, and checks that each error reaches C
 * with its kind, its message, and a backtrace holding Rust frames of the demo's source.
 *
 * usage: raise_error <path to libffihub_demo.so>; prints "OK" and exits 0 on success.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

static int failures = 0;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "check failed: %s: ", #cond);        \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      failures++;                                          \
    }                                                      \
  } while (0)

static TVMFFIObjectHandle get_global(const char* name) {
  TVMFFIByteArray bytes = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&bytes, &f) != 0 || f == NULL) {
    fprintf(stderr, "global %s is not registered\n", name);
    return NULL;
  }
  return f;
}

static TVMFFIAny raw_str(const char* s) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

/* Calls `name` with `args`, expecting failure; checks the raised error. */
static void expect_error(const char* name, TVMFFIAny* args, int n, const char* kind,
                         const char* message_part, const char* frame_part) {
  TVMFFIObjectHandle f = get_global(name);
  if (f == NULL) {
    failures++;
    return;
  }
  TVMFFIAny rv;
  memset(&rv, 0, sizeof(rv));
  int rc = TVMFFIFunctionCall(f, args, n, &rv);
  CHECK(rc == -1, "%s returned %d", name, rc);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  CHECK(err != NULL, "%s raised no error", name);
  if (err != NULL) {
    TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
    printf("%s -> %.*s: %.*s\n%.*s", name, (int)cell->kind.size, cell->kind.data,
           (int)cell->message.size, cell->message.data, (int)cell->backtrace.size,
           cell->backtrace.data);
    CHECK(cell->kind.size == strlen(kind) && memcmp(cell->kind.data, kind, cell->kind.size) == 0,
          "%s: kind %.*s, expected %s", name, (int)cell->kind.size, cell->kind.data, kind);
    char message[512] = {0};
    memcpy(message, cell->message.data,
           cell->message.size < sizeof(message) - 1 ? cell->message.size : sizeof(message) - 1);
    CHECK(strstr(message, message_part) != NULL, "%s: message '%s' lacks '%s'", name, message,
          message_part);
    char backtrace[16384] = {0};
    memcpy(backtrace, cell->backtrace.data,
           cell->backtrace.size < sizeof(backtrace) - 1 ? cell->backtrace.size
                                                         : sizeof(backtrace) - 1);
    CHECK(strstr(backtrace, "  File \"") != NULL, "%s: backtrace is not in TVM-FFI's form", name);
    CHECK(strstr(backtrace, frame_part) != NULL, "%s: backtrace lacks '%s'", name, frame_part);
    TVMFFIObjectDecRef(err);
  }
  TVMFFIObjectDecRef(f);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <libffihub_demo.so>\n", argv[0]);
    return 2;
  }
  if (dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }

  /* A successful call first. */
  TVMFFIObjectHandle add_one = get_global("demo.add_one");
  if (add_one == NULL) return 1;
  TVMFFIAny arg;
  memset(&arg, 0, sizeof(arg));
  arg.type_index = kTVMFFIInt;
  arg.v_int64 = 41;
  TVMFFIAny rv;
  memset(&rv, 0, sizeof(rv));
  CHECK(TVMFFIFunctionCall(add_one, &arg, 1, &rv) == 0, "demo.add_one failed");
  CHECK(rv.type_index == kTVMFFIInt && rv.v_int64 == 42, "demo.add_one(41) != 42");
  TVMFFIObjectDecRef(add_one);

  const char* kinds[] = {"ValueError", "TypeError", "IndexError", "KeyError", "RuntimeError"};
  for (int i = 0; i < 5; i++) {
    TVMFFIAny args[2] = {raw_str(kinds[i]), raw_str("raised for a C caller")};
    expect_error("demo.raise_error", args, 2, kinds[i], "raised for a C caller",
                 "examples/demo/src/errors.rs\", line ");
  }
  TVMFFIAny key_args[2];
  memset(key_args, 0, sizeof(key_args));
  /* KeyError from a real lookup: demo.map_get on a map without the key. */
  TVMFFIObjectHandle make_map = get_global("ffi.Map");
  if (make_map != NULL) {
    TVMFFIAny map;
    memset(&map, 0, sizeof(map));
    CHECK(TVMFFIFunctionCall(make_map, NULL, 0, &map) == 0, "ffi.Map() failed");
    key_args[0] = map;
    key_args[1] = raw_str("missing");
    expect_error("demo.map_get", key_args, 2, "KeyError", "key `missing` is not in the map",
                 "in ffihub_demo::containers::map_get");
    TVMFFIObjectDecRef(map.v_obj);
    TVMFFIObjectDecRef(make_map);
  }
  TVMFFIAny panic_arg = raw_str("panicking on purpose");
  expect_error("demo.panic", &panic_arg, 1, "InternalError", "panicking on purpose", "File \"");
  TVMFFIAny bad = raw_str("not an int");
  expect_error("demo.add_one", &bad, 1, "TypeError",
               "Mismatched type on argument #0 when calling: `demo.add_one(0: int) -> int`",
               "File \"");

  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("OK\n");
  return 0;
}
