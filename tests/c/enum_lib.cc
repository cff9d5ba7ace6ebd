// An enum class defined in C++ the way each schema's headers define one, for
// tests/pysuite/enum_schemas.py (docs/adr/0013-enum-schemas.md). Built against the headers of
// 0.1.12 (the `_value`/`_name` schema: entries in `__ffi_enum_entries__`, attributes in
// `__ffi_enum_attrs__`) or of a later release (`ffi.EnumState` in `__ffi_enum__`).
//
// Registers `compat_test.Variant` with the entries Alpha and Beta, each with the extensible
// attribute `code` (10 and 20), and the global `compat_test.variant_get(name)`, which looks an
// entry up by name the way that schema's header code does (from the column address it caches).
#include <tvm/ffi/enum.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/enum_def.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdint>

namespace {

class VariantObj : public tvm::ffi::EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("compat_test.Variant", VariantObj, tvm::ffi::EnumObj);
};

tvm::ffi::Enum VariantGet(const tvm::ffi::String& name) {
#if TVM_FFI_VERSION_PATCH >= 14
  return tvm::ffi::EnumObj::_GetByStrIndex<VariantObj>(name);
#else
  return tvm::ffi::EnumObj::Get<VariantObj>(name);
#endif
}

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::ObjectDef<VariantObj>(refl::init(false));  // NOLINT(bugprone-unused-raii)
  refl::EnumDef<VariantObj>("Alpha").set_attr("code", int64_t{10});
  refl::EnumDef<VariantObj>("Beta").set_attr("code", int64_t{20});
  refl::GlobalDef().def("compat_test.variant_get", VariantGet);
}

}  // namespace
