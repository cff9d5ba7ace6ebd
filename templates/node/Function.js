let {{ f.handle }};  // looked up on first call; returns undefined for None
{%- if f.packed %}
{{ f.path }} = function {{ f.ident }}(...args) {
  return ({{ f.handle }} ??= __ffi.generatedFunction({{ f.lookup }}))(...args) ?? null;
};
{%- else %}
{{ f.path }} = function {{ f.ident }}({{ f.call.js_params }}) {
  try {
    if ({{ f.call.errors.count_check }}) __ffi.argumentCount(arguments.length, {{ f.call.errors.extra_arg }});
{%- if !f.call.prologue.is_empty() %}
    {{ f.call.prologue }}
{%- endif %}
    return {{ f.call.result.0 }}({{ f.handle }} ??= __ffi.generatedFunction({{ f.lookup }}{{ f.object_args }}))({{ f.call.args }}){{ f.call.result.1 }};
  } catch (e) {
    throw __ffi.callError(e, {{ f.call.errors.info }}, {{ f.call.errors.values }});
  }
};
{%- endif %}
