# find_package(ffihub): ffihub installed by scripts/install.sh (docs/cpp.md, "Installing").
#
# Imported targets:
#   ffihub::tvm_ffi    the TVM-FFI runtime (libtvm_ffi.so) and the C headers; executables linking
#                      it get an rpath to the install's lib/ (LD_LIBRARY_PATH still comes first)
#   ffihub::ffihub     the header-only C++17 support library (links ffihub::tvm_ffi)
#   ffihub::generator  the ffihub binding generator (executable)
# Functions: ffihub_generate() (ffihub-generate.cmake).
# Variables: ffihub_VERSION, FFIHUB_GENERATOR (the generator's path).
cmake_minimum_required(VERSION 3.19)

# This file is <prefix>/lib/cmake/ffihub/ffihub-config.cmake.
get_filename_component(_ffihub_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

foreach(_ffihub_file
    "${_ffihub_prefix}/lib/libtvm_ffi.so"
    "${_ffihub_prefix}/include/tvm/ffi/c_api.h"
    "${_ffihub_prefix}/include/ffihub/ffihub.hpp"
    "${_ffihub_prefix}/bin/ffihub")
  if(NOT EXISTS "${_ffihub_file}")
    set(ffihub_FOUND FALSE)
    set(ffihub_NOT_FOUND_MESSAGE
        "the ffihub install under ${_ffihub_prefix} is incomplete: ${_ffihub_file} is missing (reinstall with scripts/install.sh --prefix ${_ffihub_prefix})")
    return()
  endif()
endforeach()

if(NOT TARGET ffihub::tvm_ffi)
  add_library(ffihub::tvm_ffi SHARED IMPORTED)
  set_target_properties(ffihub::tvm_ffi PROPERTIES
    IMPORTED_LOCATION "${_ffihub_prefix}/lib/libtvm_ffi.so"
    IMPORTED_SONAME "libtvm_ffi.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_ffihub_prefix}/include"
    # Installed executables keep finding the runtime (CMake's own rpath is for the build tree).
    INTERFACE_LINK_OPTIONS "LINKER:-rpath,${_ffihub_prefix}/lib")
endif()

if(NOT TARGET ffihub::ffihub)
  add_library(ffihub::ffihub INTERFACE IMPORTED)
  set_target_properties(ffihub::ffihub PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_ffihub_prefix}/include"
    INTERFACE_COMPILE_FEATURES cxx_std_17
    INTERFACE_LINK_LIBRARIES "ffihub::tvm_ffi;${CMAKE_DL_LIBS}")
endif()

if(NOT TARGET ffihub::generator)
  add_executable(ffihub::generator IMPORTED)
  set_target_properties(ffihub::generator PROPERTIES
    IMPORTED_LOCATION "${_ffihub_prefix}/bin/ffihub")
endif()
set(FFIHUB_GENERATOR "${_ffihub_prefix}/bin/ffihub")

include("${CMAKE_CURRENT_LIST_DIR}/ffihub-generate.cmake")
unset(_ffihub_file)
unset(_ffihub_prefix)
