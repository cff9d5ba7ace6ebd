'use strict';
// Containers: Array and List (iterable, `length`, `at(i)` and `x[i]`), Map and Dict (Map-like:
// `get`, `has`, `size`, iteration in insertion order), Shape. Arrays read the runtime's
// sequence cells directly; maps go through the runtime's `ffi.Map*` / `ffi.Dict*` functions.

const native = require('./addon');
const { FFIObject, requireGlobal, atLevel } = require('./object');

const inspectCustom = Symbol.for('nodejs.util.inspect.custom');

/**
 * `text` (what `util.inspect` wrote for the first elements of a container, ending with
 * `close`) with Node's `... N more items` for the `count` elements left out.
 */
function withMoreItems(text, count, close) {
  const more = `... ${count} more item${count > 1 ? 's' : ''}`;
  const end = /(\s*)[\]}]$/.exec(text);
  if (end.index <= 1) return `${text[0]} ${more} ${close}`;
  const body = text.slice(0, end.index);
  return end[1].includes('\n') ? `${body},\n  ${more}\n${close}` : `${body}, ${more} ${close}`;
}

/**
 * `util.inspect` of a sequence of `length` elements (`at(i)` reads one): like a JavaScript
 * array's, after the class name and length (`Array(3) [ 1, 2, 3 ]`); elements beyond
 * `maxArrayLength` are not read.
 */
function inspectSequence(self, length, at, depth, options, inspect) {
  const name = `${self.constructor.name}(${length})`;
  if (depth < 0) return options.stylize(`[${name}]`, 'special');
  const shown = [];
  for (let i = 0; i < Math.min(length, maxItems(options)); i++) shown.push(at(i));
  const text = inspect(shown, atLevel(options, depth));
  return `${name} ${shown.length < length ? withMoreItems(text, length - shown.length, ']') : text}`;
}

function maxItems(options) {
  return Math.max(0, options.maxArrayLength ?? 100);
}

const INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * Makes `x[i]` read (and, with `set`, write) elements of `Class`'s instances: a proxy placed
 * in the prototype chain, reached only for property names the classes do not define.
 */
function indexable(Class, get, set) {
  const base = Object.getPrototypeOf(Class.prototype);
  const proxy = new Proxy(base, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && INDEX.test(prop)) return get(receiver, Number(prop));
      return Reflect.get(target, prop, receiver);
    },
    has(target, prop) {
      return Reflect.has(target, prop);
    },
    set(target, prop, value, receiver) {
      if (set && typeof prop === 'string' && INDEX.test(prop)) {
        set(receiver, Number(prop), value);
        return true;
      }
      return Reflect.set(target, prop, value, receiver);
    },
  });
  Object.setPrototypeOf(Class.prototype, proxy);
}

const lazy = {};
function global(name) {
  return (lazy[name] ??= requireGlobal(name));
}

/** Read-only operations shared by Array and List. */
class Sequence extends FFIObject {
  /** Number of elements. */
  get length() {
    return native.seqSize(this);
  }

  /** Element `i` (negative counts from the end); `undefined` out of range. */
  at(i) {
    return native.seqGet(this, i);
  }

  /** Every element, in a JavaScript array. */
  toArray() {
    return native.seqToArray(this);
  }

  *[Symbol.iterator]() {
    const n = native.seqSize(this);
    for (let i = 0; i < n; i++) yield native.seqGet(this, i);
  }

  /** `Array.prototype.map` over the elements. */
  map(fn) {
    return this.toArray().map(fn);
  }

  /** `Array.prototype.forEach` over the elements. */
  forEach(fn) {
    this.toArray().forEach(fn);
  }

  toJSON() {
    return this.toArray();
  }

  [inspectCustom](depth, options, inspect) {
    return inspectSequence(this, this.length, (i) => this.at(i), depth, options, inspect);
  }
}

/** `ffi.Array`: an immutable sequence. */
class FFIArray extends Sequence {}
Object.defineProperty(FFIArray, 'name', { value: 'Array' });

/** `ffi.List`: a mutable sequence. */
class List extends Sequence {
  /** Appends values; returns the new length. */
  push(...values) {
    for (const v of values) global('ffi.ListAppend')(this, v);
    return this.length;
  }

  /** Sets element `i` (negative counts from the end). */
  set(i, value) {
    global('ffi.ListSetItem')(this, i < 0 ? i + this.length : i, value);
  }

  /** Inserts `value` before element `i`. */
  insert(i, value) {
    global('ffi.ListInsert')(this, i, value);
  }

  /** Removes and returns element `i` (default: the last). */
  pop(i = -1) {
    return global('ffi.ListPop')(this, i < 0 ? i + this.length : i);
  }

  /** Removes element `i`. */
  removeAt(i) {
    global('ffi.ListErase')(this, i < 0 ? i + this.length : i);
  }

  /** Removes every element. */
  clear() {
    global('ffi.ListClear')(this);
  }

  /** Reverses the list in place. */
  reverse() {
    global('ffi.ListReverse')(this);
    return this;
  }
}

indexable(
  Sequence,
  (self, i) => native.seqGet(self, i),
  (self, i, v) => {
    if (!(self instanceof List)) throw new TypeError('ffi.Array is immutable');
    self.set(i, v);
  },
);

let missing = null;
function isMissing(value) {
  if (!(value instanceof FFIObject)) return false;
  missing ??= global('ffi.GetInvalidObject')();
  return native.same(value, missing);
}

/** Operations shared by Map and Dict; `prefix` names the runtime functions. */
class MapBase extends FFIObject {
  /** Number of entries. */
  get size() {
    return global(`${this.constructor.prefix}Size`)(this);
  }

