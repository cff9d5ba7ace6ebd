/*
 * JSON text and JSON object graphs through the C API, on whichever runtime the library path
 * selects (tests/conformance/json_graph.rs drives it on Apache's runtime and on ours).
 *
 *   json_graph <testing-lib> write          print the graph of a mixed value (containers,
 *                                            scalars, shared nodes, testing.* objects, BigInt)
 *   json_graph <testing-lib> read <file>    read a graph, print it written again
 *   json_graph <testing-lib> json           ffi.json.Parse / ffi.json.Stringify on documents,
 *                                            valid and invalid: print each outcome (and the
 *                                            ffi.BigInt type attributes these globals use)
 *   json_graph <testing-lib> bad            hostile input (truncated, invalid, 100,000 levels
 *                                            deep, cyclic) to ffi.json.Parse and
 *                                            ffi.FromJSONGraph(String): each must raise
 *                                            ValueError (only run on runtimes that survive it)
 *
 * Every mode prints one line per result, failed checks as "FAIL ...", and last the line
 * "PASSED: 0 check(s) failed" when nothing failed.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

static int failures = 0;

static TVMFFIAny none_any(void) {
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  return v;
}

static TVMFFIAny int_any(int64_t x) {
  TVMFFIAny v = none_any();
  v.type_index = kTVMFFIInt;
  v.v_int64 = x;
  return v;
}

static TVMFFIAny bool_any(int x) {
  TVMFFIAny v = none_any();
  v.type_index = kTVMFFIBool;
  v.v_int64 = x != 0;
  return v;
}

static TVMFFIAny float_any(double x) {
  TVMFFIAny v = none_any();
  v.type_index = kTVMFFIFloat;
  v.v_float64 = x;
  return v;
}

static TVMFFIAny cstr_any(const char* s) {
  TVMFFIAny v = none_any();
  v.type_index = kTVMFFIRawStr;
  v.v_c_str = s;
  return v;
}

static void release(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
  *v = none_any();
}

/* The bytes of a String value (small or heap). */
static TVMFFIByteArray str_of(const TVMFFIAny* v) {
  TVMFFIByteArray out = {"", 0};
  if (v->type_index == kTVMFFISmallStr) {
    out.data = v->v_bytes;
    out.size = v->small_str_len;
  } else if (v->type_index == kTVMFFIStr) {
    out = *(TVMFFIByteArray*)((char*)v->v_obj + sizeof(TVMFFIObject));
  }
  return out;
}

/* Prints "<Kind>: <message>" of the raised error and clears it. */
static void print_raised(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL) {
    printf("<no error raised>");
    return;
  }
  TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
  printf("%.*s: %.*s", (int)cell->kind.size, cell->kind.data, (int)cell->message.size,
         cell->message.data);
  TVMFFIObjectDecRef(err);
}

/* The kind of the raised error (cleared), in `kind`. */
static void take_raised_kind(char* kind, size_t cap) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL) {
    snprintf(kind, cap, "<none>");
    return;
  }
  TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
  snprintf(kind, cap, "%.*s", (int)cell->kind.size, cell->kind.data);
  TVMFFIObjectDecRef(err);
}

static TVMFFIObjectHandle global(const char* name) {
  TVMFFIByteArray n = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0 || f == NULL) {
    printf("FAIL global %s is missing\n", name);
    exit(1);
  }
  return f;
}

/* Calls global `name`; on error prints it (prefixed by `what`) and returns -1. */
static int call(const char* name, TVMFFIAny* args, int n, TVMFFIAny* out) {
  TVMFFIObjectHandle f = global(name);
  *out = none_any();
  int rc = TVMFFIFunctionCall(f, args, n, out);
  TVMFFIObjectDecRef(f);
  return rc;
}

