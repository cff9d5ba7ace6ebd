// Map/Dict interoperability between a runtime's `ffi.Map*` / `ffi.Dict*` globals and Apache's
// header-only C++ containers (tvm::ffi::Map / tvm::ffi::Dict), which inline the whole hash
// table: the same binary runs on Apache's libtvm_ffi.so and on ffihub's (library path swapped).
//
//  A. maps built by inline C++ code are read (size, get, count, iteration) and mutated (Dict
//     set/erase, forcing small -> dense growth and rehashes) through the runtime's globals;
//  B. maps built by the runtime's ffi.Map / ffi.Dict are read, iterated and mutated in place by
//     inline C++ code (which writes into the runtime's storage, frees it through its
//     data_deleter, or gives the runtime's object C++ storage);
//  C. keys hash alike on both sides: strings small and heap, BigInt by value, floats;
//  D. the raw layout of every map (form, slots, fib_shift, metadata bytes, item positions and
//     links, iteration list) equals the layout Apache's inline code builds with the same
//     operations, so each side probes the other's tables.
//
// Only the C ABI is called (no exported C++ symbol of libtvm_ffi.so is needed): global
// functions are called through TVMFFIFunctionCall and errors read from the raised Error cell.
// Prints one line per check group and "map_interop: OK" at the end; exits 1 on any failure.
#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/string.h>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;
using AnyMap = ffi::Map<ffi::Any, ffi::Any>;
using AnyDict = ffi::Dict<ffi::Any, ffi::Any>;

