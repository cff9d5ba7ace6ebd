// ModuleObj across the language boundary: the base class's methods, the C++ face of the runtime's
// own modules (FfihubModuleObj, whose virtual slots call the Rust implementation), and the guarded
// virtual calls through which the runtime uses any module, C++-made ones included.
#include <cstring>
#include <mutex>

#include "calls.h"

namespace tvm {
namespace ffi {

using ffihub::cxx::Bridge;
using ffihub::cxx::CallGlobal;
using ffihub::cxx::Check;
using ffihub::cxx::ToBool;
using ffihub::cxx::ToObject;
using ffihub::cxx::ToString;

namespace {

/*! \brief `this` as a borrowed module argument. */
TVMFFIAny ModuleView(ModuleObj* module) {
  TVMFFIAny any{};
  any.type_index = kTVMFFIModule;
  any.v_obj = module->header();
  return any;
}

std::string KindOf(const ModuleObj* module) { return module->kind(); }

}  // namespace

// The base class's virtual methods: Apache's defaults.

int ModuleObj::GetPropertyMask() const { return 0; }

bool ModuleObj::ImplementsFunction(const String& name) {
  return GetFunction(name).get() != nullptr;
}

Optional<String> ModuleObj::GetFunctionDoc(const String&) { return Optional<String>(Any()); }

Optional<String> ModuleObj::GetFunctionMetadata(const String&) {
  return Optional<String>(Any());
}

void ModuleObj::WriteToFile(const String&, const String&) const {
  ffihub::cxx::Throw("RuntimeError", "Module[" + KindOf(this) + "] does not support WriteToFile");
}

Array<String> ModuleObj::GetWriteFormats() const {
  return Array<String>(ToObject(CallGlobal("ffi.Array", {}), kTVMFFIArray, false, "ffi.Array"));
}

Bytes ModuleObj::SaveToBytes() const {
  ffihub::cxx::Throw("RuntimeError", "Module[" + KindOf(this) + "] does not support SaveToBytes");
}

String ModuleObj::InspectSource(const String&) const { return String(); }

void ModuleObj::ImportModule(const Module& other) {
  Check(Bridge().import_module_base(header(), other.get()));
}

void ModuleObj::ClearImports() { Check(Bridge().clear_imports_base(header())); }

// The lookups that may continue into the imports: the runtime's search, which calls each module's
// own virtual method.

Optional<Function> ModuleObj::GetFunction(const String& name, bool query_imports) {
  // The hot one of these lookups goes to the runtime directly rather than through its global.
  TVMFFIByteArray name_bytes = name.bytes();
  TVMFFIObjectHandle function = nullptr;
  Check(Bridge().get_function(header(), &name_bytes, query_imports, &function));
  return Optional<Function>(ObjectRef::FromOwned(static_cast<TVMFFIObject*>(function)));
}

bool ModuleObj::ImplementsFunction(const String& name, bool query_imports) {
  return ToBool(CallGlobal("ffi.ModuleImplementsFunction",
                           {ModuleView(this), name.view(), ffihub::cxx::BoolView(query_imports)}),
                "ffi.ModuleImplementsFunction");
}

namespace {
Optional<String> OptionalString(Any&& value, const char* what) {
  if (value.view().type_index == kTVMFFINone) return Optional<String>(std::move(value));
  return Optional<String>(ToString(std::move(value), what));
}
}  // namespace

Optional<String> ModuleObj::GetFunctionDoc(const String& name, bool query_imports) {
  return OptionalString(CallGlobal("ffi.ModuleGetFunctionDoc",
                                   {ModuleView(this), name.view(),
                                    ffihub::cxx::BoolView(query_imports)}),
                        "ffi.ModuleGetFunctionDoc");
}

Optional<String> ModuleObj::GetFunctionMetadata(const String& name, bool query_imports) {
  return OptionalString(CallGlobal("ffi.ModuleGetFunctionMetadata",
                                   {ModuleView(this), name.view(),
                                    ffihub::cxx::BoolView(query_imports)}),
                        "ffi.ModuleGetFunctionMetadata");
}

// Inline, as in Apache's runtime, so that `mutex_` is the process-wide STB_GNU_UNIQUE object.
inline TVMFFIObject* ModuleObj::InternalUnsafe::GetFunctionFromImports(ModuleObj* module,
                                                                       const char* name) {
  static std::mutex mutex_;
  std::scoped_lock<std::mutex> lock(mutex_);
  TVMFFIByteArray name_bytes{name, std::strlen(name)};
  TVMFFIObjectHandle function = nullptr;
  Check(Bridge().lookup_from_imports(module->header(), &name_bytes, &function));
  return static_cast<TVMFFIObject*>(function);
}

}  // namespace ffi
}  // namespace tvm