/* Calls global `name` and fails the program if it raises. */
static TVMFFIAny must_call(const char* name, TVMFFIAny* args, int n) {
  TVMFFIAny out;
  if (call(name, args, n, &out) != 0) {
    printf("FAIL %s raised ", name);
    print_raised();
    printf("\n");
    exit(1);
  }
  return out;
}

static TVMFFIAny make_bytes(const char* data, size_t size) {
  TVMFFIByteArray b = {data, size};
  TVMFFIAny out = none_any();
  TVMFFIBytesFromByteArray(&b, &out);
  return out;
}

static TVMFFIAny make_bigint(const int64_t* words, size_t n) {
  TVMFFIByteArray b = {(const char*)words, n * 8};
  TVMFFIAny out = none_any();
  TVMFFIBigIntFromByteArray(&b, &out);
  return out;
}

/* The mixed value whose graph the `write` mode prints. */
static TVMFFIAny build_value(void) {
  TVMFFIAny shared_str = cstr_any("a string long enough to live on the heap");
  TVMFFIAny shared_owned;
  TVMFFIAnyViewToOwnedAny(&shared_str, &shared_owned);
  TVMFFIAny inner_args[3] = {int_any(1), int_any(2), shared_owned};
  TVMFFIAny inner = must_call("ffi.Array", inner_args, 3);
  TVMFFIAny shape_args[3] = {int_any(2), int_any(3), int_any(-1)};
  TVMFFIAny shape = must_call("ffi.Shape", shape_args, 3);
  TVMFFIAny map_args[6] = {cstr_any("x"), int_any(10), cstr_any("inner"), inner,
                           cstr_any("pi"), float_any(3.25)};
  TVMFFIAny map = must_call("ffi.Map", map_args, 6);
  TVMFFIAny dict_args[4] = {int_any(7), cstr_any("seven"), cstr_any("shape"), shape};
  TVMFFIAny dict = must_call("ffi.Dict", dict_args, 4);
  TVMFFIAny list_args[3] = {inner, float_any(-0.0), float_any(0.1)};
  TVMFFIAny list = must_call("ffi.List", list_args, 3);
  TVMFFIAny pair_args[5] = {cstr_any("testing.TestIntPair"), cstr_any("a"),
                            int_any(INT64_MIN), cstr_any("b"), int_any(INT64_MAX)};
  TVMFFIAny pair = must_call("ffi.MakeObjectFromPackedArgs", pair_args, 5);
  TVMFFIAny derived_args[11] = {cstr_any("testing.TestObjectDerived"),
                                cstr_any("v_i64"), int_any(42),
                                cstr_any("v_f64"), float_any(1e300),
                                cstr_any("v_str"), shared_owned,
                                cstr_any("v_map"), map,
                                cstr_any("v_array"), inner};
  TVMFFIAny derived = must_call("ffi.MakeObjectFromPackedArgs", derived_args, 11);
  int64_t big_words[3] = {5, 0, 1};
  TVMFFIAny big = make_bigint(big_words, 3);
  int64_t neg_words[2] = {0, -2};
  TVMFFIAny neg_big = make_bigint(neg_words, 2);
  TVMFFIAny bytes = make_bytes("\x00\x01\xff json /\"", 11);
  TVMFFIAny dtype = none_any();
  dtype.type_index = kTVMFFIDataType;
  dtype.v_dtype.code = kDLFloat;
  dtype.v_dtype.bits = 16;
  dtype.v_dtype.lanes = 4;
  TVMFFIAny device = none_any();
  device.type_index = kTVMFFIDevice;
  device.v_device.device_type = kDLCUDA;
  device.v_device.device_id = 3;
  TVMFFIAny flag = none_any();
  flag.type_index = kTVMFFIBool;
  flag.v_int64 = 1;
  TVMFFIAny root_args[15] = {inner, inner, map, dict, list, pair, derived, big, neg_big,
                             bytes, dtype, device, flag, none_any(), cstr_any("tab\tand\xc3\xa9")};
  TVMFFIAny root = must_call("ffi.Array", root_args, 15);
  TVMFFIAny* owned[] = {&shared_owned, &inner, &shape, &map, &dict, &list, &pair,
                        &derived, &big, &neg_big, &bytes};
  for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); ++i) release(owned[i]);
  return root;
}

