// Tensors cross without copies: C++ buffers become tensors (DLPack), tensors made by the
// extension are read in place, owners are kept alive by the tensors they back.
#include <memory>
#include <numeric>

#include "common.hpp"
#include "demo.hpp"

TEST_CASE(cpp_buffers_are_shared_not_copied) {
  std::vector<float> buf{1, 2, 3, 4, 5, 6};
  ffihub::Tensor t = ffihub::Tensor::from_buffer(buf.data(), {2, 3});
  CHECK_EQ(t.data(), static_cast<void*>(buf.data()));
  demo::add_one_inplace(t);
  CHECK_EQ(buf, (std::vector<float>{2, 3, 4, 5, 6, 7}));
  CHECK_EQ(demo::tensor_sum(t), 27.0);
  CHECK_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  CHECK_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  CHECK_EQ(t.ndim(), 2);
  CHECK_EQ(t.numel(), 6);
  CHECK(t.is_contiguous());
  CHECK_EQ(ffihub::to_string(t.dtype()), "float32");
  CHECK(ffihub::same_device(t.device(), ffihub::cpu()));
}

TEST_CASE(tensors_from_the_extension_are_read_in_place) {
  ffihub::Tensor r = demo::arange(5);
  CHECK_EQ(r.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4}));
  float* data = r.data_as<float>();
  data[0] = 10;  // write through the view
  CHECK_EQ(demo::tensor_sum(r), 20.0);
  CHECK_THROWS(ffihub::TypeError, r.data_as<int32_t>(), "tensor of float32 viewed as int32");
  ffihub::Tensor doubled = demo::scaled_copy(r, 2.0);
  CHECK_EQ(doubled.to_vector<float>(), (std::vector<float>{20, 2, 4, 6, 8}));
  CHECK(doubled.data() != r.data());
}

TEST_CASE(strided_views) {
  // Every other element of a 2x4 buffer: a 2x2 view with strides (4, 2).
  std::vector<float> buf{1, 100, 2, 100, 3, 100, 4, 100};
  ffihub::Tensor view = ffihub::Tensor::from_buffer(buf.data(), {2, 2}, nullptr, ffihub::cpu(), {4, 2});
  CHECK(!view.is_contiguous());
  CHECK_EQ(view.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  CHECK_EQ(demo::tensor_sum(view), 10.0);
  demo::add_one_inplace(view);
  CHECK_EQ(buf, (std::vector<float>{2, 100, 3, 100, 4, 100, 5, 100}));
  ffihub::Map<std::string, ffihub::Any> info = demo::tensor_info(view);
  CHECK_EQ(info.at("strides").cast<std::vector<int64_t>>(), (std::vector<int64_t>{4, 2}));
  CHECK_EQ(info.at("contiguous").cast<bool>(), false);
  CHECK_EQ(info.at("shape").cast<ffihub::Shape>().to_vector(), (std::vector<int64_t>{2, 2}));
}

TEST_CASE(owners_live_as_long_as_the_tensor) {
  std::weak_ptr<std::vector<float>> watch;
  ffihub::Tensor kept = [&watch] {
    auto owner = std::make_shared<std::vector<float>>(4, 1.5f);
    watch = owner;
    return ffihub::Tensor::from_buffer(owner->data(), {4}, owner);
  }();
  CHECK(!watch.expired());  // the tensor keeps the buffer
  CHECK_EQ(demo::tensor_sum(kept), 6.0);
  kept = demo::arange(1);
  CHECK(watch.expired());  // released with the last reference
  // from_vector takes the vector: no copy.
  std::vector<float> values(1000);
  std::iota(values.begin(), values.end(), 0.0f);
  const float* before = values.data();
  ffihub::Tensor moved = ffihub::Tensor::from_vector(std::move(values));
  CHECK_EQ(static_cast<const void*>(moved.data()), static_cast<const void*>(before));
  CHECK_EQ(demo::tensor_sum(moved), 499500.0);
}

TEST_CASE(dlpack_round_trip) {
  ffihub::Tensor r = demo::arange(3);
  DLManagedTensorVersioned* managed = r.to_dlpack();
  CHECK_EQ(managed->dl_tensor.data, r.dltensor().data);
  ffihub::Tensor back = ffihub::Tensor::from_dlpack(managed);
  CHECK_EQ(back.data(), r.data());
  CHECK_EQ(demo::tensor_sum(back), 3.0);
}

TEST_CASE(other_dtypes_and_errors) {
  std::vector<int32_t> ints{1, 2, 3};
  ffihub::Tensor t = ffihub::Tensor::from_buffer(ints.data(), {3});
  CHECK_EQ(ffihub::to_string(t.dtype()), "int32");
  CHECK_EQ(t.to_vector<int32_t>(), ints);
  CHECK_THROWS(ffihub::TypeError, demo::tensor_sum(t), "expected a float32 tensor");
  ffihub::Tensor z = ffihub::Tensor::zeros({2, 2}, ffihub::dtype("float32"));
  CHECK_EQ(demo::tensor_sum(z), 0.0);
  CHECK_EQ(reinterpret_cast<uintptr_t>(z.data()) % 64, 0u);
  // Tensors are values: through Any and containers.
  ffihub::Any a = z;
  CHECK_EQ(a.type_key(), "ffi.Tensor");
  ffihub::Array<ffihub::Any> arr{z, t};
  CHECK(arr[1].cast<ffihub::Tensor>().same_as(t));
}

TEST_CASE(size_does_not_matter) {
  // Passing a tensor costs the same for 1 KB and 64 MB (no copy): sum only touches the data
  // once; here just check that a large buffer is shared, not copied.
  std::vector<float> big(16 * 1024 * 1024, 1.0f);
  ffihub::Tensor t = ffihub::Tensor::from_buffer(big.data(), {static_cast<int64_t>(big.size())});
  demo::add_one_inplace(t);
  CHECK_EQ(big[12345], 2.0f);
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS(
      [] {
        std::vector<float> buf(8, 1.0f);
        ffihub::Tensor t = ffihub::Tensor::from_buffer(buf.data(), {8});
        demo::add_one_inplace(t);
        demo::scaled_copy(t, 3.0).to_vector<float>();
        demo::tensor_info(t).at("dtype");
        ffihub::Tensor::from_dlpack(demo::arange(4).to_dlpack());
        ffihub::Tensor::from_vector(std::vector<float>{1, 2});
      },
      [] { return demo::live_object_count(); });
}

TEST_MAIN(test::load_demo())
