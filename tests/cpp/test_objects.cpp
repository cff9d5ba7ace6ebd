// Object types: constructors, field getters and setters, methods (dispatched on the runtime
// type), static methods, inheritance, checked downcasts, refcounts, repr and reflection by name.
#include "common.hpp"
#include "demo.hpp"

TEST_CASE(constructor_fields_and_setters) {
  demo::Counter c("clicks", 5, 2);
  CHECK_EQ(c.label(), "clicks");
  CHECK_EQ(c.count(), 5);
  CHECK_EQ(c.step(), 2);
  c.set_count(10);
  c.set_step(3);
  CHECK_EQ(c.count(), 10);
  CHECK_EQ(c.increment(), 13);
  CHECK_EQ(c.add(7), 20);
  CHECK_EQ(c.describe(), "clicks: 20");
  c.reset();
  CHECK_EQ(c.count(), 0);
  // Objects are shared: a copy sees the change.
  demo::Counter alias = c;
  alias.set_count(99);
  CHECK_EQ(c.count(), 99);
  CHECK(alias.same_as(c));
}

TEST_CASE(constructor_defaults) {
  demo::Counter c("defaults");  // start 0, step 1: the __ffi_init__ defaults
  CHECK_EQ(c.count(), 0);
  CHECK_EQ(c.increment(), 1);
  CHECK_EQ(demo::Counter("s", 5).step(), 1);
  CHECK_EQ(demo::Point3D(1, 2).z(), 0.0);
  CHECK(!demo::Shape2D("bare", {}).color().has_value());
  // The defaults are spelled: giving `step` means giving `start` too.
  CHECK_EQ(demo::Counter("both", 0, 3).step(), 3);
}

TEST_CASE(static_methods) {
  demo::Counter c = demo::Counter::with_step("by5", 5);
  CHECK_EQ(c.count(), 0);
  CHECK_EQ(c.increment(), 5);
  demo::Point o = demo::Point::origin();
  CHECK_EQ(o.x(), 0.0);
  demo::Shape2D sq = demo::Shape2D::square(3.0);
  CHECK_EQ(sq.area(), 9.0);
  CHECK_EQ(sq.perimeter(), 12.0);
  CHECK_EQ(sq.num_vertices(), 4);
  CHECK_THROWS(ffihub::ValueError, demo::Shape2D::square(-1.0), "side must be >= 0");
}

TEST_CASE(inheritance_and_dynamic_dispatch) {
  demo::Point3D p3(1.0, 2.0, 2.0);
  CHECK_EQ(p3.x(), 1.0);  // inherited getter
  CHECK_EQ(p3.z(), 2.0);
  CHECK_EQ(p3.norm(), 3.0);
  demo::Point as_2d = p3;  // a Point3D is a Point
  CHECK_EQ(as_2d.norm(), 3.0);  // the override runs: dispatch on the runtime type
  CHECK_EQ(as_2d.runtime_type_key(), "demo.Point3D");
  demo::Point flat = p3.to_2d();
  CHECK_NEAR(flat.norm(), std::sqrt(5.0));
  CHECK_EQ(flat.runtime_type_key(), "demo.Point");
  CHECK_EQ(demo::Point(4.0, 6.0).distance(p3), 5.0);  // a subclass where the base is expected
  demo::Point moved = p3.translate(1.0, 1.0);
  CHECK_EQ(moved.x(), 2.0);
  CHECK_EQ(moved.runtime_type_key(), "demo.Point");
}

TEST_CASE(checked_downcasts) {
  demo::Point3D p3(0.0, 3.0, 4.0);
  demo::Point p = p3;
  std::optional<demo::Point3D> back = p.as<demo::Point3D>();
  CHECK(back.has_value());
  CHECK_EQ(back->z(), 4.0);
  CHECK(!demo::Point(1, 1).as<demo::Point3D>().has_value());
  CHECK(!p.as<demo::Counter>().has_value());
  CHECK_THROWS(ffihub::TypeError, p.downcast<demo::Counter>(), "cannot downcast demo.Point3D to demo.Counter");
  ffihub::ObjectRef generic = p3;
  CHECK(generic.as<demo::Point>().has_value());
  CHECK_EQ(generic.downcast<demo::Point3D>().z(), 4.0);
  // From Any too.
  ffihub::Any a = p3;
  CHECK(a.as<demo::Point>().has_value());
  CHECK(!a.as<demo::Shape2D>().has_value());
  CHECK_THROWS(ffihub::TypeError, a.cast<demo::Shape2D>(), "expected demo.Shape2D, got demo.Point3D");
}

