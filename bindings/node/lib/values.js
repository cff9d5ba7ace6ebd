'use strict';
// Value types: DataType, Device and OpaquePtr (immutable, compared by value).

const native = require('./addon');

const dtypeNames = new Map();

/** The first custom data type code (DLPack leaves 129-255 to frameworks). */
const CUSTOM_CODE_BEGIN = 129;

/** Throws a RangeError unless `value` is an integer in [0, max]. */
function checkField(name, value, max) {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`DataType ${name} must be an integer from 0 to ${max}, got ${String(value)}`);
  }
}

class DataType {
  /**
   * `new DataType('float32')` or `new DataType(code, bits, lanes = 1)`.
   * @param {string | number} codeOrName
   * @param {number} [bits]
   * @param {number} [lanes]
   */
  constructor(codeOrName, bits, lanes = 1) {
    if (typeof codeOrName === 'string') {
      [codeOrName, bits, lanes] = native.dtypeParse(codeOrName);
    }
    // DLDataType's fields are uint8, uint8 and uint16: other values would be cut to fit.
    checkField('code', codeOrName, 255);
    checkField('bits', bits, 255);
    checkField('lanes', lanes, 65535);
    this.code = codeOrName;
    this.bits = bits;
    this.lanes = lanes;
    Object.freeze(this);
  }

  /** The TVM-FFI name (`float32`, `int64x4`, `bool`...). */
  toString() {
    const key = (this.code << 24) | (this.bits << 16) | this.lanes;
    let name = dtypeNames.get(key);
    if (name === undefined) {
      if (this.code >= CUSTOM_CODE_BEGIN && native.getGlobal('dtype.get_custom_type_name') === null) {
        throw new RangeError(
          `DataType code ${this.code} is a custom type code (${CUSTOM_CODE_BEGIN} and up), and no ` +
            'loaded library names custom types (dtype.get_custom_type_name is not registered)',
        );
      }
      name = native.dtypeString(this.code, this.bits, this.lanes);
      dtypeNames.set(key, name);
    }
    return name;
  }

  /** Same code, bits and lanes (a string is parsed first). */
  equals(other) {
    const o = toDataType(other);
    return o != null && o.code === this.code && o.bits === this.bits && o.lanes === this.lanes;
  }

  toJSON() {
    return this.toString();
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `DataType(${this.toString()})`;
  }
}

const deviceNames = {
  1: 'cpu',
  2: 'cuda',
  3: 'cuda_host',
  4: 'opencl',
  7: 'vulkan',
  8: 'metal',
  9: 'vpi',
  10: 'rocm',
  11: 'rocm_host',
  12: 'ext_dev',
  13: 'cuda_managed',
  14: 'oneapi',
  15: 'webgpu',
  16: 'hexagon',
  17: 'maia',
  18: 'trn',
};
const deviceCodes = Object.fromEntries(Object.entries(deviceNames).map(([k, v]) => [v, Number(k)]));
deviceCodes.gpu = 2;

class Device {
  /**
   * `new Device('cuda:1')`, `new Device('cuda', 1)` or `new Device(2, 1)`.
   * @param {string | number} type
   * @param {number} [id]
   */
  constructor(type, id) {
    if (typeof type === 'string') {
      const m = /^([a-z_]+)(?::(\d+))?$/.exec(type.trim());
      const code = m ? deviceCodes[m[1]] : undefined;
      if (code === undefined) throw new TypeError(`unknown device ${JSON.stringify(type)}`);
      if (id === undefined && m[2] !== undefined) id = Number(m[2]);
      type = code;
    }
    this.deviceType = type;
    this.deviceId = id === undefined ? 0 : id;
    Object.freeze(this);
  }

  /** The device kind's name (`cpu`, `cuda`...). */
  get type() {
    return deviceNames[this.deviceType] || `device${this.deviceType}`;
  }

  toString() {
    return `${this.type}:${this.deviceId}`;
  }

  equals(other) {
    const o = toDevice(other);
    return o != null && o.deviceType === this.deviceType && o.deviceId === this.deviceId;
  }

  toJSON() {
    return this.toString();
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `Device(${this.toString()})`;
  }
}

class OpaquePtr {
  /** @param {bigint} address */
  constructor(address) {
    this.address = BigInt.asUintN(64, BigInt(address));
    Object.freeze(this);
  }

  toString() {
    return `0x${this.address.toString(16)}`;
  }
}

/** `DataType` from a DataType or a string; null and undefined pass through. */
function toDataType(x) {
  if (x === null || x === undefined || x instanceof DataType) return x;
  if (typeof x === 'string') return new DataType(x);
  throw new TypeError('expected a DataType or a dtype string such as "float32"');
}

/** `Device` from a Device or a string such as "cuda:0"; null and undefined pass through. */
function toDevice(x) {
  if (x === null || x === undefined || x instanceof Device) return x;
  if (typeof x === 'string') return new Device(x);
  throw new TypeError('expected a Device or a device string such as "cpu" or "cuda:0"');
}

module.exports = { DataType, Device, OpaquePtr, toDataType, toDevice };
