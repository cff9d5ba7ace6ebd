// ffihub C++ support: loading libraries and modules (`ffi.Module`).
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "tensor.hpp"

namespace ffihub {

namespace detail {
/// Opens a library for load_library: "" on success, else the loader's message. An error the
/// library raises while it loads is thrown (an extension already loaded from another path raises
/// one naming both paths).
inline std::string open_library(const std::string& file) {
  TVMFFIObjectHandle stale = nullptr;
  TVMFFIErrorMoveFromRaised(&stale);  // raised earlier, no longer anyone's
  if (stale != nullptr) TVMFFIObjectDecRef(stale);
  if (dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = dlerror();
    return why != nullptr ? why : "unknown error";
  }
  TVMFFIObjectHandle raised = nullptr;
  TVMFFIErrorMoveFromRaised(&raised);
  if (raised != nullptr) Error(Owned{static_cast<TVMFFIObject*>(raised)}).rethrow_typed();
  return {};
}

/// Calls `open(path)` with `file` in each folder of FFIHUB_LIBRARY_PATH (colon-separated), in
/// order (docs/install.md, "Finding libraries"), until it returns true. Each folder without the
/// file is appended to `tried` (`open` appends its own reason when it fails).
template <typename Open>
bool try_library_path(const std::string& file, std::string& tried, Open&& open) {
  const char* search = std::getenv("FFIHUB_LIBRARY_PATH");
  if (search == nullptr || *search == '\0') {
    tried += "FFIHUB_LIBRARY_PATH (unset), ";
    return false;
  }
  std::string_view rest(search);
  for (bool more = true; more;) {
    size_t colon = rest.find(':');
    more = colon != std::string_view::npos;
    std::string_view dir = rest.substr(0, colon);
    if (more) rest.remove_prefix(colon + 1);
    if (dir.empty()) continue;
    std::string path = std::string(dir) + "/" + file;
    if (access(path.c_str(), F_OK) != 0) {
      tried += path + " (no such file), ";
    } else if (open(path)) {
      return true;
    }
  }
  return false;
}
}  // namespace detail

/**
 * Loads a shared library that registers TVM-FFI global functions and types from its static
 * initializers (dlopen with RTLD_NOW | RTLD_GLOBAL; never unloaded). It binds to the runtime
 * this process already uses. Linking the library (`-lname`) instead works too.
 *
 * A path with a `/` is opened as given. A bare file name (`libdemo.so`) is looked for in each
 * folder of `FFIHUB_LIBRARY_PATH` (colon-separated), in order, then by the system loader: the
 * calling program's RUNPATH (which CMake's `ffihub_generate()` points at the library's folder),
 * `LD_LIBRARY_PATH`, ld.so.cache. Throws ffihub::RuntimeError naming each place tried.
 */
inline void load_library(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    std::string why = detail::open_library(name);
    if (!why.empty()) throw RuntimeError("cannot load " + name + ": " + why);
    return;
  }
  std::string tried;
  bool opened = detail::try_library_path(name, tried, [&](const std::string& file) {
    std::string why = detail::open_library(file);
    if (!why.empty()) tried += file + " (" + why + "), ";
    return why.empty();
  });
  if (opened) return;
  std::string why = detail::open_library(name);
  if (why.empty()) return;
  throw RuntimeError("cannot load " + name + ": tried " + tried + "the system loader (" + why +
                     "); add the library's folder to FFIHUB_LIBRARY_PATH, give the program an "
                     "rpath to it (CMake's ffihub_generate() does), or pass its path");
}

namespace detail {
inline constexpr char kModuleLoadFromFile[] = "ffi.ModuleLoadFromFile";
inline constexpr char kModuleGetFunction[] = "ffi.ModuleGetFunction";
inline constexpr char kModuleGetKind[] = "ffi.ModuleGetKind";
inline constexpr char kModuleImplementsFunction[] = "ffi.ModuleImplementsFunction";
inline constexpr char kModuleImportModule[] = "ffi.ModuleImportModule";
inline constexpr char kModuleGetFunctionDoc[] = "ffi.ModuleGetFunctionDoc";
inline constexpr char kModuleGetFunctionMetadata[] = "ffi.ModuleGetFunctionMetadata";
inline constexpr char kSystemLib[] = "ffi.SystemLib";
}  // namespace detail

