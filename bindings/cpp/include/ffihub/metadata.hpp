// ffihub C++ support: the load-time check of generated headers. A generated header carries the
// metadata checksum it was generated from and a manifest of what it relies on; on first use it
// compares the manifest with the live reflection of the loaded library and throws an error that
// lists every difference and says how to regenerate the header.
//
// Manifest lines (ADR 0020, written by bindgen/src/ir/manifest.rs; types in the normalized
// spelling of ffihub's IR: `int`, `str`, `Array[int]`, `Optional[str]`, `Callable[(int) -> int]`,
// `demo.Point`, ...):
//   f <function> <signature or "packed">
//   t <type key> <parent type key>
//   d <type key> <field> <rw|ro> <type>   (`?`: untyped where generated; access is compared)
//   m <type key> <method> <static|instance> <signature or "packed">   (without `self`)
//   c <type key> init_method <(parameter types)>
//   c <type key> auto_init
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "module.hpp"

namespace ffihub {
namespace detail {

// ---- a small JSON reader (metadata strings are JSON) ---------------------------------------

struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  std::string text;  // string value, or the number's spelling
  bool boolean = false;
  std::vector<Json> items;
  // A std::pair<std::string, Json> would need Json complete here (C++20's libstdc++ checks);
  // std::vector itself accepts an element type completed later.
  struct Member;
  std::vector<Member> members;

  const Json* get(std::string_view key) const;
};

struct Json::Member {
  std::string key;
  Json value;
};

inline const Json* Json::get(std::string_view key) const {
  for (const auto& m : members) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : s_(text) {}

  /// The parsed document, or std::nullopt if it is not valid JSON.
  std::optional<Json> parse() {
    Json out;
    skip();
    if (!value(out)) return std::nullopt;
    skip();
    if (i_ != s_.size()) return std::nullopt;
    return out;
  }

 private:
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) {
      ++i_;
    }
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  bool value(Json& out) {
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') return object(out);
    if (c == '[') return array(out);
    if (c == '"') {
      out.kind = Json::kString;
      return string(out.text);
    }
    if (literal("true")) {
      out.kind = Json::kBool;
      out.boolean = true;
      return true;
    }
    if (literal("false")) {
      out.kind = Json::kBool;
      return true;
    }
    if (literal("null")) return true;
    std::size_t start = i_;
    while (i_ < s_.size() && std::string_view("+-0123456789.eE").find(s_[i_]) != std::string_view::npos) {
      ++i_;
    }
    if (i_ == start) return false;
    out.kind = Json::kNumber;
    out.text = std::string(s_.substr(start, i_ - start));
    return true;
  }
  bool object(Json& out) {
    out.kind = Json::kObject;
    ++i_;
    skip();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return true;
    }
    while (true) {
      skip();
      std::string key;
      if (i_ >= s_.size() || s_[i_] != '"' || !string(key)) return false;
      skip();
      if (i_ >= s_.size() || s_[i_] != ':') return false;
      ++i_;
      skip();
      Json v;
      if (!value(v)) return false;
      out.members.push_back(Json::Member{std::move(key), std::move(v)});
      skip();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == '}') {
        ++i_;
        return true;
      }
      if (s_[i_] != ',') return false;
      ++i_;
    }
  }
  bool array(Json& out) {
    out.kind = Json::kArray;
    ++i_;
    skip();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return true;
    }
    while (true) {
      skip();
      Json v;
      if (!value(v)) return false;
      out.items.push_back(std::move(v));
      skip();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == ']') {
        ++i_;
        return true;
      }
      if (s_[i_] != ',') return false;
      ++i_;
    }
  }
  static void utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  bool hex4(uint32_t& out) {
    if (i_ + 4 > s_.size()) return false;
    out = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[i_++];
      out <<= 4;
      if (c >= '0' && c <= '9') out |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') out |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') out |= static_cast<uint32_t>(c - 'A' + 10);
      else return false;
    }
    return true;
  }
  bool string(std::string& out) {
    ++i_;  // opening quote
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') return true;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xd800 && cp <= 0xdbff && s_.substr(i_, 2) == "\\u") {
            i_ += 2;
            uint32_t lo = 0;
            if (!hex4(lo)) return false;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          utf8(out, cp);
          break;
        }
        default: out += e; break;
      }
    }
    return false;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// ---- type schemas in the IR's normalized spelling --------------------------------------------

