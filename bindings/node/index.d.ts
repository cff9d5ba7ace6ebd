// Types of @ffihub/tvm-ffi, the support package of ffihub's generated Node packages.
// Needs TypeScript 5.2+; no extra `lib` entry: `Symbol.dispose` is declared below when the
// configured libraries lack it (Node 20 has it at run time).

declare global {
  interface SymbolConstructor {
    /** `Symbol.dispose` (also declared by TypeScript's `esnext.disposable` library). */
    readonly dispose: unique symbol;
  }
}

// ---------------------------------------------------------------------------------------------
// Inputs: what converts to TVM-FFI values
// ---------------------------------------------------------------------------------------------

/** Any TypedArray (all but Uint8Array cross as zero-copy 1-D tensors; Uint8Array as bytes). */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** What a `Tensor` parameter accepts: a tensor, or a TypedArray (viewed without a copy). */
export type TensorLike = Tensor | TypedArray;
/** What a `Shape` parameter accepts. */
export type ShapeLike = Shape | ReadonlyArray<number | bigint>;
/** What a `DataType` parameter accepts: a DataType or its name (`"float32"`). */
export type DataTypeLike = DataType | string;
/** What a `Device` parameter accepts: a Device or its name (`"cpu"`, `"cuda:1"`). */
export type DeviceLike = Device | string;
/** What a bytes parameter accepts (copied). */
export type BytesLike = Uint8Array | ArrayBuffer | DataView;
/** What an array (or list) parameter accepts: a JavaScript array or a TVM-FFI sequence. */
export type ArrayLike<T> = ReadonlyArray<T> | Sequence<T>;
/**
 * What a map (or dict) parameter accepts: a JavaScript Map, a TVM-FFI map, or (for string
 * keys) a plain object.
 */
export type MapLike<K, V> =
  | ReadonlyMap<K, V>
  | MapBase<K, V>
  | (string extends K ? { readonly [key: string]: V } : never);
/** Any JavaScript function (converted to a TVM-FFI function when passed to native code). */
export type AnyFunction = (...args: any[]) => unknown;

// ---------------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------------

/** What `construct` returns; generated constructors pass it to `super`. */
export declare class Token {
  private constructor();
  private readonly external: unknown;
}

/**
 * The base class of every TVM-FFI object. An object has one instance while it lives (a result
 * whose object has one is that instance), which owns one reference to the object, released
 * when it is garbage collected, or now once `dispose()` / `using` has been called for each
 * hand-out (each result that returned it, and its construction).
 */
declare class FFIObject {
  protected constructor(token: Token);
  /** The registered type key of the object's type (`demo.Point`). */
  readonly typeKey: string;
  /** The runtime's index of the object's type. */
  readonly typeIndex: number;
  /**
   * Gives back one hand-out; the last releases the object now (otherwise the garbage collector
   * does) and makes the wrapper unusable. Calls after that do nothing.
   */
  dispose(): void;
  [Symbol.dispose](): void;
  /** Whether `other` wraps the same object. */
  same(other: unknown): boolean;
  /**
   * The object's text: `ffi.ReprPrint` (the type's `__ffi_repr__` hook when it has one), or
   * what the type's `__str__` / `to_string` method returns (generated classes).
   */
  toString(): string;
  /**
   * The fields in a plain object (what `JSON.stringify` writes). `util.inspect` shows them too
   * (`Point { x: 1, y: 2 }`), or the text of the type's `__ffi_repr__` hook.
   */
  toJSON(): object;
}
export { FFIObject as Object };

/**
 * Registers a class for the type `key` (results of that type, and of its unregistered
 * subtypes, are instances of it) and returns the type's own methods keyed by registered name.
 */
export declare function registerType(
  key: string,
  Class: abstract new (...args: any[]) => FFIObject,
): { readonly [method: string]: (...args: any[]) => any };

// Object types defined in JavaScript (`defineClass`, `types`): lib/define.d.ts.
export * from './lib/define';

/**
 * Creates an object with its `__ffi_init__`: `args` are a generated constructor's arguments,
 * one per entry of `coercions`, then an options object whose keys `keywords` maps to field
 * names; `info` describes the constructor for its errors (see `callError`).
 */
export declare function construct(
  key: string,
  args: readonly unknown[],
  coercions: ReadonlyArray<((value: any) => unknown) | null>,
  keywords: { readonly [option: string]: string } | null,
  info: CallInfo,
): Token;

/**
 * Creates an object with its typed `__ffi_init__` (every argument by position) when a
 * generated constructor offers some by name or fills in defaults: `arrange` makes the
 * positional arguments from the constructor's `args`; `info` as for `construct`.
 */
