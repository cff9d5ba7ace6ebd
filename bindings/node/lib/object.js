'use strict';
// Objects, classes and functions.
//
// Every TVM-FFI object reaching JavaScript is an instance of the most derived registered class
// of its type (`registerType`), made without running a constructor, one per object while it
// lives (a result whose object has a wrapper is that wrapper). The instance owns one reference,
// released when it is garbage collected or when `dispose()` / `[Symbol.dispose]()` has been
// called once per hand-out (results that returned it, its construction).
// TVM-FFI functions are real JavaScript functions whose prototype is `Function.prototype` of
// this module (so they have `dispose()` too).

const native = require('./addon');

// wrappers.js (what generated wrappers use: errors in the caller's words) needs this module's
// classes: loaded on first use.
let wrappersModule;
function wrappers() {
  return (wrappersModule ??= require('./wrappers'));
}

const kKey = Symbol('ffihub.typeKey');

/** The result of `construct`: a new object waiting for its wrapper (see `Object`). */
class Token {
  constructor(number) {
    this.number = number;
  }
}

const typeKeys = new Map();
const typeIndices = new Map();

/** The type index of a registered type key (looked up once). */
function typeIndexOfKey(key) {
  let index = typeIndices.get(key);
  if (index === undefined) {
    index = native.typeIndex(key);
    typeIndices.set(key, index);
  }
  return index;
}

/** The type key of a type index. */
function typeKeyOfIndex(index) {
  let key = typeKeys.get(index);
  if (key === undefined) {
    key = native.typeInfo(index).key;
    typeKeys.set(index, key);
  }
  return key;
}

// Each wrapper carries the address of its object cell (the native record of the reference it
// owns; see bindings/node/src/object.rs) in a private field, stamped on it once (by the
// constructor or the shell that made it). Field readers pass it to the addon, which costs far
// less than `napi_unwrap`; the addon finds it through `cellOf` when a wrapper is first passed
// to a native function. Private fields cannot be read or forged by other code.
class Stamp {
  constructor(target) {
    return target;
  }
}
class CellSlot extends Stamp {
  #cell;
  constructor(target, cell) {
    super(target);
    this.#cell = cell;
  }
  /** The cell address of a wrapper, else 0. */
  static of(value) {
    return typeof value === 'object' && value !== null && #cell in value ? value.#cell : 0;
  }
}

/** The cell address of a wrapper, else 0 (for the addon). */
function cellOf(value) {
  return CellSlot.of(value);
}

/** Disposes a hand-out of a wrapper (object) or releases a function now (see `dispose()`). */
function disposeValue(value) {
  native.dispose(value);
}

let reprPrint = null;

/** `ffi.ReprPrint` of an object: the type's `__ffi_repr__` hook, else the runtime's default. */
function reprText(object) {
  reprPrint ??= native.getGlobal('ffi.ReprPrint');
  return reprPrint ? reprPrint(object) : `<${object.typeKey}>`;
}

const inspectCustom = Symbol.for('nodejs.util.inspect.custom');

// Per type index: whether the type registers an `__ffi_repr__` hook (its objects then print as
// the library chose, in `util.inspect` too).
const reprHooks = new Map();
function hasReprHook(index) {
  let has = reprHooks.get(index);
  if (has === undefined) {
    has = Boolean(native.typeInfo(index).reprHook);
    reprHooks.set(index, has);
  }
  return has;
}

// The fields of objects, as `[name, read]` pairs: for instances of generated classes the
// getters those classes define (base classes first), else the fields the runtime reflects
// (read by registered name). Cached per prototype, and per type index for the latter.
const fieldsByPrototype = new WeakMap();
const fieldsByType = new Map();

function generatedFields(proto) {
  let fields = fieldsByPrototype.get(proto);
  if (fields === undefined) {
    const chain = [];
    for (let p = proto; p !== null && p !== FFIObject.prototype; p = Object.getPrototypeOf(p)) {
      chain.unshift(p);
    }
    const names = [];
    for (const p of chain) {
      // Builtin classes (tensors, modules) have getters too, but no fields.
      if (!isGeneratedClass(p.constructor)) continue;
      for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(p))) {
        if (d.get !== undefined && !names.includes(name)) names.push(name);
      }
    }
    fields = names.map((name) => [name, (object) => object[name]]);
    fieldsByPrototype.set(proto, fields);
  }
  return fields;
}

