// ffihub C++ support: module exports of generated headers (the `__tvm_ffi_<name>` functions of
// a library, reached through the library loaded once as a module).
#pragma once

#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "metadata.hpp"
#include "module.hpp"
#include "reflection.hpp"

namespace ffihub {
namespace detail {

/// The path of a library already loaded in the process whose file name is `file`, or "".
inline std::string loaded_library_path(const std::string& file) {
  struct Search {
    const std::string* file;
    std::string found;
  } search{&file, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        std::string_view path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        std::size_t slash = path.rfind('/');
        std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
        if (!path.empty() && name == *s->file) {
          s->found = std::string(path);
          return 1;
        }
        return 0;
      },
      &search);
  return search.found;
}

/**
 * The library `file` loaded as a module, once per process. Found, in order: among the libraries
 * already loaded (linked with `-l`, or opened with ffihub::load_library), in each folder of
 * FFIHUB_LIBRARY_PATH, then by the dynamic loader's search. Throws ffihub::RuntimeError naming
 * each place tried.
 */
inline const Module& package_module(const std::string& file) {
  static std::mutex mutex;
  static std::map<std::string, Module>* modules = new std::map<std::string, Module>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = modules->find(file);
  if (it != modules->end()) return it->second;
  std::string tried;
  auto attempt = [&](const std::string& path, const std::string& place) -> const Module* {
    try {
      return &modules->emplace(file, Module::load(path)).first->second;
    } catch (const Error& e) {
      tried += place + " (" + e.message() + "), ";
      return nullptr;
    }
  };
  std::string loaded = loaded_library_path(file);
  if (!loaded.empty()) {
    if (const Module* m = attempt(loaded, loaded)) return *m;
  } else {
    tried += "the loaded libraries (not loaded), ";
  }
  const Module* found = nullptr;
  if (try_library_path(file, tried, [&](const std::string& path) {
        found = attempt(path, path);
        return found != nullptr;
      })) {
    return *found;
  }
  if (const Module* m = attempt(file, "the system loader")) return *m;
  tried.resize(tried.size() - 2);
  throw RuntimeError("cannot load " + file + " as a module: tried " + tried +
                     "; link the library, add its folder to FFIHUB_LIBRARY_PATH, or call "
                     "ffihub::load_library(path) first");
}

/// A module export of a generated header, looked up (and checked against the signature it was
/// generated for, `"packed"` when untyped) on first use. Keeps its reference for the life of
/// the process.
class ModuleFunction : public LazyFunction<ModuleFunction> {
 public:
  constexpr ModuleFunction(LibraryRef lib, const char* library, const char* name,
                           const char* signature) noexcept
      : lib_(lib), library_(library), name_(name), signature_(signature) {}

 private:
  friend class LazyFunction<ModuleFunction>;
  Function lookup() const {
    lib_().ensure_checked();
    const Module& module = package_module(library_);
    std::optional<Function> f = module.get_function(name_, false);
    if (!f) {
      throw RuntimeError(std::string(library_) + " does not export " + name_ + " (no symbol __tvm_ffi_" +
                             name_ + "); regenerate the bindings from the current library",
                         "<ffihub>", 0, "metadata check");
    }
    std::optional<std::string> meta = module.function_metadata(name_);
    std::string live = meta ? metadata_signature(*meta, false) : std::string("packed");
    if (live != signature_) {
      throw RuntimeError(std::string("export ") + name_ + " of " + library_ + ": generated for " +
                             signature_ + ", the library has " + live +
                             "; regenerate the bindings from the current library",
                         "<ffihub>", 0, "metadata check");
    }
    return *std::move(f);
  }
  LibraryRef lib_;
  const char* library_;
  const char* name_;
  const char* signature_;
};

}  // namespace detail
}  // namespace ffihub
