// Type truth: the values generated packages return are of the types their declarations give.
//
// `declaredTypes(packageDir)` reads a package's index.d.ts with TypeScript's compiler API and
// describes the declared type of what every typed function, method and field returns (as JSON:
// `node type_truth.mjs declare <packageDir>` prints it). `instrument(pkg, declared, record)` wraps the
// package's functions, methods and getters so that every value they return is checked against
// its declared type as the tests run: typeof for primitives, instanceof for classes, element by
// element for containers. helpers.mjs does that for the suites when FFIHUB_TYPE_TRUTH names a
// folder (where main.rs put the descriptions): each process writes what it saw there, and
// `node type_truth.mjs report <folder>` (main.rs runs it) prints the coverage and fails on any
// mismatch.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const supportDts = path.resolve(here, '../../bindings/node/index.d.ts');

/** Elements of a container that a check reads at most. */
const MAX_ELEMENTS = 10_000;

let supportClasses = null;
/** A class of the support package by its name in its index.d.ts. */
function supportClass(name) {
  const ffi = require('@ffihub/tvm-ffi');
  supportClasses ??= {
    FFIObject: ffi.Object,
    Sequence: ffi.Sequence,
    FFIArray: ffi.Array,
    List: ffi.List,
    MapBase: ffi.MapBase,
    FFIMap: ffi.Map,
    Dict: ffi.Dict,
    Shape: ffi.Shape,
    Tensor: ffi.Tensor,
    Module: ffi.Module,
    DataType: ffi.DataType,
    Device: ffi.Device,
    OpaquePtr: ffi.OpaquePtr,
    FFIError: ffi.FFIError,
    FunctionMethods: ffi.Function,
  };
  return supportClasses[name];
}

/**
 * The declared types of the package in `packageDir`: an object from item keys
 * (`fn addOne`, `get Point#x`, `method Point#translate`, `static Counter.withStep`) to
 * `{ text, type, where }`: the type as TypeScript writes it, its description (see `checkOf`),
 * and where the item is in the package (`{ path, kind, name }`). Packed items (`unknown`
 * results) are left out.
 */
