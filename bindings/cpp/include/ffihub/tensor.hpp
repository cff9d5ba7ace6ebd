// ffihub C++ support: tensors (`ffi.Tensor`), exchanged without copies through DLPack, and the
// helpers for data types and devices.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "containers.hpp"

namespace ffihub {

// ---- data types and devices ------------------------------------------------------------------

/// Parses a data type ("float32", "int64", "bool", "float16x4", ...); throws ffihub::ValueError.
inline DLDataType dtype(std::string_view text) {
  TVMFFIByteArray b = detail::byte_array(text);
  DLDataType out;
  detail::check_call(TVMFFIDataTypeFromString(&b, &out));
  return out;
}

/// The text of a data type ("float32").
inline std::string to_string(DLDataType t) {
  TVMFFIAny out = detail::none_any();
  detail::check_call(TVMFFIDataTypeToString(&t, &out));
  return detail::cast_owned<std::string>(out, "dtype");
}

inline bool same_dtype(DLDataType a, DLDataType b) noexcept {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/// The data type of C++ arithmetic type T (float -> float32, int64_t -> int64, bool -> bool).
template <typename T>
constexpr DLDataType dtype_of() noexcept {
  static_assert(std::is_arithmetic_v<T>, "dtype_of<T> needs an arithmetic type");
  DLDataType t{};
  t.bits = static_cast<uint8_t>(sizeof(T) * 8);
  t.lanes = 1;
  if constexpr (std::is_same_v<T, bool>) {
    t.code = kDLBool;
    t.bits = 8;
  } else if constexpr (std::is_floating_point_v<T>) {
    t.code = kDLFloat;
  } else if constexpr (std::is_signed_v<T>) {
    t.code = kDLInt;
  } else {
    t.code = kDLUInt;
  }
  return t;
}

inline DLDevice device(DLDeviceType type, int32_t id = 0) noexcept {
  DLDevice d;
  d.device_type = type;
  d.device_id = id;
  return d;
}
inline DLDevice cpu(int32_t id = 0) noexcept { return device(kDLCPU, id); }
inline DLDevice cuda(int32_t id = 0) noexcept { return device(kDLCUDA, id); }

inline bool same_device(DLDevice a, DLDevice b) noexcept {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}

/// "cpu:0", "cuda:1", ...
inline std::string to_string(DLDevice d) {
  const char* name = "device";
  switch (d.device_type) {
    case kDLCPU: name = "cpu"; break;
    case kDLCUDA: name = "cuda"; break;
    case kDLCUDAHost: name = "cuda_host"; break;
    case kDLOpenCL: name = "opencl"; break;
    case kDLVulkan: name = "vulkan"; break;
    case kDLMetal: name = "metal"; break;
    case kDLROCM: name = "rocm"; break;
    default: break;
  }
  return std::string(name) + ":" + std::to_string(d.device_id);
}

namespace detail {

/// Owner of the shape, strides and data keeper of a tensor made from C++ memory.
struct DLPackContext {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::shared_ptr<void> owner;
  DLManagedTensorVersioned managed;

  static void deleter(DLManagedTensorVersioned* self) {
    delete static_cast<DLPackContext*>(self->manager_ctx);
  }
};

inline std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

}  // namespace detail

/**
 * An n-dimensional array (`ffi.Tensor`) in DLPack form: `shape()`, `strides()`, `dtype()`,
 * `device()`, `data()`.
 *
 * Tensors cross the FFI without copies. C++ memory becomes a tensor with `from_buffer` (the
 * caller's buffer, kept alive by an optional owner) or `from_vector` (takes the vector); pointers
 * from `data()`/`data_as<T>()` stay valid while any reference to the tensor lives.
 */
class Tensor : public ObjectRef {
 public:
  static constexpr const char* type_key = "ffi.Tensor";
  explicit Tensor(detail::Owned owned) noexcept : ObjectRef(owned) {}

  /// The DLTensor of this tensor (valid while the tensor lives).
  const DLTensor& dltensor() const noexcept {
    return *TVMFFITensorGetDLTensorPtr(detail::handle(*this));
  }
  int32_t ndim() const noexcept { return dltensor().ndim; }
  std::vector<int64_t> shape() const {
    const DLTensor& t = dltensor();
    return std::vector<int64_t>(t.shape, t.shape + t.ndim);
  }
  /// The strides in elements (computed for compact tensors without strides).
  std::vector<int64_t> strides() const {
    const DLTensor& t = dltensor();
    if (t.strides == nullptr) return detail::contiguous_strides(shape());
    return std::vector<int64_t>(t.strides, t.strides + t.ndim);
  }
  DLDataType dtype() const noexcept { return dltensor().dtype; }
  DLDevice device() const noexcept { return dltensor().device; }
  int64_t numel() const noexcept {
    const DLTensor& t = dltensor();
    int64_t n = 1;
    for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
    return n;
  }
  /// Bytes of one element.
  std::size_t element_size() const noexcept {
    const DLDataType t = dtype();
    return (static_cast<std::size_t>(t.bits) * t.lanes + 7) / 8;
  }
  bool is_contiguous() const {
    return strides() == detail::contiguous_strides(shape());
  }
  /// The address of the first element (data + byte_offset).
  void* data() const noexcept {
    const DLTensor& t = dltensor();
    return static_cast<char*>(t.data) + t.byte_offset;
  }
  /// The first element as a T*; throws ffihub::TypeError unless the tensor holds Ts.
  template <typename T>
  T* data_as() const {
    if (!::ffihub::same_dtype(dtype(), dtype_of<std::remove_const_t<T>>())) {
      throw TypeError("tensor of " + to_string(dtype()) + " viewed as " +
                      to_string(dtype_of<std::remove_const_t<T>>()));
    }
    return static_cast<T*>(data());
  }
  /// The elements in row-major order (a copy; any strides; CPU tensors only).
  template <typename T>
  std::vector<T> to_vector() const {
    const T* base = data_as<const T>();
    if (device().device_type != kDLCPU) throw ValueError("to_vector needs a CPU tensor");
    std::vector<int64_t> dims = shape();
    std::vector<int64_t> st = strides();
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(numel()));
    std::vector<int64_t> index(dims.size(), 0);
    for (int64_t n = 0, total = numel(); n < total; ++n) {
      int64_t offset = 0;
      for (std::size_t d = 0; d < dims.size(); ++d) offset += index[d] * st[d];
      out.push_back(base[offset]);
      for (std::size_t d = dims.size(); d-- > 0;) {
        if (++index[d] < dims[d]) break;
        index[d] = 0;
      }
    }
    return out;
  }

  /// A tensor owning a DLPack tensor (its deleter runs when the tensor is freed). Ownership
  /// passes on success only.
  static Tensor from_dlpack(DLManagedTensorVersioned* managed) {
    TVMFFIObjectHandle out = nullptr;
    detail::check_call(TVMFFITensorFromDLPackVersioned(managed, 0, 0, &out));
    return Tensor(detail::Owned{static_cast<TVMFFIObject*>(out)});
  }
  /// A new DLPack tensor holding a reference to this one; the receiver calls its deleter.
  DLManagedTensorVersioned* to_dlpack() const {
    DLManagedTensorVersioned* out = nullptr;
    detail::check_call(TVMFFITensorToDLPackVersioned(detail::handle(*this), &out));
    return out;
  }

  /// A tensor viewing `data` (not copied). `owner`, if given, is kept alive until the tensor
  /// is freed; without one the caller keeps the buffer alive. `strides` in elements (empty =
  /// row-major).
  template <typename T>
  static Tensor from_buffer(T* data, std::vector<int64_t> shape,
                            std::shared_ptr<void> owner = nullptr, DLDevice device = cpu(),
                            std::vector<int64_t> strides = {}) {
    return wrap(const_cast<std::remove_const_t<T>*>(data),
                dtype_of<std::remove_const_t<T>>(), std::move(shape), std::move(strides),
                std::move(owner), device);
  }

  /// A tensor over `values`, which it takes (moved in: no copy). `shape` defaults to
  /// {values.size()}.
  template <typename T>
  static Tensor from_vector(std::vector<T> values, std::vector<int64_t> shape = {}) {
    if (shape.empty()) shape.push_back(static_cast<int64_t>(values.size()));
    auto keeper = std::make_shared<std::vector<T>>(std::move(values));
    T* data = keeper->data();
    return from_buffer(data, std::move(shape), std::move(keeper));
  }

  /// A new zero-filled CPU tensor.
  static Tensor zeros(std::vector<int64_t> shape, DLDataType dtype) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::size_t bytes = (static_cast<std::size_t>(n) * dtype.bits * dtype.lanes + 7) / 8;
    auto storage = std::shared_ptr<void>(::operator new(bytes == 0 ? 1 : bytes, std::align_val_t(64)),
                                         [](void* p) { ::operator delete(p, std::align_val_t(64)); });
    std::memset(storage.get(), 0, bytes);
    void* data = storage.get();
    return wrap(data, dtype, std::move(shape), {}, std::move(storage), cpu());
  }