  /** The value of `key`, or `undefined`. */
  get(key) {
    const v = global(`${this.constructor.prefix}GetItemOrMissing`)(this, key);
    if (isMissing(v)) {
      v.dispose();
      return undefined;
    }
    return v;
  }

  /** Whether `key` is present. */
  has(key) {
    return global(`${this.constructor.prefix}Count`)(this, key) > 0;
  }

  /** `[key, value]` pairs in insertion order. */
  *entries() {
    const n = this.size;
    if (n === 0) return;
    const next = global(`${this.constructor.prefix}ForwardIterFunctor`)(this);
    try {
      for (let i = 0; i < n; i++) {
        yield [next(0), next(1)];
        if (!next(2)) break;
      }
    } finally {
      next.dispose();
    }
  }

  *keys() {
    for (const [k] of this.entries()) yield k;
  }

  *values() {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator]() {
    return this.entries();
  }

  forEach(fn) {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }

  /** The entries in a JavaScript Map. */
  toMap() {
    return new Map(this.entries());
  }

  /** The entries in a plain object (keys converted with `String`). */
  toObject() {
    const out = {};
    for (const [k, v] of this.entries()) out[String(k)] = v;
    return out;
  }

  toJSON() {
    return this.toObject();
  }

  /**
   * `util.inspect`: like a JavaScript Map's, after the class name and size
   * (`Map(2) { 'a' => 1, 'b' => 2 }`); entries beyond `maxArrayLength` are not read.
   */
  [inspectCustom](depth, options, inspect) {
    const size = this.size;
    const name = `${this.constructor.name}(${size})`;
    if (depth < 0) return options.stylize(`[${name}]`, 'special');
    const max = maxItems(options);
    const shown = new Map();
    if (max > 0) {
      for (const [k, v] of this.entries()) {
        shown.set(k, v);
        if (shown.size >= max) break;
      }
    }
    // Node writes `Map(n) { ... }`: keep the braces, with this class's name before them.
    const text = inspect(shown, atLevel(options, depth)).replace(/^Map\(\d+\) /, '');
    return `${name} ${shown.size < size ? withMoreItems(text, size - shown.size, '}') : text}`;
  }
}

/** `ffi.Map`: an immutable map. */
class FFIMap extends MapBase {}
Object.defineProperty(FFIMap, 'name', { value: 'Map' });
FFIMap.prefix = 'ffi.Map';

/** `ffi.Dict`: a mutable map. */
class Dict extends MapBase {
  /** Sets `key` to `value`; returns the dict. */
  set(key, value) {
    global('ffi.DictSetItem')(this, key, value);
    return this;
  }

  /** Removes `key`; returns whether it was present. */
  delete(key) {
    if (!this.has(key)) return false;
    global('ffi.DictErase')(this, key);
    return true;
  }

  /** Removes every entry. */
  clear() {
    global('ffi.DictClear')(this);
  }
}
Dict.prefix = 'ffi.Dict';

const kDims = Symbol('ffihub.dims');

/** `ffi.Shape`: immutable extents. */
class Shape extends FFIObject {
  /** The extents, in a JavaScript array. */
  toArray() {
    return (this[kDims] ??= native.shapeToArray(this)).slice();
  }

  get length() {
    return (this[kDims] ??= native.shapeToArray(this)).length;
  }

  at(i) {
    return (this[kDims] ??= native.shapeToArray(this)).at(i);
  }

  [Symbol.iterator]() {
    return this.toArray()[Symbol.iterator]();
  }

  toJSON() {
    return this.toArray();
  }

  [inspectCustom](depth, options, inspect) {
    return inspectSequence(this, this.length, (i) => this.at(i), depth, options, inspect);
  }
}

indexable(Shape, (self, i) => self.at(i));

/** Builds containers: `ffi.array([..])`, `ffi.list([..])`, `ffi.map(m)`, `ffi.dict(m)`, `ffi.shape([..])`. */
function array(values) {
  return global('ffi.Array')(...values);
}

function list(values = []) {
  return global('ffi.List')(...values);
}

function flatten(entries) {
  const flat = [];
  const it = entries instanceof Map || entries instanceof MapBase ? entries : Object.entries(entries);
  for (const [k, v] of it) flat.push(k, v);
  return flat;
}

function map(entries = {}) {
  return global('ffi.Map')(...flatten(entries));
}

function dict(entries = {}) {
  return global('ffi.Dict')(...flatten(entries));
}

function shape(dims) {
  return global('ffi.Shape')(...dims);
}

/** Coercions used by generated code for typed parameters (null and undefined pass through). */
function toShape(x) {
  if (x === null || x === undefined || x instanceof Shape) return x;
  return shape(x);
}

function toList(x) {
  if (x === null || x === undefined || x instanceof List) return x;
  return list(x);
}

function toDict(x) {
  if (x === null || x === undefined || x instanceof Dict) return x;
  return dict(x);
}

/** `[k0, v0, k1, v1, ...]` of a JavaScript Map (called by the addon). */
function flattenMap(m) {
  return flatten(m);
}

/**
 * The numbers of an array packed into a Float64Array, or null if an element is not a number
 * (the addon then converts element by element). A JIT-compiled loop here costs far less than
 * one Node-API call per element.
 */
function packNumbers(array) {
  const n = array.length;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = array[i];
    if (typeof x !== 'number') return null;
    out[i] = x;
  }
  return out;
}

module.exports = {
  Sequence,
  FFIArray,
  List,
  MapBase,
  FFIMap,
  Dict,
  Shape,
  array,
  list,
  map,
  dict,
  shape,
  toShape,
  toList,
  toDict,
  flattenMap,
  packNumbers,
};
