{{ c.path }} = class {{ c.ident }} extends {{ c.js_base }} {
{%- if let Some(k) = c.constructor %}
  constructor(...args) {
{%- if let Some(a) = k.arrange %}
    super(__ffi.constructArranged({{ c.key }}, args, ({{ a.js_params }}) => {
{%- if !a.prologue.is_empty() %}
      {{ a.prologue }}
{%- endif %}
      return [{{ a.args }}];
    }));
{%- else %}
    super(__ffi.construct({{ c.key }}, args, {{ k.coercions }}, {{ k.keywords }}));
{%- endif %}
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

  {% if m.is_static %}static {% endif %}{{ m.ident }}({{ m.call.js_params }}) {
{%- if !m.call.prologue.is_empty() %}
    {{ m.call.prologue }}
{%- endif %}
    return {{ c.binding }}[{{ m.ffi_name }}]({{ m.call.args }});
  }
{%- endfor %}
};
{% if c.methods.is_empty() %}__ffi.registerType({{ c.key }}, {{ c.path }});{% else %}const {{ c.binding }} = __ffi.registerType({{ c.key }}, {{ c.path }});{% endif %}
{%- if !c.fields.is_empty() %}
const {{ c.binding }}F = __ffi.fieldGetters({{ c.key }}, [{% for fld in c.fields %}{{ fld.ffi_name }}{% if !loop.last %}, {% endif %}{% endfor %}]);
{%- endif %}
