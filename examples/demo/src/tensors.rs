//! Tensor kernels on float32 CPU tensors of any shape and strides (DLPack in and out).

use ffihub::{Any, Array, DataType, Error, Map, Result, String, Tensor};

fn check_f32(tensor: &Tensor) -> Result<()> {
    if tensor.dtype() != DataType::F32 {
        return Err(Error::type_error(format!(
            "expected a float32 tensor, got {}",
            tensor.dtype()
        )));
    }
    Ok(())
}

/// Adds 1 to every element of a float32 CPU tensor, in place (any shape and strides).
#[ffihub::function(name = "demo.add_one_inplace")]
pub fn add_one_inplace(tensor: Tensor) -> Result<()> {
    check_f32(&tensor)?;
    // SAFETY: an in-place kernel's contract: the caller lends us the tensor's data for the
    // duration of the call and passes no tensor whose elements alias (zero strides).
    unsafe { tensor.for_each_mut::<f32>(|x| *x += 1.0) }
}

/// A new contiguous float32 tensor of the same shape holding `factor * x` for each element
/// (the input may have any strides).
#[ffihub::function(name = "demo.scaled_copy")]
pub fn scaled_copy(tensor: Tensor, factor: f64) -> Result<Tensor> {
    check_f32(&tensor)?;
    let data: Vec<f32> = tensor
        .to_vec::<f32>()?
        .into_iter()
        .map(|x| (f64::from(x) * factor) as f32)
        .collect();
    Tensor::from_vec(data, tensor.shape())
}

/// A new 1-D float32 tensor `[0, 1, ..., n - 1]`.
#[ffihub::function(name = "demo.arange")]
pub fn arange(n: i64) -> Result<Tensor> {
    if n < 0 {
        return Err(Error::value_error(format!("n must be >= 0, got {n}")));
    }
    Tensor::from_vec((0..n).map(|i| i as f32).collect(), &[n])
}

/// The sum of the elements of a float32 CPU tensor (any strides), as a float.
#[ffihub::function(name = "demo.tensor_sum")]
pub fn tensor_sum(tensor: Tensor) -> Result<f64> {
    check_f32(&tensor)?;
    Ok(tensor.to_vec::<f32>()?.into_iter().map(f64::from).sum())
}

/// A description of a tensor: `{"shape": Shape, "strides": [int], "dtype": DataType,
/// "device": Device, "contiguous": bool}`.
#[ffihub::function(name = "demo.tensor_info")]
pub fn tensor_info(tensor: Tensor) -> Result<Map<String, Any>> {
    Map::new([
        (
            String::from("shape"),
            Any::from_value(ffihub::Shape::new(tensor.shape())?)?,
        ),
        (
            String::from("strides"),
            Any::from_value(Array::new(tensor.strides())?)?,
        ),
        (String::from("dtype"), Any::from_value(tensor.dtype())?),
        (String::from("device"), Any::from_value(tensor.device())?),
        (
            String::from("contiguous"),
            Any::from_value(tensor.is_contiguous())?,
        ),
    ])
}
