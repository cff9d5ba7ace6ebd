// Tensors without copies: TypedArrays in (the tensor keeps the array alive), TypedArrays out
// (an external ArrayBuffer that keeps the tensor alive).
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing, settle, withoutLeaks } from './helpers.mjs';

test('a TypedArray argument is a zero-copy tensor', () => {
  const data = new Float32Array([1, 2, 3, 4]);
  demo.addOneInplace(data);
  assert.deepEqual([...data], [2, 3, 4, 5], 'native code wrote into the JavaScript array');
  assert.equal(demo.tensorSum(data), 14);
  // a view into a larger buffer
  const big = new Float32Array(8).fill(1);
  demo.addOneInplace(big.subarray(2, 4));
  assert.deepEqual([...big], [1, 1, 2, 2, 1, 1, 1, 1]);
});

test('ffi.tensor: shapes, strides and dtypes', () => {
  const data = new Float32Array([0, 1, 2, 3, 4, 5]);
  const t = ffi.tensor(data, { shape: [2, 3] });
  assert.ok(t instanceof ffi.Tensor);
  assert.deepEqual(t.shape, [2, 3]);
  assert.deepEqual(t.strides, [3, 1]);
  assert.equal(t.ndim, 2);
  assert.equal(t.numel, 6);
  assert.equal(String(t.dtype), 'float32');
  assert.equal(String(t.device), 'cpu:0');
  assert.ok(t.isContiguous);
  const info = demo.tensorInfo(t);
  assert.deepEqual(info.get('shape').toArray(), [2, 3]);
  assert.equal(info.get('contiguous'), true);
  // a strided (transposed) view
  const tt = ffi.tensor(data, { shape: [3, 2], strides: [1, 3] });
  assert.equal(tt.isContiguous, false);
  assert.equal(demo.tensorInfo(tt).get('contiguous'), false);
  assert.equal(demo.tensorSum(tt), 15);
  assert.throws(() => tt.data, /not contiguous/);
  demo.addOneInplace(tt);
  assert.deepEqual([...data], [1, 2, 3, 4, 5, 6]);
  for (const [Ctor, name] of [
    [Int8Array, 'int8'],
    [Uint8Array, 'uint8'],
    [Int16Array, 'int16'],
    [Uint16Array, 'uint16'],
    [Int32Array, 'int32'],
    [Uint32Array, 'uint32'],
    [Float64Array, 'float64'],
    [BigInt64Array, 'int64'],
    [BigUint64Array, 'uint64'],
  ]) {
    const x = ffi.tensor(new Ctor(3));
    assert.equal(String(x.dtype), name);
    assert.ok(x.data instanceof Ctor);
  }
  assert.throws(() => ffi.tensor(new Float32Array(4), { shape: [3, 2] }), /needs 6 elements/);
  assert.throws(() => ffi.tensor([1, 2]), TypeError);
  assert.throws(() => demo.tensorSum(new Float64Array(2)), ffi.TypeError);
});

test('tensors from native code are viewed without a copy', () => {
  const t = demo.arange(5);
  assert.ok(t instanceof ffi.Tensor);
  const view = t.data;
  assert.ok(view instanceof Float32Array);
  assert.deepEqual([...view], [0, 1, 2, 3, 4]);
  assert.equal(t.data, view, 'one view per wrapper');
  assert.equal(t.dataIsCopy, false);
  view[0] = 100;
  assert.equal(demo.tensorSum(t), 110, 'the view writes the tensor itself');
  const scaled = demo.scaledCopy(t, 0.5);
  assert.deepEqual([...scaled.data], [50, 0.5, 1, 1.5, 2]);
  assert.deepEqual(demo.arange(0).data.length, 0);
});

test('a tensor returned as itself keeps its identity', () => {
  const t = ffi.tensor(new Float32Array([1, 2]));
  const back = testing.schemaIdTensor(t);
  assert.ok(back.same(t));
  // C++ refuses to return a borrowed DLTensor* in an Any
  assert.throws(() => testing.schemaIdDltensor(t), ffi.RuntimeError);
  assert.equal(testing.optionalTensorViewHasValue(t), true);
  assert.equal(testing.optionalTensorViewHasValue(null), false);
  testing.schemaTensorViewInput(new Float32Array(3));
});

test('the array outlives its tensor view, and the tensor outlives the array it backs', async () => {
  await withoutLeaks(assert, async () => {
    let view = demo.arange(1000).data; // the tensor wrapper is garbage now
    await settle();
    assert.equal(view[999], 999, 'the view keeps the native tensor alive');
    view = null;

    const array = new Float32Array([1, 2, 3]);
    const kept = testing.makeArrayWithTensor(array); // native code keeps the tensor
    await settle();
    assert.equal(kept[0].data[2], 3);
    assert.ok(testing.makeMapWithTensor(array).get('tensor') instanceof ffi.Tensor || true);
  });
});

test('tensors in containers', () => {
  const t = ffi.tensor(new Float32Array([7]));
  const arr = testing.makeArrayWithTensor(t);
  assert.ok(arr[0].same(t));
  const nested = testing.makeNestedArrayWithTensor(t);
  assert.ok(nested instanceof ffi.Array);
  const dict = testing.makeDictWithTensor(t);
  assert.ok(dict instanceof ffi.Dict);
  const mixed = testing.makeArrayWithMixed(t, 5);
  assert.ok(mixed.toArray().some((x) => x instanceof ffi.Tensor));
  assert.deepEqual(testing.makeEmptyArrayWithTensorInput(t).toArray(), []);
  const map2 = testing.makeNestedMapWithTensor(t, new Float32Array(1));
  assert.ok(map2 instanceof ffi.Map);
});

