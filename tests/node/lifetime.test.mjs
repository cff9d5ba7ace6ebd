// Ownership: every wrapper owns one reference, released by its finalizer after garbage
// collection or by dispose(); callbacks hold their JavaScript function until native code drops
// them. Checked with the runtime's live-object count (ffihub's runtime), the demo's count of
// live Rust objects, and reference counts.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ffi, demo, testing, settle, counts, withoutLeaks, runtimeName, packagesDir } from './helpers.mjs';

test('the live-object counter is there on ffihub\'s runtime', () => {
  const n = ffi.liveObjectCount();
  if (runtimeName === 'ffihub') assert.equal(typeof n, 'number');
  else assert.equal(n, runtimeName === 'apache' ? null : n);
  assert.equal(typeof demo.liveObjectCount(), 'number');
});

test('collected wrappers release their objects', async () => {
  await withoutLeaks(assert, async () => {
    for (let i = 0; i < 2000; i++) {
      new demo.Point(i, i).translate(1, 1);
      demo.makeNested(2);
      demo.wordLengths(['a', 'bb']);
      demo.arange(8);
      demo.makeMultiplier(2)(i);
      demo.concat('a long string, not small', String(i));
      ffi.tensor(new Float32Array(4));
    }
  });
});

test('live objects are counted while wrappers are reachable', async () => {
  await settle();
  const before = counts();
  const kept = Array.from({ length: 10 }, (_, i) => new demo.Point(i, 0));
  await settle();
  assert.equal(counts().demo, before.demo + 10);
  kept.length = 0;
  await settle();
  assert.deepEqual(counts(), before);
});

test('dispose releases immediately', async () => {
  await settle();
  const before = counts();
  const p = new demo.Point(1, 2);
  assert.equal(counts().demo, before.demo + 1);
  p.dispose();
  assert.deepEqual(counts(), before);
  const f = demo.makeMultiplier(3);
  f.dispose();
  assert.throws(() => f(1), /disposed/);
  const t = demo.arange(3);
  t.dispose();
  assert.throws(() => t.shape, /disposed|not a TVM-FFI object/);
});

test('reference counts: one wrapper per object, one reference per wrapper', () => {
  const p = new demo.Point(1, 2);
  assert.equal(ffi.refCount(p), 1);
  const arr = demo.reverseArray([p, p]);
  assert.equal(ffi.refCount(p), 3);
  const first = arr[0];
  assert.equal(first, p, 'a result whose object has a wrapper is that wrapper');
  assert.equal(ffi.refCount(p), 3, 'which holds one reference, however often it is handed out');
  // two hand-outs of p: the first dispose() releases one, the wrapper stays usable
  first.dispose();
  assert.equal(p.x, 1);
  arr.dispose();
  assert.equal(ffi.refCount(p), 1);
  p.dispose();
  assert.throws(() => p.x, /disposed/);
  // a construction and a result: two hand-outs
  const q = new demo.Point(3, 4);
  const again = demo.echoAny(q);
  assert.equal(again, q);
  again.dispose();
  q.dispose();
  assert.throws(() => q.x, /disposed/);
});

test('a tensor view keeps the native tensor alive after its wrapper is gone', async () => {
  await withoutLeaks(assert, async () => {
    let data = demo.arange(16).data;
    await settle();
    assert.equal(data[15], 15);
    data = null;
  });
});

test('native code keeps a JavaScript array alive through its tensor', async () => {
  await withoutLeaks(assert, async () => {
    let holder = testing.makeArrayWithTensor(new Float32Array([5, 6, 7]));
    await settle();
    assert.deepEqual([...holder[0].data], [5, 6, 7]);
    holder = null;
  });
});

test('callbacks kept by native code stay callable; dropped ones are released', async () => {
  await withoutLeaks(assert, async () => {
    const composed = demo.compose((x) => x + 1, (x) => x * 10);
    await settle();
    assert.equal(composed(1), 20);
    composed.dispose();
    for (let i = 0; i < 500; i++) demo.applyTwice((x) => x + i, 0);
  });
});

test('a JavaScript function registered as a global stays alive', async () => {
  const name = `nodetest.alive.${process.pid}`;
  ffi.registerGlobal(name, (x) => `got ${x}`);
  await settle();
  assert.equal(ffi.requireGlobal(name)('it'), 'got it');
  ffi.requireGlobal('ffi.FunctionRemoveGlobal')(name);
});

test('a function disposed while it runs is released when the call returns', async () => {
  await withoutLeaks(assert, async () => {
    const f = demo.compose((x) => {
      f.dispose();
      return x;
    }, (x) => x + 1);
    assert.equal(f(1), 2);
    assert.throws(() => f(1), /disposed/);
  });
});

test('wrappers still alive when a worker thread exits are released', async () => {
  const { Worker } = await import('node:worker_threads');
  await withoutLeaks(assert, async () => {
    // Wrappers of every origin, kept reachable until the worker's environment is torn down:
    // made by a constructor, returned by functions, passed back as arguments (which attaches
    // them for native lookups), disposed, and inside a container.
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      const path = require('node:path');
      const demo = require(path.join(workerData, 'demo'));
      globalThis.kept = [];
      for (let i = 0; i < 50; i++) {
        const p = new demo.Point(i, 1);
        const q = p.translate(1, 1);
        q.distance(p);
        globalThis.kept.push(p, q, demo.reverseArray([p, q]));
      }
      new demo.Point(0, 0).dispose();
      parentPort.postMessage(demo.liveObjectCount());
    `;
    const worker = new Worker(code, { eval: true, workerData: packagesDir });
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    const liveInWorker = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    assert.ok(liveInWorker >= 100, `the worker's objects were alive (${liveInWorker})`);
    assert.equal(await exited, 0);
  });
});
