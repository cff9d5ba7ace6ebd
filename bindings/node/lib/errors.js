'use strict';
// Errors: TVM-FFI errors become instances of FFIError (or of the subclass registered for their
// kind), with `kind`, `message` and the native `backtrace`; the native frames are also spliced
// into `stack`, above the JavaScript frames, so one trace reads through both languages.
// JavaScript exceptions thrown in callbacks travel the other way (`errorParts`).

class FFIError extends Error {
  /**
   * @param {string} [message]
   * @param {{ kind?: string, backtrace?: string, cause?: unknown }} [options]
   */
  constructor(message, options) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined);
    const kind = (options && options.kind) || new.target.kind || 'RuntimeError';
    Object.defineProperty(this, 'kind', { value: kind, enumerable: true });
    Object.defineProperty(this, 'backtrace', {
      value: (options && options.backtrace) || '',
      enumerable: false,
      writable: true,
    });
  }

  get name() {
    return this.kind;
  }
}
FFIError.kind = 'RuntimeError';

const classes = new Map();

/** Registers the class made for errors of `kind`. */
function registerError(kind, Class) {
  if (typeof Class !== 'function' || !(Class.prototype instanceof FFIError)) {
    throw new TypeError('registerError needs a subclass of FFIError');
  }
  classes.set(kind, Class);
}

const kinds = [
  'ValueError',
  'TypeError',
  'IndexError',
  'KeyError',
  'AttributeError',
  'RuntimeError',
  'NotImplementedError',
  'InternalError',
  'AssertionError',
  'MemoryError',
];
const builtin = {};
for (const kind of kinds) {
  // A named class per kind: `class ValueError extends FFIError {}`.
  const Class = { [kind]: class extends FFIError {} }[kind];
  Class.kind = kind;
  builtin[kind] = Class;
  registerError(kind, Class);
}

const FRAME = /^\s*File "(.*)", line (\d+), in (.*)$/;

// Frames of this binding and of Node (the addon, V8): from the first of them on, a native
// backtrace repeats the call that the JavaScript frames show.
const HOST_FRAME = /^(?:ffihub_node::|v8::|v8impl::|node::|napi_|uv_|Builtins_)/;

/**
 * Native backtrace lines (Python style, most recent first) as JavaScript stack lines: the
 * frames of the library, up to the call from JavaScript, each with its file's name (not the
 * folders of the machine that built it; `error.backtrace` keeps them).
 */
function nativeFrames(backtrace) {
  const out = [];
  for (const line of String(backtrace).split('\n')) {
    if (!line.trim()) continue;
    const m = FRAME.exec(line);
    const where = m ? m[3] : line.trim();
    if (HOST_FRAME.test(where)) break;
    const file = m && m[1] !== '<unknown>' ? `${m[1].slice(m[1].lastIndexOf('/') + 1)}:${m[2]}` : '';
    out.push(file ? `    at ${where} (${file})` : `    at ${where}`);
  }
  return out;
}

/** Builds the error object of a TVM-FFI error (called by the addon). */
function makeError(kind, message, backtrace) {
  const Class = classes.get(kind) || FFIError;
  const error = new Class(message, { kind, backtrace });
  Error.captureStackTrace(error, makeError);
  const frames = nativeFrames(backtrace);
  if (frames.length > 0) {
    const stack = String(error.stack);
    const header = `${kind}: ${message}`;
    const js = stack.startsWith(header) ? stack.slice(header.length) : `\n${stack}`;
    error.stack = `${header}\n${frames.join('\n')}${js}`;
  }
  return error;
}

const JS_FRAME = /^\s*at (?:(.*?) \()?(.*?):(\d+)(?::\d+)?\)?$/;

/** The JavaScript stack of an exception as Python-style frames, most recent first. */
function pythonFrames(stack) {
  const out = [];
  for (const line of String(stack || '').split('\n').slice(1)) {
    const m = JS_FRAME.exec(line);
    if (m) out.push(`  File "${m[2]}", line ${m[3]}, in ${m[1] || '<anonymous>'}`);
  }
  return out.join('\n');
}

/** `[kind, message, backtrace]` of a JavaScript exception (called by the addon). */
function errorParts(error) {
  if (error instanceof FFIError) {
    const frames = pythonFrames(error.stack);
    const backtrace = [frames, error.backtrace].filter(Boolean).join('\n');
    return [error.kind, error.message, backtrace];
  }
  if (error instanceof Error) {
    const kind = error.name && error.name !== 'Error' ? error.name : 'RuntimeError';
    return [kind, error.message, pythonFrames(error.stack)];
  }
  return ['RuntimeError', `JavaScript exception: ${String(error)}`, ''];
}

module.exports = { FFIError, registerError, makeError, errorParts, ...builtin };