export declare function constructArranged(
  key: string,
  args: readonly unknown[],
  arrange: (...args: any[]) => readonly unknown[],
  info: CallInfo,
): Token;

/**
 * The object a constructor that is a global function makes (generated constructors of classes
 * whose library's Python API constructs them through globals): `members` lists each one's fewest
 * and most arguments and its binding; the first whose range holds `args.length` makes it.
 * `undefined` when the class's own constructor is to run instead (no arguments and `hasOwn`, no
 * match and `hasOwn`, or a subclass's token).
 */
export declare function constructByMember(
  args: readonly unknown[],
  members: ReadonlyArray<readonly [number, number, (...args: any[]) => unknown]>,
  hasOwn: boolean,
): unknown;

/** The readers of fields `names` of type `key`, resolved once (generated getters use them). */
export declare function fieldGetters(key: string, names: readonly string[]): Array<(object: FFIObject) => unknown>;
/** Reads a field by its registered name. */
export declare function getField(object: FFIObject, name: string): unknown;
/** Writes a writable field by its registered name. */
export declare function setField(object: FFIObject, name: string, value: unknown): void;
/**
 * Whether objects of `Class` and its subclasses made from now on carry their fields as own
 * enumerable properties, so that `Object.keys`, `{...object}` and `Object.entries` list them
 * (`setOwnFields(ffi.Object)`: every object type; the nearest class with a setting decides).
 * Off by default: it costs about 100 ns per field per object made (fields are otherwise
 * getters on the class's prototype, as for any JavaScript class with getters).
 */
export declare function setOwnFields(Class: abstract new (...args: any[]) => FFIObject, enabled?: boolean): void;
/** `value.dispose()` for an object (one hand-out) or a function (released now). */
export declare function dispose(value: FFIObject | Function): void;
/** Whether two wrappers (objects, functions or errors) hold the same object. */
export declare function same(a: unknown, b: unknown): boolean;
/** The strong reference count of the object behind a wrapper (for tests). */
export declare function refCount(value: FFIObject | Function): number;

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

/** What TVM-FFI functions have besides being callable. */
export interface FunctionMethods {
  /** Releases the function now. Idempotent; calling it afterwards throws. */
  dispose(): void;
  [Symbol.dispose](): void;
  /** `'ffi.Function'`. */
  readonly typeKey: 'ffi.Function';
  /** Whether `other` wraps the same function. */
  same(other: unknown): boolean;
}

/** A TVM-FFI function: callable like `F`, with `dispose()`. */
export type Function<F extends (...args: any[]) => any = (...args: unknown[]) => unknown> = F &
  FunctionMethods;

/**
 * `ffi.Function(fn)`: the TVM-FFI function of a JavaScript function, made once (to pass it
 * many times, register it, or dispose it). TVM-FFI functions pass through.
 * `value instanceof ffi.Function` tells TVM-FFI functions apart.
 */
export declare const Function: {
  <F extends (...args: any[]) => any>(fn: F): Function<F>;
  readonly prototype: FunctionMethods;
};

/** Same as `ffi.Function(fn)`. */
export declare function toFunction<F extends (...args: any[]) => any>(fn: F): Function<F>;
/** The global function `name`, or `null`. */
export declare function getGlobal(name: string): Function | null;
/** The global function `name`; throws if it is not registered. */
export declare function requireGlobal(name: string): Function;
/** Registers a function as the global `name` (an error if taken, unless `override`). */
export declare function registerGlobal(
  name: string,
  fn: AnyFunction,
  options?: { override?: boolean },
): void;
/** The names of every registered global function. */
export declare function listGlobals(): string[];
/**
 * Calls a TVM-FFI function on a thread of Node's pool and resolves with its result.
 * JavaScript callbacks it calls run on this thread meanwhile.
 */
export declare function callAsync(fn: AnyFunction, ...args: unknown[]): Promise<unknown>;

// ---------------------------------------------------------------------------------------------
// Containers
// ---------------------------------------------------------------------------------------------

/**
 * Read-only operations of `Array` and `List`; `seq[i]` reads element `i` (typed like a
 * JavaScript array's: `T`, though an index out of range reads `undefined`).
 */
export declare class Sequence<T = unknown> extends FFIObject implements Iterable<T> {
  readonly [index: number]: T;
  /** Number of elements. */
  readonly length: number;
  /** Element `i` (negative counts from the end); `undefined` out of range. */
  at(i: number): T | undefined;
  /** Every element, in a JavaScript array. */
  toArray(): T[];
  map<U>(fn: (value: T, index: number, array: T[]) => U): U[];
  forEach(fn: (value: T, index: number, array: T[]) => void): void;
  [Symbol.iterator](): IterableIterator<T>;
  toJSON(): T[];
}

