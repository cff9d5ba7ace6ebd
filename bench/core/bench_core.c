// Benchmark (not a test) of the runtime's C ABI: the same binary runs against ffihub's runtime and
// against Apache's (bench/core/rows.sh swaps the library path and alternates the two).
//
//   bench_core micro [scale [op]] one line per operation (or only `op`, for profiling):
//                                "<name>\t<ns per operation>", then "peak_rss_kib\t<KiB>" (the
//                                process's peak resident set)
//   bench_core map <entries> [padded]
//                                "<ns per entry>" of building a str->int Map with ffi.Map, keys
//                                "key-<i>" (or "key-<i, 10 digits>": their ABI-mandated string hashes
//                                collide often, so long chains of equal hashes dominate)
//
//   bench_core once <op> <n>     runs `op` (a micro operation, or map_1000 / map_1000_padded: one
//                                build of a 1000-entry map) n times after the setup, untimed,
//                                and prints nothing: bench/core/instructions.sh runs it under
//                                callgrind for instructions per operation
//
//   bench_core touch <MiB>       "<ns per 4 KiB page>" of the first write to each page of a fresh
//                                block (what the kernel charges for memory a build must write;
//                                no runtime call)
//
//   bench_core calls <lib> <function> <lib> <function>
//                                "<function>\t<ns per call>" for each: two extension libraries'
//                                (int) -> int functions, called with TVMFFIFunctionCall in
//                                alternated batches (e.g. a #[ffihub::function] against Apache's
//                                C++ testing.add_one, on the same runtime)
//
// Each operation runs in several timed batches; the median batch is reported.
#define _GNU_SOURCE
#include <tvm/ffi/c_api.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static volatile int64_t g_sink;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char* what) {
  fprintf(stderr, "bench_core: %s failed\n", what);
  exit(1);
}

static TVMFFIObjectHandle global(const char* name) {
  TVMFFIByteArray b = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&b, &f) != 0 || f == NULL) die(name);
  return f;
}

static TVMFFIAny any_int(int64_t v) {
  TVMFFIAny a;
  memset(&a, 0, sizeof a);
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static TVMFFIAny any_cstr(const char* s) {
  TVMFFIAny a;
  memset(&a, 0, sizeof a);
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

static void release(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
}

// Calls f(args) and returns the result, which the caller owns.
static TVMFFIAny call(TVMFFIObjectHandle f, const TVMFFIAny* args, int n) {
  TVMFFIAny out;
  memset(&out, 0, sizeof out);
  if (TVMFFIFunctionCall(f, (TVMFFIAny*)args, n, &out) != 0) die("call");
  return out;
}

static int32_t noop_safe_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  (void)args;
  (void)n;
  result->type_index = kTVMFFINone;
  result->v_int64 = 0;
  return 0;
}

// ---- the operations: each runs `n` times --------------------------------------------------------

static TVMFFIObjectHandle f_array, f_array_size, f_array_get, f_map, f_map_get, f_noop, f_callback;
static TVMFFIAny g_array, g_int_map, g_str_map;
static char g_string32[33] = "0123456789abcdef0123456789abcdef";

static void op_plain_call(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny r = call(f_noop, NULL, 0);
    g_sink += r.type_index;
  }
}

// A callback as the bindings make them: a `self` with a deleter (the runtime's re-entry guard
// runs before each call).
static void op_callback_call(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny r = call(f_callback, NULL, 0);
    g_sink += r.type_index;
  }
}

static void noop_deleter(void* self) { (void)self; }

static void op_refcount(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIObjectIncRef(g_array.v_obj);
    TVMFFIObjectDecRef(g_array.v_obj);
  }
}

static void op_global_lookup(int64_t n) {
  TVMFFIByteArray name = {"ffi.ArraySize", 13};
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIObjectHandle f;
    if (TVMFFIFunctionGetGlobal(&name, &f) != 0) die("lookup");
    TVMFFIObjectDecRef(f);
  }
}

static void op_type_key_lookup(int64_t n) {
  TVMFFIByteArray key = {"ffi.Array", 9};
  for (int64_t i = 0; i < n; ++i) {
    int32_t index;
    if (TVMFFITypeKeyToIndex(&key, &index) != 0) die("type key");
    g_sink += index;
  }
}

static void op_array_size(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny r = call(f_array_size, &g_array, 1);
    g_sink += r.v_int64;
  }
}

static void op_array_get(int64_t n) {
  TVMFFIAny args[2] = {g_array, any_int(3)};
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny r = call(f_array_get, args, 2);
    g_sink += r.v_int64;
  }
}

static void op_map_get_int(int64_t n) {
  TVMFFIAny args[2] = {g_int_map, any_int(7)};
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny r = call(f_map_get, args, 2);
    g_sink += r.v_int64;
  }
}