namespace {

int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

#define CHECK_EQ_STR(a, b)                                                                  \
  do {                                                                                      \
    std::string a_ = (a), b_ = (b);                                                         \
    if (a_ != b_) {                                                                         \
      std::fprintf(stderr, "FAILED %s:%d: %s == %s\n  left:  %s\n  right: %s\n", __FILE__, \
                   __LINE__, #a, #b, a_.c_str(), b_.c_str());                               \
      ++g_failures;                                                                         \
    }                                                                                       \
  } while (0)

struct CallResult {
  bool ok = false;
  ffi::Any value;
  std::string kind;
  std::string message;
};

std::string ByteArrayText(const TVMFFIByteArray& a) {
  return a.data == nullptr ? std::string() : std::string(a.data, a.size);
}

// Calls a global function of the runtime through the C ABI.
CallResult TryCall(const char* name, const std::vector<ffi::AnyView>& args) {
  CallResult out;
  TVMFFIByteArray fname{name, std::strlen(name)};
  TVMFFIObjectHandle func = nullptr;
  if (TVMFFIFunctionGetGlobal(&fname, &func) != 0 || func == nullptr) {
    out.kind = "MissingGlobal";
    out.message = name;
    return out;
  }
  TVMFFIAny result;
  std::memset(&result, 0, sizeof(result));
  int rc = TVMFFIFunctionCall(func, reinterpret_cast<TVMFFIAny*>(const_cast<ffi::AnyView*>(args.data())),
                              static_cast<int32_t>(args.size()), &result);
  TVMFFIObjectDecRef(func);
  if (rc != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) {
      TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
      out.kind = ByteArrayText(cell->kind);
      out.message = ByteArrayText(cell->message);
      TVMFFIObjectDecRef(err);
    }
    return out;
  }
  out.ok = true;
  out.value = ffi::details::AnyUnsafe::MoveTVMFFIAnyToAny(&result);
  return out;
}

ffi::Any Call(const char* name, const std::vector<ffi::AnyView>& args) {
  CallResult r = TryCall(name, args);
  if (!r.ok) {
    std::fprintf(stderr, "FAILED: %s raised %s: %s\n", name, r.kind.c_str(), r.message.c_str());
    ++g_failures;
  }
  return r.value;
}

int64_t Int(const ffi::Any& v) {
  const TVMFFIAny* raw = ffi::details::AnyUnsafe::TVMFFIAnyPtrFromAny(v);
  if (raw->type_index != kTVMFFIInt && raw->type_index != kTVMFFIBool) {
    std::fprintf(stderr, "FAILED: expected an int, got type index %d\n", raw->type_index);
    ++g_failures;
    return -999999;
  }
  return raw->v_int64;
}

// A mix of key kinds: ints, small strings, heap strings.
ffi::Any Key(int64_t i) {
  switch (i % 3) {
    case 0:
      return ffi::Any(i);
    case 1:
      return ffi::Any(ffi::String("k" + std::to_string(i)));
    default:
      return ffi::Any(ffi::String("a longer key number " + std::to_string(i)));
  }
}

// A readable, representation-independent text of a value (small and heap strings alike).
std::string Repr(const TVMFFIAny* v) {
  char buf[64];
  switch (v->type_index) {
    case kTVMFFINone:
      return "None";
    case kTVMFFIInt:
      std::snprintf(buf, sizeof(buf), "i%" PRId64, v->v_int64);
      return buf;
    case kTVMFFIBool:
      return v->v_int64 ? "True" : "False";
    case kTVMFFIFloat:
      std::snprintf(buf, sizeof(buf), "f%a", v->v_float64);
      return buf;
    case kTVMFFISmallStr:
      return "s'" + std::string(v->v_bytes, v->small_str_len) + "'";
    case kTVMFFIStr: {
      const TVMFFIByteArray* a = TVMFFIBytesGetByteArrayPtr(v->v_obj);
      return "s'" + std::string(a->data, a->size) + "'";
    }
    default:
      std::snprintf(buf, sizeof(buf), "<type %d>", v->type_index);
      return buf;
  }
}

const char* RawObject(const ffi::Any& m) {
  return reinterpret_cast<const char*>(ffi::details::AnyUnsafe::TVMFFIAnyPtrFromAny(m)->v_obj);
}

template <typename T>
T Field(const char* obj, size_t offset) {
  T value;
  std::memcpy(&value, obj + offset, sizeof(T));
  return value;
}

// The raw layout of a map object, read at Apache's offsets (pointers left out).
std::string Dump(const ffi::Any& m) {
  const char* obj = RawObject(m);
  std::ostringstream os;
  const char* data = Field<const char*>(obj, 24);
  uint64_t size = Field<uint64_t>(obj, 32);
  uint64_t slots = Field<uint64_t>(obj, 40);
  const uint64_t kSmall = uint64_t(1) << 63;
  os << "type=" << Field<int32_t>(obj, 8) << " size=" << size;
  if (slots & kSmall) {
    os << " small slots=" << (slots & ~kSmall) << " [";
    for (uint64_t i = 0; i < size; ++i) {
      const TVMFFIAny* kv = reinterpret_cast<const TVMFFIAny*>(data + i * 32);
      os << " " << Repr(kv) << ":" << Repr(kv + 1);
    }
    os << " ]";
    return os.str();
  }
  os << " dense slots=" << slots << " fib_shift=" << Field<uint32_t>(obj, 56)
     << " head=" << static_cast<int64_t>(Field<uint64_t>(obj, 64))
     << " tail=" << static_cast<int64_t>(Field<uint64_t>(obj, 72)) << "\n";
  for (uint64_t i = 0; i < slots; ++i) {
    const char* block = data + (i / 16) * 784;
    uint8_t meta = static_cast<uint8_t>(block[i % 16]);
    if (meta == 0xFF) continue;
    const char* item = block + 16 + (i % 16) * 48;
    const TVMFFIAny* kv = reinterpret_cast<const TVMFFIAny*>(item);
    os << "  " << i << " meta=" << static_cast<int>(meta);
    if (meta != 0xFE) {
      os << " " << Repr(kv) << ":" << Repr(kv + 1)
         << " prev=" << static_cast<int64_t>(Field<uint64_t>(item, 32))
         << " next=" << static_cast<int64_t>(Field<uint64_t>(item, 40));
    }
    os << "\n";
  }
  return os.str();
}

std::vector<ffi::Any> PackedPairs(int64_t n) {
  std::vector<ffi::Any> args;
  for (int64_t i = 0; i < n; ++i) {
    args.push_back(Key(i));
    args.push_back(ffi::Any(i));
  }
  return args;
}

std::vector<ffi::AnyView> Views(const std::vector<ffi::Any>& values) {
  return std::vector<ffi::AnyView>(values.begin(), values.end());
}

// Iterates a runtime map through the runtime's iterator functor.
std::vector<std::string> IterateWithGlobals(const ffi::Any& m, bool dict) {
  std::vector<std::string> out;
  int64_t size = Int(Call(dict ? "ffi.DictSize" : "ffi.MapSize", {m}));
  ffi::Any functor = Call(dict ? "ffi.DictForwardIterFunctor" : "ffi.MapForwardIterFunctor", {m});
  TVMFFIObjectHandle f = ffi::details::AnyUnsafe::TVMFFIAnyPtrFromAny(functor)->v_obj;
  for (int64_t i = 0; i < size; ++i) {
    std::string entry;
    for (int64_t command : {0, 1}) {
      ffi::AnyView arg(command);
      TVMFFIAny rv;
      std::memset(&rv, 0, sizeof(rv));
      CHECK(TVMFFIFunctionCall(f, reinterpret_cast<TVMFFIAny*>(&arg), 1, &rv) == 0);
      ffi::Any value = ffi::details::AnyUnsafe::MoveTVMFFIAnyToAny(&rv);
      entry += (command == 0 ? "" : ":") + Repr(ffi::details::AnyUnsafe::TVMFFIAnyPtrFromAny(value));
    }
    out.push_back(entry);
    ffi::AnyView advance(int64_t(2));
    TVMFFIAny rv;
    std::memset(&rv, 0, sizeof(rv));
    CHECK(TVMFFIFunctionCall(f, reinterpret_cast<TVMFFIAny*>(&advance), 1, &rv) == 0);
    CHECK(rv.type_index == kTVMFFIBool);
    CHECK((rv.v_int64 != 0) == (i + 1 < size));
  }
  return out;
}

template <typename M>
std::vector<std::string> IterateInline(const M& m) {
  std::vector<std::string> out;
  for (auto kv : m) {
    out.push_back(Repr(ffi::details::AnyUnsafe::TVMFFIAnyPtrFromAny(kv.first)) + ":" +
                  Repr(ffi::details::AnyUnsafe::TVMFFIAnyPtrFromAny(kv.second)));
  }
  return out;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += p + " ";
  return out;
}

// One mutation of a test sequence: set key -> value, or erase key.
struct Op {
  bool erase;
  int64_t key;
  int64_t value;
};

std::vector<Op> Mutations(int64_t n) {
  std::vector<Op> ops;
  for (int64_t j = 0; j < 60; ++j) ops.push_back({false, n + j, 1000 + j});
  for (int64_t j = 0; j < n + 60; j += 7) ops.push_back({true, j, 0});
  for (int64_t j = 1; j < n + 60; j += 5) ops.push_back({false, j, 2000 + j});
  for (int64_t j = 0; j < 20; ++j) ops.push_back({false, n + 100 + j, 3000 + j});
  return ops;
}

template <typename M>
void ApplyInline(M* m, const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    if (op.erase) {
      m->erase(Key(op.key));
    } else {
      m->Set(Key(op.key), ffi::Any(op.value));
    }
  }
}

