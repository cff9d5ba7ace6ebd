// Containers: Array, List, Map, Dict and Shape, nested ones, and the std:: containers that
// convert into them.
#include <map>
#include <tuple>
#include <unordered_map>

#include "common.hpp"
#include "demo.hpp"

TEST_CASE(arrays_in_and_out) {
  CHECK_EQ(demo::sum_array({1.5, 2.5, 3.0}), 7.0);
  CHECK_EQ(demo::sum_array(std::vector<double>{}), 0.0);
  ffihub::Array<int64_t> r = demo::make_range(5);
  CHECK_EQ(r.size(), 5u);
  CHECK_EQ(r[0], 0);
  CHECK_EQ(r.back(), 4);
  CHECK_EQ(r.to_vector(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  int64_t total = 0;
  for (int64_t x : r) total += x;
  CHECK_EQ(total, 10);
  CHECK_THROWS(ffihub::IndexError, r.at(5), "out of range");
  CHECK(demo::make_range(0).empty());
  CHECK_THROWS(ffihub::ValueError, demo::make_range(-1), "n must be >= 0");
}

TEST_CASE(arrays_of_any) {
  ffihub::Array<ffihub::Any> mixed{1, "two", 3.0, nullptr, demo::Point(1, 1)};
  ffihub::Array<ffihub::Any> rev = demo::reverse_array(mixed);
  CHECK_EQ(rev.size(), 5u);
  CHECK(rev[0].as<demo::Point>().has_value());
  CHECK(rev[1].is_none());
  CHECK_EQ(rev[3].cast<std::string>(), "two");
  CHECK_EQ(rev[4].cast<int64_t>(), 1);
  CHECK_EQ(demo::array_get(mixed, 1).cast<std::string>(), "two");
  CHECK_EQ(demo::array_get(mixed, -1).as<demo::Point>()->x(), 1.0);
  CHECK_THROWS(ffihub::IndexError, demo::array_get(mixed, 9), "out of range");
}

TEST_CASE(maps_in_and_out) {
  ffihub::Map<std::string, int64_t> lengths = demo::word_lengths({"a", "bb", "ccc"});
  CHECK_EQ(lengths.size(), 3u);
  CHECK_EQ(lengths.at("bb"), 2);
  CHECK(!lengths.get("zz").has_value());
  CHECK(lengths.contains("ccc"));
  CHECK_THROWS(ffihub::KeyError, lengths.at("zz"), "");
  std::map<std::string, int64_t> copy = lengths.to_map();
  CHECK_EQ(copy.size(), 3u);
  CHECK_EQ(copy["a"], 1);
  int64_t sum = 0;
  for (const auto& [word, n] : lengths) {
    CHECK_EQ(static_cast<int64_t>(word.size()), n);
    sum += n;
  }
  CHECK_EQ(sum, 6);
  CHECK_EQ(demo::map_get({{"x", 10}, {"y", 20}}, "y"), 20);
  CHECK_THROWS(ffihub::KeyError, demo::map_get({{"x", 10}}, "nope"), "is not in the map");
  std::map<std::string, int64_t> std_map{{"k", 1}};
  CHECK_EQ(demo::map_get(std_map, "k"), 1);
  std::unordered_map<std::string, int64_t> hashed{{"h", 2}};
  CHECK_EQ(demo::map_get(hashed, "h"), 2);
  ffihub::Map<std::string, ffihub::Any> any_values{{"b", 1}, {"a", "x"}, {"c", nullptr}};
  CHECK_EQ(demo::map_keys(any_values).to_vector(), (std::vector<std::string>{"a", "b", "c"}));
  CHECK(demo::map_keys(ffihub::Map<std::string, ffihub::Any>()).empty());
}

TEST_CASE(nested_containers) {
  auto nested = demo::make_nested(3);
  CHECK_EQ(nested.size(), 3u);
  CHECK_EQ(nested[2].at("range").to_vector(), (std::vector<int64_t>{0, 1}));
  CHECK_EQ(nested[1].at("index")[0], 1);
  ffihub::Map<std::string, int64_t> summary = demo::nested_summary(nested);
  CHECK_EQ(summary.at("maps"), 3);
  CHECK_EQ(summary.at("keys"), 6);
  CHECK_EQ(summary.at("values"), 6);  // index: 3 values, range: 0 + 1 + 2
  CHECK_EQ(summary.at("total"), 4);   // 0+1+2 + 0 + 0+1
  // Built in C++.
  ffihub::Array<ffihub::Map<std::string, ffihub::Array<int64_t>>> mine{
      {{"a", {1, 2, 3}}}, {{"b", {4}}, {"c", {}}}};
  ffihub::Map<std::string, int64_t> s2 = demo::nested_summary(mine);
  CHECK_EQ(s2.at("maps"), 2);
  CHECK_EQ(s2.at("keys"), 3);
  CHECK_EQ(s2.at("total"), 10);
}

TEST_CASE(shapes) {
  ffihub::Shape s{2, 3, 4};
  CHECK_EQ(demo::shape_numel(s), 24);
  CHECK_EQ(demo::echo_shape(s).to_vector(), (std::vector<int64_t>{2, 3, 4}));
  ffihub::Shape made = demo::make_shape({5, 6});
  CHECK_EQ(made.size(), 2u);
  CHECK_EQ(made[1], 6);
  CHECK_EQ(made.numel(), 30);
  CHECK_EQ(demo::shape_numel(std::vector<int64_t>{7}), 7);
  CHECK_EQ(demo::shape_numel(ffihub::Shape()), 1);
}

TEST_CASE(lists_are_mutable) {
  ffihub::List<int64_t> list{1, 2};
  ffihub::List<int64_t> alias = list;
  list.push_back(3);
  list.set(0, 10);
  list.insert(1, 5);
  CHECK_EQ(alias.to_vector(), (std::vector<int64_t>{10, 5, 2, 3}));
  CHECK_EQ(alias.pop_back(), 3);
  list.erase(0);
  CHECK_EQ(list.to_vector(), (std::vector<int64_t>{5, 2}));
  list.clear();
  CHECK(alias.empty());
  ffihub::Any as_any = list;
  CHECK_EQ(as_any.type_key(), "ffi.List");
}

TEST_CASE(dicts_are_mutable) {
  ffihub::Dict<std::string, int64_t> d{{"a", 1}};
  ffihub::Dict<std::string, int64_t> alias = d;
  d.set("b", 2);
  d.set("a", 3);
  CHECK_EQ(alias.size(), 2u);
  CHECK_EQ(alias.at("a"), 3);
  d.erase("a");
  CHECK(!alias.contains("a"));
  d.clear();
  CHECK(alias.empty());
}

TEST_CASE(std_containers_through_any) {
  std::vector<int64_t> v{3, 1, 2};
  ffihub::Any a = v;
  CHECK_EQ(a.type_key(), "ffi.Array");
  CHECK_EQ(a.cast<std::vector<int64_t>>(), v);
  CHECK(!a.as<std::vector<std::string>>().has_value());
  CHECK(a.as<ffihub::Array<int64_t>>().has_value());
  CHECK(!a.as<ffihub::Array<std::string>>().has_value());  // elements are checked
  std::map<std::string, double> m{{"pi", 3.14}};
  ffihub::Any am = m;
  CHECK_EQ(am.type_key(), "ffi.Map");
  CHECK_EQ((am.cast<std::map<std::string, double>>().at("pi")), 3.14);
  std::tuple<int64_t, std::string, double> t{1, "x", 2.5};
  ffihub::Any at = t;
  auto back = at.cast<std::tuple<int64_t, std::string, double>>();
  CHECK_EQ(std::get<1>(back), "x");
  CHECK(!(at.as<std::tuple<int64_t, int64_t>>().has_value()));
  ffihub::Array<ffihub::Any> rev = demo::reverse_array(std::vector<ffihub::Any>{1, "a"});
  CHECK_EQ(rev[0].cast<std::string>(), "a");
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS(
      [] {
        demo::nested_summary(demo::make_nested(4));
        demo::word_lengths({"x", "yy"}).to_map();
        ffihub::List<std::string> l{"a"};
        l.push_back(std::string(30, 'b'));
        ffihub::Dict<std::string, ffihub::Any> d{{"k", demo::Point(0, 0)}};
        d.set("j", l);
        for (auto kv : d) (void)kv;
        demo::reverse_array(std::vector<ffihub::Any>{1, "x", demo::Point(2, 2)});
      },
      [] { return demo::live_object_count(); });
}

TEST_MAIN(test::load_demo())