static void op_map_get_str(int64_t n) {
  TVMFFIAny args[2] = {g_str_map, any_cstr("key7")};
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny r = call(f_map_get, args, 2);
    g_sink += r.v_int64;
  }
}

static void op_function_create(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIObjectHandle f;
    if (TVMFFIFunctionCreate(NULL, noop_safe_call, NULL, &f) != 0) die("create");
    TVMFFIObjectDecRef(f);
  }
}

static void op_string32(int64_t n) {
  TVMFFIByteArray bytes = {g_string32, 32};
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny s;
    if (TVMFFIStringFromByteArray(&bytes, &s) != 0) die("string");
    release(&s);
  }
}

static void op_raise_fetch(int64_t n) {
  TVMFFIAny args[2] = {g_array, any_int(1000000)};
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny out;
    memset(&out, 0, sizeof out);
    if (TVMFFIFunctionCall(f_array_get, args, 2, &out) == 0) die("expected an error");
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (err == NULL) die("fetch");
    // Read the backtrace as a host reporting the error would.
    TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
    g_sink += (int64_t)cell->backtrace.size + (cell->backtrace.size ? cell->backtrace.data[0] : 0);
    TVMFFIObjectDecRef(err);
  }
}

static TVMFFIAny g_ints[1000];

static void op_array_1000(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny r = call(f_array, g_ints, 1000);
    release(&r);
  }
}

struct op {
  const char* name;
  void (*run)(int64_t);
  int64_t iterations;  // per batch, at scale 1
};

static const struct op OPS[] = {
    {"plain_call", op_plain_call, 200000},
    {"callback_call", op_callback_call, 200000},
    {"refcount", op_refcount, 1000000},
    {"global_lookup", op_global_lookup, 200000},
    {"type_key_lookup", op_type_key_lookup, 200000},
    {"array_size", op_array_size, 200000},
    {"array_get_item", op_array_get, 200000},
    {"map_get_item_int", op_map_get_int, 200000},
    {"map_get_item_str", op_map_get_str, 200000},
    {"function_create_release", op_function_create, 200000},
    {"string32_create_release", op_string32, 200000},
    {"raise_fetch_error", op_raise_fetch, 400},
    {"array_of_1000_ints", op_array_1000, 400},
};

static int compare_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void setup(void) {
  f_array = global("ffi.Array");
  f_array_size = global("ffi.ArraySize");
  f_array_get = global("ffi.ArrayGetItem");
  f_map = global("ffi.Map");
  f_map_get = global("ffi.MapGetItem");
  if (TVMFFIFunctionCreate(NULL, noop_safe_call, NULL, &f_noop) != 0) die("create");
  if (TVMFFIFunctionCreate(g_string32, noop_safe_call, noop_deleter, &f_callback) != 0) die("create");
  for (int i = 0; i < 1000; ++i) g_ints[i] = any_int(i);
  g_array = call(f_array, g_ints, 16);
  static char keys[16][8];
  TVMFFIAny int_pairs[32], str_pairs[32];
  for (int i = 0; i < 16; ++i) {
    snprintf(keys[i], sizeof keys[i], "key%d", i);
    int_pairs[2 * i] = any_int(i);
    int_pairs[2 * i + 1] = any_int(i);
    str_pairs[2 * i] = any_cstr(keys[i]);
    str_pairs[2 * i + 1] = any_int(i);
  }
  g_int_map = call(f_map, int_pairs, 32);
  g_str_map = call(f_map, str_pairs, 32);
}

static void run_micro(double scale, const char* only) {
  setup();
  enum { BATCHES = 7 };
  for (size_t k = 0; k < sizeof OPS / sizeof OPS[0]; ++k) {
    if (only != NULL && strcmp(only, OPS[k].name) != 0) continue;
    int64_t n = (int64_t)(OPS[k].iterations * scale);
    if (n < 1) n = 1;
    OPS[k].run(n / 10 + 1);  // warm up
    double times[BATCHES];
    for (int b = 0; b < BATCHES; ++b) {
      double start = now_ns();
      OPS[k].run(n);
      times[b] = (now_ns() - start) / (double)n;
    }
    qsort(times, BATCHES, sizeof times[0], compare_double);
    printf("%s\t%.3f\n", OPS[k].name, times[BATCHES / 2]);
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("peak_rss_kib\t%ld\n", usage.ru_maxrss);
}

// The pairs of a str->int map with `entries` keys "key-<i>" (or "key-<i, 10 digits>"); keys
// longer than a small string (from 1000 on) are String objects on both runtimes. Never freed.
static TVMFFIAny* map_pairs(int64_t entries, int padded) {
  char* key_bytes = malloc((size_t)entries * 24);
  TVMFFIAny* pairs = malloc(sizeof(TVMFFIAny) * 2 * (size_t)entries);
  if (key_bytes == NULL || pairs == NULL) die("malloc");
  for (int64_t i = 0; i < entries; ++i) {
    char* key = key_bytes + 24 * i;
    snprintf(key, 24, padded ? "key-%010lld" : "key-%lld", (long long)i);
    pairs[2 * i] = any_cstr(key);
    pairs[2 * i + 1] = any_int(i);
  }
  return pairs;
}

static void run_map(int64_t entries, int padded) {
  f_map = global("ffi.Map");
  TVMFFIAny* pairs = map_pairs(entries, padded);
  // Enough builds for a stable median at small sizes, one at 1e6.
  int builds = entries >= 100000 ? 1 : (int)(2000000 / entries);
  if (builds > 15) builds = 15;
  double best[15];
  for (int b = 0; b < builds; ++b) {
    double start = now_ns();
    TVMFFIAny map = call(f_map, pairs, (int)(2 * entries));
    best[b] = (now_ns() - start) / (double)entries;
    release(&map);
  }
  qsort(best, (size_t)builds, sizeof best[0], compare_double);
  printf("%.3f\n", best[builds / 2]);
}

static TVMFFIAny* g_map_pairs[2];

static void op_map_1000(int64_t n, int padded) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny map = call(f_map, g_map_pairs[padded], 2000);
    release(&map);
  }
}
static void op_map_1000_plain(int64_t n) { op_map_1000(n, 0); }
static void op_map_1000_padded(int64_t n) { op_map_1000(n, 1); }

