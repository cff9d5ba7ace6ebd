// Host of tests/c/cxx_extension.cc, built against Apache's headers and linked with -ltvm_ffi (no
// rpath): the library path picks Apache's runtime or ffihub's. Usage:
//
//   cxx_host <libcxx_extension.so> <scratch dir> modules|globals
//
// `modules` passes modules both ways: the runtime's library module to C++ (its virtual methods
// called from here and from the extension) and the extension's C++ "counter" module to the
// runtime (its `ffi.Module*` globals call the virtual methods, C++ exceptions come back as
// errors), imports across both, Module::LoadFromFile and ReprPrint. `globals` runs the
// extension's calls of json::Parse/Stringify and StructuralEqual::Equal.
//
// Prints "ok <check> = <value>" per passed check (the transcript) and FAILED lines otherwise, then
// the summary line.
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/tvm_ffi.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace ffi = tvm::ffi;

namespace {

int failures = 0;

void Check(const std::string& what, const std::string& got, const std::string& expected) {
  if (got == expected) {
    std::printf("ok %s = %s\n", what.c_str(), got.c_str());
  } else {
    std::printf("FAILED %s: got <%s>, expected <%s>\n", what.c_str(), got.c_str(),
                expected.c_str());
    ++failures;
  }
}

std::string Text(bool value) { return value ? "true" : "false"; }

ffi::Function Global(const char* name) { return ffi::Function::GetGlobalRequired(name); }

// Runs `body`, returning "kind: message" of the tvm::ffi::Error it throws, or "no error". The
// message must also be what what() returns (a C string, whichever runtime made the error).
template <typename Body>
std::string ErrorOf(Body body) {
  try {
    body();
    return "no error";
  } catch (const ffi::Error& error) {
    std::string what_differs = error.what() == error.message() ? "" : " [what() differs]";
    return error.kind() + ": " + error.message() + what_differs;
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Context symbols registered here, as the runtime's users do, and visited from the extension.
int context_alpha = 0;
int context_beta = 0;

void ContextSymbols(const ffi::Module& lib) {
  TVMFFIEnvModRegisterContextSymbol("cxx_host.alpha", &context_alpha);
  TVMFFIEnvModRegisterContextSymbol("cxx_host.beta", &context_beta);
  std::ostringstream expected;
  expected << "cxx_host.alpha=" << static_cast<void*>(&context_alpha) << ";cxx_host.beta="
           << static_cast<void*>(&context_beta) << ";";
  std::string got = (*lib->GetFunction("context_symbols"))("cxx_host.").cast<std::string>();
  Check("Module::VisitContextSymbols in the extension",
        got == expected.str() ? "the registered names and addresses, in order" : got,
        "the registered names and addresses, in order");
}

void Modules(const std::string& extension, const std::string& scratch) {
  // The runtime's module, used from C++ (vtable calls on ffihub's runtime's own module).
  ffi::Module lib = ffi::Module::LoadFromFile(extension);
  Check("library kind()", lib->kind(), "library");
  Check("library GetPropertyMask()", std::to_string(lib->GetPropertyMask()), "3");
  Check("library ImplementsFunction(make_counter)", Text(lib->ImplementsFunction("make_counter")),
        "true");
  Check("library ImplementsFunction(add, query_imports)",
        Text(lib->ImplementsFunction("add", true)), "false");
  Check("library GetFunction(nothing)", Text(lib->GetFunction("nothing").has_value()), "false");
  Check("library GetFunctionDoc(make_counter)",
        Text(lib->GetFunctionDoc("make_counter").has_value()), "false");
  Check("library GetFunctionMetadata(make_counter)",
        Text(lib->GetFunctionMetadata("make_counter").has_value()), "false");
  Check("library SaveToBytes()", ErrorOf([&] { lib->SaveToBytes(); }).substr(0, 13),
        "RuntimeError:");
  ffi::Function make_counter = *lib->GetFunction("make_counter");
  ffi::Function describe = *lib->GetFunction("describe_module", false);

  // A module made by C++ code, used by the runtime (vtable calls from ffihub's runtime).
  ffi::Module counter = make_counter(10).cast<ffi::Module>();
  Check("ffi.ModuleGetKind(counter)", Global("ffi.ModuleGetKind")(counter).cast<std::string>(),
        "counter");
  Check("ffi.ModuleGetPropertyMask(counter)",
        std::to_string(Global("ffi.ModuleGetPropertyMask")(counter).cast<int64_t>()), "3");
  ffi::Function get_function = Global("ffi.ModuleGetFunction");
  ffi::Optional<ffi::Function> add =
      get_function(counter, "add", false).cast<ffi::Optional<ffi::Function>>();
  Check("ffi.ModuleGetFunction(counter, add)", Text(add.has_value()), "true");
  Check("counter add(5)", std::to_string((*add)(5).cast<int64_t>()), "15");
  Check("ffi.ModuleGetFunction(counter, missing)",
        Text(get_function(counter, "missing", true).cast<ffi::Optional<ffi::Function>>()
                 .has_value()),
        "false");
  Check("ffi.ModuleGetFunction(counter, broken)",
        ErrorOf([&] { get_function(counter, "broken", false); }),
        "RuntimeError: looking up `broken` fails in C++");
  Check("counter explode()",
        ErrorOf([&] { get_function(counter, "explode", false).cast<ffi::Function>()(); }),
        "ValueError: the counter exploded");
  Check("ffi.ModuleImplementsFunction(counter, add)",
        Text(Global("ffi.ModuleImplementsFunction")(counter, "add", false).cast<bool>()), "true");
  Check("ffi.ModuleGetFunctionDoc(counter, add)",
        Global("ffi.ModuleGetFunctionDoc")(counter, "add", false).cast<std::string>(),
        "Adds x to the counter; returns the new count.");
  Check("ffi.ModuleGetFunctionMetadata(counter, add)",
        Global("ffi.ModuleGetFunctionMetadata")(counter, "add", false).cast<std::string>(),
        R"({"type_schema":"add(int) -> int"})");
  Check("ffi.ModuleGetFunctionDoc(counter, explode)",
        Text(Global("ffi.ModuleGetFunctionDoc")(counter, "explode", false)
                 .cast<ffi::Optional<ffi::String>>()
                 .has_value()),
        "false");
  Check("ffi.ModuleInspectSource(counter, c)",
        Global("ffi.ModuleInspectSource")(counter, "c").cast<std::string>(),
        "// counter at 15, format 'c'");
  ffi::Array<ffi::String> formats =
      Global("ffi.ModuleGetWriteFormats")(counter).cast<ffi::Array<ffi::String>>();
  Check("ffi.ModuleGetWriteFormats(counter)",
        std::to_string(formats.size()) + ":" + std::string(formats[0]), "1:txt");
  std::string file = scratch + "/counter.txt";
  Global("ffi.ModuleWriteToFile")(counter, file, "txt");
  Check("ffi.ModuleWriteToFile(counter, txt)", ReadFile(file), "count=15\n");
  Check("ffi.ModuleWriteToFile(counter, bin)",
        ErrorOf([&] { Global("ffi.ModuleWriteToFile")(counter, file, "bin"); }),
        "ValueError: counter cannot write format bin");
  ffi::Bytes saved = counter->SaveToBytes();
  ffi::Module loaded =
      Global("ffi.Module.load_from_bytes.counter")(saved).cast<ffi::Module>();
  Check("load_from_bytes(SaveToBytes())",
        Global("ffi.ModuleInspectSource")(loaded, "").cast<std::string>(),
        "// counter at 15, format ''");

  // A C++ module with the base class's defaults, through the runtime.
  ffi::Module minimal = (*lib->GetFunction("make_minimal"))().cast<ffi::Module>();
  Check("ffi.ModuleGetKind(minimal)", Global("ffi.ModuleGetKind")(minimal).cast<std::string>(),
        "minimal");
  Check("ffi.ModuleGetPropertyMask(minimal)",
        std::to_string(Global("ffi.ModuleGetPropertyMask")(minimal).cast<int64_t>()), "0");
  Check("ffi.ModuleImplementsFunction(minimal, add)",
        Text(Global("ffi.ModuleImplementsFunction")(minimal, "add", true).cast<bool>()), "false");
  Check("ffi.ModuleGetFunctionDoc(minimal, add)",
        Text(Global("ffi.ModuleGetFunctionDoc")(minimal, "add", true)
                 .cast<ffi::Optional<ffi::String>>()
                 .has_value()),
        "false");
  Check("ffi.ModuleGetWriteFormats(minimal)",
        std::to_string(
            Global("ffi.ModuleGetWriteFormats")(minimal).cast<ffi::Array<ffi::String>>().size()),
        "0");
  Check("ffi.ModuleInspectSource(minimal)",
        "'" + Global("ffi.ModuleInspectSource")(minimal, "asm").cast<std::string>() + "'", "''");
  Check("ffi.ModuleWriteToFile(minimal)",
        ErrorOf([&] { Global("ffi.ModuleWriteToFile")(minimal, file, "txt"); }),
        "RuntimeError: Module[minimal] does not support WriteToFile");
  Global("ffi.ModuleImportModule")(minimal, counter);
  Check("ffi.ModuleGetFunction(minimal, add, imports)",
        std::to_string(get_function(minimal, "add", true).cast<ffi::Function>()(0).cast<int64_t>()),
        "15");
  Global("ffi.ModuleClearImports")(minimal);
  Check("minimal imports after ffi.ModuleClearImports", std::to_string(minimal->imports().size()),
        "0");

  // Imports across the boundary: the runtime's module imports the C++ one and the reverse.
  Global("ffi.ModuleImportModule")(lib, counter);
  Check("library imports after ffi.ModuleImportModule", std::to_string(lib->imports().size()),
        "1");
  ffi::Optional<ffi::Function> imported_add = lib->GetFunction("add", true);
  Check("library GetFunction(add, query_imports)", Text(imported_add.has_value()), "true");
  Check("imported add(1)", std::to_string((*imported_add)(1).cast<int64_t>()), "16");
  Check("library GetFunctionDoc(add, query_imports)",
        lib->GetFunctionDoc("add", true).value_or("<none>"),
        "Adds x to the counter; returns the new count.");
  Check("library ImplementsFunction(add, query_imports) after the import",
        Text(lib->ImplementsFunction("add", true)), "true");
  Check("ffi.ModuleImplementsFunction(library, add, imports)",
        Text(Global("ffi.ModuleImplementsFunction")(lib, "add", true).cast<bool>()), "true");
  Check("describe_module(library) in the extension", describe(lib).cast<std::string>(),
        "kind=library mask=3 has(make_counter)=1 has(nothing)=0 own(make_counter)=1 own(add)=0 "
        "imported(add)=1 add(1)=17 imports=1 doc(add)=Adds x to the counter; returns the new "
        "count. metadata(add)={\"type_schema\":\"add(int) -> int\"} doc(repr)=<none> formats=0 "
        "source='' save=RuntimeError");
  Check("counter ImportModule(library): cycle",
        ErrorOf([&] { Global("ffi.ModuleImportModule")(counter, lib); }),
        "RuntimeError: Cyclic dependency detected during import");
  ffi::Module second = make_counter(100).cast<ffi::Module>();
  (*lib->GetFunction("import_into"))(counter, second);
  Check("counter imports after ImportModule from C++", std::to_string(counter->imports().size()),
        "1");
  Check("ffi.ModuleGetFunction(library, add) finds the first counter's",
        std::to_string(get_function(lib, "add", true).cast<ffi::Function>()(0).cast<int64_t>()),
        "17");
  (*lib->GetFunction("clear_imports_of"))(lib);
  Check("library imports after ClearImports from C++", std::to_string(lib->imports().size()),
        "0");
  counter->ClearImports();
  Check("counter imports after ClearImports", std::to_string(counter->imports().size()), "0");

  // Module::LoadFromFile and ReprPrint called from the extension.
  ffi::Module again = (*lib->GetFunction("load_module"))(extension).cast<ffi::Module>();
  Check("Module::LoadFromFile in the extension", again->kind(), "library");
  std::string missing = scratch + "/missing.so";
  std::string error = ErrorOf([&] { (*lib->GetFunction("load_module"))(missing); });
  Check("Module::LoadFromFile(missing) names the file and says why",
        error.substr(0, error.find(':')) + Text(error.find("Failed to load dynamic shared library " +
                                                           missing) != std::string::npos) +
            Text(error.find(missing + ": cannot open shared object file: No such file or "
                                      "directory") != std::string::npos),
        "InternalErrortruetrue");
  Check("Module::LoadFromFile(no extension)",
        ErrorOf([&] { ffi::Module::LoadFromFile("no_extension"); }),
        "RuntimeError: Failed to get file format from no_extension");
  ffi::Function repr = *lib->GetFunction("repr");
  Check("ReprPrint(array)", repr(ffi::Array<ffi::Any>{1, 2.5, "three", nullptr}).cast<std::string>(),
        "(1, 2.5, \"three\", None)");
  Check("ReprPrint(map)", repr(ffi::Map<ffi::String, int64_t>{{"a", 1}}).cast<std::string>(),
        "{\"a\": 1}");
  ContextSymbols(lib);
}

void Globals(const std::string& extension) {
  ffi::Module lib = ffi::Module::LoadFromFile(extension);
  ffi::Function roundtrip = *lib->GetFunction("json_roundtrip");
  Check("json::Parse + Stringify",
        roundtrip(R"({"a": [1, 2.5, "x", null, true]})").cast<std::string>(),
        "{\"a\":[1,2.5,\"x\",null,true]} | {\n  \"a\": [\n    1,\n    2.5,\n    \"x\",\n    "
        "null,\n    true\n  ]\n}");
  Check("json::Parse(syntax error, &error_msg)",
        (*lib->GetFunction("json_error"))("[1, 2").cast<std::string>().substr(0, 6), "None: ");
  Check("json::Parse(syntax error) throws",
        ErrorOf([&] { roundtrip("[1, 2"); }).substr(0, 11), "ValueError:");
  ffi::Function equal = *lib->GetFunction("structural_equal");
  Check("StructuralEqual::Equal(equal arrays)",
        Text(equal(ffi::Array<int64_t>{1, 2}, ffi::Array<int64_t>{1, 2}).cast<bool>()), "true");
  Check("StructuralEqual::Equal(different arrays)",
        Text(equal(ffi::Array<int64_t>{1, 2}, ffi::Array<int64_t>{1, 3}).cast<bool>()), "false");
  Check("StructuralEqual::Equal(maps)",
        Text(equal(ffi::Map<ffi::String, int64_t>{{"a", 1}},
                   ffi::Map<ffi::String, int64_t>{{"a", 1}})
                 .cast<bool>()),
        "true");
  ffi::Array<ffi::Any> nested{1, ffi::Array<ffi::Any>{"x", 2.5}, ffi::Map<ffi::String, int64_t>{{"k", 3}}};
  ffi::Array<ffi::Any> same{1, ffi::Array<ffi::Any>{"x", 2.5}, ffi::Map<ffi::String, int64_t>{{"k", 3}}};
  ffi::Array<ffi::Any> other{1, ffi::Array<ffi::Any>{"y", 2.5}, ffi::Map<ffi::String, int64_t>{{"k", 3}}};
  Check("StructuralHash::Hash(equal values)",
        Text((*lib->GetFunction("structural_hash_equal"))(nested, same).cast<bool>()), "true");
  Check("StructuralHash::Hash(different values)",
        Text((*lib->GetFunction("structural_hash_equal"))(nested, other).cast<bool>()), "false");
  Check("StructuralEqual::GetFirstMismatch(equal values)",
        Text((*lib->GetFunction("first_mismatch"))(nested, same).cast<bool>()), "false");
  Check("StructuralEqual::GetFirstMismatch(different values)",
        Text((*lib->GetFunction("first_mismatch"))(nested, other).cast<bool>()), "true");
  Check("ToJSONGraph + FromJSONGraph",
        (*lib->GetFunction("graph_roundtrip"))(nested).cast<std::string>(),
        R"({"root_index":7,"nodes":[{"type":"int","data":1},{"type":"ffi.String","data":"x"},)"
        R"({"type":"float","data":2.5},{"type":"ffi.Array","data":[1,2]},)"
        R"({"type":"ffi.String","data":"k"},{"type":"int","data":3},)"
        R"({"type":"ffi.Map","data":[4,5]},{"type":"ffi.Array","data":[0,3,6]}]} equal=1)");
  Check("DeepCopy", (*lib->GetFunction("deep_copy"))(nested).cast<std::string>(),
        "equal=1 same_object=0");
  ffi::Function compare = *lib->GetFunction("recursive_compare");
  Check("Recursive* (equal)", compare(nested, same).cast<std::string>(),
        "lt=0 le=1 gt=0 ge=1 hash_equal=1");
  Check("Recursive* (x < y)", compare(nested, other).cast<std::string>(),
        "lt=1 le=1 gt=0 ge=0 hash_equal=0");
  Check("VisitErrorContext::FindAccessPaths",
        std::to_string((*lib->GetFunction("find_access_paths"))().cast<int64_t>()), "2");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <libcxx_extension.so> <scratch dir> modules|globals\n",
                 argv[0]);
    return 2;
  }
  std::string part = argv[3];
  try {
    if (part == "modules") {
      Modules(argv[1], argv[2]);
    } else if (part == "globals") {
      Globals(argv[1]);
    } else {
      std::fprintf(stderr, "unknown part %s\n", part.c_str());
      return 2;
    }
  } catch (const ffi::Error& error) {
    std::printf("FAILED: uncaught %s: %s\n", error.kind().c_str(), error.message().c_str());
    ++failures;
  }
  std::printf("%s: %d check(s) failed\n", failures == 0 ? "PASSED" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