export function declaredTypes(packageDir) {
  const ts = require(path.join(here, 'node_modules/typescript'));
  const dts = path.join(packageDir, 'index.d.ts');
  const program = ts.createProgram([dts], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    types: [],
    baseUrl: packageDir,
    paths: { '@ffihub/tvm-ffi': [supportDts] },
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(dts);
  const F = ts.TypeFlags;

  const classRef = (symbol) => {
    const file = symbol.declarations?.[0]?.getSourceFile().fileName;
    if (file === supportDts) return { support: symbol.name };
    if (file === source.fileName) {
      // `"<file>".ir.IntImm` -> ir.IntImm
      return { package: checker.getFullyQualifiedName(symbol).replace(/^"[^"]*"\./, '').split('.') };
    }
    return { global: symbol.name };
  };

  const describe = (type, seen = new Set()) => {
    const text = checker.typeToString(type);
    const flags = type.flags;
    if (flags & (F.Any | F.Unknown)) return { kind: 'any', text };
    if (flags & F.Void) return { kind: 'void', text };
    if (flags & F.Undefined) return { kind: 'undefined', text };
    if (flags & F.Null) return { kind: 'null', text };
    if (flags & F.NumberLike) return { kind: 'number', text };
    if (flags & F.BigIntLike) return { kind: 'bigint', text };
    if (flags & F.StringLiteral) return { kind: 'literal', value: type.value, text };
    if (flags & F.StringLike) return { kind: 'string', text };
    if (flags & F.BooleanLiteral) return { kind: 'literal', value: text === 'true', text };
    if (flags & F.BooleanLike) return { kind: 'boolean', text };
    if (flags & F.Never) return { kind: 'never', text };
    if (flags & F.NonPrimitive) return { kind: 'object', text };
    if (seen.has(type)) return { kind: 'any', text }; // a recursive type: checked once above
    const inner = new Set(seen).add(type);
    if (type.isUnion()) return { kind: 'union', of: type.types.map((t) => describe(t, inner)), text };
    if (type.isIntersection()) return { kind: 'all', of: type.types.map((t) => describe(t, inner)), text };
    if (flags & F.Object) {
      if (type.getCallSignatures().length > 0) return { kind: 'function', text };
      const symbol = type.getSymbol();
      if (!symbol) return { kind: 'unchecked', text };
      const args = type.objectFlags & ts.ObjectFlags.Reference ? checker.getTypeArguments(type) : [];
      return { kind: 'class', ref: classRef(symbol), args: args.map((t) => describe(t, inner)), text };
    }
    return { kind: 'unchecked', text };
  };

  const typeAt = (symbol) => checker.getTypeOfSymbolAtLocation(symbol, symbol.declarations[0]);
  const returnOf = (symbol) => typeAt(symbol).getCallSignatures()[0].getReturnType();
  const out = {};
  const add = (key, type, where) => {
    if (type.flags & F.Unknown) return; // packed: any result
    out[key] = { text: checker.typeToString(type), type: describe(type), where };
  };
  const walk = (symbol, names) => {
    for (const item of checker.getExportsOfModule(symbol)) {
      const at = [...names, item.name];
      const spelled = at.join('.');
      if (item.flags & ts.SymbolFlags.Function) add(`fn ${spelled}`, returnOf(item), { path: at, kind: 'fn' });
      if (item.flags & ts.SymbolFlags.Class) {
        const decl = item.declarations[0];
        for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(item))) {
          const m = member.declarations?.[0];
          if (m?.parent !== decl) continue; // inherited
          if (ts.isMethodDeclaration(m)) {
            add(`method ${spelled}#${member.name}`, returnOf(member), { path: at, kind: 'method', name: member.name });
          } else {
            add(`get ${spelled}#${member.name}`, typeAt(member), { path: at, kind: 'get', name: member.name });
          }
        }
        for (const member of checker.getPropertiesOfType(typeAt(item))) {
          const m = member.declarations?.[0];
          if (m?.parent !== decl || !ts.isMethodDeclaration(m)) continue;
          add(`static ${spelled}.${member.name}`, returnOf(member), { path: at, kind: 'static', name: member.name });
        }
      }
      if (item.flags & ts.SymbolFlags.Namespace) walk(item, at);
    }
  };
  walk(checker.getSymbolAtLocation(source), []);
  return out;
}

function describeValue(value) {
  if (value === null) return 'null';
  if (typeof value !== 'object' && typeof value !== 'function') return `${typeof value} ${String(value)}`;
  return `an instance of ${value?.constructor?.name ?? 'Object'}`;
}

/**
 * The check of a value against a declared type (a description from `declaredTypes`) of the
 * package `pkg`: null when the value is of that type, else what is wrong.
 */
export function checkOf(type, pkg) {
  const is = (pred) => (v) => (pred(v) ? null : `${describeValue(v)} is not ${type.text}`);
  switch (type.kind) {
    case 'any':
      return () => null;
    case 'void':
      return is((v) => v === undefined || v === null);
    case 'undefined':
      return is((v) => v === undefined);
    case 'null':
      return is((v) => v === null);
    case 'number':
    case 'bigint':
    case 'string':
    case 'boolean':
      return is((v) => typeof v === type.kind);
    case 'literal':
      return is((v) => v === type.value);
    case 'never':
      return is(() => false);
    case 'object':
      return is((v) => (typeof v === 'object' && v !== null) || typeof v === 'function');
    case 'function':
      return is((v) => typeof v === 'function');
    case 'union': {
      const members = type.of.map((t) => checkOf(t, pkg));
      return (v) => (members.some((m) => m(v) === null) ? null : `${describeValue(v)} is not ${type.text}`);
    }
    case 'all': {
      const members = type.of.map((t) => checkOf(t, pkg));
      return (v) => members.map((m) => m(v)).find((r) => r !== null) ?? null;
    }
    case 'class': {
      const { ref } = type;
      const Class = ref.support
        ? supportClass(ref.support)
        : ref.package
          ? at(pkg, ref.package)
          : globalThis[ref.global];
      if (typeof Class !== 'function') return () => `no runtime class for ${type.text}`;
      const elements = deepCheck(Class, type.args.map((t) => checkOf(t, pkg)));
      return (v) => (v instanceof Class ? elements(v) : `${describeValue(v)} is not ${type.text}`);
    }
    default:
      return () => `cannot check ${type.text}`;
  }
}

