/*
 * Prints the layout of every struct of the TVM-FFI C ABI (tvm/ffi/c_api.h,
 * tvm/ffi/extra/c_env_api.h, dlpack/dlpack.h) and the value of every enumerator and macro
 * constant, one fact per line. tests/conformance/layouts.rs builds it against our headers and
 * against Apache's (as C11 and as C++17) and requires identical output.
 *
 * Compiled as C++ it also prints the type of every field, typedef and constant (demangled
 * typeid names: exact types, including const-ness of pointees and enum types) and what the
 * C++-only inline helpers of c_api.h compute.
 *
 * Needs no runtime library: it only uses the headers.
 */
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
#include <cxxabi.h>
#include <stdlib.h>
#include <typeinfo>
#define ALIGNOF(T) alignof(T)

/* The demangled name of a type, or the raw name if demangling fails. */
static void print_type_name(const std::type_info& info) {
  int status = 0;
  char* name = abi::__cxa_demangle(info.name(), NULL, NULL, &status);
  printf(" type=%s", status == 0 && name != NULL ? name : info.name());
  free(name);
}
#define PRINT_TYPE(T) print_type_name(typeid(T))
#else
#define ALIGNOF(T) _Alignof(T)
#define PRINT_TYPE(T) ((void)0)
#endif

/* 1 if the integer type of `expr` is signed. */
#define IS_SIGNED(expr) (!((__typeof__(expr))-1 > 0))
#define MEMBER(T, f) (((T*)0)->f)

