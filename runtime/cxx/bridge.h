// The calls between the C++ layer and the Rust runtime (mirrored in runtime/src/module/cxx.rs).
//
// Both directions use C types and error codes only: a C++ exception never crosses into Rust (every
// function the runtime calls here catches everything and raises it as a TVM-FFI error), and a Rust
// panic never crosses into C++ (every bridge function catches it likewise). A function returning
// int32_t returns 0 on success and -1 with the error raised (TVMFFIErrorSetRaised) otherwise.
#ifndef FFIHUB_RUNTIME_CXX_BRIDGE_H_
#define FFIHUB_RUNTIME_CXX_BRIDGE_H_

#include <tvm/ffi/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Called for each context symbol; returns nonzero to stop the visit. */
typedef int32_t (*FfihubContextSymbolVisitor)(void* ctx, const TVMFFIByteArray* name,
                                              void* address);

/*! \brief The Rust side, installed by the runtime when the library is loaded. `module` arguments
 * are module handles (object headers). `out` Any values are owned and start as None. */
typedef struct FfihubRustBridge {
  /* The virtual methods of the runtime's own modules (get_function: of any module, and of its
   * imports when query_imports is nonzero). */
  int32_t (*kind)(TVMFFIObject* module, const char** out);
  int32_t (*property_mask)(TVMFFIObject* module, int32_t* out);
  int32_t (*get_function)(TVMFFIObject* module, const TVMFFIByteArray* name,
                          int32_t query_imports, TVMFFIObjectHandle* out);
  int32_t (*implements_function)(TVMFFIObject* module, const TVMFFIByteArray* name, int32_t* out);
  int32_t (*function_doc)(TVMFFIObject* module, const TVMFFIByteArray* name, TVMFFIAny* out);
  int32_t (*function_metadata)(TVMFFIObject* module, const TVMFFIByteArray* name, TVMFFIAny* out);
  int32_t (*write_to_file)(TVMFFIObject* module, const TVMFFIByteArray* file,
                           const TVMFFIByteArray* format);
  int32_t (*write_formats)(TVMFFIObject* module, TVMFFIAny* out);
  int32_t (*save_to_bytes)(TVMFFIObject* module, TVMFFIAny* out);
  int32_t (*inspect_source)(TVMFFIObject* module, const TVMFFIByteArray* format, TVMFFIAny* out);
  /* The base ModuleObj::ImportModule / ClearImports, on any module. */
  int32_t (*import_module_base)(TVMFFIObject* module, TVMFFIObject* other);
  int32_t (*clear_imports_base)(TVMFFIObject* module);
  /* TVMFFIEnvModLookupFromImports's search and cache, on any module (borrowed result). */
  int32_t (*lookup_from_imports)(TVMFFIObject* module, const TVMFFIByteArray* name,
                                 TVMFFIObjectHandle* out);
  /* The symbols registered with TVMFFIEnvModRegisterContextSymbol, in registration order. */
  int32_t (*visit_context_symbols)(void* ctx, FfihubContextSymbolVisitor visit);
} FfihubRustBridge;

void ffihub_cxx_install_bridge(const FfihubRustBridge* bridge);

/*! \brief The vptr of the runtime's own modules. */
const void* ffihub_cxx_module_vptr(void);

/* Virtual calls on any module (C++-made or the runtime's). */
int32_t ffihub_cxx_module_kind(TVMFFIObject* module, const char** out);
int32_t ffihub_cxx_module_property_mask(TVMFFIObject* module, int32_t* out);
int32_t ffihub_cxx_module_get_function(TVMFFIObject* module, const TVMFFIByteArray* name,
                                       TVMFFIObjectHandle* out);
int32_t ffihub_cxx_module_implements_function(TVMFFIObject* module, const TVMFFIByteArray* name,
                                              int32_t* out);
int32_t ffihub_cxx_module_function_doc(TVMFFIObject* module, const TVMFFIByteArray* name,
                                       TVMFFIAny* out);
int32_t ffihub_cxx_module_function_metadata(TVMFFIObject* module, const TVMFFIByteArray* name,
                                            TVMFFIAny* out);
int32_t ffihub_cxx_module_write_to_file(TVMFFIObject* module, const TVMFFIByteArray* file,
                                        const TVMFFIByteArray* format);
int32_t ffihub_cxx_module_write_formats(TVMFFIObject* module, TVMFFIAny* out);
int32_t ffihub_cxx_module_save_to_bytes(TVMFFIObject* module, TVMFFIAny* out);
int32_t ffihub_cxx_module_inspect_source(TVMFFIObject* module, const TVMFFIByteArray* format,
                                         TVMFFIAny* out);
int32_t ffihub_cxx_module_import_module(TVMFFIObject* module, TVMFFIObject* other);
int32_t ffihub_cxx_module_clear_imports(TVMFFIObject* module);
/*! \brief ModuleObj::InternalUnsafe::GetFunctionFromImports (borrowed result). */
int32_t ffihub_cxx_lookup_from_imports(TVMFFIObject* module, const char* name,
                                       TVMFFIObjectHandle* out);

#ifdef __cplusplus
}
#endif

#endif  // FFIHUB_RUNTIME_CXX_BRIDGE_H_