/** Checks the elements (and keys) of the containers `Class` declares type arguments for. */
function deepCheck(Class, args) {
  const ffi = require('@ffihub/tvm-ffi');
  // The wrappers read here hold references of their own: released at once, so that the
  // suites' reference counts see none of them.
  const checked = (check, value) => {
    const problem = check(value);
    if (value instanceof ffi.Object || value instanceof ffi.Function) ffi.dispose(value);
    return problem;
  };
  const ofSequence = (elementCheck) => (v) => {
    const n = Math.min(v.length, MAX_ELEMENTS);
    for (let i = 0; i < n; i++) {
      const r = checked(elementCheck, v.at(i));
      if (r !== null) return `element ${i}: ${r}`;
    }
    return null;
  };
  const ofMap = (keyCheck, valueCheck) => (v) => {
    let i = 0;
    for (const [k, value] of v.entries()) {
      const r = checked(keyCheck, k) ?? checked(valueCheck, value);
      if (r !== null) return `entry ${i}: ${r}`;
      if (++i >= MAX_ELEMENTS) break;
    }
    return null;
  };
  if (args.length === 1 && Class.prototype instanceof ffi.Sequence) return ofSequence(args[0]);
  if (args.length === 1 && Class === ffi.Sequence) return ofSequence(args[0]);
  if (args.length === 2 && (Class === ffi.MapBase || Class.prototype instanceof ffi.MapBase)) return ofMap(...args);
  return () => null;
}

/** The value at `path` below `root`. */
function at(root, names) {
  return names.reduce((o, n) => o[n], root);
}

/**
 * Wraps the functions, methods and getters of `pkg` that `declared` (from `declaredTypes`) has,
 * so that each value they return is checked; `record(key, problem)` is told of each check
 * (`problem` null when the value is of its declared type). Values are returned unchanged;
 * nothing is kept.
 */
export function instrument(pkg, declared, record) {
  for (const [key, { type, where }] of Object.entries(declared)) {
    const check = checkOf(type, pkg);
    const observe = (value) => {
      record(key, check(value));
      return value;
    };
    if (where.kind === 'fn') {
      const owner = at(pkg, where.path.slice(0, -1));
      const name = where.path[where.path.length - 1];
      const original = owner[name];
      const wrapped = {
        [name](...args) {
          return observe(original.apply(this, args));
        },
      }[name];
      Object.defineProperty(wrapped, 'length', { value: original.length });
      owner[name] = wrapped;
      continue;
    }
    const Class = at(pkg, where.path);
    const target = where.kind === 'static' ? Class : Class.prototype;
    const d = Object.getOwnPropertyDescriptor(target, where.name);
    if (d === undefined) continue;
    if (where.kind === 'get' && d.get) {
      const get = d.get;
      Object.defineProperty(target, where.name, {
        ...d,
        get() {
          return observe(get.call(this));
        },
      });
    } else if (typeof d.value === 'function') {
      const original = d.value;
      Object.defineProperty(target, where.name, {
        ...d,
        value: {
          [where.name](...args) {
            return observe(original.apply(this, args));
          },
        }[where.name],
      });
    }
  }
}

/**
 * Reads every field of every object reachable from `value`, `depth` levels deep (fields through
 * their getters, so that `instrument` checks them; up to 20 elements of each container; each
 * object once, at most 2,000). Returns the number of objects read.
 */
