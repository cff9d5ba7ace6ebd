/*
 * Prints what a freshly loaded runtime registers by itself, one fact per line, for
 * tests/conformance/registry.rs to compare between Apache's runtime and ours:
 *
 *   registry_dump globals           `global\t<name>\t<metadata>` for every global function
 *   registry_dump attrs <column>... `attr\t<column>\t<type key>\t<value>` for every type with an
 *                                   entry in each type-attribute column
 *
 * Values are described by kind (`bool:true`, `int:3`, `str:...`, `Function`, `OpaquePtr`, or
 * the type key of other objects), since functions and pointers differ between processes. The
 * lines come out in registry order; the caller sorts them.
 */
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "any_values.h"

/* The characters of a string Any (small or heap); NULL data if it is not a string. */
static TVMFFIByteArray string_of(const TVMFFIAny* v) {
  TVMFFIByteArray b = {NULL, 0};
  if (v->type_index == kTVMFFISmallStr) {
    b.data = v->v_bytes;
    b.size = v->small_str_len;
  } else if (v->type_index == kTVMFFIStr) {
    b = *(const TVMFFIByteArray*)((const char*)v->v_obj + sizeof(TVMFFIObject));
  }
  return b;
}

static void release(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
  v->type_index = kTVMFFINone;
}

/* Prints the pending error and returns 1. */
static int report_error(const char* what) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    TVMFFIErrorCell* cell = (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
    fprintf(stderr, "%s: %.*s: %.*s\n", what, (int)cell->kind.size, cell->kind.data,
            (int)cell->message.size, cell->message.data);
    TVMFFIObjectDecRef(err);
  } else {
    fprintf(stderr, "%s failed\n", what);
  }
  return 1;
}

static TVMFFIObjectHandle get_global(const char* name) {
  TVMFFIByteArray b = bytes_of(name);
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&b, &f) != 0 || f == NULL) {
    fprintf(stderr, "no global %s\n", name);
    return NULL;
  }
  return f;
}

static int call1(TVMFFIObjectHandle f, const TVMFFIAny* arg, TVMFFIAny* rv) {
  memset(rv, 0, sizeof(*rv));
  return TVMFFIFunctionCall(f, (TVMFFIAny*)arg, 1, rv);
}

static int dump_globals(void) {
  TVMFFIObjectHandle list = get_global("ffi.FunctionListGlobalNamesFunctor");
  TVMFFIObjectHandle metadata = get_global("ffi.GetGlobalFuncMetadata");
  if (list == NULL || metadata == NULL) return 1;
  TVMFFIAny functor;
  memset(&functor, 0, sizeof(functor));
  if (TVMFFIFunctionCall(list, NULL, 0, &functor) != 0) return report_error("list globals");
  TVMFFIAny arg, count;
  memset(&arg, 0, sizeof(arg));
  arg.type_index = kTVMFFIInt;
  arg.v_int64 = -1;
  if (call1(functor.v_obj, &arg, &count) != 0) return report_error("count globals");
  int status = 0;
  for (int64_t i = 0; i < count.v_int64; ++i) {
    TVMFFIAny name, meta;
    arg.v_int64 = i;
    if (call1(functor.v_obj, &arg, &name) != 0) return report_error("global name");
    TVMFFIByteArray n = string_of(&name);
    if (call1(metadata, &name, &meta) != 0) {
      status = report_error("metadata");
    } else {
      TVMFFIByteArray m = string_of(&meta);
      printf("global\t%.*s\t%.*s\n", (int)n.size, n.data, (int)m.size, m.data);
    }
    release(&name);
    release(&meta);
  }
  release(&functor);
  TVMFFIObjectDecRef(list);
  TVMFFIObjectDecRef(metadata);
  return status;
}

static void print_value(const TVMFFIAny* v) {
  TVMFFIByteArray s = string_of(v);
  if (s.data != NULL) {
    printf("str:%.*s", (int)s.size, s.data);
    return;
  }
  switch (v->type_index) {
    case kTVMFFINone: printf("None"); return;
    case kTVMFFIBool: printf("bool:%s", v->v_int64 ? "true" : "false"); return;
    case kTVMFFIInt: printf("int:%lld", (long long)v->v_int64); return;
    case kTVMFFIOpaquePtr: printf("OpaquePtr"); return;
    case kTVMFFIFunction: printf("Function"); return;
    default: {
      const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(v->type_index);
      if (info != NULL) {
        printf("%.*s", (int)info->type_key.size, info->type_key.data);
      } else {
        printf("type_index:%d", v->type_index);
      }
    }
  }
}

static int dump_attrs(int ncolumns, char** columns) {
  for (int c = 0; c < ncolumns; ++c) {
    TVMFFIByteArray name = bytes_of(columns[c]);
    const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name);
    if (column == NULL) {
      printf("column\t%s\tabsent\n", columns[c]);
      continue;
    }
    for (int32_t k = 0; k < column->size; ++k) {
      const TVMFFIAny* v = &column->data[k];
      if (v->type_index == kTVMFFINone) continue;
      const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(column->begin_index + k);
      printf("attr\t%s\t", columns[c]);
      if (info != NULL) {
        printf("%.*s\t", (int)info->type_key.size, info->type_key.data);
      } else {
        printf("type_index:%d\t", column->begin_index + k);
      }
      print_value(v);
      printf("\n");
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "globals") == 0) return dump_globals();
  if (argc >= 2 && strcmp(argv[1], "attrs") == 0) return dump_attrs(argc - 2, argv + 2);
  fprintf(stderr, "usage: %s globals | attrs <column>...\n", argv[0]);
  return 2;
}