static void print_line(const char* label, const TVMFFIAny* text) {
  TVMFFIByteArray s = str_of(text);
  printf("%s %.*s\n", label, (int)s.size, s.data);
}

static void mode_write(void) {
  TVMFFIAny root = build_value();
  TVMFFIAny meta_args[2] = {cstr_any("writer"), cstr_any("json_graph.c")};
  TVMFFIAny metadata = must_call("ffi.Map", meta_args, 2);
  TVMFFIAny args[2] = {root, metadata};
  TVMFFIAny text = must_call("ffi.ToJSONGraphString", args, 2);
  print_line("graph", &text);
  /* The value form prints the same text. */
  TVMFFIAny graph = must_call("ffi.ToJSONGraph", args, 2);
  TVMFFIAny stringify_args[2] = {graph, none_any()};
  TVMFFIAny text2 = must_call("ffi.json.Stringify", stringify_args, 2);
  TVMFFIByteArray a = str_of(&text), b = str_of(&text2);
  if (a.size != b.size || memcmp(a.data, b.data, a.size) != 0) {
    printf("FAIL Stringify(ToJSONGraph(x)) differs from ToJSONGraphString(x)\n");
    failures++;
  } else {
    printf("ok Stringify(ToJSONGraph(x)) == ToJSONGraphString(x)\n");
  }
  /* A round trip through the graph keeps the value: written again, the same graph. */
  TVMFFIAny from_args[1] = {text};
  TVMFFIAny back = must_call("ffi.FromJSONGraphString", from_args, 1);
  TVMFFIAny again_args[2] = {back, metadata};
  TVMFFIAny again = must_call("ffi.ToJSONGraphString", again_args, 2);
  TVMFFIByteArray c = str_of(&again);
  if (a.size != c.size || memcmp(a.data, c.data, a.size) != 0) {
    printf("FAIL the graph read back writes a different graph\n");
    print_line("again", &again);
    failures++;
  } else {
    printf("ok the graph read back writes the same graph\n");
  }
  /* Recursive hashing gives the same value on every runtime. */
  TVMFFIAny hash_args[1] = {root};
  TVMFFIAny hash = must_call("ffi.RecursiveHash", hash_args, 1);
  printf("recursive_hash %lld\n", (long long)hash.v_int64);
  /* A deep copy is equal, hashes alike, and has the same graph (sharing kept). */
  TVMFFIAny copy_args[1] = {root};
  TVMFFIAny copy = must_call("ffi.DeepCopy", copy_args, 1);
  TVMFFIAny eq_args[2] = {root, copy};
  TVMFFIAny eq = must_call("ffi.RecursiveEq", eq_args, 2);
  TVMFFIAny copy_hash_args[1] = {copy};
  TVMFFIAny copy_hash = must_call("ffi.RecursiveHash", copy_hash_args, 1);
  TVMFFIAny copy_text_args[2] = {copy, metadata};
  TVMFFIAny copy_text = must_call("ffi.ToJSONGraphString", copy_text_args, 2);
  TVMFFIByteArray d = str_of(&copy_text);
  if (copy.v_obj == root.v_obj || !eq.v_int64 || copy_hash.v_int64 != hash.v_int64 ||
      d.size != a.size || memcmp(d.data, a.data, a.size) != 0) {
    printf("FAIL the deep copy is not an equal, separate value with the same graph\n");
    failures++;
  } else {
    printf("ok the deep copy is an equal, separate value with the same graph\n");
  }
  TVMFFIAny* owned[] = {&root, &metadata, &text, &graph, &text2, &back, &again, &copy, &copy_text};
  for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); ++i) release(owned[i]);
}

