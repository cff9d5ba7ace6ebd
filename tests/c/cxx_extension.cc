// A C++ extension built against Apache's headers (the wheel's), the way Apache TVM's libraries
// are: it subclasses ModuleObj and calls the C++ API that libtvm_ffi.so exports. Loaded by
// tests/c/cxx_host.cc on Apache's runtime and on ffihub's.
//
// - make_counter(start), make_minimal(): modules made here (C++ ModuleObjs the runtime must call
//   through their vtables), one overriding every virtual method, one only the pure ones;
// - describe_module(m): calls the virtual and exported methods of a module made by the runtime;
// - import_into(parent, child): ModuleObj::ImportModule from C++;
// - repr(x), load_module(path), context_symbols(prefix): ReprPrint, Module::LoadFromFile,
//   Module::VisitContextSymbols;
// - json_roundtrip, json_error, structural_equal, structural_hash_equal, first_mismatch,
//   graph_roundtrip, deep_copy, recursive_compare, find_access_paths: the other exported
//   functions (json, structural equality and hashing, JSON graphs, dataclass helpers,
//   VisitErrorContext);
// - global ffi.Module.load_from_bytes.counter: the loader for SaveToBytes's output.
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/extra/visit_error_context.h>
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

// A module with only the pure virtual methods: the other slots are the base class's defaults.
class MinimalModule : public ffi::ModuleObj {
 public:
  const char* kind() const final { return "minimal"; }
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final { return std::nullopt; }
};

ffi::Module MakeMinimal() { return ffi::Module(ffi::make_object<MinimalModule>()); }

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

bool StructuralHashEqual(ffi::Any lhs, ffi::Any rhs) {
  return ffi::StructuralHash::Hash(lhs) == ffi::StructuralHash::Hash(rhs, false, true);
}

bool FirstMismatch(ffi::Any lhs, ffi::Any rhs) {
  return ffi::StructuralEqual::GetFirstMismatch(lhs, rhs).has_value();
}

ffi::String GraphRoundtrip(ffi::Any value) {
  ffi::json::Value graph = ffi::ToJSONGraph(value);
  ffi::Any back = ffi::FromJSONGraph(graph);
  return ffi::String(std::string(ffi::json::Stringify(graph)) +
                     " equal=" + std::to_string(ffi::RecursiveEq(value, back)));
}

ffi::String DeepCopy(ffi::Any value) {
  ffi::Any copy = ffi::DeepCopy(value);
  return ffi::String("equal=" + std::to_string(ffi::RecursiveEq(value, copy)) +
                     " same_object=" + std::to_string(copy.same_as(value)));
}

ffi::String RecursiveCompare(ffi::Any lhs, ffi::Any rhs) {
  return ffi::String("lt=" + std::to_string(ffi::RecursiveLt(lhs, rhs)) +
                     " le=" + std::to_string(ffi::RecursiveLe(lhs, rhs)) +
                     " gt=" + std::to_string(ffi::RecursiveGt(lhs, rhs)) +
                     " ge=" + std::to_string(ffi::RecursiveGe(lhs, rhs)) + " hash_equal=" +
                     std::to_string(ffi::RecursiveHash(lhs) == ffi::RecursiveHash(rhs)));
}

// The access paths of a leaf held twice by a root (reflected objects: VisitErrorContexts, whose
// reverse_visit_pattern field is a List), with the pattern recorded innermost first.
int64_t FindAccessPaths() {
  ffi::VisitErrorContext leaf(ffi::make_object<ffi::VisitErrorContextObj>());
  auto root = ffi::make_object<ffi::VisitErrorContextObj>();
  root->reverse_visit_pattern.push_back(leaf);
  root->reverse_visit_pattern.push_back(leaf);
  ffi::VisitErrorContext root_ref(root);
  auto pattern = ffi::make_object<ffi::VisitErrorContextObj>();
  pattern->reverse_visit_pattern.push_back(leaf);
  pattern->reverse_visit_pattern.push_back(root_ref);
  return static_cast<int64_t>(
      ffi::VisitErrorContext::FindAccessPaths(root_ref, ffi::VisitErrorContext(pattern)).size());
}

// The context symbols whose names start with `prefix`, as "name=address;" in visiting order.
ffi::String ContextSymbols(ffi::String prefix) {
  std::ostringstream out;
  ffi::Module::VisitContextSymbols([&](ffi::String name, void* address) {
    if (std::string(name).rfind(std::string(prefix), 0) == 0) out << name << "=" << address << ";";
  });
  return ffi::String(out.str());
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_counter, MakeCounter);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_minimal, MakeMinimal);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(describe_module, DescribeModule);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(import_into, ImportInto);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(clear_imports_of, ClearImportsOf);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(repr, Repr);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(load_module, LoadModule);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(json_roundtrip, JsonRoundtrip);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(json_error, JsonError);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(structural_equal, StructuralEqual);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(structural_hash_equal, StructuralHashEqual);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(first_mismatch, FirstMismatch);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(graph_roundtrip, GraphRoundtrip);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(deep_copy, DeepCopy);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(recursive_compare, RecursiveCompare);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(find_access_paths, FindAccessPaths);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(context_symbols, ContextSymbols);

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def("ffi.Module.load_from_bytes.counter",
                                        [](ffi::Bytes bytes) {
                                          return MakeCounter(std::stoll(std::string(bytes)));
                                        });
}
