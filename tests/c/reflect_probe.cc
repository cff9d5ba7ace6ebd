// A C++ extension built against Apache's headers (the wheel's) that knows no type of its own: it
// reaches objects only through reflection, the way C++ code reads object types a binding
// defined at run time (Julia's `@ffi_object`, Node's `ffi.defineClass`). Loaded by the Julia and
// Node suites (tests/julia/generated/test_define.jl, tests/node/define.test.mjs) on Apache's
// runtime and on ffihub's.
//
// - reflect_probe.describe(x) -> str: `key(field=value, ...)` with every field of an object (its
//   ancestors' first) read through its reflected getter and each value read back as its C++
//   type (int64_t, double, bool, String, Bytes, Array, Map, nested objects); containers and
//   objects recursively;
// - reflect_probe.call_method(obj, name, args...): the reflected method `name` (the most derived
//   type declaring it) called on `obj`;
// - reflect_probe.with_field(obj, name, value) -> obj: a shallow copy (`__ffi_shallow_copy__`)
//   with the field `name` set through its reflected setter; the original is unchanged.
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/tvm_ffi.h>

#include <sstream>
#include <string>
#include <string_view>

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

namespace {

std::string_view View(const TVMFFIByteArray& bytes) { return {bytes.data, bytes.size}; }

const TVMFFITypeInfo* InfoOf(const ffi::ObjectRef& obj) {
  return TVMFFIGetTypeInfo(obj->type_index());
}

void Describe(std::ostream& os, const ffi::Any& value, int depth);

template <typename Seq>
void DescribeItems(std::ostream& os, const char* open, const Seq& items, const char* close,
                   int depth) {
  os << open;
  for (size_t i = 0; i < items.size(); ++i) {
    os << (i ? ", " : "");
    Describe(os, items[i], depth + 1);
  }
  os << close;
}

template <typename Mapping>
void DescribePairs(std::ostream& os, const char* open, const Mapping& pairs, const char* close,
                   int depth) {
  os << open;
  bool first = true;
  for (const auto& [k, v] : pairs) {
    os << (first ? "" : ", ");
    first = false;
    Describe(os, k, depth + 1);
    os << ": ";
    Describe(os, v, depth + 1);
  }
  os << close;
}

void DescribeObject(std::ostream& os, const ffi::ObjectRef& obj, int depth) {
  const TVMFFITypeInfo* info = InfoOf(obj);
  os << View(info->type_key) << "(";
  if (depth > 4) {
    os << "...)";
    return;
  }
  bool first = true;
  refl::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
    os << (first ? "" : ", ") << View(field->name) << "=";
    first = false;
    Describe(os, refl::FieldGetter(field)(obj), depth + 1);
  });
  os << ")";
}

void Describe(std::ostream& os, const ffi::Any& value, int depth) {
  if (value == nullptr) {
    os << "None";
  } else if (value.type_index() == ffi::TypeIndex::kTVMFFIBool) {
    os << (value.cast<bool>() ? "true" : "false");
  } else if (auto i = value.try_cast<int64_t>(); i && value.type_index() == ffi::TypeIndex::kTVMFFIInt) {
    os << *i;
  } else if (value.type_index() == ffi::TypeIndex::kTVMFFIFloat) {
    os << value.cast<double>();
  } else if (auto s = value.as<ffi::String>()) {
    os << '"' << std::string_view(s->data(), s->size()) << '"';
  } else if (auto b = value.as<ffi::Bytes>()) {
    os << "b" << b->size();
  } else if (auto array = value.as<ffi::Array<ffi::Any>>()) {
    DescribeItems(os, "[", *array, "]", depth);
  } else if (auto list = value.as<ffi::List<ffi::Any>>()) {
    DescribeItems(os, "List[", *list, "]", depth);
  } else if (auto map = value.as<ffi::Map<ffi::Any, ffi::Any>>()) {
    DescribePairs(os, "{", *map, "}", depth);
  } else if (auto dict = value.as<ffi::Dict<ffi::Any, ffi::Any>>()) {
    DescribePairs(os, "Dict{", *dict, "}", depth);
  } else if (auto obj = value.as<ffi::ObjectRef>()) {
    DescribeObject(os, *obj, depth);
  } else {
    os << "<type index " << value.type_index() << ">";
  }
}

// The method `name` of the most derived type of `obj` that declares one.
ffi::Function FindMethod(const ffi::ObjectRef& obj, std::string_view name) {
  const TVMFFITypeInfo* info = InfoOf(obj);
  for (int depth = info->type_depth; depth >= 0; --depth) {
    const TVMFFITypeInfo* type = depth == info->type_depth ? info : info->type_ancestors[depth];
    for (int i = 0; i < type->num_methods; ++i) {
      if (View(type->methods[i].name) == name) {
        return ffi::AnyView::CopyFromTVMFFIAny(type->methods[i].method).cast<ffi::Function>();
      }
    }
  }
  TVM_FFI_THROW(AttributeError) << View(info->type_key) << " has no method " << name;
  TVM_FFI_UNREACHABLE();
}

const TVMFFIFieldInfo* FindField(const ffi::ObjectRef& obj, std::string_view name) {
  const TVMFFIFieldInfo* found = nullptr;
  refl::ForEachFieldInfo(InfoOf(obj), [&](const TVMFFIFieldInfo* field) {
    if (View(field->name) == name) found = field;
  });
  if (found == nullptr) {
    TVM_FFI_THROW(AttributeError) << View(InfoOf(obj)->type_key) << " has no field " << name;
  }
  return found;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::GlobalDef()
      .def("reflect_probe.describe",
           [](ffi::Any value) {
             std::ostringstream os;
             Describe(os, value, 0);
             return ffi::String(os.str());
           })
      .def_packed("reflect_probe.call_method",
                  [](ffi::PackedArgs args, ffi::Any* rv) {
                    if (args.size() < 2) {
                      TVM_FFI_THROW(TypeError) << "call_method(obj, name, args...)";
                    }
                    auto obj = args[0].cast<ffi::ObjectRef>();
                    auto name = args[1].cast<ffi::String>();
                    // The method takes the object first, then the remaining arguments.
                    std::vector<ffi::AnyView> call_args(args.size() - 1);
                    call_args[0] = args[0];
                    for (int i = 2; i < args.size(); ++i) call_args[i - 1] = args[i];
                    FindMethod(obj, std::string_view(name.data(), name.size()))
                        .CallPacked(ffi::PackedArgs(call_args.data(),
                                                    static_cast<int>(call_args.size())),
                                    rv);
                  })
      .def("reflect_probe.with_field",
           [](ffi::ObjectRef obj, ffi::String name, ffi::Any value) {
             refl::TypeAttrColumn copy_column(ffi::type_attr::kShallowCopy);
             ffi::AnyView copy_fn = copy_column[obj->type_index()];
             if (copy_fn == nullptr) {
               TVM_FFI_THROW(TypeError) << View(InfoOf(obj)->type_key) << " cannot be copied";
             }
             auto copy = copy_fn.cast<ffi::Function>()(obj).cast<ffi::ObjectRef>();
             refl::FieldSetter(FindField(copy, std::string_view(name.data(), name.size())))(
                 copy, value);
             return copy;
           });
}