/// The normalized spelling of a `type_schema` node (mirrors ffihub's `ir::Type`).
inline std::string schema_type(const Json& node);

/// "(p, q) -> r" from a function node's signature, or std::nullopt for a packed function.
inline std::optional<std::pair<std::vector<std::string>, std::string>> schema_signature(
    const Json& node) {
  if (const Json* named = node.get("named_args"); named != nullptr) {
    std::vector<std::string> params;
    if (const Json* p = named->get("params"); p != nullptr) {
      for (const Json& x : p->items) params.push_back(schema_type(x));
    }
    const Json* r = named->get("return");
    std::string ret = (r != nullptr && r->items.size() == 1) ? schema_type(r->items[0]) : "Any";
    return std::make_pair(std::move(params), std::move(ret));
  }
  const Json* type = node.get("type");
  const Json* args = node.get("args");
  if (type != nullptr && type->text == "std::function" && args != nullptr &&
      args->items.size() == 2 && args->items[1].kind == Json::kArray) {
    std::vector<std::string> params;
    for (const Json& x : args->items[1].items) params.push_back(schema_type(x));
    return std::make_pair(std::move(params), schema_type(args->items[0]));
  }
  // The older function form: "args": [return, params...].
  if (type != nullptr && (type->text == "ffi.Function" || type->text == "std::function") &&
      args != nullptr && !args->items.empty()) {
    std::vector<std::string> params;
    for (std::size_t i = 1; i < args->items.size(); ++i) params.push_back(schema_type(args->items[i]));
    return std::make_pair(std::move(params), schema_type(args->items[0]));
  }
  return std::nullopt;
}

inline std::string join_signature(const std::vector<std::string>& params, const std::string& ret,
                                  std::size_t skip = 0) {
  std::string out = "(";
  for (std::size_t i = skip; i < params.size(); ++i) {
    if (i > skip) out += ", ";
    out += params[i];
  }
  return out + ") -> " + ret;
}

inline std::string schema_type(const Json& node) {
  const Json* type = node.get("type");
  if (type == nullptr || type->kind != Json::kString) return "Any";
  const std::string& o = type->text;
  std::vector<std::string> args;
  if (const Json* a = node.get("args"); a != nullptr) {
    for (const Json& x : a->items) {
      if (x.kind == Json::kObject) args.push_back(schema_type(x));
    }
  }
  auto arg = [&args](std::size_t i) { return i < args.size() ? args[i] : std::string("Any"); };
  auto list = [](const std::string& name, const std::vector<std::string>& items) {
    std::string out = name + "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += ", ";
      out += items[i];
    }
    return out + "]";
  };
  if (o == "None") return "None";
  if (o == "Any" || o == "ffi.OpaquePyObject") return "Any";
  if (o == "bool") return "bool";
  if (o == "int") return "int";
  if (o == "ffi.BigInt") return "bigint";
  if (o == "float") return "float";
  if (o == "void*") return "void*";
  if (o == "DataType") return "dtype";
  if (o == "Device") return "Device";
  if (o == "ffi.String" || o == "ffi.SmallStr" || o == "const char*" || o == "std::string") {
    return "str";
  }
  if (o == "ffi.Bytes" || o == "ffi.SmallBytes" || o == "TVMFFIByteArray*") return "bytes";
  if (o == "ffi.Tensor" || o == "DLTensor*") return "Tensor";
  if (o == "ffi.Shape") return "Shape";
  if (o == "ffi.Object") return "Object";
  if (o == "ffi.Module") return "Module";
  if (o == "ffi.Error") return "Error";
  if (o == "ffi.Array" || o == "std::vector" || o == "std::array") return list("Array", {arg(0)});
  if (o == "ffi.List") return list("List", {arg(0)});
  if (o == "ffi.Map" || o == "std::map" || o == "std::unordered_map") {
    return list("Map", {arg(0), arg(1)});
  }
  if (o == "ffi.Dict") return list("Dict", {arg(0), arg(1)});
  if (o == "Optional" || o == "std::optional") {
    std::string inner = arg(0);
    if (inner == "Any" || inner == "None" || inner.rfind("Optional[", 0) == 0) return inner;
    return list("Optional", {inner});
  }
  if (o == "Variant" || o == "std::variant") {
    if (args.size() == 1) return args[0];
    return list("Variant", args);
  }
  if (o == "Tuple" || o == "std::tuple") return list("Tuple", args);
  if (o == "ffi.Function" || o == "std::function") {
    auto sig = ::ffihub::detail::schema_signature(node);
    if (!sig) return "Callable[..., Any]";
    return "Callable[" + join_signature(sig->first, sig->second) + "]";
  }
  if (o == "Expected" || o == "ObjectRValueRef" || o == "UnchangedOr") return arg(0);
  return o;  // a registered type key
}

