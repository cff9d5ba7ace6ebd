const {{ f.handle }} = ffi.requireGlobal({{ f.ffi_name }});
{%- if f.packed %}
function {{ f.ident }}(...args) {
  return {{ f.handle }}(...args);
}
{%- else %}
function {{ f.ident }}({% for p in f.params %}{{ p.ident }}{% if !loop.last %}, {% endif %}{% endfor %}) {
  return {{ f.handle }}({% for p in f.params %}{{ p.arg }}{% if !loop.last %}, {% endif %}{% endfor %});
}
{%- endif %}
