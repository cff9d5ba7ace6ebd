// Modules: a shared library's exported functions (`__tvm_ffi_<name>`), loaded with
// ffi.loadModule.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ffi, demoLibrary } from './helpers.mjs';

test('a library module exposes its exported functions', () => {
  const mod = ffi.loadModule(demoLibrary);
  assert.ok(mod instanceof ffi.Module);
  assert.ok(mod instanceof ffi.Object);
  assert.equal(mod.kind, 'library');
  const multiply = mod.get('multiply');
  assert.ok(multiply instanceof ffi.Function);
  assert.equal(multiply(6, 7), 42);
  assert.equal(mod.getFunction('version')(), 'ffihub-demo 0.1.0');
  assert.ok(mod.implementsFunction('multiply'));
  assert.ok(!mod.implementsFunction('divide'));
  assert.equal(mod.getFunction('divide'), null);
  assert.throws(() => mod.get('divide'), /no function/);
  assert.throws(() => multiply('a', 1), ffi.TypeError);
});

test('module function docs and metadata', () => {
  const mod = ffi.loadModule(demoLibrary);
  const doc = mod.getFunctionDoc('multiply');
  assert.ok(doc === null || typeof doc === 'string');
  const meta = mod.getFunctionMetadata('multiply');
  if (meta !== null) {
    const parsed = JSON.parse(meta);
    assert.match(parsed.type_schema, /ffi\.Function/);
  }
});

test('loading a missing module raises', () => {
  assert.throws(() => ffi.loadModule('/no/such/library.so'), ffi.FFIError);
});

test('loading a missing library raises', () => {
  assert.throws(() => ffi.loadLibrary('/no/such/library.so'), /cannot load/);
});

test("a package's missing library fails naming every place tried, in order", () => {
  const packageDir = mkdtempSync(path.join(tmpdir(), 'ffihub-package-'));
  try {
    const name = 'libffihub_absent.so';
    const searched = (process.env.FFIHUB_LIBRARY_PATH ?? '').split(path.delimiter).filter(Boolean);
    const places = [
      `${path.join(packageDir, 'lib', name)} (no such file)`,
      ...(searched.length === 0
        ? ['FFIHUB_LIBRARY_PATH (unset)']
        : searched.map((dir) => `${path.resolve(dir, name)} (no such file)`)),
      `the system loader (${name}: cannot open shared object file`,
    ];
    assert.throws(
      () => ffi.loadLibraries(packageDir, [name], 'x', null),
      (e) =>
        e.message.startsWith(`ffihub: cannot load ${name}: tried ${places.join(', ')}`) &&
        e.message.includes('add its folder to FFIHUB_LIBRARY_PATH'),
    );
  } finally {
    rmSync(packageDir, { recursive: true });
  }
});
