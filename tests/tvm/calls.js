// Apache TVM 0.27 through the generated Node package (tests/tvm/run.sh): typed calls into nested
// namespaces that follow TVM's own (`tvm.ir`, `tvm.target`), printing through `__ffi_repr__`,
// and type truth: with the package's declared types (`node tests/node/type_truth.mjs declare`),
// every value the calls return, and every field of every object reached from them, is checked
// against its declared type. Usage: node calls.js PACKAGE_DIR [DECLARED_TYPES_JSON]
'use strict';
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');

async function main() {
  const [packageDir, declaredFile] = process.argv.slice(2);
  const tvm = require(packageDir);
  const truth = await import(path.join(__dirname, '../node/type_truth.mjs'));
  const observations = new truth.Observations();
  if (declaredFile) {
    const declared = JSON.parse(fs.readFileSync(declaredFile, 'utf8'));
    observations.declare('tvm', declared);
    truth.instrument(tvm, declared, observations.observer('tvm'));
  }

  const seven = new tvm.ir.IntImm(7n);
  assert.strictEqual(seven.typeKey, 'ir.IntImm');
  assert.strictEqual(seven.value, 7n); // declared `bigint` (ffi.BigInt): a bigint
  const kinds = [...tvm.target.listTargetKinds()];
  assert.ok(kinds.includes('llvm'), kinds.join(','));
  const add = tvm.ir.getOp('relax.add');
  assert.strictEqual(add.name, 'relax.add');
  const llvm = tvm.target.target('llvm');

  // `__ffi_repr__` drives util.inspect: types that register it print as TVM chose.
  assert.strictEqual(util.inspect(llvm), String(llvm));
  assert.match(util.inspect(llvm), /"kind":"llvm"/);
  // Types without it print their fields.
  assert.match(util.inspect(add), /^Op \{[^]*name: 'relax\.add'/);

  // Every field of every object reached, 4 levels deep (`toJSON` reads each through its getter).
  const ffi = require(require.resolve('@ffihub/tvm-ffi', { paths: [packageDir] }));
  const seen = [];
  const walk = (value, depth) => {
    if (depth === 0) return;
    if (value instanceof ffi.Sequence) {
      for (const element of value.toArray().slice(0, 20)) walk(element, depth - 1);
    } else if (value instanceof ffi.MapBase) {
      for (const element of [...value.values()].slice(0, 20)) walk(element, depth - 1);
    } else if (value instanceof ffi.Object && !(value instanceof ffi.Tensor || value instanceof ffi.Module)) {
      if (seen.some((s) => s.same(value)) || seen.length >= 2000) return;
      seen.push(value);
      for (const field of Object.values(value.toJSON())) walk(field, depth - 1);
    }
  };
  for (const root of [seven, add, llvm]) walk(root, 4);
  // And every object that a class constructs from no arguments (its defaults).
  const classes = [];
  const collect = (namespace) => {
    for (const value of Object.values(namespace)) {
      if (typeof value === 'function' && value.prototype instanceof ffi.Object) classes.push(value);
      else if (typeof value === 'object' && value !== null && !(value instanceof ffi.Object)) collect(value);
    }
  };
  collect(tvm);
  let constructed = 0;
  for (const Class of classes) {
    let object;
    try {
      object = new Class();
    } catch {
      continue; // it needs arguments
    }
    constructed++;
    walk(object, 3);
  }
  console.log(
    `ok: IntImm ${seven.value}, ${kinds.length} target kinds, op ${add.name}, ` +
      `${constructed} of ${classes.length} classes constructed from defaults, ${seen.length} objects walked`,
  );

  if (declaredFile) {
    const dir = path.dirname(declaredFile);
    fs.writeFileSync(path.join(dir, 'seen-tvm.json'), JSON.stringify(observations.items));
    const [lines, mismatches] = truth.report(dir);
    console.log(lines.map((l) => `type truth: ${l}`).join('\n'));
    assert.deepStrictEqual(mismatches, [], mismatches.join('\n'));
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
