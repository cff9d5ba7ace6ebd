# The C ABI of TVM-FFI 0.1 (tvm/ffi/c_api.h, dlpack/dlpack.h) as isbits Julia structs whose layout
# matches C exactly (x86_64 / aarch64, LP64). Field names follow the C headers.

# --- type indices (enum TVMFFITypeIndex) ---------------------------------------------------------

const kTVMFFIAny = Int32(-1)
const kTVMFFINone = Int32(0)
const kTVMFFIInt = Int32(1)
const kTVMFFIBool = Int32(2)
const kTVMFFIFloat = Int32(3)
const kTVMFFIOpaquePtr = Int32(4)
const kTVMFFIDataType = Int32(5)
const kTVMFFIDevice = Int32(6)
const kTVMFFIDLTensorPtr = Int32(7)
const kTVMFFIRawStr = Int32(8)
const kTVMFFIByteArrayPtr = Int32(9)
const kTVMFFIObjectRValueRef = Int32(10)
const kTVMFFISmallStr = Int32(11)
const kTVMFFISmallBytes = Int32(12)
const kTVMFFIUnchanged = Int32(13)
const kTVMFFIStaticObjectBegin = Int32(64)
const kTVMFFIObject = Int32(64)
const kTVMFFIStr = Int32(65)
const kTVMFFIBytes = Int32(66)
const kTVMFFIError = Int32(67)
const kTVMFFIFunction = Int32(68)
const kTVMFFIShape = Int32(69)
const kTVMFFITensor = Int32(70)
const kTVMFFIArray = Int32(71)
const kTVMFFIMap = Int32(72)
const kTVMFFIModule = Int32(73)
const kTVMFFIOpaquePyObject = Int32(74)
const kTVMFFIList = Int32(75)
const kTVMFFIDict = Int32(76)
const kTVMFFIVisitInterrupt = Int32(77)
const kTVMFFIBigInt = Int32(78)
const kTVMFFIDynObjectBegin = Int32(128)

# --- field flags (enum TVMFFIFieldFlagBitMask) ----------------------------------------------------

const kTVMFFIFieldFlagBitMaskWritable = Int64(1)
const kTVMFFIFieldFlagBitMaskHasDefault = Int64(2)
const kTVMFFIFieldFlagBitMaskIsStaticMethod = Int64(4)
const kTVMFFIFieldFlagBitMaskDefaultFromFactory = Int64(32)
const kTVMFFIFieldFlagBitSetterIsFunctionObj = Int64(2048)

# --- core structs ----------------------------------------------------------------------------------

"""
    TVMFFIAny

The 16-byte tagged value of the ABI: `type_index`, a 32-bit word (`zero_padding` or
`small_str_len`) and an 8-byte payload (`v_int64`, `v_float64`, `v_ptr`, `v_obj`, `v_dtype`,
`v_device` or `v_bytes`), here kept as raw bits in `v`.
"""
struct TVMFFIAny
    type_index::Int32
    small_len::UInt32
    v::UInt64
end

const _ANY_NONE = TVMFFIAny(kTVMFFINone, 0, 0)

@inline _is_object_index(ti::Int32) = ti >= kTVMFFIStaticObjectBegin
@inline _v_int64(a::TVMFFIAny) = reinterpret(Int64, a.v)
@inline _v_float64(a::TVMFFIAny) = reinterpret(Float64, a.v)
@inline _v_ptr(a::TVMFFIAny) = Ptr{Cvoid}(a.v)

"""`TVMFFIByteArray`: a (data, size) view of bytes, not NUL-terminated in general."""
struct TVMFFIByteArray
    data::Ptr{UInt8}
    size::Csize_t
end

"""The 24-byte header every TVM-FFI object starts with (`TVMFFIObject`)."""
struct TVMFFIObjectHeader
    combined_ref_count::UInt64
    type_index::Int32
    __padding::UInt32
    deleter::Ptr{Cvoid}
end

const _HEADER_SIZE = 24

struct TVMFFIErrorCell
    kind::TVMFFIByteArray
    message::TVMFFIByteArray
    backtrace::TVMFFIByteArray
    update_backtrace::Ptr{Cvoid}
    cause_chain::Ptr{Cvoid}
    extra_context::Ptr{Cvoid}
end

struct TVMFFISeqCell
    data::Ptr{TVMFFIAny}
    size::Int64
    capacity::Int64
    data_deleter::Ptr{Cvoid}
end

struct TVMFFIShapeCell
    data::Ptr{Int64}
    size::Csize_t
end

