// ffihub C++ support: containers. Array<T> and Shape are immutable, List<T> and Dict<K, V> are
// mutable, Map<K, V> is immutable. Elements are stored as TVM-FFI values and converted to T when
// read; std::vector, std::tuple, std::map and std::unordered_map convert into them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "function.hpp"

namespace ffihub {

namespace detail {

/// A cached runtime global function (`ffi.Array`, ...); one static per name.
template <const char* Name>
inline const Function& builtin() {
  static const Function f = Function::get_global_required(Name);
  return f;
}

inline constexpr char kArray[] = "ffi.Array";
inline constexpr char kList[] = "ffi.List";
inline constexpr char kListAppend[] = "ffi.ListAppend";
inline constexpr char kListSetItem[] = "ffi.ListSetItem";
inline constexpr char kListInsert[] = "ffi.ListInsert";
inline constexpr char kListErase[] = "ffi.ListErase";
inline constexpr char kListPop[] = "ffi.ListPop";
inline constexpr char kListClear[] = "ffi.ListClear";
inline constexpr char kMap[] = "ffi.Map";
inline constexpr char kMapSize[] = "ffi.MapSize";
inline constexpr char kMapGetItemOrMissing[] = "ffi.MapGetItemOrMissing";
inline constexpr char kMapForwardIterFunctor[] = "ffi.MapForwardIterFunctor";
inline constexpr char kDict[] = "ffi.Dict";
inline constexpr char kDictSize[] = "ffi.DictSize";
inline constexpr char kDictGetItemOrMissing[] = "ffi.DictGetItemOrMissing";
inline constexpr char kDictForwardIterFunctor[] = "ffi.DictForwardIterFunctor";
inline constexpr char kDictSetItem[] = "ffi.DictSetItem";
inline constexpr char kDictErase[] = "ffi.DictErase";
inline constexpr char kDictClear[] = "ffi.DictClear";
inline constexpr char kShape[] = "ffi.Shape";
inline constexpr char kGetInvalidObject[] = "ffi.GetInvalidObject";

/// Tag of the constructors that build a container from its packed elements.
struct FromElements {};

/// Calls `f` with a run-time list of arguments and converts the result to T.
template <typename T>
inline T call_packed_as(const Function& f, const std::vector<Any>& values) {
  Any result = f.call_packed(values);
  TVMFFIAny raw = AnyAccess::release(result);
  return cast_owned<T>(raw, "result");
}

/// The "missing" sentinel that `*GetItemOrMissing` returns.
inline const ObjectRef& missing_sentinel() {
  static const ObjectRef sentinel = builtin<kGetInvalidObject>().call<ObjectRef>();
  return sentinel;
}

inline const TVMFFISeqCell& seq_cell(TVMFFIObject* obj) noexcept {
  return *reinterpret_cast<const TVMFFISeqCell*>(reinterpret_cast<const char*>(obj) +
                                                 sizeof(TVMFFIObject));
}

/// Whether every element of a sequence object converts to T.
template <typename T>
inline bool elements_convert(TVMFFIObject* obj) {
  if constexpr (std::is_same_v<T, Any>) {
    return true;
  } else {
    const TVMFFISeqCell& cell = ::ffihub::detail::seq_cell(obj);
    const TVMFFIAny* data = static_cast<const TVMFFIAny*>(cell.data);
    for (int64_t i = 0; i < cell.size; ++i) {
      if (!Converter<T>::from_view(data[i])) return false;
    }
    return true;
  }
}

/// Input iterator over a sequence object, yielding converted values.
template <typename T>
class SeqIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  SeqIterator(const TVMFFIAny* data, std::size_t i) noexcept : data_(data), i_(i) {}
  T operator*() const { return cast_view<T>(data_[i_], "element"); }
  SeqIterator& operator++() noexcept {
    ++i_;
    return *this;
  }
  SeqIterator operator++(int) noexcept {
    SeqIterator old = *this;
    ++i_;
    return old;
  }
  friend bool operator==(const SeqIterator& a, const SeqIterator& b) noexcept {
    return a.i_ == b.i_;
  }
  friend bool operator!=(const SeqIterator& a, const SeqIterator& b) noexcept {
    return a.i_ != b.i_;
  }

