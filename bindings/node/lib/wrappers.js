'use strict';
// What generated wrappers (functions, methods, constructors, field accessors) use at run time:
// their errors in the caller's words, and their results as declared.
//
// A wrapper hands the errors of its call to `callError` with a description of itself: its
// name as the caller spells it, and per parameter its name and the type it expects in
// JavaScript's terms. A TypeError about one of its arguments (the runtime's "Mismatched type
// on argument #i", a generated constructor's "field 'x'", a value the addon cannot convert)
// becomes
//
//     TypeError: addOne(x): expected an integer (number or bigint), got a string
//
// with the runtime's error as its `cause`; a wrong number of arguments says how many were
// expected. Other errors (the library's own) pass unchanged.

const { FFIError, makeError } = require('./errors');
const { FFIObject, isGeneratedClass } = require('./object');

/**
 * What a generated wrapper says about itself:
 * `[name, callee, offset, params, required]`: `name` as the caller spells it (`addOne`,
 * `Point.translate`, `new Point`), `callee` the registered name the runtime's messages use
 * (`testing.add_one`; a type key and `.` for constructors, whatever their init is called),
 * `offset` the index the runtime gives the first parameter (1 for instance methods: the
 * receiver is argument 0), `params` as `[name, registeredName, expected]` triples, and
 * `required` how many of them a call must give.
 * @typedef {[string, string, number, Array<[string, string, string]>, number]} CallInfo
 */

/** Thrown by `argumentCount` and turned into the message by `callError`. */
class ArgumentCount {
  constructor(got, extra, most) {
    this.got = got;
    this.extra = extra;
    this.most = most;
  }
}

/**
 * Throws for a call of a generated wrapper with `got` arguments, which is not a count it takes
 * (`extra` is the first argument beyond the most it takes, if any; `most` that number when it
 * is not one per parameter: a constructor takes its keyword parameters in one options object);
 * the wrapper's `catch` passes it to `callError`.
 */
function argumentCount(got, extra, most) {
  throw new ArgumentCount(got, extra, most);
}

const MISMATCH = /^Mismatched type on argument #(\d+) when calling: `([^`(]*)\(/;
const MISSING_KEYWORD = /^[^\s]*\.__ffi_init__\(\) missing required keyword-only argument: '([^']*)'/;
const FIELD = /^[^\s]*\.__ffi_init__\(\) field '([^']*)'/;
const CANNOT_CONVERT = /^cannot convert /;
const ELEMENT = /\belement (\d+)\b|\[index (\d+)\b/;

/**
 * The error to throw for `error`, which a call of the generated wrapper `info` raised with the
 * arguments `args` (one per parameter, in order).
 * @param {unknown} error
 * @param {CallInfo} info
 * @param {readonly unknown[]} args
 */
function callError(error, info, args) {
  const [name, callee, offset, params, required] = info;
  const signature = `${name}(${params.map((p) => p[0]).join(', ')})`;
  if (error instanceof ArgumentCount) {
    return countError(signature, params, required, error);
  }
  if (!(error instanceof FFIError) || error.kind !== 'TypeError') return error;
  const missing = MISSING_KEYWORD.exec(error.message);
  if (missing && error.message.startsWith(callee)) {
    const param = params.find((p) => p[1] === missing[1]);
    if (param) return typeError(`${signature}: missing the option ${param[0]} (${param[2]})`, error, callError);
  }
  const index = argumentIndex(error.message, callee, offset, params, args);
  if (index < 0) return error;
  const [param, , expected] = params[index];
  // The addon's own words already say what it could not convert.
  if (CANNOT_CONVERT.test(error.message)) return typeError(`${name}(${param}): ${error.message}`, error, callError);
  const given = describeValue(args[index]);
  const element = ELEMENT.exec(error.message);
  const detail = element && Array.isArray(args[index])
    ? ` whose element ${element[1] ?? element[2]} is ${describeValue(args[index][Number(element[1] ?? element[2])])}`
    : '';
  return typeError(`${name}(${param}): expected ${expected}, got ${given}${detail}`, error, callError);
}

/** Which parameter a runtime TypeError is about (-1 when it is about none). */
function argumentIndex(message, callee, offset, params, args) {
  const mismatch = MISMATCH.exec(message);
  if (mismatch) {
    const about = callee.endsWith('.') ? mismatch[2].startsWith(callee) : mismatch[2] === callee;
    const index = Number(mismatch[1]) - offset;
    return about && index < params.length ? index : -1;
  }
  const field = FIELD.exec(message);
  if (field && message.startsWith(callee)) {
    return params.findIndex((p) => p[1] === field[1]);
  }
  // The addon converts arguments in order and stops at the first it cannot convert.
  if (CANNOT_CONVERT.test(message)) {
    return args.findIndex((a) => message.includes(describeValue(a)));
  }
  return -1;
}

function countError(signature, params, required, count) {
  const n = count.most ?? params.length;
  const expected = required === n ? `${n} argument${n === 1 ? '' : 's'}` : `${required} to ${n} arguments`;
  if (count.got > n) {
    return typeError(
      `${signature}: expected ${expected}, got ${count.got} (the first extra one is ${describeValue(count.extra)})`,
      undefined,
      callError,
    );
  }
  const missing = params.slice(count.got, required).map(([param, , type]) => `${param} (${type})`);
  return typeError(
    `${signature}: missing ${missing.length === 1 ? 'argument' : 'arguments'} ${missing.join(', ')}; ` +
      `expected ${expected}, got ${count.got}`,
    undefined,
    callError,
  );
}

/**
 * The error to throw for `error`, raised by writing `value` to the field `name` (`Counter.count`)
 * that expects `expected`.
 */
function fieldError(error, name, expected, value) {
  if (!(error instanceof FFIError) || error.kind !== 'TypeError') return error;
  return typeError(`${name}: expected ${expected}, got ${describeValue(value)}`, error, fieldError);
}

/** A TypeError of the support package (an `ffi.TypeError`) whose stack starts at the wrapper. */
function typeError(message, cause, above) {
  const error = makeError('TypeError', message, '');
  if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause, configurable: true, writable: true });
  Error.captureStackTrace(error, above);
  return error;
}

