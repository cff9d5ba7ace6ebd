// Reference values of Apache TVM-FFI's AnyHash (the hash of Map/Dict keys), computed by Apache's
// own inline header code. Built and run by make_any_hash_table.sh, which writes
// any_hash_table.tsv; runtime/tests/map_any_hash.rs rebuilds every value with ffihub's runtime
// and checks that the hashes agree bit for bit.
//
// Output: one line per value, `kind<TAB>literal<TAB>hash` (hash as an unsigned decimal).
// Literal encodings, shared with the Rust test:
//   int     decimal int64                      bigint  decimal integer outside int64
//   float   a strtod / Rust f64 literal        bool    true | false        none   None
//   str     text; `\\` is a backslash and `\xHH` a byte (also for bytes)
//   bytes   as str
//   dtype   code:bits:lanes                    device  device_type:device_id
// Address-dependent hashes (plain objects, opaque pointers) are left out.
#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/string.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;

namespace {

struct Entry {
  const char* kind;
  std::string literal;
};

// Decodes `\\` and `\xHH`; everything else stands for itself.
std::string Decode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\\') {
      out.push_back('\\');
      i += 1;
    } else if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x') {
      out.push_back(static_cast<char>(std::strtol(text.substr(i + 2, 2).c_str(), nullptr, 16)));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

void Split3(const std::string& text, long* a, long* b, long* c) {
  std::sscanf(text.c_str(), "%ld:%ld:%ld", a, b, c);
}

ffi::Any Build(const Entry& e) {
  const std::string kind = e.kind;
  if (kind == "int") return ffi::Any(static_cast<int64_t>(std::strtoll(e.literal.c_str(), nullptr, 10)));
  if (kind == "float") return ffi::Any(std::strtod(e.literal.c_str(), nullptr));
  if (kind == "bool") return ffi::Any(e.literal == "true");
  if (kind == "none") return ffi::Any(nullptr);
  if (kind == "str") return ffi::Any(ffi::String(Decode(e.literal)));
  if (kind == "bytes") {
    std::string raw = Decode(e.literal);
    return ffi::Any(ffi::Bytes(raw.data(), raw.size()));
  }
  if (kind == "dtype") {
    long code = 0, bits = 0, lanes = 0;
    Split3(e.literal, &code, &bits, &lanes);
    DLDataType dtype{static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                     static_cast<uint16_t>(lanes)};
    return ffi::Any(dtype);
  }
  if (kind == "device") {
    long type = 0, id = 0, unused = 0;
    Split3(e.literal + ":0", &type, &id, &unused);
    DLDevice device{static_cast<DLDeviceType>(type), static_cast<int32_t>(id)};
    return ffi::Any(device);
  }
  if (kind == "bigint") {
    std::istringstream stream(e.literal);
    ffi::BigInt value;
    stream >> value;
    if (stream.fail()) {
      std::fprintf(stderr, "bad bigint literal %s\n", e.literal.c_str());
      std::exit(1);
    }
    return ffi::Any(value);
  }
  std::fprintf(stderr, "unknown kind %s\n", e.kind);
  std::exit(1);
}

}  // namespace

int main() {
  const std::string long_text =
      "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. "
      "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog.";
  const std::vector<Entry> entries = {
      {"int", "0"},
      {"int", "1"},
      {"int", "-1"},
      {"int", "42"},
      {"int", "-42"},
      {"int", "1000000007"},
      {"int", "4294967296"},
      {"int", "-4294967296"},
      {"int", "123456789012345"},
      {"int", "9223372036854775807"},
      {"int", "-9223372036854775808"},
      {"float", "0.0"},
      {"float", "-0.0"},
      {"float", "1.5"},
      {"float", "-2.25"},
      {"float", "3.141592653589793"},
      {"float", "1e300"},
      {"float", "5e-324"},
      {"float", "inf"},
      {"float", "-inf"},
      {"float", "nan"},
      {"bool", "true"},
      {"bool", "false"},
      {"none", "None"},
      {"str", ""},
      {"str", "a"},
      {"str", "ab"},
      {"str", "abc"},
      {"str", "abcd"},
      {"str", "abcde"},
      {"str", "abcdef"},
      {"str", "abcdefg"},
      {"str", "a\\x00b"},
      {"str", "abcdefgh"},
      {"str", "hello, world"},
      {"str", "caf\\xc3\\xa9 \\xe2\\x82\\xac"},
      {"str", "a\\x00bcdefghij"},
      {"str", "back\\\\slash"},
      {"str", long_text},
      {"bytes", ""},
      {"bytes", "\\x00"},
      {"bytes", "abc"},
      {"bytes", "\\xff\\xfe\\x01"},
      {"bytes", "abcdefg"},
      {"bytes", "abcdefgh"},
      {"bytes", "0123456789abcdef0"},
      {"bytes", long_text},
      {"dtype", "2:32:1"},
      {"dtype", "0:8:1"},
      {"dtype", "1:1:1"},
      {"dtype", "4:16:1"},
      {"dtype", "2:16:4"},
      {"dtype", "3:64:1"},
      {"device", "1:0"},
      {"device", "2:0"},
      {"device", "2:3"},
      {"device", "8:1"},
      {"device", "12:0"},
      {"bigint", "9223372036854775808"},
      {"bigint", "-9223372036854775809"},
      {"bigint", "18446744073709551615"},
      {"bigint", "18446744073709551616"},
      {"bigint", "-18446744073709551616"},
      {"bigint", "340282366920938463463374607431768211457"},
      {"bigint", "1000000000000000000000000000000"},
      {"bigint", "-1000000000000000000000000000000"},
  };
  for (const Entry& e : entries) {
    ffi::Any value = Build(e);
    uint64_t hash = ffi::AnyHash()(value);
    std::printf("%s\t%s\t%" PRIu64 "\n", e.kind, e.literal.c_str(), hash);
  }
  return 0;
}
