'use strict';
// Object types defined in JavaScript: `ffi.defineClass(key, { extends, fields, methods })`.
//
// The type key is registered in the runtime like a type registered in C++ (src/define.rs does
// the registration): reflected fields with their type schemas and defaults, methods, the
// structural equality kind. Objects live in runtime memory; the class returned here wraps them
// like a generated class does (field accessors, methods, `instanceof` along the hierarchy), and
// every language reads and writes them through reflection. Every write of a field, every
// argument of a method and its result is checked against the declared type by the addon,
// whoever writes or calls.

const native = require('./addon');
const object = require('./object');
const containers = require('./containers');
const values = require('./values');

// --- type descriptors ------------------------------------------------------------------------

const SCALARS = new Set(['int', 'float', 'bool', 'str', 'bytes', 'DataType', 'Device', 'Any', 'Function', 'Shape']);

/** A container or optional type, made by `ffi.types` (`{kind, args}`, as the addon reads it). */
class ContainerType {
  constructor(kind, args) {
    this.kind = kind;
    this.args = args;
    Object.freeze(this);
  }
}

/** `ffi.types`: the container and optional types of fields and method signatures. */
const types = Object.freeze({
  /** `Array[T]` (an `ffi.Array`; JavaScript arrays convert in). */
  array: (element) => new ContainerType('array', [element]),
  /** `List[T]` (an `ffi.List`, shared and mutable; JavaScript arrays convert in). */
  list: (element) => new ContainerType('list', [element]),
  /** `Map[K, V]` (an `ffi.Map`; JavaScript Maps and plain objects convert in). */
  map: (key, value) => new ContainerType('map', [key, value]),
  /** `Dict[K, V]` (an `ffi.Dict`, shared and mutable). */
  dict: (key, value) => new ContainerType('dict', [key, value]),
  /** `Optional[T]`: `null` or a T. */
  optional: (type) => new ContainerType('optional', [type]),
});

const TYPE_HELP =
  "'int', 'float', 'bool', 'str', 'bytes', 'DataType', 'Device', 'Any', 'Function', 'Shape', 'Object', " +
  'a type key, a registered class, or ffi.types.array/list/map/dict/optional(...)';

/** The descriptor the addon reads (`{kind, key?, args?}`) of a declared type. */
function descriptor(type, where) {
  if (typeof type === 'string') {
    if (SCALARS.has(type)) return { kind: type };
    if (type === 'Object') return { kind: 'object', key: 'ffi.Object' };
    if (/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+$/.test(type)) return { kind: 'object', key: type };
  } else if (type instanceof ContainerType) {
    return { kind: type.kind, args: type.args.map((t) => descriptor(t, where)) };
  } else {
    const key = object.classKey(type);
    if (key !== undefined) return { kind: 'object', key };
  }
  const shown = typeof type === 'function' ? `the class ${type.name}` : JSON.stringify(type) ?? String(type);
  throw new TypeError(`${where}: ${shown} is not a TVM-FFI type (use ${TYPE_HELP}; classes must be registered)`);
}

/**
 * `x` prepared to be written where `d` is declared: what the addon's conversion of plain
 * JavaScript values does not know (a JavaScript array for a List, a string for a DataType);
 * everything else is checked by the addon.
 */
function coerce(d, x) {
  if (x === null || x === undefined) return x;
  switch (d.kind) {
    case 'list':
      return x instanceof containers.List ? x : containers.list(elements(d.args[0], x));
    case 'dict':
      return x instanceof containers.Dict ? x : containers.dict(entries(d, x));
    case 'array':
      return Array.isArray(x) ? elements(d.args[0], x) : x;
    case 'map':
      return x instanceof containers.MapBase ? x : new Map(entries(d, x));
    case 'optional':
      return coerce(d.args[0], x);
    case 'Shape':
      return containers.toShape(x);
    case 'DataType':
      return typeof x === 'string' ? values.toDataType(x) : x;
    case 'Device':
      return typeof x === 'string' ? values.toDevice(x) : x;
    default:
      return x;
  }
}

function elements(d, xs) {
  return Array.from(xs, (x) => coerce(d, x));
}

function entries(d, x) {
  const pairs = x instanceof Map || x instanceof containers.MapBase ? x : Object.entries(x);
  return Array.from(pairs, ([k, v]) => [coerce(d.args[0], k), coerce(d.args[1], v)]);
}

// --- classes -------------------------------------------------------------------------------------

const STRUCTURE_KINDS = { none: 0, tree: 1, var: 2, dag: 3, 'const-tree': 4, singleton: 5 };