#define STRUCT(T) \
  printf("\n%s sizeof=%zu alignof=%zu\n", #T, sizeof(T), (size_t)ALIGNOF(T))

/* A field of any type. */
#define FIELD(T, f)                                                                    \
  do {                                                                                 \
    printf("  %s.%s offset=%zu size=%zu", #T, #f, offsetof(T, f), sizeof(MEMBER(T, f))); \
    PRINT_TYPE(__typeof__(MEMBER(T, f)));                                              \
    printf("\n");                                                                      \
  } while (0)

/* A field of a plain integer type (not an enum): also prints its signedness. */
#define INT_FIELD(T, f)                                                                  \
  do {                                                                                   \
    printf("  %s.%s offset=%zu size=%zu signed=%d", #T, #f, offsetof(T, f),              \
           sizeof(MEMBER(T, f)), (int)IS_SIGNED(MEMBER(T, f)));                          \
    PRINT_TYPE(__typeof__(MEMBER(T, f)));                                                \
    printf("\n");                                                                        \
  } while (0)

/* A typedef that is not a struct (pointers, function pointers, enums). */
#define TYPEDEF(T)                                                          \
  do {                                                                      \
    printf("typedef %s sizeof=%zu alignof=%zu", #T, sizeof(T), (size_t)ALIGNOF(T)); \
    PRINT_TYPE(T);                                                          \
    printf("\n");                                                           \
  } while (0)

/* An enumerator (its type is printed in C++ only: in C it is always int). */
#define ENUMERATOR(c)                          \
  do {                                         \
    printf("enum %s = %lld", #c, (long long)(c)); \
    PRINT_TYPE(__typeof__(c));                 \
    printf("\n");                              \
  } while (0)

/* An integer macro constant: value, size and signedness. */
#define MACRO(m)                                                                     \
  do {                                                                               \
    printf("macro %s = %llu sizeof=%zu signed=%d", #m, (unsigned long long)(m), sizeof(m), \
           (int)IS_SIGNED(m));                                                       \
    PRINT_TYPE(__typeof__(m));                                                       \
    printf("\n");                                                                    \
  } while (0)

#define PRINT_DEFINED(m, is_defined) printf("defined %s = %d\n", m, is_defined)

static void print_tvm_ffi_structs(void) {
  STRUCT(TVMFFIVersion);
  INT_FIELD(TVMFFIVersion, major);
  INT_FIELD(TVMFFIVersion, minor);
  INT_FIELD(TVMFFIVersion, patch);

  STRUCT(TVMFFIObject);
  INT_FIELD(TVMFFIObject, combined_ref_count);
  INT_FIELD(TVMFFIObject, type_index);
  INT_FIELD(TVMFFIObject, __padding);
  FIELD(TVMFFIObject, deleter);
  INT_FIELD(TVMFFIObject, __ensure_align);

  STRUCT(TVMFFIAny);
  INT_FIELD(TVMFFIAny, type_index);
  INT_FIELD(TVMFFIAny, zero_padding);
  INT_FIELD(TVMFFIAny, small_str_len);
  INT_FIELD(TVMFFIAny, v_int64);
  FIELD(TVMFFIAny, v_float64);
  FIELD(TVMFFIAny, v_ptr);
  FIELD(TVMFFIAny, v_c_str);
  FIELD(TVMFFIAny, v_obj);
  FIELD(TVMFFIAny, v_dtype);
  FIELD(TVMFFIAny, v_device);
  FIELD(TVMFFIAny, v_bytes);
  INT_FIELD(TVMFFIAny, v_uint64);

  STRUCT(TVMFFIByteArray);
  FIELD(TVMFFIByteArray, data);
  INT_FIELD(TVMFFIByteArray, size);

  STRUCT(TVMFFIShapeCell);
  FIELD(TVMFFIShapeCell, data);
  INT_FIELD(TVMFFIShapeCell, size);

  STRUCT(TVMFFISeqCell);
  FIELD(TVMFFISeqCell, data);
  INT_FIELD(TVMFFISeqCell, size);
  INT_FIELD(TVMFFISeqCell, capacity);
  FIELD(TVMFFISeqCell, data_deleter);

  STRUCT(TVMFFIErrorCell);
  FIELD(TVMFFIErrorCell, kind);
  FIELD(TVMFFIErrorCell, message);
  FIELD(TVMFFIErrorCell, backtrace);
  FIELD(TVMFFIErrorCell, update_backtrace);
  FIELD(TVMFFIErrorCell, cause_chain);
  FIELD(TVMFFIErrorCell, extra_context);

  STRUCT(TVMFFIFunctionCell);
  FIELD(TVMFFIFunctionCell, safe_call);
  FIELD(TVMFFIFunctionCell, cpp_call);

  STRUCT(TVMFFIOpaqueObjectCell);
  FIELD(TVMFFIOpaqueObjectCell, handle);

  STRUCT(TVMFFIObjectAllocHeader);
  FIELD(TVMFFIObjectAllocHeader, delete_space);

  STRUCT(TVMFFICustomAllocator);
  FIELD(TVMFFICustomAllocator, allocate);
  FIELD(TVMFFICustomAllocator, context);

  STRUCT(TVMFFIFieldInfo);
  FIELD(TVMFFIFieldInfo, name);
  FIELD(TVMFFIFieldInfo, doc);
  FIELD(TVMFFIFieldInfo, metadata);
  INT_FIELD(TVMFFIFieldInfo, flags);
  INT_FIELD(TVMFFIFieldInfo, size);
  INT_FIELD(TVMFFIFieldInfo, alignment);
  INT_FIELD(TVMFFIFieldInfo, offset);
  FIELD(TVMFFIFieldInfo, getter);
  FIELD(TVMFFIFieldInfo, setter);
  FIELD(TVMFFIFieldInfo, default_value_or_factory);
  INT_FIELD(TVMFFIFieldInfo, field_static_type_index);

  STRUCT(TVMFFIMethodInfo);
  FIELD(TVMFFIMethodInfo, name);
  FIELD(TVMFFIMethodInfo, doc);
  FIELD(TVMFFIMethodInfo, metadata);
  INT_FIELD(TVMFFIMethodInfo, flags);
  FIELD(TVMFFIMethodInfo, method);

  STRUCT(TVMFFITypeMetadata);
  FIELD(TVMFFITypeMetadata, doc);
  FIELD(TVMFFITypeMetadata, creator);
  INT_FIELD(TVMFFITypeMetadata, total_size);
  FIELD(TVMFFITypeMetadata, structural_eq_hash_kind);

  STRUCT(TVMFFITypeAttrColumn);
  FIELD(TVMFFITypeAttrColumn, data);
  INT_FIELD(TVMFFITypeAttrColumn, size);
  INT_FIELD(TVMFFITypeAttrColumn, begin_index);

  STRUCT(TVMFFITypeInfo);
  INT_FIELD(TVMFFITypeInfo, type_index);
  INT_FIELD(TVMFFITypeInfo, type_depth);
  FIELD(TVMFFITypeInfo, type_key);
  FIELD(TVMFFITypeInfo, type_ancestors);
  INT_FIELD(TVMFFITypeInfo, type_key_hash);
  INT_FIELD(TVMFFITypeInfo, num_fields);
  INT_FIELD(TVMFFITypeInfo, num_methods);
  FIELD(TVMFFITypeInfo, fields);
  FIELD(TVMFFITypeInfo, methods);
  FIELD(TVMFFITypeInfo, metadata);
}

static void print_dlpack_structs(void) {
  STRUCT(DLPackVersion);
  INT_FIELD(DLPackVersion, major);
  INT_FIELD(DLPackVersion, minor);

  STRUCT(DLDevice);
  FIELD(DLDevice, device_type);
  INT_FIELD(DLDevice, device_id);

  STRUCT(DLDataType);
  INT_FIELD(DLDataType, code);
  INT_FIELD(DLDataType, bits);
  INT_FIELD(DLDataType, lanes);

  STRUCT(DLTensor);
  FIELD(DLTensor, data);
  FIELD(DLTensor, device);
  INT_FIELD(DLTensor, ndim);
  FIELD(DLTensor, dtype);
  FIELD(DLTensor, shape);
  FIELD(DLTensor, strides);
  INT_FIELD(DLTensor, byte_offset);

  STRUCT(DLManagedTensor);
  FIELD(DLManagedTensor, dl_tensor);
  FIELD(DLManagedTensor, manager_ctx);
  FIELD(DLManagedTensor, deleter);

  STRUCT(DLManagedTensorVersioned);
  FIELD(DLManagedTensorVersioned, version);
  FIELD(DLManagedTensorVersioned, manager_ctx);
  FIELD(DLManagedTensorVersioned, deleter);
  INT_FIELD(DLManagedTensorVersioned, flags);
  FIELD(DLManagedTensorVersioned, dl_tensor);

  STRUCT(DLPackExchangeAPIHeader);
  FIELD(DLPackExchangeAPIHeader, version);
  FIELD(DLPackExchangeAPIHeader, prev_api);

  STRUCT(DLPackExchangeAPI);
  FIELD(DLPackExchangeAPI, header);
  FIELD(DLPackExchangeAPI, managed_tensor_allocator);
  FIELD(DLPackExchangeAPI, managed_tensor_from_py_object_no_sync);
  FIELD(DLPackExchangeAPI, managed_tensor_to_py_object_no_sync);
  FIELD(DLPackExchangeAPI, dltensor_from_py_object_no_sync);
  FIELD(DLPackExchangeAPI, current_work_stream);
}

static void print_typedefs(void) {
  printf("\n");
  TYPEDEF(TVMFFIObjectHandle);
  TYPEDEF(TVMFFISafeCallType);
  TYPEDEF(TVMFFIFieldGetter);
  TYPEDEF(TVMFFIFieldSetter);
  TYPEDEF(TVMFFIObjectCreator);
  TYPEDEF(TVMFFIStreamHandle);
  TYPEDEF(DLPackManagedTensorAllocator);
  TYPEDEF(DLPackManagedTensorFromPyObjectNoSync);
  TYPEDEF(DLPackManagedTensorToPyObjectNoSync);
  TYPEDEF(DLPackDLTensorFromPyObjectNoSync);
  TYPEDEF(DLPackCurrentWorkStream);
  TYPEDEF(TVMFFITypeIndex);
  TYPEDEF(TVMFFIObjectDeleterFlagBitMask);
  TYPEDEF(TVMFFIBacktraceUpdateMode);
  TYPEDEF(TVMFFIFieldFlagBitMask);
  TYPEDEF(TVMFFISEqHashKind);
  TYPEDEF(TVMFFIDefRegionKind);
  TYPEDEF(DLDeviceType);
  TYPEDEF(DLDataTypeCode);
}

static void print_enumerators(void) {
  printf("\n");
  ENUMERATOR(kTVMFFIAny);
  ENUMERATOR(kTVMFFINone);
  ENUMERATOR(kTVMFFIInt);
  ENUMERATOR(kTVMFFIBool);
  ENUMERATOR(kTVMFFIFloat);
  ENUMERATOR(kTVMFFIOpaquePtr);
  ENUMERATOR(kTVMFFIDataType);
  ENUMERATOR(kTVMFFIDevice);
  ENUMERATOR(kTVMFFIDLTensorPtr);
  ENUMERATOR(kTVMFFIRawStr);
  ENUMERATOR(kTVMFFIByteArrayPtr);
  ENUMERATOR(kTVMFFIObjectRValueRef);
  ENUMERATOR(kTVMFFISmallStr);
  ENUMERATOR(kTVMFFISmallBytes);
  ENUMERATOR(kTVMFFIUnchanged);
  ENUMERATOR(kTVMFFIStaticObjectBegin);
  ENUMERATOR(kTVMFFIObject);
  ENUMERATOR(kTVMFFIStr);
  ENUMERATOR(kTVMFFIBytes);
  ENUMERATOR(kTVMFFIError);
  ENUMERATOR(kTVMFFIFunction);
  ENUMERATOR(kTVMFFIShape);
  ENUMERATOR(kTVMFFITensor);
  ENUMERATOR(kTVMFFIArray);
  ENUMERATOR(kTVMFFIMap);
  ENUMERATOR(kTVMFFIModule);
  ENUMERATOR(kTVMFFIOpaquePyObject);
  ENUMERATOR(kTVMFFIList);
  ENUMERATOR(kTVMFFIDict);
  ENUMERATOR(kTVMFFIVisitInterrupt);
  ENUMERATOR(kTVMFFIBigInt);
  ENUMERATOR(kTVMFFIStaticObjectEnd);
  ENUMERATOR(kTVMFFIDynObjectBegin);

  ENUMERATOR(kTVMFFIObjectDeleterFlagBitMaskStrong);
  ENUMERATOR(kTVMFFIObjectDeleterFlagBitMaskWeak);
  ENUMERATOR(kTVMFFIObjectDeleterFlagBitMaskBoth);

  ENUMERATOR(kTVMFFIBacktraceUpdateModeReplace);
  ENUMERATOR(kTVMFFIBacktraceUpdateModeAppend);

  ENUMERATOR(kTVMFFIFieldFlagBitMaskWritable);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskHasDefault);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskIsStaticMethod);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskSEqHashIgnore);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskSEqHashDefPattern);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskDefaultFromFactory);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskReprOff);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskCompareOff);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskHashOff);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskInitOff);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskKwOnly);
  ENUMERATOR(kTVMFFIFieldFlagBitSetterIsFunctionObj);
  ENUMERATOR(kTVMFFIFieldFlagBitMaskSEqHashDefSimple);

  ENUMERATOR(kTVMFFISEqHashKindUnsupported);
  ENUMERATOR(kTVMFFISEqHashKindTreeNode);
  ENUMERATOR(kTVMFFISEqHashKindFreeVar);
  ENUMERATOR(kTVMFFISEqHashKindDAGNode);
  ENUMERATOR(kTVMFFISEqHashKindConstTreeNode);
  ENUMERATOR(kTVMFFISEqHashKindUniqueInstance);

  ENUMERATOR(kTVMFFIDefRegionKindNone);
  ENUMERATOR(kTVMFFIDefRegionKindPattern);
  ENUMERATOR(kTVMFFIDefRegionKindSimple);

  ENUMERATOR(kDLCPU);
  ENUMERATOR(kDLCUDA);
  ENUMERATOR(kDLCUDAHost);
  ENUMERATOR(kDLOpenCL);
  ENUMERATOR(kDLVulkan);
  ENUMERATOR(kDLMetal);
  ENUMERATOR(kDLVPI);
  ENUMERATOR(kDLROCM);
  ENUMERATOR(kDLROCMHost);
  ENUMERATOR(kDLExtDev);
  ENUMERATOR(kDLCUDAManaged);
  ENUMERATOR(kDLOneAPI);
  ENUMERATOR(kDLWebGPU);
  ENUMERATOR(kDLHexagon);
  ENUMERATOR(kDLMAIA);
  ENUMERATOR(kDLTrn);

  ENUMERATOR(kDLInt);
  ENUMERATOR(kDLUInt);
  ENUMERATOR(kDLFloat);
  ENUMERATOR(kDLOpaqueHandle);
  ENUMERATOR(kDLBfloat);
  ENUMERATOR(kDLComplex);
  ENUMERATOR(kDLBool);
  ENUMERATOR(kDLFloat8_e3m4);
  ENUMERATOR(kDLFloat8_e4m3);
  ENUMERATOR(kDLFloat8_e4m3b11fnuz);
  ENUMERATOR(kDLFloat8_e4m3fn);
  ENUMERATOR(kDLFloat8_e4m3fnuz);
  ENUMERATOR(kDLFloat8_e5m2);
  ENUMERATOR(kDLFloat8_e5m2fnuz);
  ENUMERATOR(kDLFloat8_e8m0fnu);
  ENUMERATOR(kDLFloat6_e2m3fn);
  ENUMERATOR(kDLFloat6_e3m2fn);
  ENUMERATOR(kDLFloat4_e2m1fn);
}