// ---------------------------------------------------------------------------------------------

void TestCxxMapsThroughGlobals() {
  for (int64_t n : {3, 100}) {
    AnyMap m;
    for (int64_t i = 0; i < n; ++i) m.Set(Key(i), ffi::Any(i));
    ffi::Any am(m);
    CHECK(Int(Call("ffi.MapSize", {am})) == n);
    for (int64_t i = 0; i < n; ++i) {
      CHECK(Int(Call("ffi.MapGetItem", {am, Key(i)})) == i);
      CHECK(Int(Call("ffi.MapCount", {am, Key(i)})) == 1);
    }
    CHECK(Int(Call("ffi.MapCount", {am, Key(n + 5)})) == 0);
    CallResult missing = TryCall("ffi.MapGetItem", {am, Key(n + 5)});
    CHECK(!missing.ok);
    CHECK_EQ_STR(missing.kind, "KeyError");
    CHECK_EQ_STR(missing.message, "key is not in Map");
    CHECK_EQ_STR(Join(IterateWithGlobals(am, false)), Join(IterateInline(m)));
    // The runtime's ffi.Map builds the very same table.
    std::vector<ffi::Any> args = PackedPairs(n);
    CHECK_EQ_STR(Dump(Call("ffi.Map", Views(args))), Dump(am));
  }
  std::printf("A1 C++ Map read through ffi.Map* globals: ok\n");

  // Keys whose string hashes collide often (Apache's StableHashBytes maps zero-padded numbers
  // onto few values), with repeated keys updating earlier ones: long chains of equal hashes,
  // relocations and several rehashes, built by ffi.Map / ffi.Dict and by inline C++ Set.
  {
    const int64_t n = 3000;
    std::vector<ffi::Any> args;
    AnyMap m;
    AnyDict d;
    for (int64_t i = 0; i < n + n / 3; ++i) {
      char key[32];
      std::snprintf(key, sizeof(key), "key-%010lld", static_cast<long long>(i < n ? i : (i - n) * 3));
      args.push_back(ffi::String(key));
      args.push_back(ffi::Any(i));
      m.Set(ffi::String(key), ffi::Any(i));
      d.Set(ffi::String(key), ffi::Any(i));
    }
    CHECK_EQ_STR(Dump(Call("ffi.Map", Views(args))), Dump(ffi::Any(m)));
    CHECK_EQ_STR(Dump(Call("ffi.Dict", Views(args))), Dump(ffi::Any(d)));
  }
  std::printf("A1b colliding string keys, same layout as inline C++: ok\n");

  // ffi.Map / ffi.Dict of one call with every pair build the table inline Set builds pair by
  // pair: sizes around each growth point (small -> dense at 5, the doublings, counts just below
  // a power of two where the load factor may or may not force one more doubling), repeated
  // keys (first repeat early, late, right after the small form; many repeats), and colliding
  // string keys.
  {
    auto check = [](const std::vector<ffi::Any>& keys, const char* what) {
      std::vector<ffi::Any> args;
      AnyMap m;
      AnyDict d;
      for (size_t i = 0; i < keys.size(); ++i) {
        ffi::Any value(static_cast<int64_t>(i));
        args.push_back(keys[i]);
        args.push_back(value);
        m.Set(keys[i], value);
        d.Set(keys[i], value);
      }
      std::string want_map = Dump(ffi::Any(m)), want_dict = Dump(ffi::Any(d));
      std::string got_map = Dump(Call("ffi.Map", Views(args)));
      std::string got_dict = Dump(Call("ffi.Dict", Views(args)));
      if (got_map != want_map || got_dict != want_dict) {
        std::fprintf(stderr, "FAILED: layout of %s with %zu pairs\n", what, keys.size());
        ++g_failures;
      }
    };
    auto keys_of = [](const std::vector<int64_t>& ids) {
      std::vector<ffi::Any> keys;
      for (int64_t id : ids) keys.push_back(Key(id));
      return keys;
    };
    auto range = [](int64_t n) {
      std::vector<int64_t> ids;
      for (int64_t i = 0; i < n; ++i) ids.push_back(i);
      return ids;
    };
    for (int64_t n : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127,
                      128, 129, 250, 253, 254, 255, 256, 257, 500, 507, 508, 510, 512, 513, 1000,
                      1013, 1014, 1016, 1020, 1023, 1024, 1025, 2028, 2030, 2040, 2048, 2049}) {
      check(keys_of(range(n)), "distinct keys");
    }
    // Integer keys, spread by Fibonacci hashing: near the load-factor limit of 1024 and 2048
    // slots, whether the table grows depends on where the last keys land.
    for (int64_t n : {7, 8, 15, 16, 31, 32, 62, 63, 64, 126, 127, 128, 252, 253, 254, 255, 256,
                      1005, 1009, 1013, 1014, 1015, 1017, 1019, 1021, 1024, 2025, 2027, 2029,
                      2031, 2033, 2039, 2045, 2048}) {
      for (int64_t stride : {1, 7919, 104729, 1299709}) {
        std::vector<ffi::Any> keys;
        for (int64_t i = 0; i < n; ++i) keys.push_back(ffi::Any(i * stride + n));
        check(keys, "integer keys");
      }
    }
    // The first repeat at position j of n pairs (it updates key r).
    for (auto [n, j, r] : std::vector<std::array<int64_t, 3>>{
             {6, 1, 0}, {6, 2, 0}, {6, 3, 1}, {6, 4, 0}, {6, 4, 3}, {6, 5, 2}, {9, 5, 4},
             {9, 8, 0}, {10, 6, 1}, {20, 9, 3}, {100, 4, 2}, {100, 5, 0}, {100, 40, 39},
             {300, 65, 1}, {300, 150, 7}, {1000, 513, 100}, {1000, 999, 0}, {1100, 1020, 5}}) {
      std::vector<int64_t> ids;
      for (int64_t i = 0, next = 0; i < n; ++i) ids.push_back(i == j ? r : next++);
      check(keys_of(ids), "a repeated key");
    }
    {
      std::vector<int64_t> ids;  // every key twice, then a third time for every third key
      for (int64_t i = 0; i < 700; ++i) ids.push_back(i % 350);
      for (int64_t i = 0; i < 350; i += 3) ids.push_back(i);
      check(keys_of(ids), "many repeated keys");
    }
    for (int64_t n : {5, 100, 1000, 1020, 4000}) {
      std::vector<ffi::Any> keys;
      for (int64_t i = 0; i < n; ++i) {
        char key[32];
        std::snprintf(key, sizeof(key), "key-%010lld", static_cast<long long>(i));
        keys.push_back(ffi::String(key));
      }
      check(keys, "colliding string keys");
    }
  }
  std::printf("A1c one-call ffi.Map / ffi.Dict at growth points and with repeats, same layout: ok\n");

  for (int64_t n : {3, 100}) {
    AnyDict d;
    for (int64_t i = 0; i < n; ++i) d.Set(Key(i), ffi::Any(i));
    ffi::Any ad(d);
    std::vector<ffi::Any> args = PackedPairs(n);
    CHECK_EQ_STR(Dump(Call("ffi.Dict", Views(args))), Dump(ad));
    CHECK(Int(Call("ffi.DictSize", {ad})) == n);
    CHECK_EQ_STR(Join(IterateWithGlobals(ad, true)), Join(IterateInline(d)));
    // The runtime mutates the C++ dict in place (growth replaces its storage) ...
    std::vector<Op> ops = Mutations(n);
    for (const Op& op : ops) {
      if (op.erase) {
        Call("ffi.DictErase", {ad, Key(op.key)});
      } else {
        Call("ffi.DictSetItem", {ad, Key(op.key), ffi::Any(op.value)});
      }
    }
    // ... exactly as Apache's inline code mutates its own dict.
    AnyDict ref;
    for (int64_t i = 0; i < n; ++i) ref.Set(Key(i), ffi::Any(i));
    ApplyInline(&ref, ops);
    CHECK_EQ_STR(Dump(ad), Dump(ffi::Any(ref)));
    CHECK(d.size() == ref.size());
    for (int64_t i = 0; i < n + 130; ++i) {
      CHECK(d.count(Key(i)) == ref.count(Key(i)));
      auto got = d.Get(Key(i));
      auto want = ref.Get(Key(i));
      CHECK(got.has_value() == want.has_value());
      if (got.has_value() && want.has_value()) CHECK(Int(*got) == Int(*want));
    }
    CHECK_EQ_STR(Join(IterateInline(d)), Join(IterateInline(ref)));
    // Inline code keeps using (and finally frees) the storage the runtime gave it.
    d.Set(Key(5000), ffi::Any(int64_t(1)));
    d.erase(Key(5000));
    d.clear();
    CHECK(Int(Call("ffi.DictSize", {ad})) == 0);
    Call("ffi.DictSetItem", {ad, Key(1), ffi::Any(int64_t(2))});
    CHECK(d.size() == 1);
  }
  std::printf("A2 C++ Dict read and mutated through ffi.Dict* globals: ok\n");
}