 private:
  static Tensor wrap(void* data, DLDataType dtype, std::vector<int64_t> shape,
                     std::vector<int64_t> strides, std::shared_ptr<void> owner, DLDevice device) {
    if (!strides.empty() && strides.size() != shape.size()) {
      throw ValueError("strides and shape differ in length");
    }
    auto ctx = std::make_unique<detail::DLPackContext>();
    ctx->shape = std::move(shape);
    ctx->strides = strides.empty() ? detail::contiguous_strides(ctx->shape) : std::move(strides);
    ctx->owner = std::move(owner);
    DLManagedTensorVersioned& m = ctx->managed;
    std::memset(&m, 0, sizeof(m));
    m.version.major = DLPACK_MAJOR_VERSION;
    m.version.minor = DLPACK_MINOR_VERSION;
    m.manager_ctx = ctx.get();
    m.deleter = &detail::DLPackContext::deleter;
    m.dl_tensor.data = data;
    m.dl_tensor.device = device;
    m.dl_tensor.ndim = static_cast<int32_t>(ctx->shape.size());
    m.dl_tensor.dtype = dtype;
    m.dl_tensor.shape = ctx->shape.data();
    m.dl_tensor.strides = ctx->strides.data();
    m.dl_tensor.byte_offset = 0;
    Tensor out = from_dlpack(&m);
    ctx.release();  // owned by the tensor now
    return out;
  }
};