static void print_macros(void) {
  printf("\n");
  MACRO(TVM_FFI_VERSION_MAJOR);
  MACRO(TVM_FFI_VERSION_MINOR);
  MACRO(TVM_FFI_VERSION_PATCH);
  MACRO(DLPACK_MAJOR_VERSION);
  MACRO(DLPACK_MINOR_VERSION);
  MACRO(DLPACK_FLAG_BITMASK_READ_ONLY);
  MACRO(DLPACK_FLAG_BITMASK_IS_COPIED);
  MACRO(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED);

#ifdef TVM_FFI_C_API_H_
  PRINT_DEFINED("TVM_FFI_C_API_H_", 1);
#else
  PRINT_DEFINED("TVM_FFI_C_API_H_", 0);
#endif
#ifdef TVM_FFI_EXTRA_C_ENV_API_H_
  PRINT_DEFINED("TVM_FFI_EXTRA_C_ENV_API_H_", 1);
#else
  PRINT_DEFINED("TVM_FFI_EXTRA_C_ENV_API_H_", 0);
#endif
#ifdef DLPACK_DLPACK_H_
  PRINT_DEFINED("DLPACK_DLPACK_H_", 1);
#else
  PRINT_DEFINED("DLPACK_DLPACK_H_", 0);
#endif
#ifdef TVM_FFI_DLL
  PRINT_DEFINED("TVM_FFI_DLL", 1);
#else
  PRINT_DEFINED("TVM_FFI_DLL", 0);
#endif
#ifdef TVM_FFI_DLL_EXPORT
  PRINT_DEFINED("TVM_FFI_DLL_EXPORT", 1);
#else
  PRINT_DEFINED("TVM_FFI_DLL_EXPORT", 0);
#endif
#ifdef TVM_FFI_WEAK
  PRINT_DEFINED("TVM_FFI_WEAK", 1);
#else
  PRINT_DEFINED("TVM_FFI_WEAK", 0);
#endif
#ifdef TVM_FFI_ATTRIBUTE_PURE
  PRINT_DEFINED("TVM_FFI_ATTRIBUTE_PURE", 1);
#else
  PRINT_DEFINED("TVM_FFI_ATTRIBUTE_PURE", 0);
#endif
#ifdef DLPACK_EXTERN_C
  PRINT_DEFINED("DLPACK_EXTERN_C", 1);
#else
  PRINT_DEFINED("DLPACK_EXTERN_C", 0);
#endif
#ifdef DLPACK_DLL
  PRINT_DEFINED("DLPACK_DLL", 1);
#else
  PRINT_DEFINED("DLPACK_DLL", 0);
#endif
}

