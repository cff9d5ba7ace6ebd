let {{ f.handle }};  // looked up on first call; returns undefined for None
{%- if f.packed %}
{{ f.path }} = function {{ f.ident }}(...args) {
  return ({{ f.handle }} ??= __ffi.generatedFunction({{ f.lookup }}))(...args) ?? null;
};
{%- else %}
{{ f.path }} = function {{ f.ident }}({{ f.call.js_params }}) {
  if (arguments.length > {{ f.call.arity }}) __ffi.tooManyArguments({{ f.ffi_name }}, {{ f.call.arity }}, arguments.length);
{%- if !f.call.prologue.is_empty() %}
  {{ f.call.prologue }}
{%- endif %}
  return ({{ f.handle }} ??= __ffi.generatedFunction({{ f.lookup }}))({{ f.call.args }}) ?? null;
};
{%- endif %}
