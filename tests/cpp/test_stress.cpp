// Lifetimes under load: many objects, containers, callbacks and errors created and dropped;
// the runtime's live-object counter (ffihub's runtime) and the demo's live Rust objects come
// back to where they started, and refcounts stay exact.
#include "common.hpp"
#include "demo.hpp"

static int64_t demo_objects() { return demo::live_object_count(); }

TEST_CASE(objects_and_containers) {
  CHECK_NO_LEAKS(
      [] {
        ffihub::Array<demo::Point> points;
        std::vector<demo::Point> v;
        for (int i = 0; i < 50; ++i) v.emplace_back(i, -i);
        points = ffihub::Array<demo::Point>(v);
        demo::Shape2D s("s", points, std::nullopt);
        s.area();
        ffihub::Map<std::string, ffihub::Any> m{{"shape", s}, {"points", points}, {"n", 3}};
        demo::echo_any(m);
        ffihub::List<ffihub::Any> l;
        for (int i = 0; i < 20; ++i) l.push_back(demo::Counter("c", i, 1));
        l.clear();
      },
      demo_objects, 50);
}

TEST_CASE(callbacks_and_closures) {
  CHECK_NO_LEAKS(
      [] {
        auto shared = std::make_shared<std::vector<int64_t>>();
        for (int i = 0; i < 20; ++i) {
          demo::apply_twice([shared](int64_t x) {
            shared->push_back(x);
            return x + 1;
          }, i);
          auto f = demo::compose(demo::make_multiplier(2.0), [shared](double x) { return x + 1; });
          f.call<double>(1.0);
        }
      },
      demo_objects, 50);
}

TEST_CASE(errors_and_conversion_failures) {
  CHECK_NO_LEAKS(
      [] {
        for (int i = 0; i < 10; ++i) {
          try {
            demo::raise_error("KeyError", std::string(64, 'e'));
          } catch (const ffihub::KeyError&) {
          }
          try {
            demo::echo_any(demo::Point(1, 2)).cast<demo::Counter>();
          } catch (const ffihub::TypeError&) {
          }
          try {
            ffihub::Function::get_global_required("demo.echo_any").call<demo::Counter>(demo::Point(0, 0));
          } catch (const ffihub::TypeError&) {
          }
        }
      },
      demo_objects, 20);
}

TEST_CASE(refcounts_are_exact) {
  demo::Counter c("rc", 0, 1);
  CHECK_EQ(c.use_count(), 1u);
  {
    ffihub::Array<demo::Counter> arr{c, c, c};
    CHECK_EQ(c.use_count(), 4u);
    ffihub::Array<ffihub::Any> back = demo::reverse_array(ffihub::Array<ffihub::Any>(arr.begin(), arr.end()));
    CHECK_EQ(c.use_count(), 7u);  // 3 in arr, 3 in back
    CHECK(ffihub::Any(back).as<ffihub::Array<demo::Counter>>().has_value());
  }
  CHECK_EQ(c.use_count(), 1u);
  for (int i = 0; i < 100; ++i) {
    demo::echo_any(c);
    c.describe();
    ffihub::Any a = c;
  }
  CHECK_EQ(c.use_count(), 1u);
}

TEST_MAIN(test::load_demo())