// `op` run `n` times after the setup, untimed.
static void run_once(const char* name, int64_t n) {
  static const struct op MAPS[] = {
      {"map_1000", op_map_1000_plain, 0},
      {"map_1000_padded", op_map_1000_padded, 0},
  };
  setup();
  g_map_pairs[0] = map_pairs(1000, 0);
  g_map_pairs[1] = map_pairs(1000, 1);
  void (*run)(int64_t) = NULL;
  for (size_t k = 0; k < sizeof OPS / sizeof OPS[0]; ++k) {
    if (strcmp(name, OPS[k].name) == 0) run = OPS[k].run;
  }
  for (size_t k = 0; k < sizeof MAPS / sizeof MAPS[0]; ++k) {
    if (strcmp(name, MAPS[k].name) == 0) run = MAPS[k].run;
  }
  if (run == NULL) {
    fprintf(stderr, "bench_core: no operation `%s`\n", name);
    exit(2);
  }
  run(n);
}

static void run_touch(int64_t mib) {
  size_t bytes = (size_t)mib << 20;
  volatile char* block = malloc(bytes);
  if (block == NULL) die("malloc");
  double start = now_ns();
  for (size_t i = 0; i < bytes; i += 4096) block[i] = 1;
  printf("%.3f\n", (now_ns() - start) / (double)(bytes / 4096));
  free((void*)block);
}

static TVMFFIObjectHandle g_callee;

static void op_call_int(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny arg = any_int(i);
    TVMFFIAny r = call(g_callee, &arg, 1);
    g_sink += r.v_int64;
  }
}

static void run_calls(char** specs) {
  enum { BATCHES = 9, N = 1000000 };
  TVMFFIObjectHandle fs[2];
  for (int k = 0; k < 2; ++k) {
    if (dlopen(specs[2 * k], RTLD_NOW | RTLD_GLOBAL) == NULL) die(dlerror());
    fs[k] = global(specs[2 * k + 1]);
  }
  double times[2][BATCHES];
  for (int b = 0; b < BATCHES; ++b) {
    for (int k = 0; k < 2; ++k) {
      g_callee = fs[k];
      op_call_int(N / 10);
      double start = now_ns();
      op_call_int(N);
      times[k][b] = (now_ns() - start) / N;
    }
  }
  for (int k = 0; k < 2; ++k) {
    qsort(times[k], BATCHES, sizeof times[k][0], compare_double);
    printf("%s\t%.3f\n", specs[2 * k + 1], times[k][BATCHES / 2]);
  }
}

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "micro") == 0) {
    run_micro(argc >= 3 ? atof(argv[2]) : 1.0, argc >= 4 ? argv[3] : NULL);
  } else if (argc >= 6 && strcmp(argv[1], "calls") == 0) {
    run_calls(argv + 2);
  } else if (argc >= 4 && strcmp(argv[1], "once") == 0) {
    run_once(argv[2], atoll(argv[3]));
  } else if (argc >= 3 && strcmp(argv[1], "touch") == 0) {
    run_touch(atoll(argv[2]));
  } else if (argc >= 3 && strcmp(argv[1], "map") == 0) {
    run_map(atoll(argv[2]), argc >= 4 && strcmp(argv[3], "padded") == 0);
  } else {
    fprintf(stderr, "usage: %s micro [scale [op]] | map <entries> [padded] | once <op> <n> | touch <MiB> | calls <lib> <f> <lib> <f>\n", argv[0]);
    return 2;
  }
  return 0;
}