/** `ffi.Array`: an immutable sequence. */
declare class FFIArray<T = unknown> extends Sequence<T> {}
export { FFIArray as Array };

/** `ffi.List`: a mutable sequence. */
export declare class List<T = unknown> extends Sequence<T> {
  [index: number]: T;
  /** Appends values; returns the new length. */
  push(...values: T[]): number;
  /** Sets element `i` (negative counts from the end). */
  set(i: number, value: T): void;
  /** Inserts `value` before element `i`. */
  insert(i: number, value: T): void;
  /** Removes and returns element `i` (default: the last). */
  pop(i?: number): T;
  /** Removes element `i`. */
  removeAt(i: number): void;
  /** Removes every element. */
  clear(): void;
  /** Reverses the list in place. */
  reverse(): this;
}

/** Operations of `Map` and `Dict` (insertion-ordered). */
export declare class MapBase<K = unknown, V = unknown> extends FFIObject implements Iterable<[K, V]> {
  /** Number of entries. */
  readonly size: number;
  /** The value of `key`, or `undefined`. */
  get(key: K): V | undefined;
  /** Whether `key` is present. */
  has(key: K): boolean;
  entries(): IterableIterator<[K, V]>;
  keys(): IterableIterator<K>;
  values(): IterableIterator<V>;
  [Symbol.iterator](): IterableIterator<[K, V]>;
  forEach(fn: (value: V, key: K, map: this) => void): void;
  /** The entries in a JavaScript Map. */
  toMap(): globalThis.Map<K, V>;
  /** The entries in a plain object (keys converted with `String`). */
  toObject(): { [key: string]: V };
  toJSON(): { [key: string]: V };
}

/** `ffi.Map`: an immutable map. */
declare class FFIMap<K = unknown, V = unknown> extends MapBase<K, V> {}
export { FFIMap as Map };

/** `ffi.Dict`: a mutable map. */
export declare class Dict<K = unknown, V = unknown> extends MapBase<K, V> {
  /** Sets `key` to `value`; returns the dict. */
  set(key: K, value: V): this;
  /** Removes `key`; returns whether it was present. */
  delete(key: K): boolean;
  /** Removes every entry. */
  clear(): void;
}

/** `ffi.Shape`: immutable extents; `shape[i]` reads extent `i`. */
export declare class Shape extends FFIObject implements Iterable<number> {
  readonly [index: number]: number;
  readonly length: number;
  at(i: number): number | undefined;
  toArray(): number[];
  [Symbol.iterator](): IterableIterator<number>;
  toJSON(): number[];
}

/** A new `ffi.Array` of `values`. */
export declare function array<T>(values: readonly T[]): FFIArray<T>;
/** A new `ffi.List` of `values`. */
export declare function list<T>(values?: readonly T[]): List<T>;
/** A new `ffi.Map` of a JavaScript Map, a TVM-FFI map or a plain object's entries. */
export declare function map<K, V>(entries?: MapLike<K, V>): FFIMap<K, V>;
/** A new `ffi.Dict` of a JavaScript Map, a TVM-FFI map or a plain object's entries. */
export declare function dict<K, V>(entries?: MapLike<K, V>): Dict<K, V>;
/** A new `ffi.Shape`. */
export declare function shape(dims: ReadonlyArray<number | bigint>): Shape;
/** Coercions used by generated code (null and undefined pass through). */
export declare function toShape(x: ShapeLike): Shape;
export declare function toShape<T extends null | undefined>(x: T): T;
export declare function toList<T>(x: ArrayLike<T>): List<T>;
export declare function toList<T extends null | undefined>(x: T): T;
export declare function toDict<K, V>(x: MapLike<K, V>): Dict<K, V>;
export declare function toDict<T extends null | undefined>(x: T): T;

// ---------------------------------------------------------------------------------------------
// Tensors
// ---------------------------------------------------------------------------------------------