/**
 * A TVM-FFI module (`ffi.Module`): a loaded library's exported functions (`__tvm_ffi_<name>`),
 * looked up by name.
 *
 *     auto mod = ffihub::Module::load("libffihub_demo.so");
 *     double y = mod.call<double>("multiply", 3.0, 4.0);
 *     mod["add_one"](x, y);  // packed: any arguments, an ffihub::Any result
 */
class Module : public ObjectRef {
 public:
  static constexpr const char* type_key = "ffi.Module";
  explicit Module(detail::Owned owned) noexcept : ObjectRef(owned) {}

  /// Loads a module from a shared library (`ffi.ModuleLoadFromFile`); a kernel library needs
  /// nothing else: `ffihub::Module::load("vector_add.so")["main"](a, b, c)`. A relative path
  /// is taken from the working folder. Errors keep the runtime's kind and name the path.
  static Module load(const std::string& path) {
    // A file named relative to the working folder is that file (`dlopen` would search the
    // loader's path for a bare name instead).
    const bool bare_file = path.find('/') == std::string::npos && access(path.c_str(), F_OK) == 0;
    try {
      return detail::builtin<detail::kModuleLoadFromFile>().call<Module>(bare_file ? "./" + path
                                                                                  : path);
    } catch (const Error& e) {
      // The runtime's message may not name the file (e.g. an unknown extension).
      Error(e.kind(), "cannot load \"" + path + "\" as a module: " + e.message()).rethrow_typed();
    }
  }
  /// The system library (functions registered with `TVMFFIEnvModRegisterSystemLibSymbol`).
  static Module system_lib(const std::string& prefix = std::string()) {
    return detail::builtin<detail::kSystemLib>().call<Module>(prefix);
  }

  /// The module's kind ("library", ...).
  std::string kind() const { return detail::builtin<detail::kModuleGetKind>().call<std::string>(*this); }
  /// The function `name`, or std::nullopt.
  std::optional<Function> get_function(const std::string& name, bool query_imports = false) const {
    return detail::builtin<detail::kModuleGetFunction>().call<std::optional<Function>>(
        *this, name, query_imports);
  }
  /// The function `name`; throws ffihub::AttributeError if the module has none.
  Function operator[](const std::string& name) const {
    std::optional<Function> f = get_function(name, true);
    if (!f) {
      throw AttributeError("the " + kind() + " module has no function `" + name +
                           "` (a library exports function `f` as the symbol `__tvm_ffi_f`)");
    }
    return std::move(*f);
  }
  bool implements_function(const std::string& name, bool query_imports = true) const {
    return detail::builtin<detail::kModuleImplementsFunction>().call<bool>(*this, name,
                                                                           query_imports);
  }
  /// The doc string of function `name`, if the module records one.
  std::optional<std::string> function_doc(const std::string& name) const {
    return detail::builtin<detail::kModuleGetFunctionDoc>().call<std::optional<std::string>>(
        *this, name, true);
  }
  /// The metadata JSON of function `name`, if the module records one.
  std::optional<std::string> function_metadata(const std::string& name) const {
    return detail::builtin<detail::kModuleGetFunctionMetadata>()
        .call<std::optional<std::string>>(*this, name, true);
  }
  /// Makes `other`'s functions reachable through this module.
  void import_module(const Module& other) const {
    detail::builtin<detail::kModuleImportModule>().call<void>(*this, other);
  }
  /// Calls function `name` with a typed result.
  template <typename R, typename... Args>
  R call(const std::string& name, Args&&... args) const {
    return (*this)[name].template call<R>(std::forward<Args>(args)...);
  }
};

}  // namespace ffihub
