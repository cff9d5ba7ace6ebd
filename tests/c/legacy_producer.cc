// A library built against the headers of an early release (0.1.7: before `TVMFFIErrorCell` had
// `cause_chain` and `extra_context`, before type-attribute columns had `begin_index`, before the
// allocation header), for tests/c/legacy_driver.c (docs/compatibility.md). It produces what such
// code hands to the runtime, the way its header code makes it:
//
//   legacy.raise(kind, message)   throws a tvm::ffi::Error (0.1.7's ErrorObjFromStd, whose
//                                 std::string members sit where later cells have cause_chain)
//   legacy.make_values()          an Array of objects allocated by this code (no allocation
//                                 header): a reflected `legacy.Box`, a Map, a heap String, a
//                                 Function
//   legacy.column_entry(name, i)  the type index of the value column `name` holds for type i, read
//                                 the way this release's header code reads columns (a `size_t`
//                                 size, no begin_index); -1 when the column or the entry is absent
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>

namespace {

namespace ffi = tvm::ffi;

class BoxObj : public ffi::Object {
 public:
  int64_t value = 0;
  ffi::String label;

  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("legacy.Box", BoxObj, ffi::Object);
};

void Raise(const ffi::String& kind, const ffi::String& message) {
  throw ffi::Error(std::string(kind), std::string(message), "legacy_producer.cc: Raise\n");
}

ffi::Array<ffi::Any> MakeValues() {
  ffi::ObjectPtr<BoxObj> box = ffi::make_object<BoxObj>();
  box->value = 42;
  box->label = ffi::String(std::string("a label long enough to live on the heap"));
  ffi::Map<ffi::String, int64_t> map;
  map.Set("one", 1);
  map.Set("two", 2);
  ffi::String text(std::string("another string long enough for the heap"));
  ffi::Function add_one = ffi::Function::FromTyped([](int64_t x) { return x + 1; });
  return ffi::Array<ffi::Any>{ffi::Any(ffi::ObjectRef(box)), map, text, add_one};
}

int64_t ColumnEntry(const ffi::String& name, int64_t type_index) {
  TVMFFIByteArray bytes{name.data(), name.size()};
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&bytes);
  if (column == nullptr || type_index < 0) return -1;
  // This release's header: `size_t size`, entries from type index 0.
  if (static_cast<size_t>(type_index) >= column->size) return -1;
  int32_t entry = column->data[type_index].type_index;
  return entry == kTVMFFINone ? -1 : entry;
}

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::ObjectDef<BoxObj>()
      .def_ro("value", &BoxObj::value)
      .def_ro("label", &BoxObj::label);
  refl::GlobalDef()
      .def("legacy.raise", Raise)
      .def("legacy.make_values", MakeValues)
      .def("legacy.column_entry", ColumnEntry);
}

}  // namespace