function reflectedFields(index) {
  let fields = fieldsByType.get(index);
  if (fields === undefined) {
    const info = native.typeInfo(index);
    const names = [];
    for (const key of [...info.ancestors, info.key]) {
      for (const f of native.typeInfo(key).fields) names.push(f.name);
    }
    fields = names.map((name) => [name, (object) => getField(object, name)]);
    fieldsByType.set(index, fields);
  }
  return fields;
}

function fieldsOf(object) {
  const proto = Object.getPrototypeOf(object);
  if (proto !== FFIObject.prototype) return generatedFields(proto);
  return reflectedFields(native.typeIndexOf(object));
}

// Own fields (opt-in, `setOwnFields`): instances of a class whose prototype chain says so get
// their fields as own enumerable accessors when they are made, so that `Object.keys`, spread
// and deep-equality assertions see them. Off by default: an own accessor costs an
// `Object.defineProperty` per field per object, several times what making the whole wrapper
// costs (ADR 0014).
const kOwnFields = Symbol('ffihub.ownFields');

// Per prototype (generated classes) or type index (others): the `[name, descriptor]` pairs to
// define. The descriptors share the prototype's accessor functions, so every instance of a
// class keeps one hidden class.
const ownFieldsByPrototype = new WeakMap();
const ownFieldsByType = new Map();

function ownFieldDescriptors(object) {
  const proto = Object.getPrototypeOf(object);
  if (proto !== FFIObject.prototype) {
    let own = ownFieldsByPrototype.get(proto);
    if (own === undefined) {
      own = generatedFields(proto).map(([name]) => {
        let p = proto;
        while (!Object.hasOwn(p, name)) p = Object.getPrototypeOf(p);
        const { get, set } = Object.getOwnPropertyDescriptor(p, name);
        // No `set` key for read-only fields: an explicit `set: undefined` makes each
        // definition about twice as slow.
        return [name, set ? { get, set, enumerable: true, configurable: true } : { get, enumerable: true, configurable: true }];
      });
      ownFieldsByPrototype.set(proto, own);
    }
    return own;
  }
  const index = native.typeIndexOf(object);
  let own = ownFieldsByType.get(index);
  if (own === undefined) {
    own = reflectedFields(index).map(([name]) => [
      name,
      {
        get() {
          return getField(this, name);
        },
        set(value) {
          setField(this, name, value);
        },
        enumerable: true,
        configurable: true,
      },
    ]);
    ownFieldsByType.set(index, own);
  }
  return own;
}

function defineOwnFields(object) {
  for (const [name, descriptor] of ownFieldDescriptors(object)) Object.defineProperty(object, name, descriptor);
}

/**
 * Whether objects of `Class` and its subclasses made from now on carry their fields as own
 * enumerable properties (`Object.keys`, `{...object}`, `Object.entries` list them);
 * `setOwnFields(ffi.Object)` sets it for every object type. The nearest class with a setting
 * decides (`setOwnFields(Point, false)` keeps points out of `setOwnFields(ffi.Object)`). Off by
 * default (ADR 0014).
 */
function setOwnFields(Class, enabled = true) {
  if (classKey(Class) === undefined) {
    throw new TypeError('setOwnFields(Class, enabled): Class must be ffi.Object or a registered class');
  }
  Object.defineProperty(Class.prototype, kOwnFields, { value: Boolean(enabled), configurable: true });
}

/** The base class of every TVM-FFI object. */
class FFIObject {
  /** @param {Token} token what `construct` returned (generated constructors pass it on). */
  constructor(token) {
    if (!(token instanceof Token)) {
      throw new TypeError(`${new.target.name} has no constructor; TVM-FFI objects come from functions`);
    }
    new CellSlot(this, native.adopt(this, token.number));
    if (this[kOwnFields]) defineOwnFields(this);
  }

  /** The registered type key of the object's type (`demo.Point`). */
  get typeKey() {
    return typeKeyOfIndex(native.typeIndexOf(this));
  }

  /** The runtime's index of the object's type. */
  get typeIndex() {
    return native.typeIndexOf(this);
  }

  /**
   * Gives back one hand-out of the wrapper (a result that returned it, or its construction):
   * the last releases the object now (otherwise the garbage collector does) and makes the
   * wrapper unusable; calls after that do nothing.
   */
  dispose() {
    disposeValue(this);
  }

  [Symbol.dispose]() {
    disposeValue(this);
  }

  /** Whether `other` wraps the same object. */
  same(other) {
    return native.same(this, other);
  }

  /**
   * The object's text: `ffi.ReprPrint` (the type's `__ffi_repr__` hook when it has one), or
   * what the type's `__str__` / `to_string` method returns (generated classes).
   */
  toString() {
    if (native.typeIndexOf(this) < 0) return `<disposed ${this.constructor.name}>`;
    return reprText(this);
  }

