/*
 * Benchmark: operations on a 10,000-node tree of Maps, Arrays, strings and ints, through the C
 * API of whichever runtime the library path selects: the JSON graph round trip
 * (ffi.ToJSONGraphString + ffi.FromJSONGraphString) and each half, ffi.DeepCopy and
 * ffi.RecursiveHash. Prints the median ns of each, in that order, on one line.
 *   json_graph [rounds]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tvm/ffi/c_api.h>

static TVMFFIObjectHandle global(const char* name) {
  TVMFFIByteArray n = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0 || f == NULL) {
    fprintf(stderr, "missing global %s\n", name);
    exit(1);
  }
  return f;
}

static TVMFFIAny call(TVMFFIObjectHandle f, TVMFFIAny* args, int n) {
  TVMFFIAny out;
  memset(&out, 0, sizeof(out));
  if (TVMFFIFunctionCall(f, args, n, &out) != 0) {
    fprintf(stderr, "call failed\n");
    exit(1);
  }
  return out;
}

static TVMFFIAny int_any(int64_t v) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static TVMFFIAny str_any(const char* s) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

static void release(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(a->v_obj);
}

static TVMFFIObjectHandle f_array, f_map;
static int next_id = 0;

/* A Map {"id": int, "name": unique string, "kids": Array of subtrees}: 4 graph nodes each
 * (the map, its kids array, its name and its id), keys shared. */
static TVMFFIAny make_tree(int count) {
  int id = next_id++;
  int rest = count - 1;
  TVMFFIAny kids[4];
  int nkids = 0;
  for (int i = 0; i < 4 && rest > 0; ++i) {
    int share = (rest + (4 - i) - 1) / (4 - i);
    kids[nkids++] = make_tree(share);
    rest -= share;
  }
  TVMFFIAny kid_array = call(f_array, kids, nkids);
  for (int i = 0; i < nkids; ++i) release(&kids[i]);
  char name[32];
  snprintf(name, sizeof(name), "node number %d", id);
  TVMFFIAny map_args[6] = {str_any("id"), int_any(1000000 + id), str_any("name"), str_any(name),
                           str_any("kids"), kid_array};
  TVMFFIAny map = call(f_map, map_args, 6);
  release(&kid_array);
  return map;
}

static double now_ns(void) {
  struct timespec ts;
  /* CPU time of this thread: the machine is shared, and wall time would count the waits. */
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 30;
  f_array = global("ffi.Array");
  f_map = global("ffi.Map");
  TVMFFIObjectHandle to_string = global("ffi.ToJSONGraphString");
  TVMFFIObjectHandle from_string = global("ffi.FromJSONGraphString");
  TVMFFIObjectHandle deep_copy = global("ffi.DeepCopy");
  TVMFFIObjectHandle recursive_hash = global("ffi.RecursiveHash");
  /* 2,500 maps x 4 nodes = 10,000 graph nodes. */
  TVMFFIAny tree = make_tree(2500);
  enum { kOps = 5 };
  double* samples[kOps];
  for (int k = 0; k < kOps; ++k) samples[k] = malloc(sizeof(double) * (size_t)rounds);
  for (int i = -3; i < rounds; ++i) {
    TVMFFIAny none;
    memset(&none, 0, sizeof(none));
    TVMFFIAny args[2] = {tree, none};
    double t0 = now_ns();
    TVMFFIAny text = call(to_string, args, 2);
    double t1 = now_ns();
    TVMFFIAny back = call(from_string, &text, 1);
    double t2 = now_ns();
    TVMFFIAny copy = call(deep_copy, &tree, 1);
    double t3 = now_ns();
    TVMFFIAny hash = call(recursive_hash, &tree, 1);
    double t4 = now_ns();
    release(&text);
    release(&back);
    release(&copy);
    release(&hash);
    if (i >= 0) {
      samples[0][i] = t2 - t0;
      samples[1][i] = t1 - t0;
      samples[2][i] = t2 - t1;
      samples[3][i] = t3 - t2;
      samples[4][i] = t4 - t3;
    }
  }
  for (int k = 0; k < kOps; ++k) {
    qsort(samples[k], (size_t)rounds, sizeof(double), cmp_double);
    printf("%s%.0f", k ? " " : "", samples[k][rounds / 2]);
    free(samples[k]);
  }
  printf("\n");
  release(&tree);
  TVMFFIObjectHandle handles[] = {to_string, from_string, deep_copy, recursive_hash, f_array,
                                  f_map};
  for (size_t k = 0; k < sizeof(handles) / sizeof(handles[0]); ++k) {
    TVMFFIObjectDecRef(handles[k]);
  }
  return 0;
}
