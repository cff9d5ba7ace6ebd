// Apache TVM 0.27 through the generated Node package (tests/tvm/run.sh): typed calls into nested
// namespaces that follow TVM's own (`tvm.ir`, `tvm.target`).
'use strict';
const assert = require('node:assert');
const tvm = require(process.argv[2]);

const seven = new tvm.ir.IntImm(7n);
assert.strictEqual(seven.typeKey, 'ir.IntImm');
assert.strictEqual(BigInt(seven.value), 7n);
const kinds = [...tvm.target.listTargetKinds()];
assert.ok(kinds.includes('llvm'), kinds.join(','));
const add = tvm.ir.getOp('relax.add');
assert.strictEqual(add.name, 'relax.add');
console.log(`ok: IntImm ${seven.value}, ${kinds.length} target kinds, op ${add.name}`);
