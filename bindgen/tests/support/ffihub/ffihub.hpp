// Test stub: declarations only, enough for `g++ -fsyntax-only` on generated headers. It states the
// API that generated C++ expects from bindings/cpp (see templates/cpp/README.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

struct DLDataType { uint8_t code; uint8_t bits; uint16_t lanes; };
struct DLDevice { int32_t device_type; int32_t device_id; };

namespace ffihub {
class Any {};
class ObjectPtr {};
class ObjectRef {
 public:
  explicit ObjectRef(ObjectPtr ptr);
  template <typename T> T get_field(const char* name) const;
  template <typename T> void set_field(const char* name, T value);
};
class BigInt {};
class Bytes {};
class Tensor : public ObjectRef { using ObjectRef::ObjectRef; };
class Shape : public ObjectRef { using ObjectRef::ObjectRef; };
class Module : public ObjectRef { using ObjectRef::ObjectRef; };
class Error : public ObjectRef { using ObjectRef::ObjectRef; };
class Function : public ObjectRef { using ObjectRef::ObjectRef; };
template <typename Sig> class TypedFunction {};
template <typename T> class Array {};
template <typename T> class List {};
template <typename K, typename V> class Map {};
template <typename K, typename V> class Dict {};
template <typename R, typename... Args> R call_global(const char* name, Args&&... args);
template <typename R, typename... Args> R call_method(const ObjectRef& self, const char* name, Args&&... args);
template <typename R, typename... Args> R call_method(const char* type_key, const char* name, Args&&... args);
template <typename... Args> ObjectPtr construct(const char* type_key, Args&&... args);
}  // namespace ffihub
