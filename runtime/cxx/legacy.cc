// The C++ entries whose argument layout changed between Apache TVM-FFI releases, in the form the
// older releases exported (docs/compatibility.md). Every other exported C++ entry kept its
// signature and its argument layouts through all 0.1.x releases; those live in api.cc and
// module.cc.
#include <cstdint>

#include "calls.h"

namespace ffihub {
namespace cxx {

/*! \brief `tvm::ffi::Optional<int>` as the 0.1.0 to 0.1.12 headers declare it: a
 * `std::optional<int>` (libstdc++: the value at +0, the engaged flag at +4; 8 bytes). Its copy
 * constructor is user-provided, so the by-value parameter below is passed by invisible reference:
 * a pointer to the caller's temporary, which the caller destroys. */
struct LegacyOptionalInt {
  int32_t value;
  bool engaged;
};
static_assert(sizeof(LegacyOptionalInt) == 8 && alignof(LegacyOptionalInt) == 4,
              "the layout of libstdc++'s std::optional<int>");

}  // namespace cxx
}  // namespace ffihub

namespace tvm {
namespace ffi {
namespace json {

/*! \brief `tvm::ffi::json::Stringify(Any const&, Optional<int>)`, the by-value form of releases
 * 0.1.0 to 0.1.12 (0.1.13 made the indent `Optional<int> const&`, with a 16-byte Any-backed
 * Optional). The type of that Optional cannot coexist with today's in one translation unit, so the
 * entry takes what the caller really passes (the address of its 8-byte Optional) under the
 * symbol's mangled name. */
String StringifyByValueIndent(const Any& value, const ffihub::cxx::LegacyOptionalInt& indent) __asm__(
    "_ZN3tvm3ffi4json9StringifyERKNS0_3AnyENS0_8OptionalIivEE");

String StringifyByValueIndent(const Any& value, const ffihub::cxx::LegacyOptionalInt& indent) {
  TVMFFIAny indent_view{};
  indent_view.type_index = indent.engaged ? kTVMFFIInt : kTVMFFINone;
  indent_view.v_int64 = indent.engaged ? indent.value : 0;
  return ffihub::cxx::ToString(
      ffihub::cxx::CallGlobal("ffi.json.Stringify", {value.view(), indent_view}),
      "ffi.json.Stringify");
}

}  // namespace json
}  // namespace ffi
}  // namespace tvm
