let {{ f.handle }};  // looked up on first call; returns undefined for None
{%- if f.packed %}
{{ f.path }} = function {{ f.ident }}(...args) {
  return ({{ f.handle }} ??= __ffi.generatedFunction({{ f.lookup }}))(...args) ?? null;
};
{%- else %}
{{ f.path }} = function {{ f.ident }}({% for p in f.params %}{{ p.ident }}{% if !loop.last %}, {% endif %}{% endfor %}) {
  try {
    if ({{ f.call.count_check }}) __ffi.argumentCount(arguments.length, {{ f.call.extra_arg }});
    return {{ f.call.result_open }}({{ f.handle }} ??= __ffi.generatedFunction({{ f.lookup }}))({% for p in f.params %}{{ p.arg }}{% if !loop.last %}, {% endif %}{% endfor %}){{ f.call.result_close }};
  } catch (e) {
    throw __ffi.callError(e, {{ f.call.info }}, {{ f.call.values }});
  }
};
{%- endif %}
