// Scalars through generated functions of the demo extension: int, float, bool, None, Optional,
// Any, data types, devices and opaque pointers.
#include <limits>

#include "common.hpp"
#include "demo.hpp"

TEST_CASE(integers) {
  CHECK_EQ(demo::add_one(41), 42);
  CHECK_EQ(demo::add_one(-1), 0);
  CHECK_EQ(demo::echo_int(std::numeric_limits<int64_t>::max()), std::numeric_limits<int64_t>::max());
  CHECK_EQ(demo::echo_int(std::numeric_limits<int64_t>::min()), std::numeric_limits<int64_t>::min());
  CHECK_EQ(demo::add_one(std::numeric_limits<int64_t>::max()), std::numeric_limits<int64_t>::min());
  int small = 7;
  CHECK_EQ(demo::echo_int(small), 7);  // narrower C++ integers convert
}

TEST_CASE(floats_and_bools) {
  CHECK_EQ(demo::echo_float(1.5), 1.5);
  CHECK_EQ(demo::echo_float(-0.25), -0.25);
  CHECK(std::isinf(demo::echo_float(std::numeric_limits<double>::infinity())));
  CHECK(std::isnan(demo::echo_float(std::nan(""))));
  CHECK_EQ(demo::echo_float(3), 3.0);  // an int argument converts to float in C++
  CHECK_EQ(demo::echo_bool(true), true);
  CHECK_EQ(demo::echo_bool(false), false);
  CHECK_NEAR(demo::checked_sqrt(2.0), std::sqrt(2.0));
}

TEST_CASE(optional_and_none) {
  CHECK(!demo::echo_optional_int(std::nullopt).has_value());
  CHECK_EQ(demo::echo_optional_int(5).value(), 5);
  CHECK_EQ(demo::safe_divide(1.0, 4.0).value(), 0.25);
  CHECK(!demo::safe_divide(1.0, 0.0).has_value());
  CHECK(demo::is_none(ffihub::Any()));
  CHECK(demo::is_none(nullptr));
  CHECK(!demo::is_none(0));
  CHECK(!demo::is_none(""));
}

TEST_CASE(any_round_trips_keep_the_kind) {
  CHECK_EQ(demo::echo_any(7).type_key(), "int");
  CHECK_EQ(demo::echo_any(7).cast<int64_t>(), 7);
  CHECK_EQ(demo::echo_any(2.5).cast<double>(), 2.5);
  CHECK_EQ(demo::echo_any(true).type_key(), "bool");
  CHECK(demo::echo_any(nullptr).is_none());
  CHECK_EQ(demo::echo_any("short").cast<std::string>(), "short");
  CHECK_EQ(demo::echo_any(std::string(100, 'x')).cast<std::string>(), std::string(100, 'x'));
  CHECK_EQ(demo::echo_any(ffihub::dtype("int8")).cast<DLDataType>().bits, 8);
  CHECK_EQ(demo::echo_any(ffihub::cuda(3)).cast<DLDevice>().device_id, 3);
  int local = 0;
  CHECK_EQ(demo::echo_any(static_cast<void*>(&local)).cast<void*>(), static_cast<void*>(&local));
  demo::Point p(1, 2);
  ffihub::Any back = demo::echo_any(p);
  CHECK(back.cast<demo::Point>().same_as(p));
  CHECK(!back.as<demo::Counter>().has_value());
}

TEST_CASE(data_types) {
  DLDataType f32 = ffihub::dtype("float32");
  CHECK_EQ(f32.code, kDLFloat);
  CHECK_EQ(f32.bits, 32);
  CHECK(ffihub::same_dtype(demo::echo_dtype(f32), f32));
  CHECK_EQ(demo::dtype_bits(ffihub::dtype("float16")), 16);
  CHECK_EQ(demo::dtype_bits(ffihub::dtype_of<int64_t>()), 64);
  CHECK_EQ(ffihub::to_string(demo::echo_dtype(ffihub::dtype("bfloat16"))), "bfloat16");
  CHECK_EQ(ffihub::to_string(ffihub::dtype_of<bool>()), "bool");
  CHECK_THROWS(ffihub::Error, ffihub::dtype("not-a-type"), "");
}

TEST_CASE(devices) {
  DLDevice cuda1 = demo::make_device("cuda", 1);
  CHECK_EQ(cuda1.device_type, kDLCUDA);
  CHECK_EQ(cuda1.device_id, 1);
  CHECK(ffihub::same_device(demo::echo_device(ffihub::cpu()), ffihub::cpu()));
  CHECK_EQ(demo::device_name(ffihub::cpu()), "cpu:0");
  CHECK_EQ(demo::device_name(ffihub::cuda(2)), "cuda:2");
  CHECK_EQ(ffihub::to_string(ffihub::cuda(2)), "cuda:2");
  CHECK_THROWS(ffihub::ValueError, demo::make_device("tpu", 0), "unknown device type");
}

TEST_CASE(version_string) {
  CHECK(demo::version().rfind("ffihub-demo ", 0) == 0);
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS(
      [] {
        demo::echo_any(demo::Point(1, 2));
        demo::echo_any(std::string(64, 'y'));
        demo::echo_optional_int(3);
        demo::make_device("cpu", 0);
      },
      [] { return demo::live_object_count(); });
}

TEST_MAIN(test::load_demo())
