{{ c.path }} = class {{ c.ident }} extends {{ c.js_base }} {
{%- if let Some(k) = c.constructor %}
  constructor(...args) {
    super(__ffi.construct({{ c.key }}, args, {{ k.coercions }}, {{ k.keywords }}));
  }
{%- endif %}
{%- for fld in c.fields %}

  get {{ fld.ident }}() {
    return {{ c.binding }}F[{{ loop.index0 }}](this);
  }
{%- if fld.writable %}

  set {{ fld.ident }}(value) {
    __ffi.setField(this, {{ fld.ffi_name }}, {{ fld.set_arg }});
  }
{%- endif %}
{%- endfor %}
{%- for m in c.methods %}

  {% if m.is_static %}static {% endif %}{{ m.ident }}({% if m.packed %}...args{% else %}{% for p in m.params %}{{ p.ident }}{% if !loop.last %}, {% endif %}{% endfor %}{% endif %}) {
    return {{ c.binding }}[{{ m.ffi_name }}]({{ m.call_args }});
  }
{%- endfor %}
};
{% if c.methods.is_empty() %}__ffi.registerType({{ c.key }}, {{ c.path }});{% else %}const {{ c.binding }} = __ffi.registerType({{ c.key }}, {{ c.path }});{% endif %}
{%- if !c.fields.is_empty() %}
const {{ c.binding }}F = __ffi.fieldGetters({{ c.key }}, [{% for fld in c.fields %}{{ fld.ffi_name }}{% if !loop.last %}, {% endif %}{% endfor %}]);
{%- endif %}