namespace {

using tvm::ffi::Any;
using tvm::ffi::Array;
using tvm::ffi::Bytes;
using tvm::ffi::Function;
using tvm::ffi::ModuleObj;
using tvm::ffi::ObjectRef;
using tvm::ffi::Optional;
using tvm::ffi::String;

Any OwnedOut(int32_t code, TVMFFIAny out) {
  Any value = Any::FromOwned(out);
  ffihub::cxx::Check(code);
  return value;
}

TVMFFIAny NoneOut() {
  TVMFFIAny none{};
  none.type_index = kTVMFFINone;
  return none;
}

/*! \brief The C++ face of a module made by the runtime: the slots call the Rust implementation
 * (the object is the runtime's allocation, which starts with this class's layout). */
class FfihubModuleObj final : public ModuleObj {
 public:
  const char* kind() const override {
    const char* kind = nullptr;
    ffihub::cxx::Check(ffihub::cxx::Bridge().kind(Header(), &kind));
    return kind;
  }

  int GetPropertyMask() const override {
    int32_t mask = 0;
    ffihub::cxx::Check(ffihub::cxx::Bridge().property_mask(Header(), &mask));
    return mask;
  }

  Optional<Function> GetFunction(const String& name) override {
    TVMFFIByteArray name_bytes = name.bytes();
    TVMFFIObjectHandle function = nullptr;
    ffihub::cxx::Check(ffihub::cxx::Bridge().get_function(Header(), &name_bytes, 0, &function));
    return Optional<Function>(ObjectRef::FromOwned(static_cast<TVMFFIObject*>(function)));
  }

  bool ImplementsFunction(const String& name) override {
    TVMFFIByteArray name_bytes = name.bytes();
    int32_t found = 0;
    ffihub::cxx::Check(ffihub::cxx::Bridge().implements_function(Header(), &name_bytes, &found));
    return found != 0;
  }

  Optional<String> GetFunctionDoc(const String& name) override {
    TVMFFIByteArray name_bytes = name.bytes();
    TVMFFIAny out = NoneOut();
    int32_t code = ffihub::cxx::Bridge().function_doc(Header(), &name_bytes, &out);
    return Optional<String>(OwnedOut(code, out));
  }

  Optional<String> GetFunctionMetadata(const String& name) override {
    TVMFFIByteArray name_bytes = name.bytes();
    TVMFFIAny out = NoneOut();
    int32_t code = ffihub::cxx::Bridge().function_metadata(Header(), &name_bytes, &out);
    return Optional<String>(OwnedOut(code, out));
  }

  void WriteToFile(const String& file_name, const String& format) const override {
    TVMFFIByteArray file_bytes = file_name.bytes();
    TVMFFIByteArray format_bytes = format.bytes();
    ffihub::cxx::Check(ffihub::cxx::Bridge().write_to_file(Header(), &file_bytes, &format_bytes));
  }

  Array<String> GetWriteFormats() const override {
    TVMFFIAny out = NoneOut();
    int32_t code = ffihub::cxx::Bridge().write_formats(Header(), &out);
    return Array<String>(ffihub::cxx::ToObject(OwnedOut(code, out), kTVMFFIArray, false,
                                               "Module::GetWriteFormats"));
  }

  Bytes SaveToBytes() const override {
    TVMFFIAny out = NoneOut();
    int32_t code = ffihub::cxx::Bridge().save_to_bytes(Header(), &out);
    return Bytes(OwnedOut(code, out));
  }

  String InspectSource(const String& format) const override {
    TVMFFIByteArray format_bytes = format.bytes();
    TVMFFIAny out = NoneOut();
    int32_t code = ffihub::cxx::Bridge().inspect_source(Header(), &format_bytes, &out);
    return ffihub::cxx::ToString(OwnedOut(code, out), "Module::InspectSource");
  }