void TestRuntimeMapsInline() {
  for (int64_t n : {3, 100}) {
    std::vector<ffi::Any> args = PackedPairs(n);
    AnyMap m = Call("ffi.Map", Views(args)).cast<AnyMap>();
    CHECK(m.size() == static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      CHECK(m.count(Key(i)) == 1);
      auto v = m.Get(Key(i));
      CHECK(v.has_value() && Int(*v) == i);
    }
    CHECK(m.count(Key(n + 1)) == 0);
    std::vector<std::string> order = IterateInline(m);
    CHECK(order.size() == static_cast<size_t>(n));
    CHECK_EQ_STR(Join(order), Join(IterateWithGlobals(ffi::Any(m), false)));
    // A shared map is copied by inline code before it writes (copy-on-write) ...
    AnyMap shared = m;
    shared.Set(Key(n + 1), ffi::Any(int64_t(7)));
    CHECK(m.size() == static_cast<size_t>(n) && shared.size() == static_cast<size_t>(n) + 1);
    shared = AnyMap();
    // ... and a unique one is written in place, growing out of the runtime's storage.
    AnyMap ref;
    for (int64_t i = 0; i < n; ++i) ref.Set(Key(i), ffi::Any(i));
    std::vector<Op> ops = Mutations(n);
    ApplyInline(&m, ops);
    ApplyInline(&ref, ops);
    CHECK_EQ_STR(Dump(ffi::Any(m)), Dump(ffi::Any(ref)));
  }
  std::printf("B1 runtime Map read and mutated by inline C++: ok\n");

  for (int64_t n : {3, 100}) {
    std::vector<ffi::Any> args = PackedPairs(n);
    ffi::Any ad = Call("ffi.Dict", Views(args));
    AnyDict d = ad.cast<AnyDict>();
    CHECK(d.size() == static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) CHECK(d.Get(Key(i)).has_value());
    // Inline code grows the runtime's dict in place (InplaceSwitchTo gives it C++ storage).
    std::vector<Op> ops = Mutations(n);
    ApplyInline(&d, ops);
    AnyDict ref;
    for (int64_t i = 0; i < n; ++i) ref.Set(Key(i), ffi::Any(i));
    ApplyInline(&ref, ops);
    CHECK_EQ_STR(Dump(ad), Dump(ffi::Any(ref)));
    // The runtime reads and mutates the C++ storage inside its own object.
    CHECK(Int(Call("ffi.DictSize", {ad})) == static_cast<int64_t>(ref.size()));
    for (int64_t i = 0; i < n + 130; ++i) {
      auto want = ref.Get(Key(i));
      CHECK(Int(Call("ffi.DictCount", {ad, Key(i)})) == (want.has_value() ? 1 : 0));
      if (want.has_value()) CHECK(Int(Call("ffi.DictGetItem", {ad, Key(i)})) == Int(*want));
    }
    CHECK_EQ_STR(Join(IterateWithGlobals(ad, true)), Join(IterateInline(ref)));
    for (int64_t j = 0; j < 300; ++j) {
      Call("ffi.DictSetItem", {ad, Key(10000 + j), ffi::Any(j)});
      ref.Set(Key(10000 + j), ffi::Any(j));
    }
    CHECK_EQ_STR(Dump(ad), Dump(ffi::Any(ref)));
    d.clear();
    Call("ffi.DictClear", {ad});
    CHECK(d.size() == 0);
  }
  std::printf("B2 runtime Dict read and mutated by inline C++: ok\n");
}

