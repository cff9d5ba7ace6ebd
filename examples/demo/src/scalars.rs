//! Scalars, strings, bytes, data types, devices and optionals.

use ffihub::{Any, Bytes, DataType, Device, Error, Result, String};

/// Returns `x + 1`.
#[ffihub::function(name = "demo.add_one")]
pub fn add_one(x: i64) -> i64 {
    x.wrapping_add(1)
}

/// Returns its integer argument unchanged.
#[ffihub::function(name = "demo.echo_int")]
pub fn echo_int(x: i64) -> i64 {
    x
}

/// Returns its float argument unchanged (integers are accepted and widened).
#[ffihub::function(name = "demo.echo_float")]
pub fn echo_float(x: f64) -> f64 {
    x
}

/// Returns its boolean argument unchanged.
#[ffihub::function(name = "demo.echo_bool")]
pub fn echo_bool(x: bool) -> bool {
    x
}

/// Returns its string argument unchanged (small strings of up to 7 bytes and heap strings alike).
#[ffihub::function(name = "demo.echo_string")]
pub fn echo_string(s: String) -> String {
    s
}

/// Returns its bytes argument unchanged.
#[ffihub::function(name = "demo.echo_bytes")]
pub fn echo_bytes(b: Bytes) -> Bytes {
    b
}

/// Returns its data type unchanged (a string such as `"float32"` is parsed).
#[ffihub::function(name = "demo.echo_dtype")]
pub fn echo_dtype(dtype: DataType) -> DataType {
    dtype
}

/// Returns its device unchanged.
#[ffihub::function(name = "demo.echo_device")]
pub fn echo_device(device: Device) -> Device {
    device
}

/// Returns any value unchanged (same object for objects).
#[ffihub::function(name = "demo.echo_any")]
pub fn echo_any(value: Any) -> Any {
    value
}

/// Returns an optional integer unchanged (`None` stays `None`).
#[ffihub::function(name = "demo.echo_optional_int")]
pub fn echo_optional_int(x: Option<i64>) -> Option<i64> {
    x
}

/// Concatenates two strings.
#[ffihub::function(name = "demo.concat")]
pub fn concat(a: String, b: String) -> Result<String> {
    let mut bytes = a.as_bytes().to_vec();
    bytes.extend_from_slice(b.as_bytes());
    String::new(bytes)
}

/// Repeats `text` `times` times (makes long strings); `times` must not be negative. A result too
/// large for memory is a `MemoryError`, not an abort: the buffer is reserved fallibly.
#[ffihub::function(name = "demo.repeat")]
pub fn repeat(text: String, times: i64) -> Result<String> {
    let times = usize::try_from(times)
        .map_err(|_| Error::value_error(format!("times must be >= 0, got {times}")))?;
    let mut bytes = ffihub::alloc::try_vec(ffihub::alloc::checked_len(text.len(), times)?)?;
    for _ in 0..times {
        bytes.extend_from_slice(text.as_bytes());
    }
    String::new(bytes)
}

/// The length of a string in bytes (UTF-8).
#[ffihub::function(name = "demo.string_length")]
pub fn string_length(text: String) -> i64 {
    text.len() as i64
}

/// Returns the bytes in reverse order.
#[ffihub::function(name = "demo.reverse_bytes")]
pub fn reverse_bytes(data: Bytes) -> Result<Bytes> {
    let mut reversed = data.as_slice().to_vec();
    reversed.reverse();
    Bytes::new(reversed)
}

/// The number of bits of one lane of a data type (`float32` -> 32).
#[ffihub::function(name = "demo.dtype_bits")]
pub fn dtype_bits(dtype: DataType) -> i64 {
    i64::from(dtype.bits())
}

/// A device from a type name (`cpu`, `cuda`, `cuda_host`, `opencl`, `vulkan`, `metal`, `rocm`)
/// and an ordinal; `ValueError` for other names.
#[ffihub::function(name = "demo.make_device")]
pub fn make_device(kind: String, id: i64) -> Result<Device> {
    let device_type = match kind.to_str()? {
        "cpu" => 1,
        "cuda" => 2,
        "cuda_host" => 3,
        "opencl" => 4,
        "vulkan" => 7,
        "metal" => 8,
        "rocm" => 10,
        other => return Err(Error::value_error(format!("unknown device type `{other}`"))),
    };
    let id = i32::try_from(id).map_err(|_| Error::value_error("device id out of range"))?;
    Ok(Device::new(device_type, id))
}

/// The name of a device: `"<type>:<id>"`, such as `"cuda:1"`.
#[ffihub::function(name = "demo.device_name")]
pub fn device_name(device: Device) -> std::string::String {
    device.to_string()
}

/// `"Hello, <name>!"`, or `"Hello, world!"` when the name is `None`.
#[ffihub::function(name = "demo.greet")]
pub fn greet(name: Option<String>) -> std::string::String {
    match name {
        Some(name) => format!("Hello, {name}!"),
        None => "Hello, world!".to_owned(),
    }
}

/// `a / b`, or `None` when `b` is zero.
#[ffihub::function(name = "demo.safe_divide")]
pub fn safe_divide(a: f64, b: f64) -> Option<f64> {
    (b != 0.0).then(|| a / b)
}

/// Whether the value is `None`.
#[ffihub::function(name = "demo.is_none")]
pub fn is_none(value: Any) -> bool {
    value.is_none()
}
