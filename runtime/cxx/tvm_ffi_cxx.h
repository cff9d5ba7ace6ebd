// The C++ surface of Apache TVM-FFI's libtvm_ffi.so, declared for ffihub's runtime (ADR 0005).
//
// These are ffihub's own declarations of the few Apache classes whose Itanium ABI the exported
// C++ symbols depend on: the same names (so the mangled names match), the same sizes and member
// offsets, the same virtual slots in the same order, and the same triviality (so arguments and
// results are passed the same way: every value class here has a non-trivial destructor, so it is
// passed by invisible reference and returned through a hidden result pointer). Nothing else of
// Apache's header-only library is reproduced; every operation forwards to the runtime through
// its C ABI.
#ifndef FFIHUB_RUNTIME_CXX_TVM_FFI_CXX_H_
#define FFIHUB_RUNTIME_CXX_TVM_FFI_CXX_H_

#include <tvm/ffi/c_api.h>

#include <cstdint>
#include <exception>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief The 24-byte object header (Apache's `Object`, no vptr of its own). */
class Object {
 protected:
  TVMFFIObject header_;

 public:
  Object() : header_() {}
  static int32_t _GetOrAllocRuntimeTypeIndex() { return kTVMFFIObject; }
};

/*! \brief An owned, nullable reference to an object header (Apache's `ObjectRef`, 8 bytes). */
class ObjectRef {
 public:
  ObjectRef() = default;
  /*! \brief Takes over one strong reference. */
  static ObjectRef FromOwned(TVMFFIObject* obj) {
    ObjectRef ref;
    ref.data_ = obj;
    return ref;
  }
  /*! \brief Adds a strong reference. */
  static ObjectRef FromBorrowed(TVMFFIObject* obj) {
    if (obj != nullptr) TVMFFIObjectIncRef(obj);
    return FromOwned(obj);
  }
  ObjectRef(const ObjectRef& other) : data_(other.data_) {
    if (data_ != nullptr) TVMFFIObjectIncRef(data_);
  }
  ObjectRef(ObjectRef&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
  ObjectRef& operator=(ObjectRef other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  ~ObjectRef() {
    if (data_ != nullptr) TVMFFIObjectDecRef(data_);
  }
  TVMFFIObject* get() const { return data_; }
  /*! \brief Gives up the reference. */
  TVMFFIObject* release() { return std::exchange(data_, nullptr); }
  /*! \brief A borrowed view for call arguments (None when null). */
  TVMFFIAny view() const;

 protected:
  TVMFFIObject* data_ = nullptr;
};

/*! \brief An owned tagged value (Apache's `Any`, 16 bytes). */
class Any {
 public:
  Any() : data_() { data_.type_index = kTVMFFINone; }
  /*! \brief Takes over an owned value. */
  static Any FromOwned(const TVMFFIAny& raw) {
    Any any;
    any.data_ = raw;
    return any;
  }
  Any(const Any& other) : data_(other.data_) {
    if (data_.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectIncRef(data_.v_obj);
  }
  Any(Any&& other) noexcept : data_(other.data_) { other.data_ = TVMFFIAny(); }
  Any& operator=(Any other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  ~Any() {
    if (data_.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(data_.v_obj);
  }
  /*! \brief The value as a borrowed view. */
  const TVMFFIAny& view() const { return data_; }
  /*! \brief Gives up the value. */
  TVMFFIAny release() { return std::exchange(data_, TVMFFIAny()); }

 protected:
  TVMFFIAny data_;
};

/*! \brief A string value: small strings inline, others a `ffi.String` object (16 bytes). */
class String : public Any {
 public:
  String();
  explicit String(const Any& value) : Any(value) {}
  explicit String(Any&& value) : Any(std::move(value)) {}
  TVMFFIByteArray bytes() const;
};

/*! \brief A bytes value, stored like String. */
class Bytes : public Any {
 public:
  explicit Bytes(Any&& value) : Any(std::move(value)) {}
};

/*! \brief Apache's `Optional<T>`: Any-like storage (None when absent) for value types, a nullable
 * reference for object types; only the instances the exported API uses are declared. */
template <typename T, typename = void>
class Optional;

template <>
class Optional<int> : public Any {};

template <>
class Optional<String> : public Any {
 public:
  explicit Optional(Any&& value) : Any(std::move(value)) {}
};

class Function : public ObjectRef {};

template <>
class Optional<Function> : public ObjectRef {
 public:
  explicit Optional(ObjectRef&& value) : ObjectRef(std::move(value)) {}
};

template <typename Signature>
class TypedFunction : public ObjectRef {};

template <typename T>
class Array : public ObjectRef {
 public:
  explicit Array(ObjectRef&& value) : ObjectRef(std::move(value)) {}
};

template <typename K, typename V>
class Map : public ObjectRef {};

namespace reflection {
class AccessPath : public ObjectRef {};
class AccessPathPair : public ObjectRef {};
}  // namespace reflection

template <>
class Optional<reflection::AccessPathPair> : public ObjectRef {
 public:
  explicit Optional(ObjectRef&& value) : ObjectRef(std::move(value)) {}
};

class VisitErrorContext : public ObjectRef {
 public:
  static Array<reflection::AccessPath> FindAccessPaths(const ObjectRef& root,
                                                       const VisitErrorContext& visit_context,
                                                       bool allow_prefix_match);
};

class Module;

/*! \brief Apache's `ModuleObj`: vptr at +0, the header at +8, 48 bytes, 12 virtual slots and no
 * virtual destructor (the header's deleter frees modules). */
class ModuleObj : public Object {
 public:
  virtual const char* kind() const = 0;
  virtual int GetPropertyMask() const;
  virtual Optional<Function> GetFunction(const String& name) = 0;
  virtual bool ImplementsFunction(const String& name);
  virtual Optional<String> GetFunctionDoc(const String& name);
  virtual Optional<String> GetFunctionMetadata(const String& name);
  virtual void WriteToFile(const String& file_name, const String& format) const;
  virtual Array<String> GetWriteFormats() const;
  virtual Bytes SaveToBytes() const;
  virtual String InspectSource(const String& format) const;
  virtual void ImportModule(const Module& other);
  virtual void ClearImports();

  Optional<Function> GetFunction(const String& name, bool query_imports);
  bool ImplementsFunction(const String& name, bool query_imports);
  Optional<String> GetFunctionDoc(const String& name, bool query_imports);
  Optional<String> GetFunctionMetadata(const String& name, bool query_imports);

  struct InternalUnsafe;

  /*! \brief Registers (once per process, shared with every C++ library through the
   * STB_GNU_UNIQUE `tindex`) the static type `ffi.Module`, as Apache's inline version does. */
  static int32_t _GetOrAllocRuntimeTypeIndex() {
    const TVMFFIByteArray type_key{"ffi.Module", 10};
    static int32_t tindex [[maybe_unused]] = TVMFFITypeGetOrAllocIndex(
        &type_key, kTVMFFIModule, 1, 0, 1, Object::_GetOrAllocRuntimeTypeIndex());
    return kTVMFFIModule;
  }

  /*! \brief The header, which is what handles point to. */
  TVMFFIObject* header() { return &header_; }
  /*! \brief The C++ object of a module handle. */
  static ModuleObj* FromHeader(TVMFFIObject* header) {
    return reinterpret_cast<ModuleObj*>(reinterpret_cast<char*>(header) - sizeof(void*));
  }

 protected:
  ModuleObj() = default;
  ~ModuleObj() = default;
  Array<Any> imports_{ObjectRef()};

 private:
  Map<String, Function> import_lookup_cache_;
};

struct ModuleObj::InternalUnsafe {
  /*! \brief `TVMFFIEnvModLookupFromImports` (the runtime keeps the cache; `mutex_` guards it
   * for every caller in the process). Returns a borrowed Function handle. */
  static TVMFFIObject* GetFunctionFromImports(ModuleObj* module, const char* name);
};

class Module : public ObjectRef {
 public:
  explicit Module(ObjectRef&& value) : ObjectRef(std::move(value)) {}
  ModuleObj* operator->() const { return ModuleObj::FromHeader(data_); }
  static Module LoadFromFile(const String& file_name);
  static void VisitContextSymbols(const TypedFunction<void(String, void*)>& callback);
};

/*! \brief Apache's exception type: `ObjectRef` (the ErrorObj) at +8 after std::exception's vptr. */
class Error : public ObjectRef, public std::exception {
 public:
  explicit Error(ObjectRef&& error) : ObjectRef(std::move(error)) {}
  const char* what() const noexcept override;
};

namespace json {
Any Parse(const String& json_str, String* error_msg);
String Stringify(const Any& value, const Optional<int>& indent);
}  // namespace json

Any ToJSONGraph(const Any& value, const Any& metadata);
Any FromJSONGraph(const Any& value);
Any DeepCopy(const Any& value);
String ReprPrint(const Any& value);
int64_t RecursiveHash(const Any& value);
bool RecursiveEq(const Any& lhs, const Any& rhs);
bool RecursiveLt(const Any& lhs, const Any& rhs);
bool RecursiveLe(const Any& lhs, const Any& rhs);
bool RecursiveGt(const Any& lhs, const Any& rhs);
bool RecursiveGe(const Any& lhs, const Any& rhs);

class StructuralHash {
 public:
  static uint64_t Hash(const Any& value, bool map_free_vars, bool skip_tensor_content);
};

class StructuralEqual {
 public:
  static bool Equal(const Any& lhs, const Any& rhs, bool map_free_vars, bool skip_tensor_content);
  static Optional<reflection::AccessPathPair> GetFirstMismatch(const Any& lhs, const Any& rhs,
                                                              bool map_free_vars,
                                                              bool skip_tensor_content);
};

}  // namespace ffi
}  // namespace tvm

#endif  // FFIHUB_RUNTIME_CXX_TVM_FFI_CXX_H_
