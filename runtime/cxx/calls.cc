#include "calls.h"

#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace {
const FfihubRustBridge* installed_bridge = nullptr;
}  // namespace

extern "C" void ffihub_cxx_install_bridge(const FfihubRustBridge* bridge) {
  installed_bridge = bridge;
}

namespace tvm {
namespace ffi {

TVMFFIAny ObjectRef::view() const {
  TVMFFIAny any{};
  if (data_ == nullptr) {
    any.type_index = kTVMFFINone;
  } else {
    any.type_index = data_->type_index;
    any.v_obj = data_;
  }
  return any;
}

String::String() { data_.type_index = kTVMFFISmallStr; }

TVMFFIByteArray String::bytes() const {
  if (data_.type_index == kTVMFFISmallStr) {
    return TVMFFIByteArray{data_.v_bytes, data_.small_str_len};
  }
  // A `ffi.String` object: its TVMFFIByteArray follows the header.
  return *reinterpret_cast<const TVMFFIByteArray*>(data_.v_obj + 1);
}

const char* Error::what() const noexcept { return ffihub::cxx::ErrorCell(*this).message.data; }

}  // namespace ffi
}  // namespace tvm

namespace ffihub {
namespace cxx {

const FfihubRustBridge& Bridge() { return *installed_bridge; }

void ThrowRaised() {
  TVMFFIObjectHandle error = nullptr;
  TVMFFIErrorMoveFromRaised(&error);
  if (error == nullptr) Throw("InternalError", "a runtime call failed without raising an error");
  throw Error(ObjectRef::FromOwned(static_cast<TVMFFIObject*>(error)));
}

void Throw(const char* kind, const std::string& message) {
  TVMFFIErrorSetRaisedFromCStr(kind, message.c_str());
  ThrowRaised();
}

const TVMFFIErrorCell& ErrorCell(const Error& error) {
  return *reinterpret_cast<const TVMFFIErrorCell*>(error.get() + 1);
}

namespace {

/*! \brief The global function `name` (a string literal: the cache is keyed by its address). Found
 * functions are kept for the life of the process, as the registry keeps them; missing ones are
 * looked up again on the next call, since a library may register them later. */
TVMFFIObject* FindGlobal(const char* name) {
  static std::shared_mutex mutex;
  static std::unordered_map<const char*, TVMFFIObject*> found;
  {
    std::shared_lock<std::shared_mutex> lock(mutex);
    auto it = found.find(name);
    if (it != found.end()) return it->second;
  }
  TVMFFIByteArray name_bytes{name, std::strlen(name)};
  TVMFFIObjectHandle function = nullptr;
  Check(TVMFFIFunctionGetGlobal(&name_bytes, &function));
  if (function == nullptr) {
    Throw("RuntimeError", std::string("the runtime has no global function `") + name + "`");
  }
  std::unique_lock<std::shared_mutex> lock(mutex);
  auto [it, inserted] = found.emplace(name, static_cast<TVMFFIObject*>(function));
  // Another thread cached it first: ours is one reference too many.
  if (!inserted) TVMFFIObjectDecRef(function);
  return it->second;
}

}  // namespace

Any CallGlobal(const char* name, std::initializer_list<TVMFFIAny> args) {
  TVMFFIObject* function = FindGlobal(name);
  TVMFFIAny result{};
  result.type_index = kTVMFFINone;
  // The C ABI takes the arguments as a non-const pointer but only reads them.
  Check(TVMFFIFunctionCall(function, const_cast<TVMFFIAny*>(args.begin()),
                           static_cast<int32_t>(args.size()), &result));
  return Any::FromOwned(result);
}

namespace {
[[noreturn]] void WrongResult(const char* what, const char* expected, const Any& value) {
  Throw("TypeError", std::string(what) + " returned a value of type index " +
                         std::to_string(value.view().type_index) + ", expected " + expected);
}
}  // namespace

String ToString(Any&& value, const char* what) {
  int32_t type_index = value.view().type_index;
  if (type_index != kTVMFFISmallStr && type_index != kTVMFFIStr) WrongResult(what, "str", value);
  return String(std::move(value));
}

bool ToBool(const Any& value, const char* what) {
  int32_t type_index = value.view().type_index;
  if (type_index != kTVMFFIBool && type_index != kTVMFFIInt) WrongResult(what, "bool", value);
  return value.view().v_int64 != 0;
}

int64_t ToInt(const Any& value, const char* what) {
  int32_t type_index = value.view().type_index;
  if (type_index != kTVMFFIInt && type_index != kTVMFFIBool) WrongResult(what, "int", value);
  return value.view().v_int64;
}

ObjectRef ToObject(Any&& value, int32_t type_index, bool nullable, const char* what) {
  int32_t actual = value.view().type_index;
  if (actual == kTVMFFINone && nullable) return ObjectRef();
  if (actual != type_index && !(type_index == kTVMFFIObject && actual >= kTVMFFIStaticObjectBegin)) {
    WrongResult(what, nullable ? "an object or None" : "an object", value);
  }
  return ObjectRef::FromOwned(value.release().v_obj);
}

}  // namespace cxx
}  // namespace ffihub