/// The parsed `type_schema` inside a metadata JSON text, if any.
inline std::optional<Json> metadata_schema(std::string_view metadata) {
  std::optional<Json> meta = JsonReader(metadata).parse();
  if (!meta) return std::nullopt;
  const Json* ts = meta->get("type_schema");
  if (ts == nullptr || ts->kind != Json::kString) return std::nullopt;
  return JsonReader(ts->text).parse();
}

/// The normalized signature of a callable's metadata, "packed" when it has none.
inline std::string metadata_signature(std::string_view metadata, bool drop_self) {
  std::optional<Json> schema = ::ffihub::detail::metadata_schema(metadata);
  if (!schema) return "packed";
  const Json* type = schema->get("type");
  if (type == nullptr || (type->text != "ffi.Function" && type->text != "std::function")) {
    return "packed";
  }
  auto sig = ::ffihub::detail::schema_signature(*schema);
  if (!sig) return "packed";
  return join_signature(sig->first, sig->second, drop_self && !sig->first.empty() ? 1 : 0);
}

// ---- the live side ---------------------------------------------------------------------------

inline constexpr char kGetGlobalFuncMetadata[] = "ffi.GetGlobalFuncMetadata";

/// The type index of `key`, or -1 if it is not registered.
inline int32_t find_type_index(std::string_view key) {
  TVMFFIByteArray b = ::ffihub::detail::byte_array(key);
  int32_t out = -1;
  if (TVMFFITypeKeyToIndex(&b, &out) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) TVMFFIObjectDecRef(err);
    return -1;
  }
  return out;
}

inline const TVMFFIFieldInfo* own_field(const TVMFFITypeInfo* info, std::string_view name) {
  for (int32_t i = 0; i < info->num_fields; ++i) {
    if (::ffihub::detail::view_of(info->fields[i].name) == name) return &info->fields[i];
  }
  return nullptr;
}

inline const TVMFFIMethodInfo* own_method(const TVMFFITypeInfo* info, std::string_view name) {
  for (int32_t i = 0; i < info->num_methods; ++i) {
    if (::ffihub::detail::view_of(info->methods[i].name) == name) return &info->methods[i];
  }
  return nullptr;
}

/// The `__ffi_init__` type attribute of a type, if it has one (borrowed).
inline const TVMFFIAny* init_attribute(int32_t type_index) {
  TVMFFIByteArray name = ::ffihub::detail::byte_array("__ffi_init__");
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&name);
  if (column == nullptr) return nullptr;
  int32_t i = type_index - column->begin_index;
  if (i < 0 || i >= column->size || column->data[i].type_index == kTVMFFINone) return nullptr;
  return &column->data[i];
}

inline std::vector<std::string> split_words(std::string_view line, std::size_t n) {
  // The first n-1 words, then the rest of the line.
  std::vector<std::string> out;
  std::size_t i = 0;
  while (out.size() + 1 < n) {
    std::size_t j = line.find(' ', i);
    if (j == std::string_view::npos) break;
    out.emplace_back(line.substr(i, j - i));
    i = j + 1;
  }
  out.emplace_back(line.substr(i));
  return out;
}

/**
 * What a generated header was generated from. Generated code calls `ensure_checked()` (through
 * the lookups in reflection.hpp) before its first use of the library.
 */
class Library {
 public:
  /// `manifest` is the manifest's text in pieces (joined when checked): one string literal
  /// would exceed the 65,536 characters compilers must support for a large library.
  template <std::size_t N>
  Library(const char* header, const char* checksum, const char* libraries, const char* regenerate,
          const char* const (&manifest)[N]) noexcept
      : header_(header),
        checksum_(checksum),
        libraries_(libraries),
        regenerate_(regenerate),
        manifest_(manifest),
        pieces_(N) {}

