// ES module entry of @ffihub/tvm-ffi: the CommonJS module's exports, by name.
import ffi from './index.js';

export default ffi;
export const {
  Object, Function, registerType, defineClass, types, construct, constructArranged, constructByMember, fieldGetters, getField, setField, setOwnFields, dispose, same,
  refCount, getGlobal, requireGlobal, registerGlobal, listGlobals, toFunction, callAsync, Sequence, Array,
  List, MapBase, Map, Dict, Shape, array, list, map, dict, shape, toShape, toList, toDict,
  Tensor, tensor, toTensor, DataType, Device, OpaquePtr, dtype, device, toDataType, toDevice,
  Module, loadModule, systemLib, loadLibrary, loadLibraries, loadModules, FFIError, registerError,
  options, generatedFunction, argumentCount, callError, fieldError, intResult, bigintResult,
  ValueError, TypeError, IndexError, KeyError, AttributeError, RuntimeError,
  NotImplementedError, InternalError, AssertionError, MemoryError, runtimeVersion, liveObjectCount, _native,
  _metadata,
} = ffi;
