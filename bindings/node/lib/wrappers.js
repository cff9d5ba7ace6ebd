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
// expected, an options object with a key the wrapper does not take names it (`options`).
// Other errors (the library's own) pass unchanged.

const { FFIError, makeError } = require('./errors');
const { FFIObject, isGeneratedClass } = require('./object');

/**
 * What a generated wrapper says about itself, `[name, params, callee, positional, keyword,
 * required]`: `name` as the caller spells it (`addOne`, `Point.translate`, `new Point`),
 * `params` its JavaScript parameters as written (`schema, options`), `callee` the registered
 * name the runtime's messages use (`testing.add_one`; a type key and `.` for constructors,
 * whatever their init is called), its positional parameters and its keyword-only ones (taken
 * in one options object) as `[name, registeredName, expected, argument]`: the name as the
 * caller writes it (`x`; `options.anyWhitespace` for a keyword-only one), the type it expects
 * in JavaScript's terms, and the index the runtime gives its argument (the receiver of an
 * instance method is argument 0); and `required`, how many arguments a call must give.
 * @typedef {[string, string, string, Param[], Param[], number]} CallInfo
 * @typedef {[string, string, string, number]} Param
 */

/** Thrown by `argumentCount` and turned into the message by `callError`. */
class ArgumentCount {
  constructor(got, extra) {
    this.got = got;
    this.extra = extra;
  }
}

/**
 * Throws for a call of a generated wrapper with `got` arguments, which is not a count it takes
 * (`extra` is the first argument beyond the most it takes, if any); the wrapper's `catch`
 * passes it to `callError`.
 */
function argumentCount(got, extra) {
  throw new ArgumentCount(got, extra);
}

/** How many arguments the wrapper `info` takes at most: its positional ones and the options. */
function mostArguments(info) {
  return info[3].length + (info[4].length > 0 ? 1 : 0);
}

/** `argumentCount` for the arguments `args` of a generated constructor, unless it takes them. */
function checkCount(info, args) {
  const most = mostArguments(info);
  if (args.length < info[5] || args.length > most) argumentCount(args.length, args[most]);
}

const MISMATCH = /^Mismatched type on argument #(\d+) when calling: `([^`(]*)\(/;
const MISSING_KEYWORD = /^[^\s]*\.__ffi_init__\(\) missing required keyword-only argument: '([^']*)'/;
const FIELD = /^[^\s]*\.__ffi_init__\(\) field '([^']*)'/;
const CANNOT_CONVERT = /^cannot convert /;
const ELEMENT = /\belement (\d+)\b|\[index (\d+)\b/;

/**
 * The error to throw for `error`, which a call of the generated wrapper `info` raised with the
 * values `args` (one per parameter: the positional ones, then the options').
 * @param {unknown} error
 * @param {CallInfo} info
 * @param {readonly unknown[]} args
 */
function callError(error, info, args) {
  const [name, jsParams, callee, positional, keyword, required] = info;
  const signature = `${name}(${jsParams})`;
  if (error instanceof ArgumentCount) {
    return countError(signature, positional, required, mostArguments(info), error);
  }
  if (!(error instanceof FFIError) || error.kind !== 'TypeError') return error;
  const params = positional.concat(keyword);
  const missing = MISSING_KEYWORD.exec(error.message);
  if (missing && error.message.startsWith(callee)) {
    const param = params.find((p) => p[1] === missing[1]);
    if (param) return typeError(`${signature}: missing ${param[0]} (${param[2]})`, error, callError);
  }
  const index = argumentIndex(error.message, callee, params, args);
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

/**
 * `callError` for a generated constructor `info` called with `args` (positional arguments, then
 * the options object).
 */
function constructorError(error, info, args) {
  const n = info[3].length;
  const values = args.slice(0, n);
  values.length = n;
  const options = args[n];
  for (const [param] of info[4]) {
    // `options.key`: the key after the options parameter's name.
    values.push(options?.[param.slice(param.indexOf('.') + 1)]);
  }
  return callError(error, info, values);
}

/** Which parameter a runtime TypeError is about (-1 when it is about none). */
function argumentIndex(message, callee, params, args) {
  const mismatch = MISMATCH.exec(message);
  if (mismatch) {
    const about = callee.endsWith('.') ? mismatch[2].startsWith(callee) : mismatch[2] === callee;
    const argument = Number(mismatch[1]);
    return about ? params.findIndex((p) => p[3] === argument) : -1;
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

function countError(signature, positional, required, most, count) {
  const expected = required === most ? `${most} argument${most === 1 ? '' : 's'}` : `${required} to ${most} arguments`;
  if (count.got > most) {
    return typeError(
      `${signature}: expected ${expected}, got ${count.got} (the first extra one is ${describeValue(count.extra)})`,
      undefined,
      callError,
    );
  }
  const missing = positional.slice(count.got, required).map(([param, , type]) => `${param} (${type})`);
  return typeError(
    `${signature}: missing ${missing.length === 1 ? 'argument' : 'arguments'} ${missing.join(', ')}; ` +
      `expected ${expected}, got ${count.got}`,
    undefined,
    callError,
  );
}

const NO_OPTIONS = Object.freeze({});

/**
 * Checks the options object of a generated wrapper (its keyword-only parameters): `keys` are
 * the option names it takes, `required` those without default. Returns the object (an empty
 * one when left out); throws a TypeError naming `name` and the keys for anything but a plain
 * object, an unknown key, or a missing required key.
 */
function options(given, name, keys, required) {
  if (given === undefined || given === null) {
    if (required.length > 0) {
      throw makeError('TypeError', `${name}: missing required option(s) ${required.join(', ')}`, '');
    }
    return NO_OPTIONS;
  }
  const proto = typeof given === 'object' ? Object.getPrototypeOf(given) : undefined;
  if (proto !== Object.prototype && proto !== null) {
    throw makeError('TypeError', `${name}: the options must be a plain object, got ${describeValue(given)}`, '');
  }
  const unknown = Object.keys(given).filter((key) => !keys.includes(key));
  if (unknown.length > 0) {
    const known = keys.length > 0 ? keys.join(', ') : 'none';
    throw makeError('TypeError', `${name}: unknown option(s) ${unknown.join(', ')} (known: ${known})`, '');
  }
  const missing = required.filter((key) => given[key] === undefined);
  if (missing.length > 0) {
    throw makeError('TypeError', `${name}: missing required option(s) ${missing.join(', ')}`, '');
  }
  return given;
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

module.exports = {
  argumentCount,
  checkCount,
  callError,
  constructorError,
  fieldError,
  options,
  describeValue,
  intResult,
  bigintResult,
};