  /** The fields, in a plain object (what `JSON.stringify` writes). */
  toJSON() {
    const out = {};
    for (const [name, read] of fieldsOf(this)) out[name] = read(this);
    return out;
  }

  /**
   * `util.inspect` (`console.log`): the text of the type's `__ffi_repr__` hook when it has one,
   * else the class and its fields, like a JavaScript object's (`Point { x: 1, y: 2 }`).
   */
  [inspectCustom](depth, options, inspect) {
    const index = native.typeIndexOf(this);
    if (index < 0) return options.stylize(`<disposed ${this.constructor.name}>`, 'special');
    if (hasReprHook(index)) return reprText(this);
    const name = Object.getPrototypeOf(this) === FFIObject.prototype ? this.typeKey : this.constructor.name;
    if (depth < 0) return options.stylize(`[${name}]`, 'special');
    const fields = {};
    for (const [field, read] of fieldsOf(this)) {
      try {
        fields[field] = read(this);
      } catch (e) {
        fields[field] = new Unreadable(e);
      }
    }
    return `${name} ${inspect(fields, atLevel(options, depth))}`;
  }
}

/**
 * The options of `util.inspect` for values shown at the level of the object a custom inspector
 * prints (its fields or elements): `options.depth` is the depth of the whole call, `depth` what
 * is left at this level.
 */
function atLevel(options, depth) {
  return { ...options, depth };
}

/** A field whose reading threw, as `util.inspect` shows it. */
class Unreadable {
  constructor(error) {
    this.error = error;
  }

  [inspectCustom](depth, options) {
    return options.stylize(`<unreadable: ${this.error && this.error.message}>`, 'special');
  }
}
Object.defineProperty(FFIObject, 'name', { value: 'Object' });
Object.defineProperty(FFIObject.prototype, kOwnFields, { value: false, configurable: true });

/**
 * A shell: instances get `Class.prototype` without running `Class`'s constructor (the addon
 * passes the cell's address).
 */
function shellOf(Class) {
  const shell = function (cell) {
    new CellSlot(this, cell);
    if (this[kOwnFields]) defineOwnFields(this);
  };
  shell.prototype = Class.prototype;
  return shell;
}

/**
 * Registers `Class` for the type `key` (and its unregistered subtypes) and returns the type's
 * own methods as callables keyed by registered name.
 */
function registerType(key, Class) {
  const index = native.typeIndex(key);
  native.setClass(index, shellOf(Class));
  Object.defineProperty(Class, kKey, { value: key });
  const methods = native.typeMethods(index);
  // Methods take the receiver first, and often objects after it (static methods too): their
  // cells go in the scratch.
  for (const name of Object.keys(methods)) methods[name] = withCells(methods[name], 15);
  return methods;
}

/** The type key `Class` was registered for (`ffi.Object` for the base class), or undefined. */
function classKey(Class) {
  if (Class === FFIObject) return 'ffi.Object';
  return typeof Class === 'function' && Object.hasOwn(Class, kKey) ? Class[kKey] : undefined;
}

/** Whether `Class` is a generated class (one `registerType` registered). */
function isGeneratedClass(Class) {
  return Object.prototype.hasOwnProperty.call(Class, kKey);
}

/** Registers a builtin class for a fixed type index. */
function registerBuiltin(index, Class) {
  native.setClass(index, shellOf(Class));
}

/**
 * Creates an object of type `key` with its `__ffi_init__` (called by generated constructors).
 * `args` are the constructor's arguments: one per entry of `coercions` (a coercion such as
 * `toDevice`, or null), then an options object whose keys `keywords` maps to field names (no
 * other key is taken). Trailing `undefined` positional arguments are left out, so parameters
 * with defaults get them. The token of a subclass's construction passes through. `info`
 * describes the constructor for its errors (a `CallInfo` of `wrappers.js`: they are in the
 * caller's words).
 */
function construct(key, args, coercions, keywords, info) {
  if (args.length > 0 && args[0] instanceof Token) return args[0];
  try {
    wrappers().checkCount(info, args);
    let n = Math.min(args.length, coercions.length);
    while (n > 0 && args[n - 1] === undefined) n--;
    const values = new Array(n);
    for (let i = 0; i < n; i++) {
      const coerce = coercions[i];
      values[i] = coerce ? coerce(args[i]) : args[i];
    }
    let kwargs = null;
    if (keywords) {
      const given = wrappers().options(args[coercions.length], info[0], Object.keys(keywords), []);
      for (const [js, field] of Object.entries(keywords)) {
        if (given[js] !== undefined) (kwargs ??= []).push(field, given[js]);
      }
    }
    return new Token(constructWith(typeIndexOfKey(key), kwargs, values));
  } catch (e) {
    throw wrappers().constructorError(e, info, args);
  }
}

