// A TVM-compiled kernel library from Node (tests/kernels/main.rs): one call loads it, its `main`
// is called by name on typed arrays, which it reads and writes in place (zero-copy DLPack views).
//
//     node vector_add.mjs LIBRARY
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// The support package from this checkout (an installed one is `require('@ffihub/tvm-ffi')`).
const ffi = createRequire(import.meta.url)('../../bindings/node');
const m = ffi.loadModule(process.argv[2]);
const n = 1000;
const a = Float32Array.from({ length: n }, (_, i) => i + 1);
const b = new Float32Array(n).fill(0.5);
const c = new Float32Array(n);
assert.equal(m.functions.main(a, b, c), null);
for (let i = 0; i < n; i++) assert.equal(c[i], a[i] + b[i], `c[${i}]`); // written into c's own memory
// TVM's generated argument checks raise through TVM-FFI.
assert.throws(() => m.functions.main(a, b, new Float64Array(n)), ffi.FFIError);
assert.throws(() => m.functions.no_such_kernel, ffi.AttributeError);
console.log('node: vector_add ok');
