// Apache's exported free functions and static methods, each forwarding to the global function
// that Apache's runtime registers for it (the same names, so both runtimes agree on behaviour).
#include <cstring>

#include "calls.h"

namespace tvm {
namespace ffi {

using ffihub::cxx::CallGlobal;
using ffihub::cxx::ToBool;
using ffihub::cxx::ToInt;
using ffihub::cxx::ToObject;
using ffihub::cxx::ToString;

namespace json {

Any Parse(const String& json_str, String* error_msg) {
  if (error_msg == nullptr) return CallGlobal("ffi.json.Parse", {json_str.view()});
  // With error_msg, syntax errors (ValueError) are reported there and the result is None.
  try {
    Any value = CallGlobal("ffi.json.Parse", {json_str.view()});
    *error_msg = String();
    return value;
  } catch (const Error& error) {
    const TVMFFIErrorCell& cell = ffihub::cxx::ErrorCell(error);
    std::string kind(cell.kind.data, cell.kind.size);
    if (kind != "ValueError") throw;
    TVMFFIAny message{};
    ffihub::cxx::Check(TVMFFIStringFromByteArray(&cell.message, &message));
    *error_msg = String(Any::FromOwned(message));
    return Any();
  }
}

String Stringify(const Any& value, const Optional<int>& indent) {
  return ToString(CallGlobal("ffi.json.Stringify", {value.view(), indent.view()}),
                  "ffi.json.Stringify");
}

}  // namespace json

Any ToJSONGraph(const Any& value, const Any& metadata) {
  return CallGlobal("ffi.ToJSONGraph", {value.view(), metadata.view()});
}

Any FromJSONGraph(const Any& value) { return CallGlobal("ffi.FromJSONGraph", {value.view()}); }

Any DeepCopy(const Any& value) { return CallGlobal("ffi.DeepCopy", {value.view()}); }

String ReprPrint(const Any& value) {
  return ToString(CallGlobal("ffi.ReprPrint", {value.view()}), "ffi.ReprPrint");
}

int64_t RecursiveHash(const Any& value) {
  return ToInt(CallGlobal("ffi.RecursiveHash", {value.view()}), "ffi.RecursiveHash");
}

bool RecursiveEq(const Any& lhs, const Any& rhs) {
  return ToBool(CallGlobal("ffi.RecursiveEq", {lhs.view(), rhs.view()}), "ffi.RecursiveEq");
}

bool RecursiveLt(const Any& lhs, const Any& rhs) {
  return ToBool(CallGlobal("ffi.RecursiveLt", {lhs.view(), rhs.view()}), "ffi.RecursiveLt");
}

bool RecursiveLe(const Any& lhs, const Any& rhs) {
  return ToBool(CallGlobal("ffi.RecursiveLe", {lhs.view(), rhs.view()}), "ffi.RecursiveLe");
}

bool RecursiveGt(const Any& lhs, const Any& rhs) {
  return ToBool(CallGlobal("ffi.RecursiveGt", {lhs.view(), rhs.view()}), "ffi.RecursiveGt");
}

bool RecursiveGe(const Any& lhs, const Any& rhs) {
  return ToBool(CallGlobal("ffi.RecursiveGe", {lhs.view(), rhs.view()}), "ffi.RecursiveGe");
}

uint64_t StructuralHash::Hash(const Any& value, bool map_free_vars, bool skip_tensor_content) {
  // The global returns the hash bit-cast to int64.
  return static_cast<uint64_t>(
      ToInt(CallGlobal("ffi.StructuralHash", {value.view(), ffihub::cxx::BoolView(map_free_vars),
                                              ffihub::cxx::BoolView(skip_tensor_content)}),
            "ffi.StructuralHash"));
}

bool StructuralEqual::Equal(const Any& lhs, const Any& rhs, bool map_free_vars,
                            bool skip_tensor_content) {
  return ToBool(
      CallGlobal("ffi.StructuralEqual",
                 {lhs.view(), rhs.view(), ffihub::cxx::BoolView(map_free_vars),
                  ffihub::cxx::BoolView(skip_tensor_content)}),
      "ffi.StructuralEqual");
}

Optional<reflection::AccessPathPair> StructuralEqual::GetFirstMismatch(const Any& lhs,
                                                                      const Any& rhs,
                                                                      bool map_free_vars,
                                                                      bool skip_tensor_content) {
  Any mismatch = CallGlobal("ffi.GetFirstStructuralMismatch",
                            {lhs.view(), rhs.view(), ffihub::cxx::BoolView(map_free_vars),
                             ffihub::cxx::BoolView(skip_tensor_content)});
  return Optional<reflection::AccessPathPair>(
      ToObject(std::move(mismatch), kTVMFFIObject, true, "ffi.GetFirstStructuralMismatch"));
}

Array<reflection::AccessPath> VisitErrorContext::FindAccessPaths(
    const ObjectRef& root, const VisitErrorContext& visit_context, bool allow_prefix_match) {
  Any paths = CallGlobal("ffi.VisitErrorContext.FindAccessPaths",
                         {root.view(), visit_context.view(), ffihub::cxx::BoolView(allow_prefix_match)});
  return Array<reflection::AccessPath>(
      ToObject(std::move(paths), kTVMFFIArray, false, "ffi.VisitErrorContext.FindAccessPaths"));
}

Module Module::LoadFromFile(const String& file_name) {
  Any module = CallGlobal("ffi.ModuleLoadFromFile", {file_name.view()});
  return Module(ToObject(std::move(module), kTVMFFIModule, false, "ffi.ModuleLoadFromFile"));
}

namespace {

struct ContextSymbolVisit {
  const TypedFunction<void(String, void*)>* callback;
  std::exception_ptr error;
};

int32_t VisitContextSymbol(void* ctx, const TVMFFIByteArray* name, void* address) {
  auto* visit = static_cast<ContextSymbolVisit*>(ctx);
  try {
    TVMFFIAny name_value{};
    ffihub::cxx::Check(TVMFFIStringFromByteArray(name, &name_value));
    String name_string(Any::FromOwned(name_value));
    TVMFFIAny args[2] = {name_string.view(), TVMFFIAny{}};
    args[1].type_index = address == nullptr ? kTVMFFINone : kTVMFFIOpaquePtr;
    args[1].v_ptr = address;
    TVMFFIAny result{};
    result.type_index = kTVMFFINone;
    ffihub::cxx::Check(TVMFFIFunctionCall(visit->callback->get(), args, 2, &result));
    Any discarded = Any::FromOwned(result);
    return 0;
  } catch (...) {
    visit->error = std::current_exception();
    return 1;
  }
}

}  // namespace

void Module::VisitContextSymbols(const TypedFunction<void(String, void*)>& callback) {
  ContextSymbolVisit visit{&callback, nullptr};
  ffihub::cxx::Check(ffihub::cxx::Bridge().visit_context_symbols(&visit, VisitContextSymbol));
  if (visit.error) std::rethrow_exception(visit.error);
}

}  // namespace ffi
}  // namespace tvm