/**
 * The object a constructor that is a global function makes (ADR 0019): `members` lists each
 * one's fewest and most arguments and its binding; the first whose range holds `args.length`
 * makes it; a call without arguments takes the class's own constructor when it has one
 * (`hasOwn`). Without a match: `undefined` when the class has its own constructor, else
 * the last one is called (its error names the counts it takes). A subclass's token passes.
 */
function constructByMember(args, members, hasOwn) {
  if (args.length > 0 && args[0] instanceof Token) return undefined;
  // No arguments: the class's own constructor and its defaults.
  if (hasOwn && args.length === 0) return undefined;
  for (const [min, max, make] of members) {
    if (args.length >= min && args.length <= max) return make(...args);
  }
  return hasOwn ? undefined : members[members.length - 1][2](...args);
}

/**
 * Creates an object of type `key` with its typed `__ffi_init__`, which takes every argument by
 * position, when the generated constructor offers some by name or fills in defaults: `arrange`
 * (generated) makes the positional arguments from the constructor's `args`. The token of a
 * subclass's construction passes through; `info` as for `construct`.
 */
function constructArranged(key, args, arrange, info) {
  if (args.length > 0 && args[0] instanceof Token) return args[0];
  try {
    wrappers().checkCount(info, args);
    return new Token(constructWith(typeIndexOfKey(key), null, arrange(...args)));
  } catch (e) {
    throw wrappers().constructorError(e, info, args);
  }
}

/** `native.construct` with the positional `values`: spread only beyond 4 (a spread call costs
 * more than the rest of `construct`). */
function constructWith(index, kwargs, values) {
  switch (values.length) {
    case 0:
      return native.construct(index, kwargs);
    case 1:
      return native.construct(index, kwargs, values[0]);
    case 2:
      return native.construct(index, kwargs, values[0], values[1]);
    case 3:
      return native.construct(index, kwargs, values[0], values[1], values[2]);
    case 4:
      return native.construct(index, kwargs, values[0], values[1], values[2], values[3]);
    default:
      return native.construct(index, kwargs, ...values);
  }
}

// Field names are resolved to small ids once: the addon then finds a field's accessor by
// (id, type index) without copying or hashing the name on every access.
const fieldIds = new Map();
function fieldId(name) {
  let id = fieldIds.get(name);
  if (id === undefined) {
    id = native.fieldId(name);
    fieldIds.set(name, id);
  }
  return id;
}

/**
 * The readers of fields `names` of type `key`, resolved once (generated getters call them with
 * the receiver): `fieldGetters('demo.Point', ['x', 'y'])[0](point)` is `point.x`.
 */
function fieldGetters(key, names) {
  const readers = native.fieldGetters(typeIndexOfKey(key), names, fieldScratch);
  return readers.map((read) => (object) => {
    // Stored only when it changes: a store here, still in flight when the call's own stack
    // accesses run, slows every read by ~15% in processes where it shares its page offset with
    // one of them (4K aliasing), and fields of one object are often read in a row.
    const cell = CellSlot.of(object);
    if (fieldScratch[1] !== cell) fieldScratch[1] = cell;
    const value = read();
    return value === undefined ? fieldScratch[0] : value;
  });
}
// What readers exchange with the addon, in memory both sides read without a Node-API call:
// [1] the receiver's cell address, [0] the number read (the reader then returns `undefined`,
// which no field holds). Making and reading JavaScript values in the addon costs more than the
// rest of a read. Its own ArrayBuffer, so that the memory never moves; the addon takes only the
// first one it is given, this one, and makes readers only for the code that holds it (this
// module, whose readers always put their receiver's cell in [1] first).
//
// [2..7] carry the cells of a call's object arguments (`withCells`): without them the addon
// finds an argument's cell with `napi_unwrap`, which costs more than the rest of the call.
const fieldScratch = new Float64Array(new ArrayBuffer(64));
native.setFieldScratch(fieldScratch);

/**
 * A function calling the native TVM-FFI function `f` (only such: the addon clears what this
 * writes when the call starts) with the cells of its first four arguments whose bits `mask`
 * sets put in the scratch first: `[2]` says which and for how many arguments, `[3 + i]` holds
 * argument i's cell (0 for values that are not wrappers). The addon takes an argument's object
 * from there instead of looking its cell up.
 */