static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    printf("FAIL cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* data = malloc((size_t)n + 1);
  *size = fread(data, 1, (size_t)n, f);
  data[*size] = 0;
  fclose(f);
  return data;
}

static void mode_read(const char* path) {
  size_t size;
  char* data = read_file(path, &size);
  TVMFFIByteArray b = {data, size};
  TVMFFIAny text;
  TVMFFIStringFromByteArray(&b, &text);
  free(data);
  /* The metadata travels in the text, not in the value: read it with json.Parse. */
  TVMFFIAny parse_args[1] = {text};
  TVMFFIAny doc = must_call("ffi.json.Parse", parse_args, 1);
  TVMFFIAny key = cstr_any("metadata");
  TVMFFIAny get_args[3] = {doc, key, none_any()};
  TVMFFIAny metadata = must_call("ffi.MapGetItemOrMissing", get_args, 2);
  TVMFFIAny from_args[1] = {text};
  TVMFFIAny value = must_call("ffi.FromJSONGraphString", from_args, 1);
  TVMFFIAny to_args[2] = {value, metadata};
  TVMFFIAny again = must_call("ffi.ToJSONGraphString", to_args, 2);
  print_line("graph", &again);
  /* The value form reads the same graph. */
  TVMFFIAny from_value_args[1] = {doc};
  TVMFFIAny value2 = must_call("ffi.FromJSONGraph", from_value_args, 1);
  TVMFFIAny eq_args[2] = {value, value2};
  TVMFFIAny eq = must_call("ffi.RecursiveEq", eq_args, 2);
  if (eq.type_index == kTVMFFIBool && eq.v_int64) {
    printf("ok FromJSONGraph(Parse(s)) equals FromJSONGraphString(s)\n");
  } else {
    printf("FAIL FromJSONGraph(Parse(s)) differs from FromJSONGraphString(s)\n");
    failures++;
  }
  /* The value read equals the same value built by this runtime: RecursiveEq as a whole, and
   * StructuralEqual element by element (the testing objects at 5 and 6 declare no structural
   * equality kind, so StructuralEqual rejects them on both runtimes). */
  TVMFFIAny expected = build_value();
  TVMFFIAny req_args[2] = {value, expected};
  TVMFFIAny req = must_call("ffi.RecursiveEq", req_args, 2);
  int same = req.type_index == kTVMFFIBool && req.v_int64;
  TVMFFIAny size_args[1] = {value};
  TVMFFIAny count = must_call("ffi.ArraySize", size_args, 1);
  for (int64_t i = 0; i < count.v_int64; ++i) {
    if (i == 5 || i == 6) continue;
    TVMFFIAny get_read[2] = {value, int_any(i)}, get_expected[2] = {expected, int_any(i)};
    TVMFFIAny a = must_call("ffi.ArrayGetItem", get_read, 2);
    TVMFFIAny b = must_call("ffi.ArrayGetItem", get_expected, 2);
    TVMFFIAny seq_args[4] = {a, b, bool_any(0), bool_any(0)};
    TVMFFIAny seq = must_call("ffi.StructuralEqual", seq_args, 4);
    same = same && seq.type_index == kTVMFFIBool && seq.v_int64;
    release(&a);
    release(&b);
  }
  if (same) {
    printf("ok the graph read equals the value built here (RecursiveEq, StructuralEqual)\n");
  } else {
    printf("FAIL the graph read differs from the value built here\n");
    failures++;
  }
  TVMFFIAny* owned[] = {&text, &doc, &metadata, &value, &again, &value2, &expected};
  for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); ++i) release(owned[i]);
}