 private:
  TVMFFIObject* Header() const { return const_cast<FfihubModuleObj*>(this)->header(); }
};

/*! \brief The C++ object of a module handle, refusing objects without a vtable. */
ModuleObj* CxxModule(TVMFFIObject* module) {
  ModuleObj* obj = ModuleObj::FromHeader(module);
  const void* vptr = nullptr;
  std::memcpy(&vptr, obj, sizeof(vptr));
  if (vptr == nullptr) {
    ffihub::cxx::Throw("RuntimeError",
                       "the module object has no C++ vtable (it was not made as a ModuleObj)");
  }
  return obj;
}

String StringOf(const TVMFFIByteArray* bytes) {
  TVMFFIAny value{};
  ffihub::cxx::Check(TVMFFIStringFromByteArray(bytes, &value));
  return String(Any::FromOwned(value));
}

}  // namespace

extern "C" {

const void* ffihub_cxx_module_vptr(void) {
  // Registering the static type here also instantiates Apache's STB_GNU_UNIQUE type-index cache.
  ModuleObj::_GetOrAllocRuntimeTypeIndex();
  FfihubModuleObj probe;
  const void* vptr = nullptr;
  std::memcpy(&vptr, static_cast<void*>(&probe), sizeof(vptr));
  return vptr;
}

int32_t ffihub_cxx_module_kind(TVMFFIObject* module, const char** out) {
  return ffihub::cxx::Guard([&] { *out = CxxModule(module)->kind(); });
}

int32_t ffihub_cxx_module_property_mask(TVMFFIObject* module, int32_t* out) {
  return ffihub::cxx::Guard([&] { *out = CxxModule(module)->GetPropertyMask(); });
}

int32_t ffihub_cxx_module_get_function(TVMFFIObject* module, const TVMFFIByteArray* name,
                                       TVMFFIObjectHandle* out) {
  return ffihub::cxx::Guard(
      [&] { *out = CxxModule(module)->GetFunction(StringOf(name)).release(); });
}

int32_t ffihub_cxx_module_implements_function(TVMFFIObject* module, const TVMFFIByteArray* name,
                                              int32_t* out) {
  return ffihub::cxx::Guard([&] { *out = CxxModule(module)->ImplementsFunction(StringOf(name)); });
}

int32_t ffihub_cxx_module_function_doc(TVMFFIObject* module, const TVMFFIByteArray* name,
                                       TVMFFIAny* out) {
  return ffihub::cxx::Guard(
      [&] { *out = CxxModule(module)->GetFunctionDoc(StringOf(name)).release(); });
}

int32_t ffihub_cxx_module_function_metadata(TVMFFIObject* module, const TVMFFIByteArray* name,
                                            TVMFFIAny* out) {
  return ffihub::cxx::Guard(
      [&] { *out = CxxModule(module)->GetFunctionMetadata(StringOf(name)).release(); });
}

int32_t ffihub_cxx_module_write_to_file(TVMFFIObject* module, const TVMFFIByteArray* file,
                                        const TVMFFIByteArray* format) {
  return ffihub::cxx::Guard(
      [&] { CxxModule(module)->WriteToFile(StringOf(file), StringOf(format)); });
}

int32_t ffihub_cxx_module_write_formats(TVMFFIObject* module, TVMFFIAny* out) {
  return ffihub::cxx::Guard([&] {
    Array<String> formats = CxxModule(module)->GetWriteFormats();
    *out = formats.view();
    formats.release();
  });
}

int32_t ffihub_cxx_module_save_to_bytes(TVMFFIObject* module, TVMFFIAny* out) {
  return ffihub::cxx::Guard([&] { *out = CxxModule(module)->SaveToBytes().release(); });
}

int32_t ffihub_cxx_module_inspect_source(TVMFFIObject* module, const TVMFFIByteArray* format,
                                         TVMFFIAny* out) {
  return ffihub::cxx::Guard(
      [&] { *out = CxxModule(module)->InspectSource(StringOf(format)).release(); });
}

int32_t ffihub_cxx_module_import_module(TVMFFIObject* module, TVMFFIObject* other) {
  return ffihub::cxx::Guard([&] {
    tvm::ffi::Module other_module(ObjectRef::FromBorrowed(other));
    CxxModule(module)->ImportModule(other_module);
  });
}

int32_t ffihub_cxx_module_clear_imports(TVMFFIObject* module) {
  return ffihub::cxx::Guard([&] { CxxModule(module)->ClearImports(); });
}

int32_t ffihub_cxx_lookup_from_imports(TVMFFIObject* module, const char* name,
                                       TVMFFIObjectHandle* out) {
  return ffihub::cxx::Guard([&] {
    *out = ModuleObj::InternalUnsafe::GetFunctionFromImports(ModuleObj::FromHeader(module), name);
  });
}

}  // extern "C"
