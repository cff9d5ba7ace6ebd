// Modules: a library's exported functions (`__tvm_ffi_<name>`) through ffi.ModuleLoadFromFile.
#include <filesystem>

#include "common.hpp"
#include "demo.hpp"

TEST_CASE(load_and_call_exports) {
  ffihub::Module mod = ffihub::Module::load(test::env_path("FFIHUB_DEMO_LIB"));
  CHECK_EQ(mod.runtime_type_key(), "ffi.Module");
  CHECK(!mod.kind().empty());
  CHECK(mod.implements_function("multiply"));
  CHECK(!mod.implements_function("no_such_export"));
  std::optional<ffihub::Function> mul = mod.get_function("multiply");
  CHECK(mul.has_value());
  CHECK_EQ(mul->call<int64_t>(6, 7), 42);
  CHECK_EQ(mod.call<int64_t>("multiply", -3, 5), -15);
  CHECK_EQ(mod["version"].call<std::string>(), demo::version());
  CHECK(!mod.get_function("no_such_export").has_value());
  CHECK_THROWS(ffihub::AttributeError, mod["no_such_export"], "no_such_export");
  CHECK_THROWS(ffihub::TypeError, mod.call<int64_t>("multiply", "a", 1), "");
}

TEST_CASE(docs_and_metadata) {
  ffihub::Module mod = ffihub::Module::load(test::env_path("FFIHUB_DEMO_LIB"));
  std::optional<std::string> meta = mod.function_metadata("multiply");
  CHECK(meta.has_value() && meta->find("type_schema") != std::string::npos);
  std::optional<std::string> doc = mod.function_doc("multiply");
  CHECK(doc.has_value() && !doc->empty());
}

TEST_CASE(generated_module_exports) {
  // `#[ffihub::function(export = "multiply")]`: a typed function of the generated header, its
  // library (loaded by load_demo) loaded once as a module on first use.
  CHECK_EQ(demo::multiply(6, 7), 42);
  CHECK_EQ(demo::multiply(-3, 5), -15);
}

TEST_CASE(bad_paths) {
  CHECK_THROWS(ffihub::Error, ffihub::Module::load("/no/such/library.so"), "");
  CHECK_THROWS(ffihub::RuntimeError, ffihub::load_library("/no/such/library.so"), "cannot load");
}

TEST_CASE(one_extension_from_two_paths) {
  // A copy of the demo library elsewhere: its first registration refuses, naming both paths.
  const std::string first = test::env_path("FFIHUB_DEMO_LIB");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ffihub-cpp-copy-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string copy = (dir / "libffihub_demo_copy.so").string();
  std::filesystem::copy_file(first, copy, std::filesystem::copy_options::overwrite_existing);
  std::string message;
  try {
    ffihub::load_library(copy);
  } catch (const ffihub::RuntimeError& e) {
    message = e.what();
  }
  std::filesystem::remove_all(dir);
  CHECK(message.find(copy) != std::string::npos && message.find(first) != std::string::npos);
  CHECK(message.find("is already registered by") != std::string::npos);
  // The first copy keeps its types and functions.
  CHECK_EQ(demo::add_one(41), 42);
  CHECK_EQ(demo::Point(3, 4).norm(), 5.0);
}

TEST_CASE(compiled_kernel_by_name) {
  // The seeds' add_one_c, as a code generator emits it: no metadata, no globals.
  ffihub::Module mod = ffihub::Module::load(test::env_path("FFIHUB_ADD_ONE_C_LIB"));
  float x[4] = {1, 2, 3, 4};
  float y[4] = {0, 0, 0, 0};
  ffihub::Tensor tx = ffihub::Tensor::from_buffer(x, {4});
  ffihub::Tensor ty = ffihub::Tensor::from_buffer(y, {4});
  mod["add_one_c"](tx, ty);
  for (int i = 0; i < 4; ++i) CHECK_EQ(y[i], x[i] + 1);  // in place: the kernel saw y's memory
  CHECK_THROWS(ffihub::AttributeError, mod["no_such_kernel"], "no function `no_such_kernel`");
  // A bare file name is the file in the working folder, not a loader search.
  const std::string lib = test::env_path("FFIHUB_ADD_ONE_C_LIB");
  const std::string cwd = std::filesystem::current_path();
  std::filesystem::current_path(std::filesystem::path(lib).parent_path());
  CHECK(ffihub::Module::load("add_one_c.so").implements_function("add_one_c"));
  std::filesystem::current_path(cwd);
  CHECK_THROWS(ffihub::ValueError, mod["add_one_c"](1, ty), "Expects a Tensor");
  CHECK_THROWS(ffihub::Error, ffihub::Module::load("/no/such/kernels.so"), "\"/no/such/kernels.so\"");
  CHECK_THROWS(ffihub::Error, ffihub::Module::load("README.md"), "\"README.md\"");
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS([] {
    ffihub::Module mod = ffihub::Module::load(test::env_path("FFIHUB_DEMO_LIB"));
    mod.call<int64_t>("multiply", 2, 3);
    mod.function_doc("version");
    float x[2] = {1, 2};
    float y[2] = {0, 0};
    ffihub::Module kernels = ffihub::Module::load(test::env_path("FFIHUB_ADD_ONE_C_LIB"));
    kernels["add_one_c"](ffihub::Tensor::from_buffer(x, {2}), ffihub::Tensor::from_buffer(y, {2}));
  });
}

TEST_MAIN(test::load_demo())
