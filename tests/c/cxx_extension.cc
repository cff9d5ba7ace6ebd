// A C++ extension built against Apache's headers (the wheel's), the way Apache TVM's libraries
// are: it subclasses ModuleObj and calls the C++ API that libtvm_ffi.so exports. Loaded by
// tests/c/cxx_host.cc on Apache's runtime and on ffihub's.
//
// - make_counter(start): a "counter" module made here (a C++ ModuleObj the runtime must call
//   through its vtable);
// - describe_module(m): calls the virtual and exported methods of a module made by the runtime;
// - import_into(parent, child): ModuleObj::ImportModule from C++;
// - repr(x), load_module(path): ReprPrint, Module::LoadFromFile;
// - json_roundtrip(text), json_error(text), structural_equal(a, b): json::Parse/Stringify and
//   StructuralEqual::Equal;
// - global ffi.Module.load_from_bytes.counter: the loader for SaveToBytes's output.
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/tvm_ffi.h>

#include <fstream>
#include <sstream>
#include <string>

namespace ffi = tvm::ffi;

namespace {

class CounterModule : public ffi::ModuleObj {
 public:
  explicit CounterModule(int64_t start) : count_(start) {}

  const char* kind() const final { return "counter"; }

  int GetPropertyMask() const final {
    return ffi::Module::kBinarySerializable | ffi::Module::kRunnable;
  }

  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final {
    // The functions hold the module, as Apache's library functions do.
    ffi::ObjectPtr<ffi::Object> self = ffi::GetObjectPtr<ffi::Object>(this);
    if (name == "add") {
      return ffi::Function::FromTyped([self, this](int64_t x) { return count_ += x; });
    }
    if (name == "explode") {
      return ffi::Function::FromTyped(
          []() -> int64_t { TVM_FFI_THROW(ValueError) << "the counter exploded"; });
    }
    if (name == "broken") {
      TVM_FFI_THROW(RuntimeError) << "looking up `broken` fails in C++";
    }
    return std::nullopt;
  }

  ffi::Optional<ffi::String> GetFunctionDoc(const ffi::String& name) final {
    if (name == "add") return ffi::String("Adds x to the counter; returns the new count.");
    return std::nullopt;
  }

  ffi::Optional<ffi::String> GetFunctionMetadata(const ffi::String& name) final {
    if (name == "add") return ffi::String(R"({"type_schema":"add(int) -> int"})");
    return std::nullopt;
  }

  void WriteToFile(const ffi::String& file_name, const ffi::String& format) const final {
    if (format != "txt") TVM_FFI_THROW(ValueError) << "counter cannot write format " << format;
    std::ofstream(std::string(file_name)) << "count=" << count_ << "\n";
  }

  ffi::Array<ffi::String> GetWriteFormats() const final { return {"txt"}; }

  ffi::Bytes SaveToBytes() const final { return ffi::Bytes(std::to_string(count_)); }

  ffi::String InspectSource(const ffi::String& format) const final {
    return ffi::String("// counter at " + std::to_string(count_) + ", format '" +
                       std::string(format) + "'");
  }

 private:
  int64_t count_;
};

ffi::Module MakeCounter(int64_t start) {
  return ffi::Module(ffi::make_object<CounterModule>(start));
}

std::string OptionalText(const ffi::Optional<ffi::String>& text) {
  return text.has_value() ? std::string(*text) : std::string("<none>");
}

// Uses a module made by the runtime through its C++ face: virtual and exported methods.
ffi::String DescribeModule(ffi::Module module) {
  std::ostringstream out;
  out << "kind=" << module->kind() << " mask=" << module->GetPropertyMask();
  out << " has(make_counter)=" << module->ImplementsFunction("make_counter");
  out << " has(nothing)=" << module->ImplementsFunction("nothing");
  ffi::Optional<ffi::Function> own = module->GetFunction("make_counter");
  out << " own(make_counter)=" << own.has_value();
  out << " own(add)=" << module->GetFunction("add").has_value();
  ffi::Optional<ffi::Function> add = module->GetFunction("add", true);
  out << " imported(add)=" << add.has_value();
  if (add.has_value()) out << " add(1)=" << (*add)(1).cast<int64_t>();
  out << " imports=" << module->imports().size();
  out << " doc(add)=" << OptionalText(module->GetFunctionDoc("add", true));
  out << " metadata(add)=" << OptionalText(module->GetFunctionMetadata("add", true));
  out << " doc(repr)=" << OptionalText(module->GetFunctionDoc("repr"));
  out << " formats=" << module->GetWriteFormats().size();
  out << " source='" << std::string(module->InspectSource("")) << "'";
  try {
    module->SaveToBytes();
    out << " save=ok";
  } catch (const ffi::Error& error) {
    out << " save=" << error.kind();
  }
  return ffi::String(out.str());
}

void ImportInto(ffi::Module parent, ffi::Module child) { parent->ImportModule(child); }

void ClearImportsOf(ffi::Module module) { module->ClearImports(); }

ffi::String Repr(ffi::Any value) { return ffi::ReprPrint(value); }

ffi::Module LoadModule(ffi::String path) { return ffi::Module::LoadFromFile(path); }

ffi::String JsonRoundtrip(ffi::String text) {
  ffi::json::Value value = ffi::json::Parse(text);
  return ffi::json::Stringify(value) + " | " + ffi::json::Stringify(value, 2);
}

ffi::String JsonError(ffi::String text) {
  ffi::String error;
  ffi::json::Value value = ffi::json::Parse(text, &error);
  return ffi::String(std::string(value == nullptr ? "None" : "value") + ": " +
                     std::string(error));
}

bool StructuralEqual(ffi::Any lhs, ffi::Any rhs) { return ffi::StructuralEqual::Equal(lhs, rhs); }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_counter, MakeCounter);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(describe_module, DescribeModule);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(import_into, ImportInto);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(clear_imports_of, ClearImportsOf);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(repr, Repr);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(load_module, LoadModule);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(json_roundtrip, JsonRoundtrip);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(json_error, JsonError);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(structural_equal, StructuralEqual);

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def("ffi.Module.load_from_bytes.counter",
                                        [](ffi::Bytes bytes) {
                                          return MakeCounter(std::stoll(std::string(bytes)));
                                        });
}