/** `ffi.Tensor`: an n-dimensional array (DLPack). */
export declare class Tensor extends FFIObject {
  /** The extents. */
  readonly shape: number[];
  /** The strides, in elements. */
  readonly strides: number[];
  /** Number of dimensions. */
  readonly ndim: number;
  /** Number of elements. */
  readonly numel: number;
  /** The element type. */
  readonly dtype: DataType;
  /** Where the data lives. */
  readonly device: Device;
  /** Offset of the first element, in bytes. */
  readonly byteOffset: number;
  /** Whether the elements are contiguous in row-major order. */
  readonly isContiguous: boolean;
  /**
   * The elements as a TypedArray over the tensor's memory (host memory, contiguous tensors;
   * the array keeps the tensor alive). Float16/BFloat16 come as Uint16Array bit patterns.
   */
  readonly data: TypedArray;
  /** Whether `data` is a copy (the host does not allow external buffers). */
  readonly dataIsCopy: boolean;
  /** Same as `data`. */
  toTypedArray(): TypedArray;
  toJSON(): { shape: number[]; dtype: string; device: string };
}

/**
 * A tensor over a TypedArray's memory, without a copy (the tensor keeps the array alive);
 * 1-D unless `shape` (and optionally `strides`, in elements) is given.
 */
export declare function tensor(
  array: TensorLike,
  options?: { shape?: ReadonlyArray<number>; strides?: ReadonlyArray<number> },
): Tensor;
/** Coercion used by generated code (null and undefined pass through). */
export declare function toTensor(x: TensorLike): Tensor;
export declare function toTensor<T extends null | undefined>(x: T): T;

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

/** An element type (`DLDataType`). */
export declare class DataType {
  /** `new DataType('float32')` or `new DataType(code, bits, lanes)`. */
  constructor(name: string);
  constructor(code: number, bits: number, lanes?: number);
  readonly code: number;
  readonly bits: number;
  readonly lanes: number;
  /** The name (`float32`, `int64x4`, `bool`...). */
  toString(): string;
  equals(other: DataTypeLike): boolean;
  toJSON(): string;
}

/** A device (`DLDevice`). */
export declare class Device {
  /** `new Device('cuda:1')`, `new Device('cuda', 1)` or `new Device(2, 1)`. */
  constructor(type: string | number, id?: number);
  readonly deviceType: number;
  readonly deviceId: number;
  /** The device kind's name (`cpu`, `cuda`...). */
  readonly type: string;
  /** `cpu:0`, `cuda:1`... */
  toString(): string;
  equals(other: DeviceLike): boolean;
  toJSON(): string;
}

/** An opaque pointer. */
export declare class OpaquePtr {
  constructor(address: bigint | number);
  readonly address: bigint;
}

/** `DataType` of a name (`ffi.dtype('float32')`). */
export declare function dtype(x: DataTypeLike): DataType;
/** `Device` of a name or a kind and ordinal (`ffi.device('cuda:0')`, `ffi.device('cuda', 0)`). */
export declare function device(type: DeviceLike, id?: number): Device;
/** Coercions used by generated code (null and undefined pass through). */
export declare function toDataType(x: DataTypeLike): DataType;
export declare function toDataType<T extends null | undefined>(x: T): T;
export declare function toDevice(x: DeviceLike): Device;
export declare function toDevice<T extends null | undefined>(x: T): T;

// ---------------------------------------------------------------------------------------------
// Modules and libraries
// ---------------------------------------------------------------------------------------------

/** `ffi.Module`: a loaded library's exported functions. */
export declare class Module extends FFIObject {
  /** The module's kind (`library`, `system_lib`...). */
  readonly kind: string;
  /** The function `name` (also searching imported modules unless `queryImports` is false), or `null`. */
  getFunction(name: string, queryImports?: boolean): Function | null;
  /** The function `name`; throws an `AttributeError` if missing. */
  get(name: string): Function;
  /**
   * The module's functions by name, e.g. a compiled kernel's
   * `loadModule('vector_add.so').functions.main(a, b, c)`; a missing one throws an
   * `AttributeError`, and `'name' in m.functions` tells whether it exists.
   */
  readonly functions: { readonly [name: string]: Function };
  implementsFunction(name: string, queryImports?: boolean): boolean;
  getFunctionDoc(name: string, queryImports?: boolean): string | null;
  getFunctionMetadata(name: string, queryImports?: boolean): string | null;
  importModule(other: Module): void;
}

/** Loads a module from a shared library (`ffi.ModuleLoadFromFile`); a relative path is taken from the working folder; errors name the path. */
export declare function loadModule(path: string): Module;
/** The system library. */
export declare function systemLib(prefix?: string): Module;
/**
 * Loads a TVM-FFI library into the process (its functions and types register themselves).
 * A path, or a file name searched by the dynamic loader; loading the same name twice is a no-op.
 */
export declare function loadLibrary(path: string): void;
/**
 * Loads the libraries of a generated package (searched in $FFIHUB_LIBRARY_PATH, the package
 * folder, then by the dynamic loader) and checks its metadata manifest against them: the
 * manifest's lines (ADR 0020), each compared with its live spelling.
 */