  /// Checks the manifest against the loaded library once; throws ffihub::RuntimeError listing
  /// the differences (and tries again on the next use) if they do not match.
  void ensure_checked() const {
    std::call_once(once_, [this] { check(); });
  }

  /// The manifest's text: one line per item, each ending in a newline.
  std::string manifest() const {
    std::string text;
    for (std::size_t i = 0; i < pieces_; ++i) text += manifest_[i];
    return text;
  }

  /// The manifest as the loaded library spells it: every line of `manifest()` replaced by
  /// `live_line` (a line whose item is not registered is left out). It equals `manifest()`
  /// exactly when the header matches the library.
  std::string live_manifest() const {
    std::string out;
    for_each_line([&](std::string_view line) {
      if (std::optional<std::string> live = live_line(line)) out += *live + "\n";
    });
    return out;
  }

  /// The differences between the manifest and the loaded library (empty when they match).
  /// When none of the header's functions and types is registered, the only difference is
  /// that the library is not loaded.
  std::vector<std::string> differences() const {
    std::vector<std::string> problems;
    std::size_t items = 0;
    std::size_t missing = 0;
    for_each_line([&](std::string_view line) {
      if (line[0] == 'f' || line[0] == 't') ++items;
      compare(line, live_line(line), problems, missing);
    });
    if (items > 0 && missing == items) return {not_loaded()};
    return problems;
  }

  const char* checksum() const noexcept { return checksum_; }

