'use strict';
// Tensors: zero-copy both ways.
//
// In: `ffi.tensor(typedArray, { shape, strides })` (and any TypedArray other than Uint8Array
// passed as an argument) makes an `ffi.Tensor` over the array's memory; the tensor keeps the
// array alive, and its ArrayBuffer is marked untransferable (`keepAttached`), so that no
// transfer takes the memory from under the tensor. Out: `t.data` is a TypedArray over the
// tensor's memory: for a tensor over JavaScript memory, a view of that same ArrayBuffer;
// otherwise an external ArrayBuffer that keeps the tensor alive, or a copy where external
// buffers are not allowed (`t.dataIsCopy`).

const { markAsUntransferable } = require('node:worker_threads');
const native = require('./addon');
const { FFIObject } = require('./object');
const { DataType, Device } = require('./values');

const kInfo = Symbol('ffihub.tensorInfo');
const kData = Symbol('ffihub.tensorData');
const kDataParts = Symbol('ffihub.tensorDataParts');

class FFITensor extends FFIObject {
  /** Shape, strides, dtype, device, byte offset and contiguity, read from the tensor. */
  get [kInfo]() {
    return native.tensorInfo(this);
  }

  /** The extents. */
  get shape() {
    return this[kInfo].shape;
  }

  /** The strides, in elements. */
  get strides() {
    return this[kInfo].strides;
  }

  /** Number of dimensions. */
  get ndim() {
    return this[kInfo].shape.length;
  }

  /** Number of elements. */
  get numel() {
    return this[kInfo].shape.reduce((a, b) => a * b, 1);
  }

  /** The element type. */
  get dtype() {
    const [code, bits, lanes] = this[kInfo].dtype;
    return new DataType(code, bits, lanes);
  }

  /** Where the data lives. */
  get device() {
    const [type, id] = this[kInfo].device;
    return new Device(type, id);
  }

  /** Offset of the first element in the data, in bytes. */
  get byteOffset() {
    return this[kInfo].byteOffset;
  }

  /** Whether the elements are laid out contiguously in row-major order. */
  get isContiguous() {
    return this[kInfo].contiguous;
  }

  /**
   * The elements as a TypedArray over the tensor's memory (host memory, contiguous tensors);
   * writes are visible to native code. Float16/BFloat16 come as Uint16Array bit patterns.
   */
  get data() {
    return this[kDataParts][0];
  }

  /** `[array, copied]` of `data`: cached unless it views JavaScript memory (checked each time). */
  get [kDataParts]() {
    const cached = this[kData];
    if (cached !== undefined) return cached;
    const made = native.tensorData(this);
    if (made[2]) Object.defineProperty(this, kData, { value: made });
    return made;
  }

  /** Whether `data` is a copy (the host does not allow external buffers). */
  get dataIsCopy() {
    return this[kDataParts][1];
  }

  /** Same as `data`. */
  toTypedArray() {
    return this.data;
  }

  toJSON() {
    return { shape: this.shape, dtype: this.dtype.toString(), device: this.device.toString() };
  }
}
Object.defineProperty(FFITensor, 'name', { value: 'Tensor' });

/**
 * `ffi.tensor(array, { shape, strides })`: a tensor over a TypedArray's memory (no copy).
 * Tensors pass through.
 */
function tensor(array, options) {
  if (array instanceof FFITensor) return array;
  if (!ArrayBuffer.isView(array) || array instanceof DataView) {
    throw new TypeError('ffi.tensor needs a TypedArray (or an ffi.Tensor)');
  }
  return native.tensorFromArray(array, (options && options.shape) || null, (options && options.strides) || null);
}

/** Marks the ArrayBuffer under a new tensor untransferable (called by the addon). */
function keepAttached(buffer) {
  markAsUntransferable(buffer);
}

// The prototypes of the TypedArrays that `toTensor` passes as they are: every kind but
// Uint8Array (subclasses take the `instanceof` tests).
const CALL_TENSOR_PROTOTYPES = new Set(
  [Int8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array,
    Float64Array, BigInt64Array, BigUint64Array].map((TypedArray) => TypedArray.prototype),
);

/**
 * Coercion used by generated code for Tensor parameters (null and undefined pass through).
 * TypedArrays pass as they are: the addon makes their tensors itself, without a wrapper, for
 * the call (bindings/node/src/tensor.rs, `CallTensors`); Uint8Arrays, which it takes for bytes,
 * become tensors here.
 */
function toTensor(x) {
  // The common cases first, without `instanceof` (several times the cost of these tests):
  // a TypedArray of elements wider than a byte (a DataView has no BYTES_PER_ELEMENT; the
  // property is read from the prototype, where Object.getPrototypeOf is a call into the
  // engine), then the byte-wide ones other than Uint8Array (bytes).
  if (ArrayBuffer.isView(x) &&
      (x.BYTES_PER_ELEMENT > 1 || CALL_TENSOR_PROTOTYPES.has(Object.getPrototypeOf(x)))) {
    return x;
  }
  if (x === null || x === undefined || x instanceof FFITensor) return x;
  if (ArrayBuffer.isView(x) && !(x instanceof Uint8Array) && !(x instanceof DataView)) return x;
  return tensor(x);
}

module.exports = { Tensor: FFITensor, tensor, toTensor, keepAttached };