/** The kind of a JavaScript value, as error messages name it (`a string`, `a Point`, `null`). */
function describeValue(value) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'number':
      if (!Number.isFinite(value) || Number.isSafeInteger(value)) return `a number (${value})`;
      return Number.isInteger(value) ? `a number beyond ±2^53 (${value})` : `a number with a fraction (${value})`;
    case 'string':
      return 'a string';
    case 'boolean':
      return 'a boolean';
    case 'bigint':
      return value >= -(2n ** 63n) && value < 2n ** 63n ? 'a bigint' : `a bigint beyond 64 bits (${value})`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      break;
  }
  if (Array.isArray(value)) return 'an array';
  const proto = Object.getPrototypeOf(value);
  if (proto === null || proto === Object.prototype) return 'an object';
  const ctor = value.constructor;
  let name = typeof ctor === 'function' && ctor.name ? ctor.name : 'object';
  if (value instanceof FFIObject && !isGeneratedClass(ctor)) {
    // The support package's classes share names with JavaScript's (Array, Map, Object).
    if (proto === FFIObject.prototype) return `an object of type ${value.typeKey}`;
    name = `ffi.${name}`;
  }
  return `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`;
}

/**
 * A result declared `int` (TypeScript `number`; `null` for an Optional one): an integer beyond
 * ±2^53 cannot be a number without losing digits, so it is a RangeError naming `name` (as
 * `node:sqlite` does without `readBigInts`); the untyped API returns it as a bigint.
 */
function intResult(value, name) {
  if (typeof value === 'number') return value;
  if (value === undefined || value === null) return null;
  const error = new RangeError(
    `${name}: the result ${value} is beyond ±2^53, which a number cannot hold exactly; the untyped ` +
      `API (ffi.requireGlobal(name)(...), ffi.getField(object, name)) returns it as a bigint`,
  );
  Error.captureStackTrace(error, intResult);
  throw error;
}

/** A result declared `bigint` (`null` for an Optional one), whatever its size. */
function bigintResult(value) {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(value);
  return null;
}

module.exports = { argumentCount, callError, fieldError, describeValue, intResult, bigintResult };
