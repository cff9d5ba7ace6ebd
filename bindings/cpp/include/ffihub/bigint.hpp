// ffihub C++ support: BigInt, TVM-FFI's arbitrary-precision integers (an int when it fits in
// 64 bits, an `ffi.BigInt` object beyond).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "any.hpp"

namespace ffihub {

/**
 * An arbitrary-precision integer. Built from an int64_t or from little-endian 64-bit
 * two's-complement words; read back as words, as an int64_t when it fits, or as decimal text.
 */
class BigInt {
 public:
  BigInt(int64_t value = 0) : data_(value) {}  // NOLINT: integers convert implicitly

  /// The integer of little-endian 64-bit two's-complement `words` (the sign is the top bit of
  /// the last word).
  static BigInt from_words(const std::vector<uint64_t>& words) {
    std::string bytes(words.size() * sizeof(uint64_t), '\0');
    if (!words.empty()) std::memcpy(&bytes[0], words.data(), bytes.size());
    TVMFFIByteArray b = detail::byte_array(bytes);
    TVMFFIAny out = detail::none_any();
    detail::check_call(TVMFFIBigIntFromByteArray(&b, &out));
    return BigInt(detail::AnyAccess::adopt(out));
  }

  /// The little-endian 64-bit two's-complement words.
  std::vector<uint64_t> words() const {
    TVMFFIByteArray b = TVMFFIBigIntGetContentByteArray(&detail::AnyAccess::raw(data_));
    std::vector<uint64_t> out((b.size + sizeof(uint64_t) - 1) / sizeof(uint64_t), 0);
    if (b.size != 0) std::memcpy(out.data(), b.data, b.size);
    return out;
  }

  bool fits_int64() const noexcept { return data_.type_index() == kTVMFFIInt; }
  /// The value as an int64_t; throws ffihub::ValueError when it does not fit.
  int64_t to_int64() const {
    if (!fits_int64()) throw ValueError("BigInt does not fit in 64 bits: " + to_string());
    return detail::AnyAccess::raw(data_).v_int64;
  }
  bool negative() const {
    std::vector<uint64_t> w = words();
    return !w.empty() && (w.back() >> 63) != 0;
  }

  /// Decimal text.
  std::string to_string() const {
    std::vector<uint64_t> w = words();
    bool neg = !w.empty() && (w.back() >> 63) != 0;
    if (neg) {  // two's complement -> magnitude
      uint64_t carry = 1;
      for (uint64_t& x : w) {
        x = ~x + carry;
        carry = (carry != 0 && x == 0) ? 1 : 0;
      }
    }
    // Repeated division of the magnitude (32-bit limbs) by 10^9.
    std::vector<uint32_t> limbs;
    for (uint64_t x : w) {
      limbs.push_back(static_cast<uint32_t>(x));
      limbs.push_back(static_cast<uint32_t>(x >> 32));
    }
    std::string digits;
    auto nonzero = [&limbs] {
      return std::any_of(limbs.begin(), limbs.end(), [](uint32_t x) { return x != 0; });
    };
    while (nonzero()) {
      uint64_t rem = 0;
      for (std::size_t i = limbs.size(); i-- > 0;) {
        uint64_t cur = (rem << 32) | limbs[i];
        limbs[i] = static_cast<uint32_t>(cur / 1000000000u);
        rem = cur % 1000000000u;
      }
      std::string chunk = std::to_string(rem);
      if (nonzero()) chunk.insert(0, 9 - chunk.size(), '0');
      digits.insert(0, chunk);
    }
    if (digits.empty()) digits = "0";
    return neg ? "-" + digits : digits;
  }

  friend bool operator==(const BigInt& a, const BigInt& b) { return a.words() == b.words(); }
  friend bool operator!=(const BigInt& a, const BigInt& b) { return !(a == b); }
  friend std::ostream& operator<<(std::ostream& os, const BigInt& v) { return os << v.to_string(); }

 private:
  friend struct detail::Converter<BigInt>;
  explicit BigInt(Any data) noexcept : data_(std::move(data)) {}
  Any data_;
};

namespace detail {

template <>
struct Converter<BigInt> : ConverterBase<BigInt, Converter<BigInt>> {
  static void view(const BigInt& v, TVMFFIAny* out) noexcept { *out = AnyAccess::raw(v.data_); }
  static TVMFFIAny owned(const BigInt& v) noexcept { return Converter<Any>::owned(v.data_); }
  static bool check(const TVMFFIAny& v) noexcept { return v.type_index == kTVMFFIBigInt; }
  static std::optional<BigInt> from_view(const TVMFFIAny& v) {
    if (v.type_index == kTVMFFIInt || v.type_index == kTVMFFIBool) return BigInt(v.v_int64);
    if (v.type_index == kTVMFFIBigInt) return BigInt(Any(AnyAccess::view(v)));
    return std::nullopt;
  }
  static std::string type_name() { return "ffi.BigInt"; }
};

}  // namespace detail
}  // namespace ffihub