  /**
   * How the loaded library spells `line`: a line of the same kind about the same item, from live
   * reflection alone, or std::nullopt when that item is not registered. The spelling is the
   * generator's (`ir::manifest`), so a matching library gives `line` back.
   */
  static std::optional<std::string> live_line(std::string_view line) {
    const char kind = line[0];
    line.remove_prefix(2);
    switch (kind) {
      case 'f': {
        auto w = ::ffihub::detail::split_words(line, 2);
        std::optional<Function> f = Function::get_global(w[0]);
        if (!f) return std::nullopt;
        std::string meta = builtin<kGetGlobalFuncMetadata>().call<std::string>(w[0]);
        return "f " + w[0] + " " + metadata_signature(meta, false);
      }
      case 't': {
        auto w = ::ffihub::detail::split_words(line, 2);
        int32_t index = ::ffihub::detail::find_type_index(w[0]);
        if (index < 0) return std::nullopt;
        const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
        std::string parent = info->type_depth > 0
                                 ? std::string(::ffihub::detail::view_of(info->type_ancestors[info->type_depth - 1]->type_key))
                                 : std::string("ffi.Object");
        return "t " + w[0] + " " + parent;
      }
      case 'd': {
        auto w = ::ffihub::detail::split_words(line, 4);
        int32_t index = ::ffihub::detail::find_type_index(w[0]);
        if (index < 0) return std::nullopt;
        const TVMFFIFieldInfo* f = ::ffihub::detail::own_field(TVMFFIGetTypeInfo(index), w[1]);
        if (f == nullptr) return std::nullopt;
        std::optional<Json> schema = ::ffihub::detail::metadata_schema(view_of(f->metadata));
        return "d " + w[0] + " " + w[1] +
               ((f->flags & kTVMFFIFieldFlagBitMaskWritable) ? " rw " : " ro ") +
               (schema ? schema_type(*schema) : std::string("?"));
      }
      case 'm': {
        auto w = ::ffihub::detail::split_words(line, 4);
        int32_t index = ::ffihub::detail::find_type_index(w[0]);
        if (index < 0) return std::nullopt;
        const TVMFFIMethodInfo* m = ::ffihub::detail::own_method(TVMFFIGetTypeInfo(index), w[1]);
        if (m == nullptr) return std::nullopt;
        bool is_static = (m->flags & kTVMFFIFieldFlagBitMaskIsStaticMethod) != 0;
        return "m " + w[0] + " " + w[1] + (is_static ? " static " : " instance ") +
               metadata_signature(view_of(m->metadata), !is_static);
      }
      case 'c': {
        auto w = ::ffihub::detail::split_words(line, 2);
        int32_t index = ::ffihub::detail::find_type_index(w[0]);
        if (index < 0) return std::nullopt;
        const TVMFFIMethodInfo* init = ::ffihub::detail::own_method(TVMFFIGetTypeInfo(index), "__ffi_init__");
        if (init != nullptr) {
          std::string sig = metadata_signature(view_of(init->metadata), false);
          return "c " + w[0] + " init_method " + sig.substr(0, sig.find(" -> "));
        }
        if (init_attribute(index) != nullptr) return "c " + w[0] + " auto_init";
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  }

 private:
  template <typename F>
  void for_each_line(F&& f) const {
    std::string text = manifest();
    std::string_view rest = text;
    while (!rest.empty()) {
      std::size_t end = rest.find('\n');
      std::string_view line = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
      if (line.size() >= 2) f(line);
    }
  }

  std::string not_loaded() const {
    return std::string(libraries_) + " is not loaded (none of the functions and types of " +
           header_ + " is registered): link it, or call ffihub::load_library(path) first";
  }

  void check() const {
    std::vector<std::string> problems = differences();
    if (problems.empty()) return;
    if (problems.size() == 1 && problems[0] == not_loaded()) {
      throw RuntimeError(problems[0], "<ffihub>", 0, "metadata check");
    }
    std::string msg = std::string(header_) +
                      " does not match the loaded library (it was generated from " + libraries_ +
                      ", metadata checksum " + checksum_ + "):";
    for (const std::string& p : problems) msg += "\n  - " + p;
    msg += "\nRegenerate it: " + std::string(regenerate_);
    throw RuntimeError(msg, "<ffihub>", 0, "metadata check");
  }

  /// Adds what differs between the manifest's `line` and its `live` spelling to `problems`.
  static void compare(std::string_view line, const std::optional<std::string>& live,
                      std::vector<std::string>& problems, std::size_t& missing) {
    const char kind = line[0];
    line.remove_prefix(2);
    // The words after the item's name, for the expected line and the live one.
    const std::size_t n = kind == 'd' || kind == 'm' ? 4 : kind == 'c' ? 3 : 2;
    auto w = ::ffihub::detail::split_words(line, n);
    std::vector<std::string> l =
        live ? ::ffihub::detail::split_words(std::string_view(*live).substr(2), n)
             : std::vector<std::string>();
    auto tail = [](const std::vector<std::string>& v, std::size_t from) {
      std::string out;
      for (std::size_t i = from; i < v.size(); ++i) out += (i > from ? " " : "") + v[i];
      return out;
    };
    switch (kind) {
      case 'f':
        if (!live) {
          ++missing;
          problems.push_back("function " + w[0] + " is not registered");
        } else if (l[1] != w[1]) {
          problems.push_back("function " + w[0] + ": generated for " + w[1] +
                             ", the library has " + l[1]);
        }
        return;
      case 't':
        if (!live) {
          ++missing;
          problems.push_back("type " + w[0] + " is not registered");
        } else if (l[1] != w[1]) {
          problems.push_back("type " + w[0] + ": generated with parent " + w[1] +
                             ", the library has " + l[1]);
        }
        return;
      case 'd':
      case 'm': {
        if (::ffihub::detail::find_type_index(w[0]) < 0) return;  // reported by its `t` line
        const char* what = kind == 'd' ? "field " : "method ";
        if (!live) {
          problems.push_back(what + w[0] + "." + w[1] + " is not registered");
          return;
        }
        // `?`: the field had no readable type where the header was generated; compare access only.
        if (kind == 'd' && w[3] == "?") l[3] = "?";
        std::string want = tail(w, 2);
        std::string have = tail(l, 2);
        if (have != want) {
          problems.push_back(what + w[0] + "." + w[1] + ": generated for " + want +
                             ", the library has " + have);
        }
        return;
      }
      case 'c':
        if (::ffihub::detail::find_type_index(w[0]) < 0) return;
        if (w[1] == "init_method") {
          std::string have = live && l[1] == "init_method" ? l[2] : std::string("none");
          if (have != w[2]) {
            problems.push_back("constructor of " + w[0] + ": generated for " + w[2] +
                               ", the library has " + have);
          }
        } else if (!live) {
          problems.push_back("constructor of " + w[0] + " (__ffi_init__) is not registered");
        }
        return;
      default:
        return;
    }
  }

  const char* header_;
  const char* checksum_;
  const char* libraries_;
  const char* regenerate_;
  const char* const* manifest_;
  std::size_t pieces_;
  mutable std::once_flag once_;
};

}  // namespace detail
}  // namespace ffihub