/* Documents for the `json` mode: every outcome is printed, errors included. */
static const char* kDocs[] = {
    "null", "true", "false", "0", "-0", "42", "-9223372036854775808", "9223372036854775807",
    "9223372036854775808", "-9223372036854775809", "1.5", "-0.0", "0.1", "1e300", "1E-5",
    "2.5e+3", "1e400", "1e-400", "NaN", "Infinity", "-Infinity", "+5", "007", "\"\"",
    "\"plain\"", "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\"\\u00e9\\u4e2d\\ud83d\\ude00\"",
    "\"\\u0000nul\"", "[]", "{}", "[1, [2, [3, []]], {\"a\": {\"b\": null}}]",
    "{\"k\": 1, \"k\": 2, \"j\": [true, false]}", "  {\n  \"x\" : [ 1 , 2 ]\n}  ",
    /* invalid */
    "", "   ", "[", "[1,", "[1,]", "[1 2]", "{", "{\"a\"", "{\"a\":", "{\"a\":1,}", "{1: 2}",
    "{\"a\" 1}", "tru", "nul", "falsey", "\"unterminated", "\"bad \\x escape\"",
    "\"bad \\u12 escape\"", "\"lone \\udc00\"", "\"pair \\ud800\\u0041\"", "\"ctrl \x01\"", "1 2",
    "[1]]", "-", "--1", "1.2.3", "1e", ".5", "Inf", "-Inf", "NaNa", "[\n1,\n2\n,]",
};

/* The type attributes of ffi.BigInt that JSON graphs and recursive comparison use. */
static void print_bigint_attrs(void) {
  const char* columns[] = {"__data_to_json__", "__data_from_json__", "__ffi_hash__",
                           "__ffi_eq__", "__ffi_compare__"};
  for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); ++i) {
    TVMFFIByteArray name = {columns[i], strlen(columns[i])};
    const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name);
    int32_t entry = -1;
    if (column != NULL && kTVMFFIBigInt >= column->begin_index &&
        kTVMFFIBigInt - column->begin_index < (int32_t)column->size) {
      entry = column->data[kTVMFFIBigInt - column->begin_index].type_index;
    }
    printf("ffi.BigInt %s: entry of type index %d\n", columns[i], (int)entry);
  }
}

static void mode_json(void) {
  print_bigint_attrs();
  for (size_t i = 0; i < sizeof(kDocs) / sizeof(kDocs[0]); ++i) {
    TVMFFIAny args[1] = {cstr_any(kDocs[i])};
    TVMFFIAny value;
    printf("doc %zu: ", i);
    if (call("ffi.json.Parse", args, 1, &value) != 0) {
      printf("error ");
      print_raised();
      printf("\n");
      continue;
    }
    for (int indent = 0; indent <= 2; indent += 2) {
      TVMFFIAny sargs[2] = {value, indent ? int_any(indent) : none_any()};
      TVMFFIAny text;
      if (call("ffi.json.Stringify", sargs, 2, &text) != 0) {
        printf("stringify error ");
        print_raised();
        continue;
      }
      TVMFFIByteArray s = str_of(&text);
      printf("%s%.*s", indent ? " | " : "", (int)s.size, s.data);
      release(&text);
    }
    printf("\n");
    release(&value);
  }
  /* A raw C string argument is a string. */
  TVMFFIAny raw_args[2] = {cstr_any("raw \"C\" string"), none_any()};
  TVMFFIAny raw_text = must_call("ffi.json.Stringify", raw_args, 2);
  print_line("raw C string:", &raw_text);
  release(&raw_text);
  /* Values Stringify refuses. */
  TVMFFIAny dict = must_call("ffi.Dict", NULL, 0);
  TVMFFIAny bad_key_args[2] = {int_any(1), int_any(2)};
  TVMFFIAny bad_key = must_call("ffi.Map", bad_key_args, 2);
  TVMFFIAny bad[2] = {dict, bad_key};
  for (int i = 0; i < 2; ++i) {
    TVMFFIAny sargs[2] = {bad[i], none_any()};
    TVMFFIAny text;
    printf("stringify refused %d: ", i);
    if (call("ffi.json.Stringify", sargs, 2, &text) != 0) {
      print_raised();
    } else {
      printf("FAIL accepted");
      failures++;
      release(&text);
    }
    printf("\n");
  }
  release(&dict);
  release(&bad_key);
}

