// Parameter names from a C++ library built against Apache's headers only (tests/signatures):
// the metadata key `arg_names` (a JSON list in a string: `refl::Metadata` values are strings,
// integers or booleans) on a global, on methods and on a constructor, and on a module export
// through its own `__tvm_ffi__metadata_<name>` symbol. This file is built without
// TVM_FFI_DLL_EXPORT_INCLUDE_METADATA, which would define that symbol with the type schema
// only. docstring_exports.cc, in the same library, names its exports' parameters in docstrings.
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <sstream>
#include <string>

namespace {

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

// A 2-D vector: a constructor, a method and a static method.
class VecObj : public ffi::Object {
 public:
  double x;
  double y;
  VecObj(double x, double y) : x(x), y(y) {}
  double Dot(double other_x, double other_y) const { return x * other_x + y * other_y; }
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("signames.Vec", VecObj, ffi::Object);
};

class Vec : public ffi::ObjectRef {
 public:
  Vec(double x, double y) : ffi::ObjectRef(ffi::make_object<VecObj>(x, y)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Vec, ffi::ObjectRef, VecObj);
};

Vec Scaled(Vec v, double factor) { return Vec(v->x * factor, v->y * factor); }

double Affine(double value, double scale, double shift) { return value * scale + shift; }

int64_t Clamp(int64_t value, int64_t low, int64_t high) {
  return value < low ? low : (value > high ? high : value);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<VecObj>()
      .def_ro("x", &VecObj::x)
      .def_ro("y", &VecObj::y)
      .def(refl::init<double, double>(), refl::Metadata({{"arg_names", R"(["x", "y"])"}}))
      .def("dot", &VecObj::Dot, refl::Metadata({{"arg_names", R"(["other_x", "other_y"])"}}))
      .def_static("scaled", Scaled, refl::Metadata({{"arg_names", R"(["vec", "factor"])"}}));
  refl::GlobalDef().def("signames.affine", Affine,
                        refl::Metadata({{"arg_names", R"(["value", "scale", "shift"])"}}));
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(clamp, Clamp);

// The metadata of the export `clamp`: what TVM_FFI_DLL_EXPORT_INCLUDE_METADATA writes (the
// type schema), plus `arg_names`.
extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_clamp(void*, const TVMFFIAny*, int32_t,
                                                            TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  using Info = ffi::detail::FunctionInfo<decltype(&Clamp)>;
  std::ostringstream os;
  os << R"({"type_schema":)" << ffi::EscapeStringJSON(ffi::String(Info::TypeSchema()))
     << R"(,"arg_names":"[\"value\",\"low\",\"high\"]"})";
  std::string text = os.str();
  TVMFFIByteArray bytes{text.data(), text.size()};
  // The string is made by the runtime, so it outlives this call.
  return TVMFFIStringFromByteArray(&bytes, result);
  TVM_FFI_SAFE_CALL_END();
}
