/*
 * Benchmark (not a test): ffi.StructuralEqual and ffi.StructuralHash of a 10,000-node object
 * tree. The tree is a function `Lambda([x], body)` whose body is a balanced tree of `Add` nodes
 * over `Const` leaves and uses of the bound variable `x`; the types are defined from C through
 * the C API (tests/c/structural_types.h), so the same objects exist on every runtime. The binary
 * is linked with -ltvm_ffi without rpath: bench/structural/rows.sh runs it on each runtime by
 * swapping the library path. Prints `<operation> <best ns per call>` lines.
 *   structural <rounds>
 */
#define _POSIX_C_SOURCE 199309L
#include <time.h>

#include "../../tests/c/structural_types.h"

#define TREE_NODES 10000

static int32_t t_var, t_lambda, t_add, t_const;

static TVMFFIAny build(int nodes, const TVMFFIAny* x, int* leaf) {
  if (nodes <= 1) {
    int i = (*leaf)++;
    if (i % 3 == 0) {
      sx_retain(x);
      return *x;
    }
    TVMFFIAny v[1] = {sx_int(i)};
    return sx_new(t_const, 1, v);
  }
  int left = (nodes - 1) / 2;
  TVMFFIAny f[2] = {build(left, x, leaf), build(nodes - 1 - left, x, leaf)};
  return sx_new(t_add, 2, f);
}

/* Lambda([x], body): 1 + 1 (the params array) + 1 (x) + body nodes = TREE_NODES. */
static TVMFFIAny program(const char* name) {
  TVMFFIAny n[1] = {sx_str(name)};
  TVMFFIAny x = sx_new(t_var, 1, n);
  int leaf = 0;
  TVMFFIAny body = build(TREE_NODES - 3, &x, &leaf);
  TVMFFIAny params = sx_array("ffi.Array", &x, 1);
  TVMFFIAny f[2] = {params, body};
  return sx_new(t_lambda, 2, f);
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static TVMFFIAny flag(int v) {
  TVMFFIAny out = sx_int(v);
  out.type_index = kTVMFFIBool;
  return out;
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 30;
  const char* var_name[] = {"name"};
  const int64_t var_flags[] = {kTVMFFIFieldFlagBitMaskSEqHashIgnore};
  t_var = sx_register("bench.Var", 2, 1, var_name, var_flags);
  const char* lambda_fields[] = {"params", "body"};
  const int64_t lambda_flags[] = {kTVMFFIFieldFlagBitMaskSEqHashDefPattern, 0};
  t_lambda = sx_register("bench.Lambda", 1, 2, lambda_fields, lambda_flags);
  const char* add_fields[] = {"a", "b"};
  t_add = sx_register("bench.Add", 1, 2, add_fields, NULL);
  const char* value[] = {"value"};
  t_const = sx_register("bench.Const", 4, 1, value, NULL);

  TVMFFIAny a = program("x"), b = program("y");
  double best_eq = 1e30, best_hash = 1e30;
  for (int r = 0; r < rounds; ++r) {
    TVMFFIAny eq_args[4] = {a, b, flag(0), flag(0)};
    TVMFFIAny out;
    double t0 = now_ns();
    if (sx_call("ffi.StructuralEqual", eq_args, 4, &out) != 0 || out.v_int64 != 1) {
      sx_fatal("the two programs should be structurally equal");
    }
    double t1 = now_ns();
    TVMFFIAny hash_args[3] = {a, flag(0), flag(0)};
    if (sx_call("ffi.StructuralHash", hash_args, 3, &out) != 0) sx_fatal("StructuralHash");
    double t2 = now_ns();
    if (t1 - t0 < best_eq) best_eq = t1 - t0;
    if (t2 - t1 < best_hash) best_hash = t2 - t1;
  }
  printf("StructuralEqual %.0f\n", best_eq);
  printf("StructuralHash %.0f\n", best_hash);
  sx_release(&a);
  sx_release(&b);
  return 0;
}