/* Expects `name(arg)` to raise ValueError. */
static void expect_value_error(const char* what, const char* name, TVMFFIAny arg) {
  TVMFFIAny out;
  if (call(name, &arg, 1, &out) == 0) {
    printf("FAIL %s: %s accepted it\n", what, name);
    failures++;
    release(&out);
    return;
  }
  char kind[64];
  take_raised_kind(kind, sizeof(kind));
  if (strcmp(kind, "ValueError") == 0) {
    printf("ok %s: %s raises ValueError\n", what, name);
  } else {
    printf("FAIL %s: %s raised %s, not ValueError\n", what, name, kind);
    failures++;
  }
}

static void expect_text_rejected(const char* what, const char* text) {
  expect_value_error(what, "ffi.json.Parse", cstr_any(text));
  expect_value_error(what, "ffi.FromJSONGraphString", cstr_any(text));
}

/* `count` copies of `open`, then of `close`, around `middle`. */
static char* nested(const char* open, const char* middle, const char* close, int count) {
  size_t lo = strlen(open), lm = strlen(middle), lc = strlen(close);
  char* s = malloc(count * (lo + lc) + lm + 1);
  char* p = s;
  for (int i = 0; i < count; ++i, p += lo) memcpy(p, open, lo);
  memcpy(p, middle, lm);
  p += lm;
  for (int i = 0; i < count; ++i, p += lc) memcpy(p, close, lc);
  *p = 0;
  return s;
}

