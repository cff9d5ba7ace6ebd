// Modules: a shared library's exported functions (`__tvm_ffi_<name>`), loaded with
// ffi.loadModule.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { ffi, demo, testing, demoLibrary, root } from './helpers.mjs';

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

test('one extension loaded from two paths is refused, naming both paths', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ffihub-copy-'));
  try {
    const names = (file) => (e) => {
      assert.ok(e.message.includes(file) && e.message.includes(demoLibrary), e.message);
      return true;
    };
    // Under another name the copy loads, and its first registration refuses.
    const renamed = path.join(dir, 'libffihub_demo_copy.so');
    fs.copyFileSync(demoLibrary, renamed);
    assert.throws(() => ffi.loadLibrary(renamed), (e) => e instanceof ffi.FFIError && names(renamed)(e));
    // Under the same name it is refused before loading.
    const same = path.join(dir, path.basename(demoLibrary));
    fs.copyFileSync(demoLibrary, same);
    assert.throws(() => ffi.loadLibrary(same), names(same));
    // The first copy keeps its types and functions.
    const p = new demo.Point(3, 4);
    assert.equal(p.norm(), 5);
    assert.equal(demo.addOne(41), 42);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('generated packages bind module exports as named, typed functions', () => {
  // `#[ffihub::function(export = "multiply")]` in the demo (symbol __tvm_ffi_multiply).
  assert.equal(demo.multiply(6, 7), 42);
  assert.throws(() => demo.multiply('a', 1), ffi.TypeError);
  // Apache's testing library exports two functions with TVM_FFI_DLL_EXPORT_TYPED_FUNC.
  assert.equal(testing.testingDllTestAddWithDocstring(2, 3), 5);
  assert.equal(testing.testingDllSchemaIdInt(7), 7);
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

test('compiled kernels: one call loads a library, functions by name', (t) => {
  // The seeds' add_one_c, as a code generator emits it: no metadata, no globals.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ffihub-node-kernel-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const lib = path.join(dir, 'add_one_c.so');
  execFileSync('gcc', ['-std=c11', '-O2', '-shared', '-fPIC', '-Wno-unused-variable', '-Wno-unused-parameter',
    '-I', path.join(root, 'runtime/include'), path.join(root, 'examples/add_one_c/add_one_c.c'), '-o', lib]);
  const m = ffi.loadModule(lib);
  const x = new Float32Array([1, 2, 3, 4]);
  const y = new Float32Array(4);
  assert.equal(m.functions.add_one_c(x, y), null);
  assert.deepEqual([...y], [2, 3, 4, 5]); // written in place: the kernel saw y's memory
  assert.ok('add_one_c' in m.functions);
  const cwd = process.cwd();
  process.chdir(dir); // a bare file name is the file in the working folder, not a loader search
  try {
    assert.ok(ffi.loadModule('add_one_c.so').functions.add_one_c instanceof ffi.Function);
  } finally {
    process.chdir(cwd);
  }
  assert.ok(!('no_such_kernel' in m.functions));
  assert.throws(() => m.functions.no_such_kernel, (e) =>
    e instanceof ffi.AttributeError && /no function `no_such_kernel`/.test(e.message));
  assert.throws(() => m.functions.add_one_c(1, y), ffi.ValueError); // the kernel's own error
  for (const bad of [path.join(dir, 'missing.so'), path.join(root, 'README.md')]) {
    assert.throws(() => ffi.loadModule(bad), (e) =>
      e instanceof ffi.FFIError && e.message.includes(JSON.stringify(bad)));
  }
});
