// Shared by the suites: the support package, the generated packages, and leak counting.
//
// Environment (set by the Rust driver, tests/node/main.rs; defaults suit a manual run after
// scripts/setup-node.sh):
//   FFIHUB_NODE_PACKAGES  folder with the generated `demo/` and `testing/` packages
//                         (default: target/generated/node)
//   FFIHUB_LIBRARY_PATH   folders searched for libffihub_demo.so and libtvm_ffi_testing.so
//   FFIHUB_DEMO_LIBRARY   the demo extension's file (module tests)
//   FFIHUB_RUNTIME        `ffihub` or `apache` (informative)
//   FFIHUB_TYPE_TRUTH     a folder with the packages' declared types: check every result
//                         against them (see below and type_truth.mjs)
//   TVM_FFI_LIB           the runtime under test (its file or folder)

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setImmediate as tick } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';

export const require = createRequire(import.meta.url);
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const packagesDir = path.resolve(process.env.FFIHUB_NODE_PACKAGES ?? path.join(root, 'target/generated/node'));
export const demoLibrary = path.resolve(process.env.FFIHUB_DEMO_LIBRARY ?? path.join(root, 'target/debug/libffihub_demo.so'));
export const runtimeName = process.env.FFIHUB_RUNTIME ?? 'unknown';

/** @type {typeof import('@ffihub/tvm-ffi')} */
export const ffi = require('@ffihub/tvm-ffi');
export const demo = require(path.join(packagesDir, 'demo'));
export const testing = require(path.join(packagesDir, 'testing'));

// Type truth (type_truth.mjs): with FFIHUB_TYPE_TRUTH set to a folder holding the packages'
// declared types (`<name>.types.json`), every value the packages return is checked against its
// declared type, and this process writes what it saw there when it exits.
if (process.env.FFIHUB_TYPE_TRUTH) {
  const dir = process.env.FFIHUB_TYPE_TRUTH;
  const { instrument, Observations } = await import('./type_truth.mjs');
  const observations = new Observations();
  for (const [name, pkg] of [['demo', demo], ['testing', testing]]) {
    const declared = JSON.parse(readFileSync(path.join(dir, `${name}.types.json`), 'utf8'));
    observations.declare(name, declared);
    instrument(pkg, declared, observations.observer(name));
  }
  process.on('exit', () => {
    writeFileSync(path.join(dir, `seen-${process.pid}-${threadId}.json`), JSON.stringify(observations.items));
  });
}

/** Runs the garbage collector and lets Node run the finalizers it queued. */
export async function settle(rounds = 4) {
  for (let i = 0; i < rounds; i++) {
    globalThis.gc?.();
    await tick();
  }
}

/** Live objects: the runtime's count (ffihub's runtime only) and the demo's Rust objects. */
export function counts() {
  return { runtime: ffi.liveObjectCount(), demo: demo.liveObjectCount() };
}

/**
 * Runs `body` (sync or async), then collects garbage and checks that the live-object counts
 * are back where they started.
 */
export async function withoutLeaks(assert, body) {
  await settle();
  const before = counts();
  await body();
  await settle();
  assert.deepStrictEqual(counts(), before, 'live objects before and after');
}
