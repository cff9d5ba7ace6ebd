// Types of `defineClass` and `types` (lib/define.js): object types defined in JavaScript. A
// definition's field and method declarations give the class its TypeScript type: field values,
// constructor options (required unless defaulted or optional) and methods.

import type {
  AnyFunction,
  ArrayLike,
  BytesLike,
  DataType,
  DataTypeLike,
  Device,
  DeviceLike,
  Dict,
  Function,
  List,
  Map as FFIMap,
  MapLike,
  Object as FFIObject,
  Shape,
  ShapeLike,
} from '../index';
import type { Array as FFIArray } from '../index';

/** The names of TVM-FFI's scalar types (and `'Object'`, any object) in declarations. */
export type TypeName =
  | 'int'
  | 'float'
  | 'bool'
  | 'str'
  | 'bytes'
  | 'DataType'
  | 'Device'
  | 'Any'
  | 'Function'
  | 'Shape'
  | 'Object';

/**
 * A class of a registered object type (made by `defineClass`, or generated; their constructors
 * may be protected, so the class is known by its prototype).
 */
export type ObjectClass<T extends FFIObject = FFIObject> = { readonly prototype: T };

declare const containerBrand: unique symbol;

/** A container or optional type, made by `types` (only: the brand keeps out look-alikes). */
export interface ContainerType<K extends string = string, A extends readonly TypeSpec[] = readonly TypeSpec[]> {
  readonly kind: K;
  readonly args: A;
  readonly [containerBrand]: true;
}

/**
 * A declared type: a type name, a type key (`'myapp.Node'`, for instance the type being defined;
 * read as `ffi.Object`), a registered class, or a container made by `types`.
 */
export type TypeSpec = TypeName | `${string}.${string}` | ObjectClass | ContainerType;

/** The container and optional types of declarations. */
export declare const types: {
  /** `Array[T]` (an `ffi.Array`; JavaScript arrays convert in). */
  array<const T extends TypeSpec>(element: T): ContainerType<'array', [T]>;
  /** `List[T]` (an `ffi.List`, shared and mutable; JavaScript arrays convert in). */
  list<const T extends TypeSpec>(element: T): ContainerType<'list', [T]>;
  /** `Map[K, V]` (an `ffi.Map`; JavaScript Maps and plain objects convert in). */
  map<const K extends TypeSpec, const V extends TypeSpec>(key: K, value: V): ContainerType<'map', [K, V]>;
  /** `Dict[K, V]` (an `ffi.Dict`, shared and mutable). */
  dict<const K extends TypeSpec, const V extends TypeSpec>(key: K, value: V): ContainerType<'dict', [K, V]>;
  /** `Optional[T]`: `null` or a T. */
  optional<const T extends TypeSpec>(type: T): ContainerType<'optional', [T]>;
};

/** What reading a value declared as `T` gives. */
export type ValueOf<T> = T extends 'int' | 'float'
  ? number
  : T extends 'bool'
    ? boolean
    : T extends 'str'
      ? string
      : T extends 'bytes'
        ? Uint8Array
        : T extends 'DataType'
          ? DataType
          : T extends 'Device'
            ? Device
            : T extends 'Function'
              ? Function
              : T extends 'Shape'
                ? Shape
                : T extends 'Any'
                  ? unknown
                  : T extends ContainerType<'array', [infer E extends TypeSpec]>
                    ? FFIArray<ValueOf<E>>
                    : T extends ContainerType<'list', [infer E extends TypeSpec]>
                      ? List<ValueOf<E>>
                      : T extends ContainerType<'map', [infer K extends TypeSpec, infer V extends TypeSpec]>
                        ? FFIMap<ValueOf<K>, ValueOf<V>>
                        : T extends ContainerType<'dict', [infer K extends TypeSpec, infer V extends TypeSpec]>
                          ? Dict<ValueOf<K>, ValueOf<V>>
                          : T extends ContainerType<'optional', [infer E extends TypeSpec]>
                            ? ValueOf<E> | null
                            : T extends ObjectClass<infer I>
                              ? I
                              : FFIObject;

/** What writing a value declared as `T` accepts. */
export type InputOf<T> = T extends 'int'
  ? number | bigint
  : T extends 'float'
    ? number
    : T extends 'bool'
      ? boolean
      : T extends 'str'
        ? string
        : T extends 'bytes'
          ? BytesLike
          : T extends 'DataType'
            ? DataTypeLike
            : T extends 'Device'
              ? DeviceLike
              : T extends 'Function'
                ? AnyFunction | Function
                : T extends 'Shape'
                  ? ShapeLike
                  : T extends 'Any'
                    ? unknown
                    : T extends ContainerType<'array' | 'list', [infer E extends TypeSpec]>
                      ? ArrayLike<InputOf<E>>
                      : T extends ContainerType<'map' | 'dict', [infer K extends TypeSpec, infer V extends TypeSpec]>
                        ? MapLike<InputOf<K>, InputOf<V>>
                        : T extends ContainerType<'optional', [infer E extends TypeSpec]>
                          ? InputOf<E> | null | undefined
                          : T extends ObjectClass<infer I>
                            ? I
                            : FFIObject;

