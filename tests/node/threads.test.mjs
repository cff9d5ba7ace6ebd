// Threads: native code calling JavaScript callbacks from other threads (Node's pool via
// callAsync, and other environments' threads), worker threads loading the addon, and a clean
// exit afterwards (the thread-safe function does not keep the process alive).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

test('callbacks from other threads, worker threads, and a clean exit', () => {
  const script = fileURLToPath(new URL('./fixtures/threads.mjs', import.meta.url));
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000, env: process.env });
  assert.equal(run.error, undefined, 'the process exited by itself');
  assert.equal(run.signal, null, run.stderr);
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout.trim().split('\n').at(-1));
  assert.equal(out.fromPool, 42);
  assert.equal(out.inWorker, 9);
  assert.equal(out.crossEnv, 42);
  assert.equal(out.nested, 20);
  assert.ok(out.workerThread > 0);
  assert.equal(out.workerExit, 0);
  assert.match(out.afterExit, /^RuntimeError: .*environment of this callback has exited/);
});

test('library threads calling back while JavaScript waits in a synchronous call fail instead of hanging', () => {
  // Its own time limit: a hang fails this test (and the process is killed), not the whole run.
  const script = fileURLToPath(new URL('./fixtures/library_threads.mjs', import.meta.url));
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 30_000, env: process.env });
  assert.equal(run.error, undefined, `the program did not hang: ${run.stdout}${run.stderr}`);
  assert.equal(run.status, 0, run.stderr);
  const { main, inWorker, workerExit } = JSON.parse(run.stdout.trim().split('\n').at(-1));
  assert.equal(workerExit, 0);
  for (const [where, out] of [['main thread', main], ['worker thread', inWorker]]) {
    const blocked = /was called from another thread while its JavaScript thread is blocked in a synchronous call into TVM-FFI.*ffi\.callAsync/;
    // The library's error, raised in its thread, reaches the caller.
    assert.equal(out.fromThread.kind, 'RuntimeError', `${where}: ${JSON.stringify(out.fromThread)}`);
    assert.ok(out.fromThread.ffiError, where);
    assert.match(out.fromThread.message, /^the JavaScript callback `answer` /, where);
    assert.match(out.fromThread.message, blocked, where);
    assert.equal(out.fromThreads.kind, 'RuntimeError', `${where}: ${JSON.stringify(out.fromThreads)}`);
    assert.match(out.fromThreads.message, /^an anonymous JavaScript callback /, where);
    assert.match(out.fromThreads.message, blocked, where);
    // The thread lives on: native callbacks from library threads, then the same scenarios
    // through callAsync, whose callbacks run.
    assert.equal(out.afterwards, 36, where);
    assert.equal(out.async, 42, where);
    assert.equal(out.asyncThreads, 20100, where);
    assert.equal(out.later, 'later', where);
    assert.match(out.syncAgain.message ?? '', blocked, where);
  }
});

test('a process with a registered callback and idle threads exits by itself', () => {
  const code = `
    const ffi = require('@ffihub/tvm-ffi');
    ffi.registerGlobal('nodetest.idle', () => 1, { override: true });
    ffi.callAsync(ffi.requireGlobal('nodetest.idle')).then((v) => console.log('done', v));
  `;
  const run = spawnSync(process.execPath, ['-e', code], {
    encoding: 'utf8',
    timeout: 30_000,
    env: process.env,
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  assert.equal(run.error, undefined, 'no hang');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'done 1');
});

test('many pool threads calling JavaScript callbacks at once', async () => {
  const { ffi, demo, settle, withoutLeaks } = await import('./helpers.mjs');
  await withoutLeaks(assert, async () => {
    const values = Array.from({ length: 300 }, (_, i) => i);
    const jobs = Array.from({ length: 8 }, (_, j) =>
      ffi.callAsync(demo.mapArray, (x) => x * 2 + j, values),
    );
    const results = await Promise.all(jobs);
    results.forEach((r, j) => {
      assert.equal(r.length, 300);
      assert.equal(r.at(-1), 299 * 2 + j);
    });
    await settle();
  });
});