#ifdef __cplusplus
/* What the C++-only inline helpers of c_api.h compute, on a fake object. */
static void print_cxx_helpers() {
  alignas(16) static char object[256];
  TVMFFIObject* header = reinterpret_cast<TVMFFIObject*>(object);
  header->type_index = 70;
  TVMFFIObjectHandle handle = object;
  printf("\nhelper TVMFFIObjectGetTypeIndex = %d\n", TVMFFIObjectGetTypeIndex(handle));
#define CELL_OFFSET(helper) \
  printf("helper %s offset=%td\n", #helper, reinterpret_cast<char*>(helper(handle)) - object)
  CELL_OFFSET(TVMFFIBytesGetByteArrayPtr);
  CELL_OFFSET(TVMFFIErrorGetCellPtr);
  CELL_OFFSET(TVMFFIFunctionGetCellPtr);
  CELL_OFFSET(TVMFFIOpaqueObjectGetCellPtr);
  CELL_OFFSET(TVMFFIShapeGetCellPtr);
  CELL_OFFSET(TVMFFITensorGetDLTensorPtr);
#undef CELL_OFFSET

  TVMFFIAny small;
  small.type_index = kTVMFFISmallStr;
  small.small_str_len = 3;
  small.v_uint64 = 0;
  small.v_bytes[0] = 'a';
  small.v_bytes[1] = 'b';
  small.v_bytes[2] = 'c';
  TVMFFIByteArray content = TVMFFISmallBytesGetContentByteArray(&small);
  printf("helper TVMFFISmallBytesGetContentByteArray offset=%td size=%zu\n",
         content.data - reinterpret_cast<const char*>(&small), content.size);

  DLDevice device = TVMFFIDLDeviceFromIntPair(2, 3);
  printf("helper TVMFFIDLDeviceFromIntPair = %d %d\n", static_cast<int>(device.device_type),
         device.device_id);
}
#endif

int main(void) {
  printf("# sizeof(void*)=%zu sizeof(size_t)=%zu\n", sizeof(void*), sizeof(size_t));
  print_tvm_ffi_structs();
  print_dlpack_structs();
  print_typedefs();
  print_enumerators();
  print_macros();
#ifdef __cplusplus
  print_cxx_helpers();
#endif
  return 0;
}