TEST_CASE(refcounts_copy_move) {
  demo::Point p(1, 2);
  CHECK_EQ(p.use_count(), 1u);
  {
    demo::Point copy = p;
    CHECK_EQ(p.use_count(), 2u);
    demo::Point moved = std::move(copy);
    CHECK_EQ(p.use_count(), 2u);
    CHECK(!copy.defined());  // NOLINT: moved-from is empty
  }
  CHECK_EQ(p.use_count(), 1u);
  ffihub::Any held = p;
  CHECK_EQ(p.use_count(), 2u);
  held = ffihub::Any();
  CHECK_EQ(p.use_count(), 1u);
}

TEST_CASE(container_fields_and_optional_fields) {
  demo::Shape2D tri("tri", {demo::Point(0, 0), demo::Point(4, 0), demo::Point(0, 3)}, std::nullopt);
  CHECK_EQ(tri.name(), "tri");
  CHECK_EQ(tri.area(), 6.0);
  CHECK_EQ(tri.perimeter(), 12.0);
  ffihub::Array<demo::Point> v = tri.vertices();
  CHECK_EQ(v.size(), 3u);
  CHECK_EQ(v[1].x(), 4.0);
  CHECK(!tri.color().has_value());
  CHECK(tri.tags().empty());
  tri.set_tags({{"kind", "triangle"}, {"color", "red"}});
  CHECK_EQ(tri.tags().at("kind"), "triangle");
  demo::Shape2D colored("c", {demo::Point3D(1, 1, 1)}, std::string("blue"));
  CHECK_EQ(colored.color().value(), "blue");
  CHECK_EQ(colored.vertices()[0].runtime_type_key(), "demo.Point3D");
}

TEST_CASE(dtype_device_shape_fields) {
  demo::TensorSpec spec(ffihub::dtype("float16"), ffihub::cuda(1), {2, 3}, std::string("weights"));
  CHECK_EQ(ffihub::to_string(spec.dtype()), "float16");
  CHECK_EQ(spec.device().device_type, kDLCUDA);
  CHECK_EQ(spec.shape().to_vector(), (std::vector<int64_t>{2, 3}));
  CHECK_EQ(spec.label().value(), "weights");
  CHECK_EQ(spec.numel(), 6);
  CHECK_EQ(spec.nbytes(), 12);
}

TEST_CASE(repr) {
  demo::Point p(1.5, -2.0);
  std::string text = test::show(p);
  CHECK(text.find("demo.Point") != std::string::npos);
  CHECK(text.find("1.5") != std::string::npos);
  CHECK_EQ(ffihub::repr(demo::Counter("r", 1, 1)), test::show(demo::Counter("r", 1, 1)));
}

TEST_CASE(reflection_by_name) {
  demo::Counter c("named", 3, 1);
  CHECK_EQ(ffihub::get_field<int64_t>(c, "count"), 3);
  CHECK_EQ(ffihub::get_field(c, "label").cast<std::string>(), "named");
  ffihub::set_field(c, "count", 8);
  CHECK_EQ(c.count(), 8);
  CHECK_THROWS(ffihub::AttributeError, ffihub::set_field(c, "label", "x"), "read-only");
  CHECK_THROWS(ffihub::AttributeError, ffihub::get_field(c, "missing"), "has no field missing");
  CHECK_EQ(ffihub::call_method<int64_t>(c, "add", 2), 10);
  CHECK_EQ(ffihub::field_names(demo::Point3D(1, 2, 3)),
           (std::vector<std::string>{"x", "y", "z"}));
  ffihub::ObjectRef made = ffihub::construct("demo.Point", 3.0, 4.0);
  CHECK_EQ(made.downcast<demo::Point>().norm(), 5.0);
  CHECK_EQ(ffihub::call_method<double>(made, "norm"), 5.0);
  CHECK_THROWS(ffihub::TypeError, ffihub::construct("demo.NoSuchType"), "is not registered");
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS(
      [] {
        demo::Counter c("x", 1, 1);
        c.increment();
        c.set_count(3);
        demo::Point3D p(1, 2, 3);
        demo::Point q = p;
        q.norm();
        p.to_2d().translate(1, 1).distance(p);
        demo::Shape2D::square(1.0).vertices();
        demo::Shape2D s("s", {p}, std::string("c"));
        s.set_tags({{"a", "b"}});
        s.tags().size();
        (void)q.as<demo::Point3D>();
        test::show(s);
      },
      [] { return demo::live_object_count(); });
}

TEST_MAIN(test::load_demo())