/** A field declaration: its type, or `{type, default, doc}` (a function default is a factory). */
export type FieldSpec = TypeSpec | { readonly type: TypeSpec; readonly default?: unknown; readonly doc?: string };

/** A method: a function (untyped: `Any` parameters and result), or `{fn, params, returns, static, doc}`. */
export type MethodSpec =
  | AnyFunction
  | {
      readonly fn: AnyFunction;
      readonly params?: readonly TypeSpec[];
      readonly returns?: TypeSpec;
      readonly static?: boolean;
      readonly doc?: string;
    };

type FieldTypeOf<F> = F extends { readonly type: infer T } ? T : F;
type IsOptional<F> = F extends { readonly default: unknown }
  ? true
  : FieldTypeOf<F> extends ContainerType<'optional', any>
    ? true
    : false;

/** The field values of instances. */
export type FieldsOf<Fs, ReadOnly extends boolean> = ReadOnly extends true
  ? { readonly [K in keyof Fs]: ValueOf<FieldTypeOf<Fs[K]>> }
  : { -readonly [K in keyof Fs]: ValueOf<FieldTypeOf<Fs[K]>> };

declare const initType: unique symbol;

/** The constructor's options: every field, required unless it has a default or is optional. */
export type InitOf<Fs, P> = {
  [K in keyof Fs as IsOptional<Fs[K]> extends true ? never : K]: InputOf<FieldTypeOf<Fs[K]>>;
} & {
  [K in keyof Fs as IsOptional<Fs[K]> extends true ? K : never]?: InputOf<FieldTypeOf<Fs[K]>>;
} & ParentInit<P>;

/** The options of a parent made by `defineClass`; any field for a generated parent. */
type ParentInit<P> = P extends { readonly [initType]?: infer I }
  ? I
  : typeof FFIObject extends P
    ? unknown
    : { readonly [field: string]: unknown };

type MethodOf<M> = M extends { readonly fn: infer F } ? F : M;
type IsStatic<M> = M extends { readonly static: true } ? true : false;
/** The instance methods of a definition (the functions as written). */
export type InstanceMethodsOf<Ms> = { [K in keyof Ms as IsStatic<Ms[K]> extends true ? never : K]: MethodOf<Ms[K]> };
/** The static methods of a definition. */
export type StaticMethodsOf<Ms> = { [K in keyof Ms as IsStatic<Ms[K]> extends true ? K : never]: MethodOf<Ms[K]> };

/** Instances of a defined class (`toJSON` first: its signature is the one calls resolve to). */
export type DefinedInstance<P extends ObjectClass, Fs, Ms, ReadOnly extends boolean> = {
  /** The fields as a plain object (what `JSON.stringify` writes). */
  toJSON(): { [K in keyof Fs]: unknown } & { readonly [field: string]: unknown };
} & P['prototype'] &
  FieldsOf<Fs, ReadOnly> &
  InstanceMethodsOf<Ms>;

/** A class made by `defineClass`. */
export type DefinedClass<P extends ObjectClass, Fs, Ms, ReadOnly extends boolean> = {
  new (
    ...init: {} extends InitOf<Fs, P> ? [fields?: InitOf<Fs, P>] : [fields: InitOf<Fs, P>]
  ): DefinedInstance<P, Fs, Ms, ReadOnly>;
  readonly prototype: DefinedInstance<P, Fs, Ms, ReadOnly>;
  readonly [initType]?: InitOf<Fs, P>;
} & StaticMethodsOf<Ms>;

/** What `defineClass` takes besides the type key. */
export interface ClassSpec<P extends ObjectClass, Fs, Ms, ReadOnly extends boolean> {
  /** The parent: a class made by `defineClass` or a generated class (default `ffi.Object`). */
  readonly extends?: P;
  /** The own fields, in layout order. */
  readonly fields?: Fs;
  /** The own methods; an instance method's `this` is the object. */
  readonly methods?: Ms & ThisType<DefinedInstance<P, Fs, Ms, ReadOnly>>;
  /** Fields cannot be written (by any language) once the object is made. */
  readonly readonly?: ReadOnly;
  /** The structural equality kind (default `'tree'`). */
  readonly structure?: 'tree' | 'const-tree' | 'dag' | 'var' | 'singleton' | 'none';
  /** The class's name (default: the last part of the type key). */
  readonly name?: string;
}

/**
 * Defines the TVM-FFI object type `key` (registered in the runtime with its fields and methods,
 * so that every language reads and writes its objects through reflection) and returns its class.
 */
export declare function defineClass<
  const Fs extends { readonly [name: string]: FieldSpec } = {},
  const Ms extends { readonly [name: string]: MethodSpec } = {},
  P extends ObjectClass = typeof FFIObject,
  ReadOnly extends boolean = false,
>(key: string, spec?: ClassSpec<P, Fs, Ms, ReadOnly>): DefinedClass<P, Fs, Ms, ReadOnly>;