/**
 * A borrowed DLTensor (`DLTensor*` in signatures): passes C++ memory for the duration of one
 * call without creating a tensor object. Also receives tensors in callbacks.
 */
class TensorView {
 public:
  explicit TensorView(const DLTensor* tensor) noexcept : tensor_(tensor) {}
  TensorView(const Tensor& tensor) noexcept : tensor_(&tensor.dltensor()) {}  // NOLINT
  const DLTensor& dltensor() const noexcept { return *tensor_; }

 private:
  const DLTensor* tensor_;
};

namespace detail {

template <>
struct Converter<TensorView> : ConverterBase<TensorView, Converter<TensorView>> {
  static void view(const TensorView& v, TVMFFIAny* out) noexcept {
    *out = none_any();
    out->type_index = kTVMFFIDLTensorPtr;
    out->v_ptr = const_cast<DLTensor*>(&v.dltensor());
  }
  static bool check(const TVMFFIAny& v) noexcept {
    return v.type_index == kTVMFFIDLTensorPtr || v.type_index == kTVMFFITensor;
  }
  static std::optional<TensorView> from_view(const TVMFFIAny& v) noexcept {
    if (v.type_index == kTVMFFIDLTensorPtr) return TensorView(static_cast<DLTensor*>(v.v_ptr));
    if (v.type_index == kTVMFFITensor) return TensorView(TVMFFITensorGetDLTensorPtr(v.v_obj));
    return std::nullopt;
  }
  static std::string type_name() { return "DLTensor*"; }
};

}  // namespace detail
}  // namespace ffihub
