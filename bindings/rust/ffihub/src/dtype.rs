//! `DataType` (DLPack's `DLDataType`) and `Device` (`DLDevice`).

use crate::any::{Any, AnyView};
use crate::convert::{mismatch, FfiType, FromAny, IntoAny};
use crate::error::{check, Result};
use crate::schema::Schema;
use crate::sys;
use ffihub_abi::dlpack::{DLDataType, DLDataTypeCode, DLDevice, DLDeviceType};
use ffihub_abi::tindex;
use std::fmt;

/// An element type: DLPack type code, bits per lane, lanes (`float32`, `int8x4`, `bool`...).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataType(pub DLDataType);

impl DataType {
    /// `code` / `bits` / `lanes` as DLPack encodes them.
    pub const fn new(code: DLDataTypeCode, bits: u8, lanes: u16) -> DataType {
        DataType(DLDataType {
            code: code as u8,
            bits,
            lanes,
        })
    }

    /// `float32`.
    pub const F32: DataType = DataType::new(DLDataTypeCode::kDLFloat, 32, 1);
    /// `float64`.
    pub const F64: DataType = DataType::new(DLDataTypeCode::kDLFloat, 64, 1);
    /// `int32`.
    pub const I32: DataType = DataType::new(DLDataTypeCode::kDLInt, 32, 1);
    /// `int64`.
    pub const I64: DataType = DataType::new(DLDataTypeCode::kDLInt, 64, 1);

    /// Parses a TVM-FFI dtype string (`"float32"`, `"int8x4"`, `"bool"`...) with the runtime.
    pub fn parse(text: &str) -> Result<DataType> {
        let input = sys::byte_array(text.as_bytes());
        let mut out = DLDataType::default();
        // SAFETY: `input` points at `text`; `out` is valid for a write.
        check(unsafe { sys::TVMFFIDataTypeFromString(&input, &mut out) })?;
        Ok(DataType(out))
    }

    /// The runtime's name for the type (`"float32"`).
    pub fn name(&self) -> Result<crate::String> {
        let mut out = crate::any::RAW_NONE;
        // SAFETY: `self.0` is a valid dtype; `out` holds no owned value.
        check(unsafe { sys::TVMFFIDataTypeToString(&self.0, &mut out) })?;
        // SAFETY: the runtime wrote an owned string.
        crate::String::from_any(unsafe { Any::from_raw(out) })
    }

    /// Bits per lane.
    pub fn bits(&self) -> u8 {
        self.0.bits
    }

    /// Number of lanes.
    pub fn lanes(&self) -> u16 {
        self.0.lanes
    }

    /// The DLPack type code.
    pub fn code(&self) -> u8 {
        self.0.code
    }

    /// Bytes per element (all lanes), rounded up.
    pub fn size_in_bytes(&self) -> usize {
        (self.0.bits as usize * self.0.lanes as usize).div_ceil(8)
    }
}

impl fmt::Debug for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Ok(name) => write!(f, "DataType({name})"),
            Err(_) => write!(f, "DataType({:?})", self.0),
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Ok(name) => write!(f, "{name}"),
            Err(_) => write!(f, "{:?}", self.0),
        }
    }
}

impl FfiType for DataType {
    fn schema() -> Schema {
        Schema::named("DataType")
    }
    const STATIC_TYPE_INDEX: i32 = tindex::DATA_TYPE;
}

impl IntoAny for DataType {
    fn into_any(self) -> Result<Any> {
        Ok(Any::dtype(self.0))
    }
}

impl FromAny for DataType {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        if view.type_index() == tindex::DATA_TYPE {
            // SAFETY: the tag says the payload is a dtype.
            return Ok(DataType(unsafe { view.as_raw().value.v_dtype }));
        }
        match crate::String::from_view(view) {
            Ok(text) => DataType::parse(&text.to_string_lossy()),
            Err(_) => Err(mismatch::<DataType>(view)),
        }
    }
}

/// A device: DLPack device type and ordinal (`cpu:0`, `cuda:1`...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Device(pub DLDevice);

impl Device {
    /// A device of `device_type` (a `DLDeviceType` code) and ordinal `device_id`.
    pub const fn new(device_type: i32, device_id: i32) -> Device {
        Device(DLDevice {
            device_type,
            device_id,
        })
    }

    /// `cpu:<id>`.
    pub const fn cpu(device_id: i32) -> Device {
        Device::new(DLDeviceType::kDLCPU as i32, device_id)
    }

    /// `cuda:<id>`.
    pub const fn cuda(device_id: i32) -> Device {
        Device::new(DLDeviceType::kDLCUDA as i32, device_id)
    }

    /// The DLPack device type code.
    pub fn device_type(&self) -> i32 {
        self.0.device_type
    }

    /// The ordinal.
    pub fn device_id(&self) -> i32 {
        self.0.device_id
    }

    /// The conventional short name of the device type (`cpu`, `cuda`, ... or the number).
    pub fn type_name(&self) -> std::string::String {
        let name = match self.0.device_type {
            1 => "cpu",
            2 => "cuda",
            3 => "cuda_host",
            4 => "opencl",
            7 => "vulkan",
            8 => "metal",
            10 => "rocm",
            12 => "ext_dev",
            14 => "oneapi",
            15 => "webgpu",
            other => return other.to_string(),
        };
        name.to_owned()
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.type_name(), self.0.device_id)
    }
}

impl FfiType for Device {
    fn schema() -> Schema {
        Schema::named("Device")
    }
    const STATIC_TYPE_INDEX: i32 = tindex::DEVICE;
}

impl IntoAny for Device {
    fn into_any(self) -> Result<Any> {
        Ok(Any::device(self.0))
    }
}

impl FromAny for Device {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        if view.type_index() == tindex::DEVICE {
            // SAFETY: the tag says the payload is a device.
            Ok(Device(unsafe { view.as_raw().value.v_device }))
        } else {
            Err(mismatch::<Device>(view))
        }
    }
}
