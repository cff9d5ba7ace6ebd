// Modules: a shared library's exported functions (`__tvm_ffi_<name>`), loaded with
// ffi.loadModule.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing, demoLibrary } from './helpers.mjs';

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

test('generated packages bind module exports as named, typed functions', () => {
  // `#[ffihub::function(export = "multiply")]` in the demo (symbol __tvm_ffi_multiply).
  assert.equal(demo.multiply(6, 7), 42);
  assert.throws(() => demo.multiply('a', 1), ffi.TypeError);
  // Apache's testing library exports two functions with TVM_FFI_DLL_EXPORT_TYPED_FUNC.
  assert.equal(testing.testingDllTestAddWithDocstring(2, 3), 5);
  assert.equal(testing.testingDllSchemaIdInt(7), 7);
});