 private:
  const TVMFFIAny* data_;
  std::size_t i_;
};

/// Read access shared by Array and List.
template <typename T, typename Self>
class SeqReader {
 public:
  using value_type = T;
  using iterator = SeqIterator<T>;
  std::size_t size() const noexcept { return static_cast<std::size_t>(cell().size); }
  bool empty() const noexcept { return size() == 0; }
  /// Element `i` (unchecked index).
  T operator[](std::size_t i) const { return cast_view<T>(data()[i], "element"); }
  /// Element `i`; throws ffihub::IndexError when out of range.
  T at(std::size_t i) const {
    if (i >= size()) {
      throw IndexError("index " + std::to_string(i) + " out of range for size " +
                       std::to_string(size()));
    }
    return (*this)[i];
  }
  T front() const { return at(0); }
  T back() const { return at(size() - 1); }
  iterator begin() const noexcept { return iterator(data(), 0); }
  iterator end() const noexcept { return iterator(data(), size()); }
  std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }
  /// Whether every element converts to T (checked when a value is converted to this type).
  static bool ffi_accepts(TVMFFIObject* obj) { return elements_convert<T>(obj); }

 private:
  const TVMFFISeqCell& cell() const noexcept {
    return ::ffihub::detail::seq_cell(::ffihub::detail::handle(static_cast<const Self&>(*this)));
  }
  const TVMFFIAny* data() const noexcept { return static_cast<const TVMFFIAny*>(cell().data); }
};

template <typename It>
inline std::vector<Any> to_anys(It first, It last) {
  std::vector<Any> out;
  for (; first != last; ++first) out.emplace_back(*first);
  return out;
}

}  // namespace detail

/**
 * An immutable array (`ffi.Array`) of T. Reads are direct (no call); elements convert to T when
 * read. Builds from an initializer list, a std::vector or an iterator range.
 */
template <typename T = Any>
class Array : public ObjectRef, public detail::SeqReader<T, Array<T>> {
 public:
  static constexpr const char* type_key = "ffi.Array";
  explicit Array(detail::Owned owned) noexcept : ObjectRef(owned) {}
  Array() : Array(detail::FromElements{}, {}) {}
  Array(std::initializer_list<T> values)
      : Array(detail::FromElements{}, detail::to_anys(values.begin(), values.end())) {}
  Array(const std::vector<T>& values)  // NOLINT: vectors convert implicitly
      : Array(detail::FromElements{}, detail::to_anys(values.begin(), values.end())) {}
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  Array(It first, It last) : Array(detail::FromElements{}, detail::to_anys(first, last)) {}
  /// Internal: an array of the given elements.
  Array(detail::FromElements, const std::vector<Any>& values)
      : ObjectRef(detail::call_packed_as<ObjectRef>(detail::builtin<detail::kArray>(), values)) {}
  using detail::SeqReader<T, Array<T>>::ffi_accepts;
};

/**
 * A mutable list (`ffi.List`) of T: reads like Array, plus push_back, set, insert, erase,
 * pop_back and clear (visible through every reference to the list).
 */
template <typename T = Any>
class List : public ObjectRef, public detail::SeqReader<T, List<T>> {
 public:
  static constexpr const char* type_key = "ffi.List";
  explicit List(detail::Owned owned) noexcept : ObjectRef(owned) {}
  List() : List(detail::FromElements{}, {}) {}
  List(std::initializer_list<T> values)
      : List(detail::FromElements{}, detail::to_anys(values.begin(), values.end())) {}
  List(const std::vector<T>& values)  // NOLINT
      : List(detail::FromElements{}, detail::to_anys(values.begin(), values.end())) {}
  /// Internal: a list of the given elements.
  List(detail::FromElements, const std::vector<Any>& values)
      : ObjectRef(detail::call_packed_as<ObjectRef>(detail::builtin<detail::kList>(), values)) {}
  using detail::SeqReader<T, List<T>>::ffi_accepts;

  void push_back(const T& value) {
    detail::builtin<detail::kListAppend>().call<void>(*this, Any(value));
  }
  void set(std::size_t i, const T& value) {
    detail::builtin<detail::kListSetItem>().call<void>(*this, static_cast<int64_t>(i), Any(value));
  }
  void insert(std::size_t i, const T& value) {
    detail::builtin<detail::kListInsert>().call<void>(*this, static_cast<int64_t>(i), Any(value));
  }
  void erase(std::size_t i) {
    detail::builtin<detail::kListErase>().call<void>(*this, static_cast<int64_t>(i));
  }
  T pop_back() {
    return detail::builtin<detail::kListPop>().call<T>(*this, static_cast<int64_t>(this->size()) - 1);
  }
  void clear() { detail::builtin<detail::kListClear>().call<void>(*this); }
};