/** What defineClass recorded for a class it made. */
const kDefinition = Symbol('ffihub.definition');

/** The own fields of a definition, normalized: `[{name, d, doc, hasDefault, default, factory}]`. */
function normalizeFields(key, fields, Parent) {
  if (fields === null || typeof fields !== 'object') throw new TypeError(`${key}: fields must be an object`);
  return Object.entries(fields).map(([name, spec]) => {
    const where = `field ${name} of ${key}`;
    const clash = inheritedMember(Parent, name, false);
    if (clash !== undefined) {
      throw new TypeError(`${where}: the name is already ${clash === 'field' ? 'a field' : `a member of ${Parent.name}`}`);
    }
    const full = spec instanceof ContainerType || typeof spec !== 'object' || spec === null ? { type: spec } : spec;
    for (const option of Object.keys(full)) {
      if (!['type', 'default', 'doc'].includes(option)) {
        throw new TypeError(`${where}: unknown option ${option} (type, default, doc)`);
      }
    }
    const d = descriptor(full.type, where);
    const field = { name, d, doc: String(full.doc ?? ''), hasDefault: 'default' in full };
    if (typeof full.default === 'function') {
      // A factory: called for every new object.
      const make = full.default;
      field.factory = () => coerce(d, make());
    } else if (field.hasDefault && (d.kind === 'list' || d.kind === 'dict')) {
      // A mutable container is made anew for every object, not shared.
      const value = full.default;
      field.factory = () => coerce(d, value);
    } else if (field.hasDefault) {
      field.default = coerce(d, full.default);
    }
    return field;
  });
}

/** The field names of a type and its ancestors, ancestors' first. */
function allFieldNames(key) {
  const info = native.typeInfo(key);
  const names = [];
  for (const k of [...info.ancestors, key]) {
    for (const f of native.typeInfo(k).fields) names.push(f.name);
  }
  return names;
}

/** The declared type of field `name` in the defined class `Class` or its defined ancestors. */
function declaredField(Class, name) {
  for (let C = Class; C && Object.hasOwn(C, kDefinition); C = Object.getPrototypeOf(C)) {
    const f = C[kDefinition].fields.find((x) => x.name === name);
    if (f) return f;
  }
  return undefined;
}

/** The construction token for `init` (a subclass's token passes through). */
function constructToken(Class, init) {
  if (init instanceof object.Token) return init;
  const { key, index, names } = Class[kDefinition];
  if (init !== undefined && (init === null || typeof init !== 'object' || Array.isArray(init))) {
    throw new TypeError(`new ${Class.name}(fields): fields must be an object of field values`);
  }
  const kwargs = [];
  for (const [name, value] of Object.entries(init ?? {})) {
    if (!names.includes(name)) {
      throw new TypeError(`${key} has no field ${name} (fields: ${names.join(', ')})`);
    }
    if (value === undefined) continue;
    const f = declaredField(Class, name);
    kwargs.push(name, f ? coerce(f.d, value) : value);
  }
  return new object.Token(native.construct(index, kwargs));
}

/**
 * What `name` is on instances (or, `isStatic`, on the class) of `Parent`: 'member' (of the
 * base classes: `dispose`, `typeKey`...), 'field', 'method' (which a new method may override)
 * or undefined.
 */
function inheritedMember(Parent, name, isStatic) {
  for (let p = isStatic ? Parent : Parent.prototype; p !== null; p = Object.getPrototypeOf(p)) {
    const found = Object.getOwnPropertyDescriptor(p, name);
    if (found === undefined) continue;
    if (p === object.FFIObject.prototype || p === object.FFIObject || p === Object.prototype || p === Function.prototype) {
      return 'member';
    }
    return found.get || found.set ? 'field' : 'method';
  }
  return undefined;
}

