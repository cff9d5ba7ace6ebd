# ffihub_generate(<target> NAME <name> {LIB <library>... | METADATA <file>} [PREFIX <p>]
#                 [CONFIG <file>] [RUNTIME <libtvm_ffi.so>] [OUTPUT_DIR <dir>] [HEADER <file>])
#
# Runs `ffihub generate --lang cpp` at build time and makes <target>, an INTERFACE library that
# brings the generated header's folder and ffihub::ffihub: `target_link_libraries(app PRIVATE
# <target>)`, then `#include <name.hpp>` (a library with nested namespaces also gets a header per
# namespace, `#include <name/ns.hpp>`, generated with it).
#   LIB        the libraries to bind: files or CMake targets (built first); the generator loads
#              them into a runtime (RUNTIME, else the install's own libtvm_ffi.so). Consumers of
#              <target> get an rpath to each library's folder, so `ffihub::load_library("libx.so")`
#              finds it with no environment variable; the install's lib/ comes first in that
#              rpath, so that a libtvm_ffi.so next to a library (Apache's wheel has one) is not
#              the runtime the program loads.
#   METADATA   a reflection document from `ffihub dump` instead (needs no runtime or library).
#   OUTPUT_DIR where the header goes (default: ${CMAKE_CURRENT_BINARY_DIR}/ffihub/<target>).
#   HEADER     the generated file's name, when it is not <name>.hpp.
# The header is regenerated when a library, the document or the config changes.
function(ffihub_generate target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAME;METADATA;PREFIX;CONFIG;RUNTIME;OUTPUT_DIR;HEADER" "LIB")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ffihub_generate(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME)
    message(FATAL_ERROR "ffihub_generate(${target}): NAME is required")
  endif()
  if((arg_LIB AND arg_METADATA) OR (NOT arg_LIB AND NOT arg_METADATA))
    message(FATAL_ERROR "ffihub_generate(${target}): give either LIB (libraries) or METADATA (a dump)")
  endif()
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/ffihub/${target}")
  endif()
  if(NOT arg_HEADER)
    set(arg_HEADER "${arg_NAME}.hpp")
  endif()

  set(command "${FFIHUB_GENERATOR}" generate --lang cpp --name "${arg_NAME}" --out "${arg_OUTPUT_DIR}")
  set(depends "${FFIHUB_GENERATOR}")
  set(lib_dirs "")
  if(arg_METADATA)
    get_filename_component(metadata "${arg_METADATA}" ABSOLUTE)
    list(APPEND command --metadata "${metadata}")
    list(APPEND depends "${metadata}")
  else()
    foreach(lib IN LISTS arg_LIB)
      if(TARGET "${lib}")
        list(APPEND command --lib "$<TARGET_FILE:${lib}>")
        list(APPEND depends "${lib}")
        list(APPEND lib_dirs "$<TARGET_FILE_DIR:${lib}>")
      else()
        get_filename_component(lib "${lib}" ABSOLUTE)
        if(NOT EXISTS "${lib}")
          message(FATAL_ERROR "ffihub_generate(${target}): LIB ${lib} does not exist")
        endif()
        list(APPEND command --lib "${lib}")
        list(APPEND depends "${lib}")
        get_filename_component(dir "${lib}" DIRECTORY)
        list(APPEND lib_dirs "${dir}")
      endif()
    endforeach()
    if(arg_RUNTIME)
      list(APPEND command --runtime "${arg_RUNTIME}")
    endif()
  endif()
  if(arg_PREFIX)
    list(APPEND command --prefix "${arg_PREFIX}")
  endif()
  if(arg_CONFIG)
    get_filename_component(config "${arg_CONFIG}" ABSOLUTE)
    list(APPEND command --config "${config}")
    list(APPEND depends "${config}")
  endif()

  set(header "${arg_OUTPUT_DIR}/${arg_HEADER}")
  add_custom_command(
    OUTPUT "${header}"
    COMMAND ${command}
    DEPENDS ${depends}
    COMMENT "ffihub: generating ${arg_HEADER} (${target})"
    VERBATIM)
  add_custom_target(${target}_generate DEPENDS "${header}")
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_generate)
  target_include_directories(${target} INTERFACE "${arg_OUTPUT_DIR}")
  target_link_libraries(${target} INTERFACE ffihub::ffihub)
  # The runtime's folder first: the loader takes the first libtvm_ffi.so the RUNPATH offers.
  # (Link options are de-duplicated keeping the first, so ffihub::tvm_ffi's own rpath to the
  # same folder does not move it after the libraries' folders.)
  get_target_property(runtime ffihub::tvm_ffi IMPORTED_LOCATION)
  get_filename_component(runtime_dir "${runtime}" DIRECTORY)
  target_link_options(${target} INTERFACE "LINKER:-rpath,${runtime_dir}")
  foreach(dir IN LISTS lib_dirs)
    target_link_options(${target} INTERFACE "LINKER:-rpath,${dir}")
  endforeach()
endfunction()