namespace detail {

/// Input iterator over a Map or Dict (through the runtime's forward-iterator functor).
template <typename K, typename V>
class MapIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = std::pair<K, V>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = value_type;
  MapIterator() = default;
  MapIterator(std::optional<Function> functor, std::size_t remaining)
      : functor_(std::move(functor)), remaining_(remaining) {}
  value_type operator*() const {
    return value_type(functor_->call<K>(int64_t{0}), functor_->call<V>(int64_t{1}));
  }
  MapIterator& operator++() {
    --remaining_;
    if (remaining_ > 0) functor_->call<bool>(int64_t{2});
    return *this;
  }
  friend bool operator==(const MapIterator& a, const MapIterator& b) noexcept {
    return a.remaining_ == b.remaining_;
  }
  friend bool operator!=(const MapIterator& a, const MapIterator& b) noexcept {
    return a.remaining_ != b.remaining_;
  }

 private:
  std::optional<Function> functor_;
  std::size_t remaining_ = 0;
};

/// Read access shared by Map and Dict (through the runtime's `ffi.Map*` / `ffi.Dict*` globals).
template <typename K, typename V, typename Self, const char* Size, const char* Get,
          const char* Iter>
class MapReader {
 public:
  using key_type = K;
  using mapped_type = V;
  using iterator = MapIterator<K, V>;
  std::size_t size() const {
    return static_cast<std::size_t>(builtin<Size>().template call<int64_t>(self()));
  }
  bool empty() const { return size() == 0; }
  /// The value of `key`, or std::nullopt.
  std::optional<V> get(const K& key) const {
    Any value = builtin<Get>()(self(), key);
    if (const std::optional<ObjectRef> obj = value.as<ObjectRef>();
        obj && obj->same_as(::ffihub::detail::missing_sentinel())) {
      return std::nullopt;
    }
    return value.cast<V>();
  }
  /// The value of `key`; throws ffihub::KeyError if it is missing.
  V at(const K& key) const {
    std::optional<V> v = get(key);
    if (!v) throw KeyError("key is not in the map");
    return std::move(*v);
  }
  bool contains(const K& key) const { return get(key).has_value(); }
  iterator begin() const {
    std::size_t n = size();
    if (n == 0) return iterator();
    return iterator(builtin<Iter>().template call<Function>(self()), n);
  }
  iterator end() const { return iterator(); }
  std::vector<std::pair<K, V>> items() const { return std::vector<std::pair<K, V>>(begin(), end()); }
  std::map<K, V> to_map() const { return std::map<K, V>(begin(), end()); }
  /// Whether every key and value converts (checked when a value is converted to this type).
  static bool ffi_accepts(TVMFFIObject* obj) {
    if constexpr (std::is_same_v<K, Any> && std::is_same_v<V, Any>) {
      return true;
    } else {
      Function functor = builtin<Iter>().template call<Function>(borrow_as<ObjectRef>(obj));
      std::size_t n = static_cast<std::size_t>(
          builtin<Size>().template call<int64_t>(borrow_as<ObjectRef>(obj)));
      for (std::size_t i = 0; i < n; ++i) {
        if (!functor(int64_t{0}).template as<K>() || !functor(int64_t{1}).template as<V>()) {
          return false;
        }
        if (i + 1 < n) functor(int64_t{2});
      }
      return true;
    }
  }

 private:
  const Self& self() const noexcept { return static_cast<const Self&>(*this); }
};

template <typename Range>
inline std::vector<Any> pairs_to_anys(const Range& pairs) {
  std::vector<Any> out;
  for (const auto& kv : pairs) {
    out.emplace_back(kv.first);
    out.emplace_back(kv.second);
  }
  return out;
}

}  // namespace detail

/**
 * An immutable map (`ffi.Map`) from K to V. Builds from an initializer list of pairs, a std::map
 * or a std::unordered_map; iterates as std::pair<K, V>.
 */