export function walk(value, depth, seen = []) {
  const ffi = require('@ffihub/tvm-ffi');
  if (depth === 0) return seen.length;
  if (value instanceof ffi.Sequence) {
    for (const element of value.toArray().slice(0, 20)) walk(element, depth - 1, seen);
  } else if (value instanceof ffi.MapBase) {
    for (const element of [...value.values()].slice(0, 20)) walk(element, depth - 1, seen);
  } else if (value instanceof ffi.Object && !(value instanceof ffi.Tensor || value instanceof ffi.Module)) {
    if (seen.length >= 2000 || seen.some((s) => s.same(value))) return seen.length;
    seen.push(value);
    for (const field of Object.values(value.toJSON())) walk(field, depth - 1, seen);
  }
  return seen.length;
}

/** The objects the classes of `pkg` (in its namespaces too) construct from no arguments. */
export function constructedFromDefaults(pkg) {
  const ffi = require('@ffihub/tvm-ffi');
  const out = [];
  const visit = (namespace) => {
    for (const value of Object.values(namespace)) {
      if (typeof value === 'function' && value.prototype instanceof ffi.Object) {
        try {
          out.push(new value());
        } catch {
          // it needs arguments
        }
      } else if (typeof value === 'object' && value !== null && !(value instanceof ffi.Object)) {
        visit(value);
      }
    }
  };
  visit(pkg);
  return out;
}

/**
 * What a run saw, per package and item: how many values were checked, and the first problems.
 */
export class Observations {
  constructor() {
    this.items = {};
  }

  /** Lists every item of `declared` (so that unobserved ones count too). */
  declare(name, declared) {
    for (const key of Object.keys(declared)) this.entry(name, key, declared[key].text);
  }

  entry(name, key, text) {
    const items = (this.items[name] ??= {});
    return (items[key] ??= { declared: text, checked: 0, problems: [] });
  }

  /** The `record` function of `instrument` for the package `name`. */
  observer(name) {
    return (key, problem) => {
      const e = this.entry(name, key);
      e.checked++;
      if (problem !== null && e.problems.length < 3) e.problems.push(problem);
    };
  }
}

/**
 * The observations written in `dir` by every process, merged: one line per package (how many of
 * its typed results were observed) and every mismatch. Returns `[lines, mismatches]`.
 */
export function report(dir) {
  const merged = {};
  for (const file of readdirSync(dir).filter((f) => f.startsWith('seen-'))) {
    for (const [name, items] of Object.entries(JSON.parse(readFileSync(path.join(dir, file), 'utf8')))) {
      for (const [key, e] of Object.entries(items)) {
        const m = ((merged[name] ??= {})[key] ??= { declared: e.declared, checked: 0, problems: [] });
        m.checked += e.checked;
        m.problems.push(...e.problems);
      }
    }
  }
  const lines = [];
  const mismatches = [];
  for (const [name, items] of Object.entries(merged).sort()) {
    const all = Object.entries(items);
    const seen = all.filter(([, e]) => e.checked > 0);
    const checks = seen.reduce((n, [, e]) => n + e.checked, 0);
    lines.push(`${name}: ${seen.length} of ${all.length} typed results observed (${checks} values checked)`);
    for (const [key, e] of all) {
      if (e.problems.length > 0) mismatches.push(`${name}: ${key} is declared ${e.declared}, but ${e.problems[0]}`);
    }
  }
  return [lines, mismatches];
}

// `node type_truth.mjs declare <packageDir>`: prints the package's declared types as JSON.
// `node type_truth.mjs report <dir>`: prints the merged observations; fails on a mismatch.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, arg] = process.argv.slice(2);
  if (command === 'declare') {
    process.stdout.write(JSON.stringify(declaredTypes(path.resolve(arg))));
  } else if (command === 'report') {
    const [lines, mismatches] = report(arg);
    console.log(lines.map((l) => `type truth: ${l}`).join('\n'));
    if (mismatches.length > 0) {
      console.log(`type truth: ${mismatches.length} mismatch(es):\n${mismatches.join('\n')}`);
      process.exitCode = 1;
    }
  } else {
    console.error('usage: node type_truth.mjs declare <packageDir> | report <dir>');
    process.exitCode = 2;
  }
}
