// DataType and Device: value classes, parsed from strings.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing } from './helpers.mjs';

test('DataType parses and prints TVM-FFI names', () => {
  const f32 = ffi.dtype('float32');
  assert.ok(f32 instanceof ffi.DataType);
  assert.deepEqual([f32.code, f32.bits, f32.lanes], [2, 32, 1]);
  assert.equal(String(f32), 'float32');
  assert.equal(String(new ffi.DataType(0, 64)), 'int64');
  assert.equal(String(new ffi.DataType('int8x4')), 'int8x4');
  assert.equal(String(ffi.dtype('bool')), 'bool');
  assert.ok(f32.equals('float32'));
  assert.ok(!f32.equals('float16'));
  assert.throws(() => ffi.dtype('float33x'), ffi.FFIError);
  assert.ok(Object.isFrozen(f32));
});

test('DataType crosses both ways; strings are parsed by the callee', () => {
  const back = demo.echoDtype(ffi.dtype('float16'));
  assert.ok(back instanceof ffi.DataType);
  assert.equal(String(back), 'float16');
  assert.equal(String(demo.echoDtype('bfloat16')), 'bfloat16');
  assert.equal(demo.dtypeBits('float64'), 64);
  assert.equal(demo.dtypeBits(ffi.dtype('uint8')), 8);
  assert.equal(String(testing.schemaIdDtype('int32')), 'int32');
  assert.equal(String(demo.echoAny(ffi.dtype('float32'))), 'float32');
  assert.equal(demo.argTypes(ffi.dtype('float32')).toArray()[0], 'DataType');
});

test('Device parses names and ordinals', () => {
  const d = ffi.device('cuda:1');
  assert.ok(d instanceof ffi.Device);
  assert.deepEqual([d.deviceType, d.deviceId, d.type], [2, 1, 'cuda']);
  assert.equal(String(ffi.device('cpu')), 'cpu:0');
  assert.equal(String(ffi.device('rocm', 3)), 'rocm:3');
  assert.equal(String(new ffi.Device(2, 0)), 'cuda:0');
  assert.ok(d.equals('cuda:1'));
  assert.throws(() => ffi.device('abacus'), TypeError);
});

test('Device crosses both ways', () => {
  const back = demo.echoDevice(ffi.device('cuda:1'));
  assert.ok(back instanceof ffi.Device);
  assert.equal(String(back), 'cuda:1');
  // typed Device parameters accept strings (the generated wrapper coerces)
  assert.equal(String(demo.echoDevice('metal:2')), 'metal:2');
  assert.equal(demo.deviceName('cuda:3'), 'cuda:3');
  assert.equal(String(demo.makeDevice('vulkan', 2)), 'vulkan:2');
  assert.equal(String(testing.schemaIdDevice('cpu')), 'cpu:0');
  assert.throws(() => demo.makeDevice('abacus', 0), ffi.ValueError);
  assert.equal(demo.argTypes(ffi.device('cpu')).toArray()[0], 'Device');
});