static void mode_bad(void) {
  enum { kDeep = 100000 };
  char* deep_array = nested("[", "0", "]", kDeep);
  expect_text_rejected("100,000 nested arrays", deep_array);
  char* deep_object = nested("{\"k\":", "0", "}", kDeep);
  expect_text_rejected("100,000 nested objects", deep_object);
  /* A chain of 200,000 graph nodes, each an Array holding the next: deeper than the reader's
   * limit (100,000 levels). */
  enum { kDeepGraph = 200000 };
  size_t cap = (size_t)kDeepGraph * 48 + 64;
  char* chain = malloc(cap);
  char* p = chain + sprintf(chain, "{\"root_index\":0,\"nodes\":[");
  for (int i = 0; i < kDeepGraph; ++i) {
    if (i + 1 < kDeepGraph) {
      p += sprintf(p, "{\"type\":\"ffi.Array\",\"data\":[%d]},", i + 1);
    } else {
      p += sprintf(p, "{\"type\":\"None\"}]}");
    }
  }
  expect_value_error("a chain of 200,000 graph nodes", "ffi.FromJSONGraphString",
                     cstr_any(chain));
  /* The same graph as a value. */
  TVMFFIAny parse_args[1] = {cstr_any(chain)};
  TVMFFIAny chain_doc = must_call("ffi.json.Parse", parse_args, 1);
  expect_value_error("a chain of 200,000 graph nodes (value)", "ffi.FromJSONGraph", chain_doc);
  release(&chain_doc);
  free(deep_array);
  free(deep_object);
  free(chain);
  /* Truncations of a valid graph, at every length. */
  const char* valid =
      "{\"root_index\":2,\"nodes\":[{\"type\":\"int\",\"data\":1},"
      "{\"type\":\"ffi.String\",\"data\":\"s\"},{\"type\":\"ffi.Array\",\"data\":[0,1,0]}]}";
  size_t n = strlen(valid);
  int truncations_ok = 1;
  for (size_t len = 0; len < n; ++len) {
    char* cut = strndup(valid, len);
    TVMFFIAny out;
    TVMFFIAny arg = cstr_any(cut);
    if (call("ffi.FromJSONGraphString", &arg, 1, &out) == 0) {
      printf("FAIL truncation at %zu accepted\n", len);
      truncations_ok = 0;
      release(&out);
    } else {
      char kind[64];
      take_raised_kind(kind, sizeof(kind));
      if (strcmp(kind, "ValueError") != 0) {
        printf("FAIL truncation at %zu raised %s\n", len, kind);
        truncations_ok = 0;
      }
    }
    free(cut);
  }
  if (truncations_ok) {
    printf("ok every truncation of a graph raises ValueError\n");
  } else {
    failures++;
  }
  /* Well-formed JSON, malformed graphs. */
  const char* graphs[] = {
      "[]",
      "{\"nodes\":[]}",
      "{\"root_index\":0}",
      "{\"root_index\":0,\"nodes\":[]}",
      "{\"root_index\":-1,\"nodes\":[{\"type\":\"None\"}]}",
      "{\"root_index\":\"0\",\"nodes\":[{\"type\":\"None\"}]}",
      "{\"root_index\":0,\"nodes\":{}}",
      "{\"root_index\":0,\"nodes\":[1]}",
      "{\"root_index\":0,\"nodes\":[{}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":7}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"no.such.Type\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"int\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"int\",\"data\":\"1\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Array\",\"data\":[0]}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Array\",\"data\":[5]}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Array\",\"data\":[\"x\"]}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Map\",\"data\":[0]}]}",
      "{\"root_index\":1,\"nodes\":[{\"type\":\"None\"},{\"type\":\"ffi.Map\",\"data\":[0]}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Bytes\",\"data\":\"abc\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Bytes\",\"data\":\"a*c=\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"Device\",\"data\":[1]}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"DataType\",\"data\":\"floaty\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Shape\",\"data\":[1,\"2\"]}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.BigInt\",\"data\":\"12x\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.SmallStr\",\"data\":\"x\"}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"testing.TestIntPair\",\"data\":[]}]}",
      "{\"root_index\":0,\"nodes\":[{\"type\":\"testing.TestIntPair\",\"data\":{\"a\":1}}]}",
  };
  for (size_t i = 0; i < sizeof(graphs) / sizeof(graphs[0]); ++i) {
    TVMFFIAny out;
    TVMFFIAny arg = cstr_any(graphs[i]);
    printf("graph %zu: ", i);
    if (call("ffi.FromJSONGraphString", &arg, 1, &out) == 0) {
      printf("FAIL accepted %s\n", graphs[i]);
      failures++;
      release(&out);
      continue;
    }
    char kind[64];
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
    snprintf(kind, sizeof(kind), "%.*s", (int)cell->kind.size, cell->kind.data);
    /* A missing required field is a TypeError in the reference too. */
    int expected = strcmp(kind, "ValueError") == 0 ||
                   (strcmp(kind, "TypeError") == 0 && strstr(graphs[i], "\"a\":1") != NULL);
    printf("%s%.*s: %.*s\n", expected ? "ok " : "FAIL ", (int)cell->kind.size, cell->kind.data,
           (int)cell->message.size, cell->message.data);
    if (!expected) failures++;
    TVMFFIObjectDecRef(err);
  }
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s <testing-lib> write|read <file>|json|bad\n", argv[0]);
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen(%s) failed: %s\n", argv[1], dlerror());
    return 2;
  }
  if (strcmp(argv[2], "write") == 0) {
    mode_write();
  } else if (strcmp(argv[2], "read") == 0 && argc > 3) {
    mode_read(argv[3]);
  } else if (strcmp(argv[2], "json") == 0) {
    mode_json();
  } else if (strcmp(argv[2], "bad") == 0) {
    mode_bad();
  } else {
    fprintf(stderr, "unknown mode %s\n", argv[2]);
    return 2;
  }
  if (failures != 0) {
    printf("FAILED: %d check(s) failed\n", failures);
    return 1;
  }
  printf("PASSED: 0 check(s) failed\n");
  return 0;
}
