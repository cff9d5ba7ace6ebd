'use strict';
// Objects, classes and functions.
//
// Every TVM-FFI object reaching JavaScript is an instance of the most derived registered class
// of its type (`registerType`), made without running a constructor. The instance owns one
// reference, released when it is garbage collected or by `dispose()` / `[Symbol.dispose]()`.
// TVM-FFI functions are real JavaScript functions whose prototype is `Function.prototype` of
// this module (so they have `dispose()` too).

const native = require('./addon');
const errors = require('./errors');

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

/** Releases any wrapper (object or function) now; idempotent. */
function disposeValue(value) {
  native.dispose(value);
}

let reprPrint = null;

/** The base class of every TVM-FFI object. */
class FFIObject {
  /** @param {Token} token what `construct` returned (generated constructors pass it on). */
  constructor(token) {
    if (!(token instanceof Token)) {
      throw new TypeError(`${new.target.name} has no constructor; TVM-FFI objects come from functions`);
    }
    new CellSlot(this, native.adopt(this, token.number));
  }

  /** The registered type key of the object's type (`demo.Point`). */
  get typeKey() {
    return typeKeyOfIndex(native.typeIndexOf(this));
  }

  /** The runtime's index of the object's type. */
  get typeIndex() {
    return native.typeIndexOf(this);
  }

  /** Releases the object now (otherwise the garbage collector does). Idempotent. */
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

  /** `ffi.ReprPrint` of the object. */
  toString() {
    if (native.typeIndexOf(this) < 0) return `<disposed ${this.constructor.name}>`;
    reprPrint ??= native.getGlobal('ffi.ReprPrint');
    return reprPrint ? reprPrint(this) : `<${this.typeKey}>`;
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `${this.constructor.name} ${this.toString()}`;
  }
}
Object.defineProperty(FFIObject, 'name', { value: 'Object' });

/**
 * A shell: instances get `Class.prototype` without running `Class`'s constructor (the addon
 * passes the cell's address).
 */
function shellOf(Class) {
  const shell = function (cell) {
    new CellSlot(this, cell);
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
  return native.typeMethods(index);
}

/** The type key `Class` was registered for (`ffi.Object` for the base class), or undefined. */
function classKey(Class) {
  if (Class === FFIObject) return 'ffi.Object';
  return typeof Class === 'function' && Object.hasOwn(Class, kKey) ? Class[kKey] : undefined;
}

/** Registers a builtin class for a fixed type index. */
function registerBuiltin(index, Class) {
  native.setClass(index, shellOf(Class));
}

/**
 * Creates an object of type `key` with its `__ffi_init__` (called by generated constructors).
 * `args` are the constructor's arguments: one per entry of `coercions` (a coercion such as
 * `toDevice`, or null), then an options object whose keys `keywords` maps to field names.
 * Trailing `undefined` positional arguments are left out, so parameters with defaults get them.
 * The token of a subclass's construction passes through.
 */
function construct(key, args, coercions, keywords) {
  if (args.length > 0 && args[0] instanceof Token) return args[0];
  let n = Math.min(args.length, coercions.length);
  while (n > 0 && args[n - 1] === undefined) n--;
  const values = new Array(n);
  for (let i = 0; i < n; i++) {
    const coerce = coercions[i];
    values[i] = coerce ? coerce(args[i]) : args[i];
  }
  let kwargs = null;
  if (keywords) {
    const given = errors.options(args[coercions.length], `new ${key}`, Object.keys(keywords), []);
    for (const [js, field] of Object.entries(keywords)) {
      if (given[js] !== undefined) (kwargs ??= []).push(field, given[js]);
    }
  }
  return new Token(constructWith(typeIndexOfKey(key), kwargs, values));
}

/**
 * Creates an object of type `key` with its typed `__ffi_init__`, which takes every argument by
 * position, when the generated constructor offers some by name or fills in defaults: `arrange`
 * (generated) makes the positional arguments from the constructor's `args`. The token of a
 * subclass's construction passes through.
 */
function constructArranged(key, args, arrange) {
  if (args.length > 0 && args[0] instanceof Token) return args[0];
  return new Token(constructWith(typeIndexOfKey(key), null, arrange(...args)));
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
const fieldScratch = new Float64Array(new ArrayBuffer(16));
native.setFieldScratch(fieldScratch);

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
 * Node-API call, a sizable part of a call that does nothing. Returns `f`.
 */
function generatedFunction(f) {
  return native.noneAsUndefined(f);
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
  Token,
  FFIObject,
  FunctionPrototype,
  FFIFunction,
  registerType,
  classKey,
  registerBuiltin,
  construct,
  constructArranged,
  fieldGetters,
  getField,
  setField,
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