struct TVMFFIFieldInfo
    name::TVMFFIByteArray
    doc::TVMFFIByteArray
    metadata::TVMFFIByteArray
    flags::Int64
    size::Int64
    alignment::Int64
    offset::Int64
    getter::Ptr{Cvoid}
    setter::Ptr{Cvoid}
    default_value_or_factory::TVMFFIAny
    field_static_type_index::Int32
end

struct TVMFFIMethodInfo
    name::TVMFFIByteArray
    doc::TVMFFIByteArray
    metadata::TVMFFIByteArray
    flags::Int64
    method::TVMFFIAny
end

struct TVMFFITypeMetadata
    doc::TVMFFIByteArray
    creator::Ptr{Cvoid}
    total_size::Int32
    structural_eq_hash_kind::Int32
end

struct TVMFFITypeInfo
    type_index::Int32
    type_depth::Int32
    type_key::TVMFFIByteArray
    type_ancestors::Ptr{Ptr{TVMFFITypeInfo}}
    type_key_hash::UInt64
    num_fields::Int32
    num_methods::Int32
    fields::Ptr{TVMFFIFieldInfo}
    methods::Ptr{TVMFFIMethodInfo}
    metadata::Ptr{TVMFFITypeMetadata}
end

struct TVMFFITypeAttrColumn
    data::Ptr{TVMFFIAny}
    size::Int32
    begin_index::Int32
end

# --- DLPack ----------------------------------------------------------------------------------------

"""
    DLDevice(device_type::Integer, device_id::Integer)
    DLDevice(name::Symbol, id::Integer = 0)
    DLDevice("cuda:1")
    DLDevice((:cuda, 1))

A DLPack device (the ABI's `Device` value). Names: `:cpu`, `:cuda`, `:cuda_host`, `:opencl`,
`:vulkan`, `:metal`, `:vpi`, `:rocm`, `:rocm_host`, `:ext_dev`, `:cuda_managed`, `:oneapi`,
`:webgpu`, `:hexagon`, `:maia`, `:trn`. `string(dev)` gives `"cuda:1"`.
"""
struct DLDevice
    device_type::Int32
    device_id::Int32
end

"""
    DLDataType(code::Integer, bits::Integer, lanes::Integer = 1)
    DLDataType("float32")
    DLDataType(Float32)

A DLPack data type (the ABI's `DataType` value). Strings are parsed by the runtime
(`TVMFFIDataTypeFromString`: `"int8"`, `"float16"`, `"bool"`, `"float32x4"`, `"bfloat16"`, ...);
Julia element types map to their DLPack equivalent. `string(dt)` gives the runtime's spelling.
"""
struct DLDataType
    code::UInt8
    bits::UInt8
    lanes::UInt16
end

struct DLTensor
    data::Ptr{Cvoid}
    device::DLDevice
    ndim::Int32
    dtype::DLDataType
    shape::Ptr{Int64}
    strides::Ptr{Int64}
    byte_offset::UInt64
end

struct DLPackVersion
    major::UInt32
    minor::UInt32
end

struct DLManagedTensorVersioned
    version::DLPackVersion
    manager_ctx::Ptr{Cvoid}
    deleter::Ptr{Cvoid}
    flags::UInt64
    dl_tensor::DLTensor
end

# DLDataTypeCode
const kDLInt = UInt8(0)
const kDLUInt = UInt8(1)
const kDLFloat = UInt8(2)
const kDLOpaqueHandle = UInt8(3)
const kDLBfloat = UInt8(4)
const kDLComplex = UInt8(5)
const kDLBool = UInt8(6)

# DLDeviceType
const kDLCPU = Int32(1)

# --- low-level helpers -------------------------------------------------------------------------------

@inline _incref(h::Ptr{Cvoid}) = (ccall(_fp_TVMFFIObjectIncRef[], Cint, (Ptr{Cvoid},), h); nothing)
@inline _decref(h::Ptr{Cvoid}) = (ccall(_fp_TVMFFIObjectDecRef[], Cint, (Ptr{Cvoid},), h); nothing)

# The type index stored in an object's header.
@inline _header_type_index(h::Ptr{Cvoid}) = unsafe_load(Ptr{Int32}(h + 8))

# Releases the reference an owned Any holds (a no-op for values that are not objects).
@inline function _release_any(a::TVMFFIAny)
    _is_object_index(a.type_index) && _decref(_v_ptr(a))
    return nothing
end

# A ByteArray over a Julia string or byte vector; the caller must GC.@preserve the source.
@inline _bytearray(s::String) = TVMFFIByteArray(pointer(s), sizeof(s))
@inline _bytearray(v::Vector{UInt8}) = TVMFFIByteArray(pointer(v), length(v))

# A copy of the bytes a ByteArray views.
_string(ba::TVMFFIByteArray) = ba.size == 0 ? "" : unsafe_string(ba.data, ba.size)