/** The methods of a definition, normalized: `[{name, fn, params, returns, isStatic, doc}]`. */
function normalizeMethods(key, methods, fields, Parent) {
  if (methods === null || typeof methods !== 'object') throw new TypeError(`${key}: methods must be an object`);
  return Object.entries(methods).map(([name, spec]) => {
    const where = `method ${name} of ${key}`;
    const full = typeof spec === 'function' ? { fn: spec } : spec;
    if (full === null || typeof full !== 'object' || typeof full.fn !== 'function') {
      throw new TypeError(`${where}: expected a function, or {fn, params, returns, static, doc}`);
    }
    for (const option of Object.keys(full)) {
      if (!['fn', 'params', 'returns', 'static', 'doc'].includes(option)) {
        throw new TypeError(`${where}: unknown option ${option} (fn, params, returns, static, doc)`);
      }
    }
    const isStatic = Boolean(full.static);
    const clash = inheritedMember(Parent, name, isStatic);
    if (clash === 'member' || clash === 'field' || (!isStatic && fields.some((f) => f.name === name))) {
      throw new TypeError(`${where}: the name is already ${clash === 'member' ? `a member of ${Parent.name}` : 'a field'}`);
    }
    const params = full.params ?? Array(full.fn.length).fill('Any');
    if (!Array.isArray(params)) throw new TypeError(`${where}: params must be an array of types`);
    return {
      name,
      fn: full.fn,
      isStatic,
      params: params.map((t, i) => descriptor(t, `argument ${i + 1} of ${where}`)),
      returns: descriptor(full.returns ?? 'Any', `the result of ${where}`),
      doc: String(full.doc ?? ''),
    };
  });
}

/**
 * Defines the TVM-FFI object type `key` and returns its class (see docs/node.md and
 * index.d.ts): `spec.extends` (a class made here or a generated class; default `ffi.Object`),
 * `spec.fields` (`{name: type | {type, default, doc}}`), `spec.methods` (`{name: function |
 * {fn, params, returns, static, doc}}`), `spec.readonly` (fields cannot be written) and
 * `spec.structure` (the structural equality kind: 'tree', 'const-tree', 'dag', 'var',
 * 'singleton' or 'none').
 */
function defineClass(key, spec = {}) {
  if (typeof key !== 'string' || key === '') throw new TypeError('defineClass(key, spec): key must be a type key');
  if (spec === null || typeof spec !== 'object') throw new TypeError(`${key}: the spec must be an object`);
  for (const option of Object.keys(spec)) {
    if (!['extends', 'fields', 'methods', 'readonly', 'structure', 'name'].includes(option)) {
      throw new TypeError(`${key}: unknown option ${option} (extends, fields, methods, readonly, structure, name)`);
    }
  }
  const Parent = spec.extends ?? object.FFIObject;
  const parentKey = object.classKey(Parent);
  if (parentKey === undefined) {
    throw new TypeError(`${key}: extends must be a class of a registered type (made by defineClass or generated)`);
  }
  const structure = STRUCTURE_KINDS[spec.structure ?? 'tree'];
  if (structure === undefined) {
    throw new TypeError(`${key}: structure must be one of ${Object.keys(STRUCTURE_KINDS).join(', ')}`);
  }
  const writable = !spec.readonly;
  const fields = normalizeFields(key, spec.fields ?? {}, Parent);
  const className = spec.name ?? key.slice(key.lastIndexOf('.') + 1);
  const Defined = {
    [className]: class extends Parent {
      constructor(init) {
        super(constructToken(Defined, init));
      }
    },
  }[className];
  const methods = normalizeMethods(key, spec.methods ?? {}, fields, Parent);

  const index = native.defineType(
    key,
    parentKey,
    fields.map((f) => ({
      name: f.name,
      doc: f.doc,
      type: f.d,
      writable,
      hasDefault: f.hasDefault,
      default: f.default,
      factory: f.factory,
    })),
    structure,
  );
  const names = allFieldNames(key);
  Object.defineProperty(Defined, kDefinition, { value: { key, index, fields, methods, names } });
  object.registerType(key, Defined);

  const readers = object.fieldGetters(key, fields.map((f) => f.name));
  fields.forEach((f, i) => {
    const read = readers[i];
    Object.defineProperty(Defined.prototype, f.name, {
      get() {
        return read(this);
      },
      set: writable
        ? function (value) {
            object.setField(this, f.name, coerce(f.d, value));
          }
        : undefined,
      configurable: true,
    });
  });
  for (const m of methods) {
    const fn = m.fn;
    Object.defineProperty(m.isStatic ? Defined : Defined.prototype, m.name, {
      value: fn,
      writable: true,
      configurable: true,
    });
    const call = m.isStatic
      ? (...args) => fn.apply(Defined, args)
      : (self, ...args) => fn.apply(self, args);
    native.defineMethod(index, m.name, call, m.params, m.returns, m.isStatic, m.doc);
  }
  Object.defineProperty(Defined.prototype, 'toJSON', {
    value: function toJSON() {
      const out = {};
      for (const name of names) out[name] = this[name];
      return out;
    },
    writable: true,
    configurable: true,
  });
  return Defined;
}

module.exports = { defineClass, types };
