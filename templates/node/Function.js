let {{ f.handle }};  // looked up on first call; returns undefined for None
{%- if f.packed %}
{{ f.path }} = function {{ f.ident }}(...args) {
  return ({{ f.handle }} ??= __ffi.generatedFunction({{ f.lookup }}))(...args) ?? null;
};
{%- else %}
{{ f.path }} = function {{ f.ident }}({% for p in f.params %}{{ p.ident }}{% if !loop.last %}, {% endif %}{% endfor %}) {
  if (arguments.length > {{ f.params.len() }}) __ffi.tooManyArguments({{ f.ffi_name }}, {{ f.params.len() }}, arguments.length);
  return ({{ f.handle }} ??= __ffi.generatedFunction({{ f.lookup }}))({% for p in f.params %}{{ p.arg }}{% if !loop.last %}, {% endif %}{% endfor %}) ?? null;
};
{%- endif %}