void TestKeyHashing() {
  // BigInt keys hash by value on both sides (each key object is built anew for lookups).
  auto big = [](const char* text) {
    std::istringstream s(text);
    ffi::BigInt v;
    s >> v;
    return ffi::Any(v);
  };
  const char* bigs[] = {"18446744073709551616", "-18446744073709551617",
                        "340282366920938463463374607431768211457", "99999999999999999999999"};
  std::vector<ffi::Any> args;
  AnyMap m;
  for (int64_t i = 0; i < 4; ++i) {
    m.Set(big(bigs[i]), ffi::Any(i));
    args.push_back(big(bigs[i]));
    args.push_back(ffi::Any(i));
  }
  // Strings (small and heap), floats, bools, None.
  std::vector<ffi::Any> others = {ffi::Any(ffi::String("")), ffi::Any(ffi::String("abcdefg")),
                                  ffi::Any(ffi::String("abcdefgh")), ffi::Any(1.5),
                                  ffi::Any(-0.0), ffi::Any(true), ffi::Any(nullptr),
                                  ffi::Any(ffi::Bytes("raw", 3))};
  for (size_t i = 0; i < others.size(); ++i) {
    m.Set(others[i], ffi::Any(static_cast<int64_t>(10 + i)));
    args.push_back(others[i]);
    args.push_back(ffi::Any(static_cast<int64_t>(10 + i)));
  }
  ffi::Any ours = Call("ffi.Map", Views(args));
  CHECK_EQ_STR(Dump(ours), Dump(ffi::Any(m)));
  // Plain keys around BigInt keys (whose type has hash hooks): one call, the same table.
  {
    std::vector<ffi::Any> mixed_args;
    AnyMap mixed;
    auto add = [&](ffi::Any key, int64_t value) {
      mixed_args.push_back(key);
      mixed_args.push_back(ffi::Any(value));
      mixed.Set(key, ffi::Any(value));
    };
    for (int64_t i = 0; i < 300; ++i) add(Key(i), i);
    for (int64_t i = 0; i < 4; ++i) add(big(bigs[i]), 1000 + i);
    for (int64_t i = 300; i < 600; ++i) add(Key(i % 350), i);
    CHECK_EQ_STR(Dump(Call("ffi.Map", Views(mixed_args))), Dump(ffi::Any(mixed)));
  }
  AnyMap theirs = ours.cast<AnyMap>();
  for (int64_t i = 0; i < 4; ++i) {
    CHECK(Int(Call("ffi.MapGetItem", {ffi::Any(m), big(bigs[i])})) == i);
    auto v = theirs.Get(big(bigs[i]));
    CHECK(v.has_value() && Int(*v) == i);
  }
  for (size_t i = 0; i < others.size(); ++i) {
    CHECK(Int(Call("ffi.MapGetItem", {ffi::Any(m), others[i]})) == static_cast<int64_t>(10 + i));
    CHECK(theirs.count(others[i]) == 1);
  }
  // 0.0 is not -0.0, "raw" the string is not b"raw" the bytes, 1 is not True.
  CHECK(Int(Call("ffi.MapCount", {ffi::Any(m), ffi::Any(0.0)})) == 0);
  CHECK(Int(Call("ffi.MapCount", {ffi::Any(m), ffi::Any(ffi::String("raw"))})) == 0);
  CHECK(Int(Call("ffi.MapCount", {ffi::Any(m), ffi::Any(int64_t(1))})) == 0);
  // A raw C string argument is a string key.
  CHECK(Int(Call("ffi.MapGetItem", {ffi::Any(m), ffi::AnyView("abcdefgh")})) == 12);
  std::printf("C  keys hash and compare alike on both sides: ok\n");
}

