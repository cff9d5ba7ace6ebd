'use strict';
// @ffihub/tvm-ffi: TVM-FFI for Node.js, on a native addon (bindings/node/src) that links
// libtvm_ffi.so (ffihub's runtime or Apache's: lib/addon.js, docs/install.md).
//
// Conversions (see index.d.ts and docs/node.md): null/undefined <-> None, booleans, numbers
// (safe integers cross as Int, others as Float; int64 results come back as numbers when safe
// and as bigints otherwise), bigint -> Int/BigInt, strings, Uint8Array/Buffer <-> Bytes, other
// TypedArrays -> Tensor (zero-copy), arrays -> ffi.Array, Map/plain objects -> ffi.Map,
// functions both ways, DataType, Device, objects of registered classes.

const native = require('./lib/addon');
const errors = require('./lib/errors');
const values = require('./lib/values');
const object = require('./lib/object');
const containers = require('./lib/containers');
const tensors = require('./lib/tensor');
const modules = require('./lib/module');
const metadata = require('./lib/metadata');
const define = require('./lib/define');
const wrappers = require('./lib/wrappers');

native.init({
  makeError: errors.makeError,
  errorParts: errors.errorParts,
  functionPrototype: object.FunctionPrototype,
  setPrototypeOf: Object.setPrototypeOf,
  DataType: values.DataType,
  Device: values.Device,
  OpaquePtr: values.OpaquePtr,
  Map,
  flattenMap: containers.flattenMap,
  packNumbers: containers.packNumbers,
  objectPrototype: Object.prototype,
  Object: object.FFIObject,
  cellOf: object.cellOf,
  keepAttached: tensors.keepAttached,
  isArray: Array.isArray,
});

// Builtin classes, by the fixed type indices of the ABI.
object.registerBuiltin(64, object.FFIObject);
object.registerBuiltin(69, containers.Shape);
object.registerBuiltin(70, tensors.Tensor);
object.registerBuiltin(71, containers.FFIArray);
object.registerBuiltin(72, containers.FFIMap);
object.registerBuiltin(73, modules.Module);
object.registerBuiltin(75, containers.List);
object.registerBuiltin(76, containers.Dict);

/** The live-object count of ffihub's runtime (`ffihub.LiveObjectCount`), or null on other runtimes. */
function liveObjectCount() {
  const f = object.getGlobal('ffihub.LiveObjectCount');
  if (f === null) return null;
  try {
    return f();
  } finally {
    f.dispose();
  }
}

/** The strong reference count of the object behind a wrapper (for tests). */
function refCount(value) {
  return native.refCount(value);
}

/** Whether two wrappers (objects, functions or errors) hold the same object. */
function same(a, b) {
  return native.same(a, b);
}

/** Releases any wrapper (object or function) now. */
function dispose(value) {
  object.disposeValue(value);
}

module.exports = {
  // objects and classes
  Object: object.FFIObject,
  Function: object.FFIFunction,
  registerType: object.registerType,
  defineClass: define.defineClass,
  types: define.types,
  construct: object.construct,
  constructArranged: object.constructArranged,
  constructByMember: object.constructByMember,
  fieldGetters: object.fieldGetters,
  getField: object.getField,
  setField: object.setField,
  setOwnFields: object.setOwnFields,
  dispose,
  same,
  refCount,
  // functions
  getGlobal: object.getGlobal,
  requireGlobal: object.requireGlobal,
  registerGlobal: object.registerGlobal,
  listGlobals: object.listGlobals,
  toFunction: object.FFIFunction,
  callAsync: object.callAsync,
  // containers
  Sequence: containers.Sequence,
  Array: containers.FFIArray,
  List: containers.List,
  MapBase: containers.MapBase,
  Map: containers.FFIMap,
  Dict: containers.Dict,
  Shape: containers.Shape,
  array: containers.array,
  list: containers.list,
  map: containers.map,
  dict: containers.dict,
  shape: containers.shape,
  toShape: containers.toShape,
  toList: containers.toList,
  toDict: containers.toDict,
  // tensors
  Tensor: tensors.Tensor,
  tensor: tensors.tensor,
  toTensor: tensors.toTensor,
  // values
  DataType: values.DataType,
  Device: values.Device,
  OpaquePtr: values.OpaquePtr,
  dtype: (x) => values.toDataType(x),
  device: (type, id) => (id === undefined ? values.toDevice(type) : new values.Device(type, id)),
  toDataType: values.toDataType,
  toDevice: values.toDevice,
  // modules and libraries
  Module: modules.Module,
  loadModule: modules.loadModule,
  systemLib: modules.systemLib,
  loadLibrary: metadata.loadLibrary,
  loadLibraries: metadata.loadLibraries,
  loadModules: require('./lib/exports').loadModules,
  // errors
  FFIError: errors.FFIError,
  registerError: errors.registerError,
  options: wrappers.options,
  generatedFunction: object.generatedFunction,
  argumentCount: wrappers.argumentCount,
  callError: wrappers.callError,
  fieldError: wrappers.fieldError,
  intResult: wrappers.intResult,
  bigintResult: wrappers.bigintResult,
  ValueError: errors.ValueError,
  TypeError: errors.TypeError,
  IndexError: errors.IndexError,
  KeyError: errors.KeyError,
  AttributeError: errors.AttributeError,
  RuntimeError: errors.RuntimeError,
  NotImplementedError: errors.NotImplementedError,
  InternalError: errors.InternalError,
  AssertionError: errors.AssertionError,
  MemoryError: errors.MemoryError,
  // runtime
  runtimeVersion: native.runtimeVersion,
  liveObjectCount,
  /** Internals for tests and benchmarks. */
  _native: native,
  _metadata: metadata,
};