template <typename K = Any, typename V = Any>
class Map : public ObjectRef,
            public detail::MapReader<K, V, Map<K, V>, detail::kMapSize,
                                     detail::kMapGetItemOrMissing,
                                     detail::kMapForwardIterFunctor> {
 public:
  static constexpr const char* type_key = "ffi.Map";
  explicit Map(detail::Owned owned) noexcept : ObjectRef(owned) {}
  Map() : Map(detail::FromElements{}, {}) {}
  Map(std::initializer_list<std::pair<K, V>> pairs)
      : Map(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  template <typename C, typename A>
  Map(const std::map<K, V, C, A>& pairs)  // NOLINT
      : Map(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  template <typename H, typename E, typename A>
  Map(const std::unordered_map<K, V, H, E, A>& pairs)  // NOLINT
      : Map(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  /// Internal: a map of the given keys and values, alternating.
  Map(detail::FromElements, const std::vector<Any>& kv)
      : ObjectRef(detail::call_packed_as<ObjectRef>(detail::builtin<detail::kMap>(), kv)) {}

};

/**
 * A mutable dictionary (`ffi.Dict`) from K to V: reads like Map, plus set, erase and clear
 * (visible through every reference to the dict).
 */
template <typename K = Any, typename V = Any>
class Dict : public ObjectRef,
             public detail::MapReader<K, V, Dict<K, V>, detail::kDictSize,
                                      detail::kDictGetItemOrMissing,
                                      detail::kDictForwardIterFunctor> {
 public:
  static constexpr const char* type_key = "ffi.Dict";
  explicit Dict(detail::Owned owned) noexcept : ObjectRef(owned) {}
  Dict() : Dict(detail::FromElements{}, {}) {}
  Dict(std::initializer_list<std::pair<K, V>> pairs)
      : Dict(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  template <typename C, typename A>
  Dict(const std::map<K, V, C, A>& pairs)  // NOLINT
      : Dict(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  template <typename H, typename E, typename A>
  Dict(const std::unordered_map<K, V, H, E, A>& pairs)  // NOLINT
      : Dict(detail::FromElements{}, ::ffihub::detail::pairs_to_anys(pairs)) {}
  /// Internal: a map of the given keys and values, alternating.
  Dict(detail::FromElements, const std::vector<Any>& kv)
      : ObjectRef(detail::call_packed_as<ObjectRef>(detail::builtin<detail::kDict>(), kv)) {}

  void set(const K& key, const V& value) {
    detail::builtin<detail::kDictSetItem>().call<void>(*this, Any(key), Any(value));
  }
  void erase(const K& key) { detail::builtin<detail::kDictErase>().call<void>(*this, Any(key)); }
  void clear() { detail::builtin<detail::kDictClear>().call<void>(*this); }

};

/**
 * An immutable shape (`ffi.Shape`): a sequence of int64_t extents, read directly.
 */
class Shape : public ObjectRef {
 public:
  static constexpr const char* type_key = "ffi.Shape";
  using value_type = int64_t;
  explicit Shape(detail::Owned owned) noexcept : ObjectRef(owned) {}
  Shape() : Shape(std::vector<int64_t>()) {}
  Shape(std::initializer_list<int64_t> dims) : Shape(std::vector<int64_t>(dims)) {}
  Shape(const std::vector<int64_t>& dims)  // NOLINT
      : ObjectRef(make(dims)) {}

  std::size_t size() const noexcept { return cell().size; }
  bool empty() const noexcept { return size() == 0; }
  int64_t operator[](std::size_t i) const noexcept { return cell().data[i]; }
  int64_t at(std::size_t i) const {
    if (i >= size()) throw IndexError("shape index " + std::to_string(i) + " out of range");
    return cell().data[i];
  }
  const int64_t* data() const noexcept { return cell().data; }
  const int64_t* begin() const noexcept { return cell().data; }
  const int64_t* end() const noexcept { return cell().data + cell().size; }
  /// The product of the extents.
  int64_t numel() const noexcept {
    int64_t n = 1;
    for (int64_t d : *this) n *= d;
    return n;
  }
  std::vector<int64_t> to_vector() const { return std::vector<int64_t>(begin(), end()); }

 private:
  const TVMFFIShapeCell& cell() const noexcept { return *TVMFFIShapeGetCellPtr(detail::handle(*this)); }
  static ObjectRef make(const std::vector<int64_t>& dims) {
    std::vector<Any> values(dims.begin(), dims.end());
    return detail::call_packed_as<ObjectRef>(detail::builtin<detail::kShape>(), values);
  }
};

namespace detail {

/// std::vector<T> crosses as an Array (copied both ways).
template <typename T>
struct Converter<std::vector<T>, std::enable_if_t<!std::is_same_v<T, uint8_t> && Converter<T>::enabled>>
    : ConverterBase<std::vector<T>, Converter<std::vector<T>>> {
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const std::vector<T>& v) {
    Array<T> a(v);
    return Converter<ObjectRef>::owned(a);
  }
  static bool check(const TVMFFIAny& v) {
    return (v.type_index == kTVMFFIArray || v.type_index == kTVMFFIList) &&
           elements_convert<T>(v.v_obj);
  }
  static std::optional<std::vector<T>> from_view(const TVMFFIAny& v) {
    if (v.type_index != kTVMFFIArray && v.type_index != kTVMFFIList) return std::nullopt;
    const TVMFFISeqCell& cell = ::ffihub::detail::seq_cell(v.v_obj);
    const TVMFFIAny* data = static_cast<const TVMFFIAny*>(cell.data);
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(cell.size));
    for (int64_t i = 0; i < cell.size; ++i) {
      std::optional<T> x = Converter<T>::from_view(data[i]);
      if (!x) return std::nullopt;
      out.push_back(std::move(*x));
    }
    return out;
  }
  static std::string type_name() { return "ffi.Array[" + Converter<T>::type_name() + "]"; }
};

/// std::tuple<Ts...> crosses as an Array of its members.
template <typename... Ts>
struct Converter<std::tuple<Ts...>> : ConverterBase<std::tuple<Ts...>, Converter<std::tuple<Ts...>>> {
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const std::tuple<Ts...>& t) {
    std::vector<Any> values =
        std::apply([](const auto&... x) { return std::vector<Any>{Any(x)...}; }, t);
    return Converter<ObjectRef>::owned(call_packed_as<ObjectRef>(builtin<kArray>(), values));
  }
  static bool check(const TVMFFIAny& v) { return from_view(v).has_value(); }
  static std::optional<std::tuple<Ts...>> from_view(const TVMFFIAny& v) {
    if (v.type_index != kTVMFFIArray && v.type_index != kTVMFFIList) return std::nullopt;
    const TVMFFISeqCell& cell = ::ffihub::detail::seq_cell(v.v_obj);
    if (cell.size != static_cast<int64_t>(sizeof...(Ts))) return std::nullopt;
    const TVMFFIAny* data = static_cast<const TVMFFIAny*>(cell.data);
    return convert(data, std::index_sequence_for<Ts...>{});
  }
  static std::string type_name() {
    std::string out = "Tuple[";
    bool first = true;
    ((out += (first ? "" : ", ") + Converter<Ts>::type_name(), first = false), ...);
    return out + "]";
  }

 private:
  template <std::size_t... I>
  static std::optional<std::tuple<Ts...>> convert(const TVMFFIAny* data,
                                                  std::index_sequence<I...>) {
    // Braces: with parentheses clang reads this line as a function declaration.
    std::tuple<std::optional<Ts>...> parts{Converter<Ts>::from_view(data[I])...};
    if (!(std::get<I>(parts).has_value() && ...)) return std::nullopt;
    return std::tuple<Ts...>(std::move(*std::get<I>(parts))...);
  }
};

/// std::map and std::unordered_map cross as a Map (copied both ways).
template <typename M, typename K, typename V>
struct StdMapConverter : ConverterBase<M, StdMapConverter<M, K, V>> {
  static constexpr bool borrows = false;
  static TVMFFIAny owned(const M& m) {
    Map<K, V> map(FromElements{}, ::ffihub::detail::pairs_to_anys(m));
    return Converter<ObjectRef>::owned(map);
  }
  static bool accepts(const TVMFFIAny& v) {
    if (v.type_index == kTVMFFIMap) return Map<K, V>::ffi_accepts(v.v_obj);
    if (v.type_index == kTVMFFIDict) return Dict<K, V>::ffi_accepts(v.v_obj);
    return false;
  }
  static bool check(const TVMFFIAny& v) { return accepts(v); }
  static std::optional<M> from_view(const TVMFFIAny& v) {
    if (!accepts(v)) return std::nullopt;
    M out;
    if (v.type_index == kTVMFFIMap) {
      for (auto&& kv : borrow_as<Map<K, V>>(v.v_obj)) out.emplace(kv.first, kv.second);
    } else {
      for (auto&& kv : borrow_as<Dict<K, V>>(v.v_obj)) out.emplace(kv.first, kv.second);
    }
    return out;
  }
  static std::string type_name() {
    return "ffi.Map[" + Converter<K>::type_name() + ", " + Converter<V>::type_name() + "]";
  }
};

template <typename K, typename V, typename C, typename A>
struct Converter<std::map<K, V, C, A>> : StdMapConverter<std::map<K, V, C, A>, K, V> {};
template <typename K, typename V, typename H, typename E, typename A>
struct Converter<std::unordered_map<K, V, H, E, A>>
    : StdMapConverter<std::unordered_map<K, V, H, E, A>, K, V> {};

}  // namespace detail
}  // namespace ffihub