export declare function loadLibraries(
  packageDir: string | null,
  names: readonly string[],
  checksum: string,
  manifest: readonly string[] | null,
): void;
/**
 * Loads the libraries of a generated package as modules (found like `loadLibraries`) and checks
 * their exports: `modules` lists `[fileName, {exportName: hash}]` pairs. Returns the modules.
 */
export declare function loadModules(
  packageDir: string | null,
  modules: readonly (readonly [string, { readonly [name: string]: string }])[],
  checksum: string,
): Module[];

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/**
 * For generated code: a parameter of a wrapper (see `CallInfo`): its name as the caller writes
 * it (`x`, `options.anyWhitespace`), its registered name, what it takes in JavaScript's terms,
 * and the index the runtime gives its argument.
 */
export type CallParam = readonly [string, string, string, number];
/**
 * For generated code: how a wrapper describes itself for its errors (see `callError`):
 * `[name, params, callee, positional, keyword, required]`, its name as the caller spells it,
 * its parameters as written (`schema, options`), the registered name the runtime's messages
 * use, its positional parameters, its keyword-only ones (one options object), and how many
 * arguments a call must give.
 */
export type CallInfo = readonly [
  string,
  string,
  string,
  ReadonlyArray<CallParam>,
  ReadonlyArray<CallParam>,
  number,
];
/** For generated code: throws for a call with a wrong number of arguments (`callError` words it). */
export declare function argumentCount(got: number, extra: unknown): never;
/**
 * For generated code: the error to throw for `error`, raised by a call of the wrapper `info`
 * with `args`: errors about its arguments in the caller's words (`addOne(x): expected an
 * integer (number or bigint), got a string`, the runtime's error as `cause`), others unchanged.
 */
export declare function callError(error: unknown, info: CallInfo, args: readonly unknown[]): unknown;
/** For generated code: `callError` for writing `value` to the field `name` (`Counter.count`). */
export declare function fieldError(error: unknown, name: string, expected: string, value: unknown): unknown;
/** For generated code: an `int` result as a number (RangeError beyond ±2^53), or null. */
export declare function intResult(value: unknown, name: string): number | null;
/** For generated code: a `bigint` result as a bigint, or null. */
export declare function bigintResult(value: unknown): bigint | null;

/**
 * For generated code: checks the options object of the wrapper `name` (its keyword-only
 * parameters): a plain object whose keys are among `keys`, with every key of `required`.
 * Returns it (an empty object when left out); throws a TypeError naming the unknown or missing
 * keys.
 */
export declare function options<T extends object>(
  given: T | null | undefined,
  name: string,
  keys: readonly string[],
  required: readonly string[],
): Partial<T>;

/**
 * For generated code: marks the function a generated wrapper looked up for itself, which then
 * returns `undefined` for None (the wrapper turns it into `null`). Returns `f`, or with
 * `objectArgs` (a bit per parameter among the first four that may be an object) a function
 * that calls `f` passing those arguments' objects to the addon directly.
 */
export declare function generatedFunction<F extends Function>(f: F, objectArgs?: number): F;

/** A TVM-FFI error: `kind` (`ValueError`...), `message`, and the native `backtrace`. */
export declare class FFIError extends Error {
  constructor(message?: string, options?: { kind?: string; backtrace?: string; cause?: unknown });
  /** The error kind; also the error's `name`. */
  readonly kind: string;
  /** The native backtrace (most recent call first); its frames are also in `stack`. */
  backtrace: string;
}
export declare class ValueError extends FFIError {}
export declare class TypeError extends FFIError {}
export declare class IndexError extends FFIError {}
export declare class KeyError extends FFIError {}
export declare class AttributeError extends FFIError {}
export declare class RuntimeError extends FFIError {}
export declare class NotImplementedError extends FFIError {}
export declare class InternalError extends FFIError {}
export declare class AssertionError extends FFIError {}
export declare class MemoryError extends FFIError {}
/** Makes errors of `kind` instances of `Class`. */
export declare function registerError(kind: string, Class: new (message?: string, options?: { kind?: string; backtrace?: string }) => FFIError): void;

// ---------------------------------------------------------------------------------------------
// Runtime
// ---------------------------------------------------------------------------------------------

/** The ABI version of the loaded runtime (`0.1.16`). */
export declare function runtimeVersion(): string;
/**
 * ffihub's runtime's count of live objects allocated since the first call
 * (`ffihub.LiveObjectCount`), or null on other runtimes.
 */
export declare function liveObjectCount(): number | null;
