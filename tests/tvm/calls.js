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
  // The class's constructor, as in Python (`Target("llvm")`): the packed global `target.Target`.
  assert.strictEqual(String(new tvm.target.Target('llvm')), String(llvm));

  // The IR program of tests/tvm/ir_program.py, through the constructors and methods TVM's
  // Python API gives its globals (ADR 0019): it prints what TVM's Python prints for it.
  const i32 = new tvm.ir.PrimType('int32');
  const x = new tvm.ir.Var('x', i32);
  const y = new tvm.ir.Var('y', i32);
  const e = new tvm.prim.Add(x, new tvm.prim.Mul(y, new tvm.ir.IntImm('int32', 2n)));
  const f = new tvm.tirx.PrimFunc([x, y], new tvm.tirx.Evaluate(e), tvm.ir.typeMissing(),
    new tvm.ir.DictAttrs(new Map())).withAttr('global_symbol', 'main');
  assert.ok(f instanceof tvm.tirx.PrimFunc);
  const mod = new tvm.ir.IRModule(new Map([[new tvm.ir.GlobalVar('main'), f]]), null, new Map());
  const expected = fs.readFileSync(process.env.TVM_IR_EXPECTED, 'utf8');
  assert.strictEqual(`${String(e)}\n----\n${String(mod)}`, expected);

  // `__ffi_repr__` drives util.inspect: types that register it print as TVM chose.
  assert.strictEqual(util.inspect(llvm), String(llvm));
  assert.match(util.inspect(llvm), /"kind":"llvm"/);
  // Types without it print their fields.
  assert.match(util.inspect(add), /^Op \{[^]*name: 'relax\.add'/);

  // Every field of every object reached, 4 levels deep, and of every object that a class
  // constructs from no arguments (its defaults), 3 levels deep.
  const seen = [];
  for (const root of [seven, add, llvm]) truth.walk(root, 4, seen);
  const constructed = truth.constructedFromDefaults(tvm);
  for (const object of constructed) truth.walk(object, 3, seen);
  console.log(
    `ok: IntImm ${seven.value}, ${kinds.length} target kinds, op ${add.name}, ` +
      `${constructed.length} objects constructed from defaults, ${seen.length} objects walked`,
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