void TestMissingAndErrors() {
  std::vector<ffi::Any> args = PackedPairs(2);
  ffi::Any m = Call("ffi.Map", Views(args));
  ffi::Any d = Call("ffi.Dict", Views(args));
  ffi::Any sentinel = Call("ffi.GetInvalidObject", {});
  CHECK(RawObject(Call("ffi.MapGetItemOrMissing", {m, Key(9)})) == RawObject(sentinel));
  CHECK(RawObject(Call("ffi.DictGetItemOrMissing", {d, Key(9)})) == RawObject(sentinel));
  CHECK(Int(Call("ffi.MapGetItemOrMissing", {m, Key(1)})) == 1);
  CallResult odd = TryCall("ffi.Map", {ffi::AnyView(int64_t(1))});
  CHECK(!odd.ok);
  CHECK_EQ_STR(odd.kind, "InternalError");
  CallResult wrong = TryCall("ffi.MapSize", {d});
  CHECK_EQ_STR(wrong.kind, "TypeError");
  CHECK_EQ_STR(wrong.message,
               "Mismatched type on argument #0 when calling: `ffi.MapSize(0: ffi.Map) -> int`. "
               "Expected `ffi.Map` but got `ffi.Dict`");
  CallResult key_error = TryCall("ffi.DictGetItem", {d, Key(9)});
  CHECK_EQ_STR(key_error.kind, "KeyError");
  CHECK_EQ_STR(key_error.message, "key is not in Map");
  std::printf("D  missing keys, sentinel and errors: ok\n");
}

int64_t LiveObjects() {
  CallResult r = TryCall("ffihub.LiveObjectCount", {});
  return r.ok ? Int(r.value) : -1;
}

}  // namespace

int main() {
  // Process-lifetime objects (the sentinel) exist before counting.
  Call("ffi.GetInvalidObject", {});
  int64_t live_before = LiveObjects();
  TestCxxMapsThroughGlobals();
  TestRuntimeMapsInline();
  TestKeyHashing();
  TestMissingAndErrors();
  int64_t live_after = LiveObjects();
  if (live_before >= 0) {
    std::printf("live objects of the runtime: %" PRId64 " before, %" PRId64 " after\n",
                live_before, live_after);
    CHECK(live_before == live_after);
  }
  if (g_failures != 0) {
    std::printf("map_interop: %d FAILED\n", g_failures);
    return 1;
  }
  std::printf("map_interop: OK\n");
  return 0;
}
