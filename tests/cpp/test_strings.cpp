// Strings and bytes: small (inline) and heap values, embedded NULs, UTF-8, and the String and
// Bytes classes of the support library.
#include "common.hpp"
#include "demo.hpp"

TEST_CASE(strings_of_every_size) {
  for (std::size_t n : {0, 1, 7, 8, 15, 16, 100, 100000}) {
    std::string s(n, 'a');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
    CHECK_EQ(demo::echo_string(s), s);
    CHECK_EQ(demo::string_length(s), static_cast<int64_t>(n));
  }
}

TEST_CASE(string_operations) {
  CHECK_EQ(demo::concat("foo", "bar"), "foobar");
  CHECK_EQ(demo::concat("", ""), "");
  CHECK_EQ(demo::repeat("ab", 3), "ababab");
  CHECK_EQ(demo::repeat("xyz", 1000).size(), 3000u);
  CHECK_THROWS(ffihub::ValueError, demo::repeat("x", -1), "times must be >= 0");
  CHECK_EQ(demo::greet(std::nullopt), "Hello, world!");
  CHECK_EQ(demo::greet(std::string("Ada")), "Hello, Ada!");
  CHECK_EQ(demo::parse_int(" 42 "), 42);
}

TEST_CASE(utf8_and_nul_bytes) {
  std::string utf8 = "h\xC3\xA9llo w\xC3\xB6rld \xF0\x9F\x99\x82";
  CHECK_EQ(demo::echo_string(utf8), utf8);
  CHECK_EQ(demo::string_length(utf8), static_cast<int64_t>(utf8.size()));
  std::string with_nul("ab\0cd", 5);
  ffihub::String s(with_nul);
  CHECK_EQ(s.size(), 5u);
  CHECK_EQ(demo::echo_any(s).cast<std::string>(), with_nul);
}

TEST_CASE(std_string_with_nul_keeps_its_length) {
  // Every path from a std::string into a value passes its length: a NUL byte never ends it.
  for (std::string text : {std::string("a\0b", 3), std::string("\0", 1),
                           std::string("long text \0 past the inline size", 33)}) {
    CHECK_EQ(demo::string_length(text), static_cast<int64_t>(text.size()));
    CHECK_EQ(demo::echo_string(text), text);
    CHECK_EQ(demo::echo_any(text).cast<std::string>(), text);
    CHECK_EQ(ffihub::Any(text).cast<std::string>(), text);
    CHECK_EQ(demo::greet(std::optional<std::string>(text)), "Hello, " + text + "!");
    ffihub::Function length = ffihub::Function::get_global_required("demo.string_length");
    CHECK_EQ(length.call<int64_t>(text), static_cast<int64_t>(text.size()));
    CHECK_EQ(length.call<int64_t>(std::string_view(text)), static_cast<int64_t>(text.size()));
    CHECK_EQ(length(std::optional<std::string>(text)).cast<int64_t>(),
             static_cast<int64_t>(text.size()));
    CHECK_EQ(length(std::variant<int64_t, std::string>(text)).cast<int64_t>(),
             static_cast<int64_t>(text.size()));
    ffihub::Array<std::string> array(std::vector<std::string>{text, "x"});
    CHECK_EQ(array[0], text);
    CHECK_EQ(demo::echo_any(std::vector<std::string>{text}).cast<std::vector<std::string>>(),
             std::vector<std::string>{text});
    std::map<std::string, int64_t> keyed{{text, 1}, {std::string("a"), 2}};
    auto back = demo::echo_any(keyed).cast<std::map<std::string, int64_t>>();
    CHECK_EQ(back.size(), 2u);
    CHECK_EQ(back.at(text), 1);
    // A view cannot hold the length: a clear error, not a shorter string.
    CHECK_THROWS(ffihub::ValueError, ffihub::AnyView(text), "NUL byte");
  }
  CHECK_EQ(ffihub::AnyView(std::string("no nul")).cast<std::string>(), "no nul");
}

TEST_CASE(bytes) {
  std::vector<uint8_t> data{0, 1, 2, 255, 0, 7};
  ffihub::Bytes b(data);
  CHECK_EQ(demo::echo_bytes(b).to_vector(), data);
  std::vector<uint8_t> reversed(data.rbegin(), data.rend());
  CHECK_EQ(demo::reverse_bytes(data).to_vector(), reversed);
  std::vector<uint8_t> large(1000, 9);
  large[500] = 0;
  CHECK_EQ(demo::echo_bytes(large).to_vector(), large);
  CHECK_EQ(demo::echo_bytes(ffihub::Bytes()).size(), 0u);
  CHECK(demo::echo_bytes({1, 2}) == ffihub::Bytes({1, 2}));
  // std::vector<uint8_t> crosses as bytes through Any as well.
  CHECK_EQ(demo::echo_any(data).type_key(), "ffi.SmallBytes");
  CHECK_EQ(demo::echo_any(data).cast<std::vector<uint8_t>>(), data);
  CHECK_EQ(demo::echo_any(large).type_key(), "ffi.Bytes");
  CHECK_EQ(demo::echo_any(large).cast<std::vector<uint8_t>>(), large);
}

TEST_CASE(string_class) {
  ffihub::String small("abc");
  ffihub::String large(std::string(40, 'z'));
  CHECK_EQ(small.view(), "abc");
  CHECK_EQ(std::string(small.c_str()), "abc");
  CHECK_EQ(large.size(), 40u);
  CHECK(small == "abc");
  CHECK(small != large);
  CHECK(small < large);
  ffihub::Any a = large;
  CHECK_EQ(a.type_key(), "ffi.String");
  CHECK_EQ(ffihub::Any(small).type_key(), "ffi.SmallStr");
  ffihub::String back = a.cast<ffihub::String>();
  CHECK_EQ(back.str(), std::string(40, 'z'));
  std::string_view view = a.cast<std::string_view>();  // valid while `a` lives
  CHECK_EQ(view.size(), 40u);
  CHECK_EQ(test::show(small), "abc");
}

TEST_CASE(string_views_and_literals_as_arguments) {
  std::string backing = "hello world";
  std::string_view word(backing.data(), 5);  // not NUL-terminated
  CHECK_EQ(ffihub::Any(word).cast<std::string>(), "hello");
  CHECK_EQ(demo::echo_any(word).cast<std::string>(), "hello");
  const char* c = "c-string";
  CHECK_EQ(demo::echo_string(c), "c-string");
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS([] {
    demo::echo_string(std::string(100, 'q'));
    demo::concat(std::string(30, 'a'), "b");
    demo::echo_bytes(std::vector<uint8_t>(50, 1));
    ffihub::String s(std::string(20, 's'));
    demo::echo_any(s);
  });
}

TEST_MAIN(test::load_demo())