test('float16 tensors come out as raw 16-bit patterns', () => {
  const raw = new Uint16Array([0x3c00, 0x4000]);
  const t = ffi.tensor(raw);
  assert.equal(String(t.dtype), 'uint16');
});

test('where external buffers are not allowed, tensor data is a copy', () => {
  ffi._native.setExternalBuffers(false);
  try {
    const t = demo.arange(4);
    assert.equal(t.dataIsCopy, true);
    assert.deepEqual([...t.data], [0, 1, 2, 3]);
    t.data[0] = 99;
    assert.equal(demo.tensorSum(t), 6, 'the copy is not the tensor');
  } finally {
    ffi._native.setExternalBuffers(true);
  }
  assert.equal(demo.arange(1).dataIsCopy, false);
});

// A tensor over JavaScript memory never reads freed memory: its ArrayBuffer cannot be transferred
// away (Node 20 copies it instead, later versions throw DataCloneError), and a buffer detached by
// other means (WebAssembly.Memory.grow) makes reading or passing the tensor a TypeError.
const N = 1 << 22;

/** Transfers `buffer` (or tries to: a DataCloneError leaves it in place), then churns memory. */
async function transferAndChurn(buffer) {
  let clone = null;
  try {
    clone = structuredClone(buffer, { transfer: [buffer] });
  } catch (e) {
    assert.equal(e.name, 'DataCloneError');
  }
  clone = null;
  void clone;
  await settle();
  const junk = [];
  for (let i = 0; i < 8; i++) junk.push(new Float32Array(N).fill(3));
  return junk;
}

test('a tensor over a transferred buffer still reads its own memory', async () => {
  const f32 = new Float32Array(N).fill(1);
  const t = ffi.tensor(f32);
  const junk = await transferAndChurn(f32.buffer);
  assert.equal(f32.length, N, 'the buffer stayed attached');
  assert.equal(demo.tensorSum(t), N);
  assert.equal(t.data[0], 1);
  assert.equal(t.data.length, N);
  t.data[1] = 5; // t.data views the array's own buffer
  assert.equal(f32[1], 5);
  assert.equal(junk.length, 8);
});

test('a TypedArray passed as an argument is kept attached while native code keeps its tensor', async () => {
  // Native code keeps a tensor over `kept` (in the array it returns): its buffer stays.
  const kept = new Float32Array(N).fill(2);
  const arr = testing.makeArrayWithTensor(kept);
  await transferAndChurn(kept.buffer);
  assert.equal(kept.length, N, 'the buffer stayed attached');
  assert.equal(demo.tensorSum(arr[0]), 2 * N);
  assert.equal(demo.tensorSum(kept), 2 * N);
  // A tensor made for one call only dies with it: the buffer can be transferred afterwards.
  const once = new Float32Array(16).fill(1);
  assert.equal(demo.tensorSum(once), 16);
  const moved = structuredClone(once.buffer, { transfer: [once.buffer] });
  assert.equal(once.length, 0, 'nothing kept it: the transfer took it');
  assert.equal(new Float32Array(moved)[0], 1);
  assert.throws(() => demo.tensorSum(once), { name: 'TypeError', message: /was detached/ });
});

test('a callback during the call cannot take the buffer from under a TypedArray argument', () => {
  const f32 = new Float32Array(16).fill(1);
  // testing.apply(f, a) makes a tensor of `a` for the call and calls f with it: f's JavaScript
  // tries to transfer the buffer meanwhile.
  const seen = testing.apply((t) => {
    try {
      structuredClone(f32.buffer, { transfer: [f32.buffer] });
    } catch (e) {
      assert.equal(e.name, 'DataCloneError');
    }
    return [f32.length, demo.tensorSum(t)];
  }, f32);
  assert.deepEqual([...seen], [16, 16], 'the buffer stayed attached during the call');
  assert.equal(demo.tensorSum(f32), 16);
});

test('callAsync holds the memory it reads while the main thread transfers it', async () => {
  for (let round = 0; round < 3; round++) {
    const f32 = new Float32Array(8 * N).fill(1);
    const t = ffi.tensor(f32);
    const pending = ffi.callAsync(demo.tensorSum, t);
    const junk = await transferAndChurn(f32.buffer);
    assert.equal(await pending, 8 * N);
    assert.equal(junk.length, 8);
  }
});

test('a tensor whose buffer was detached anyway is a clear error, never garbage', async () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const f32 = new Float32Array(memory.buffer, 0, 16).fill(1);
  const t = ffi.tensor(f32);
  assert.equal(demo.tensorSum(t), 16);
  memory.grow(1); // detaches memory.buffer
  assert.throws(() => demo.tensorSum(t), { name: 'TypeError', message: /was detached/ });
  assert.throws(() => t.data, { name: 'TypeError', message: /was detached/ });
  await assert.rejects(ffi.callAsync(demo.tensorSum, t), /was detached/);
  assert.throws(() => demo.tensorSum(f32), { name: 'TypeError', message: /was detached/ });
  assert.deepEqual(t.shape, [16], 'metadata stays readable');
});