function withCells(f, mask) {
  const s = fieldScratch;
  const call = (n, a, b, c, d) => {
    switch (n) {
      case 1:
        s[3] = CellSlot.of(a);
        s[2] = 16 + (mask & 1);
        return f(a);
      case 2:
        if (mask & 1) s[3] = CellSlot.of(a);
        if (mask & 2) s[4] = CellSlot.of(b);
        s[2] = 32 + (mask & 3);
        return f(a, b);
      case 3:
        if (mask & 1) s[3] = CellSlot.of(a);
        if (mask & 2) s[4] = CellSlot.of(b);
        if (mask & 4) s[5] = CellSlot.of(c);
        s[2] = 48 + (mask & 7);
        return f(a, b, c);
      default:
        if (mask & 1) s[3] = CellSlot.of(a);
        if (mask & 2) s[4] = CellSlot.of(b);
        if (mask & 4) s[5] = CellSlot.of(c);
        if (mask & 8) s[6] = CellSlot.of(d);
        s[2] = 64 + (mask & 15);
        return f(a, b, c, d);
    }
  };
  return function (a, b, c, d) {
    const n = arguments.length;
    if (n === 0 || n > 4) return f(...arguments);
    try {
      return call(n, a, b, c, d);
    } finally {
      // The addon clears it when the call starts; this covers a call that failed before.
      s[2] = 0;
    }
  };
}

/** Reads a field (by its registered name). */
function getField(object, name) {
  return native.getFieldById(object, fieldId(name));
}

/** Writes a writable field (by its registered name). */
function setField(object, name, value) {
  native.setFieldById(object, fieldId(name), value);
}

// --- functions ---------------------------------------------------------------------------

const FunctionPrototype = Object.create(globalThis.Function.prototype, {
  dispose: {
    value: function dispose() {
      native.dispose(this);
    },
  },
  [Symbol.dispose]: {
    value: function () {
      native.dispose(this);
    },
  },
  typeKey: {
    get() {
      return 'ffi.Function';
    },
  },
  same: {
    value: function same(other) {
      return native.same(this, other);
    },
  },
});

/**
 * `ffi.Function(fn)`: the TVM-FFI function of a JavaScript function, made once (to pass it
 * many times, register it, or dispose it). TVM-FFI functions pass through.
 */
function FFIFunction(fn) {
  return native.toFunction(fn);
}
FFIFunction.prototype = FunctionPrototype;
Object.defineProperty(FunctionPrototype, 'constructor', { value: FFIFunction });

/** The global function `name`, or `null`. */
function getGlobal(name) {
  return native.getGlobal(name);
}

/** The global function `name`; throws if it is not registered. */
function requireGlobal(name) {
  const f = native.getGlobal(name);
  if (f === null) {
    throw new Error(`the global function \`${name}\` is not registered (is its library loaded?)`);
  }
  return f;
}

/**
 * Marks the function `f` that a generated wrapper looked up for itself (and keeps private): it
 * returns `undefined` for None, which the wrapper turns into `null` (`?? null`). That saves a
 * Node-API call, a sizable part of a call that does nothing. Returns `f`, or with `objectArgs`
 * (a bit per parameter among the first four that may be an object) a function passing their
 * cells (`withCells`).
 */
function generatedFunction(f, objectArgs = 0) {
  native.noneAsUndefined(f);
  return objectArgs ? withCells(f, objectArgs) : f;
}

/** Registers a JavaScript (or TVM-FFI) function as the global `name`. */
function registerGlobal(name, fn, options) {
  native.registerGlobal(name, fn, Boolean(options && options.override));
}

let listNames = null;

/** The names of every registered global function. */
function listGlobals() {
  listNames ??= requireGlobal('ffi.FunctionListGlobalNamesFunctor');
  const functor = listNames();
  try {
    const n = functor(-1);
    const out = [];
    for (let i = 0; i < n; i++) out.push(functor(i));
    return out;
  } finally {
    functor.dispose();
  }
}

/** Runs a TVM-FFI function on a pool thread; resolves with its result. */
function callAsync(fn, ...args) {
  return native.callAsync(fn, ...args);
}

module.exports = {
  atLevel,
  Token,
  FFIObject,
  FunctionPrototype,
  FFIFunction,
  registerType,
  classKey,
  isGeneratedClass,
  registerBuiltin,
  construct,
  constructArranged,
  constructByMember,
  fieldGetters,
  getField,
  setField,
  setOwnFields,
  disposeValue,
  cellOf,
  getGlobal,
  requireGlobal,
  generatedFunction,
  registerGlobal,
  listGlobals,
  callAsync,
  typeKeyOfIndex,
};
