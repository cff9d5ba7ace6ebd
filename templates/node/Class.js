{% if let Some(k) = c.constructor -%}
const {{ c.binding }}C = {{ k.call_info }};
{% endif -%}
{{ c.path }} = class {{ c.ident }} extends {{ c.js_base }} {
{%- if let Some(k) = c.constructor %}
  constructor(...args) {
    super(__ffi.construct({{ c.key }}, args, {{ k.coercions }}, {{ k.keywords }}, {{ c.binding }}C));
  }
{%- endif %}
{%- for fld in c.fields %}

  get {{ fld.ident }}() {
    return {{ fld.result.0 }}{{ c.binding }}F[{{ loop.index0 }}](this){{ fld.result.1 }};
  }
{%- if fld.writable %}

  set {{ fld.ident }}(value) {
    try {
      __ffi.setField(this, {{ fld.ffi_name }}, {{ fld.set_arg }});
    } catch (e) {
      throw __ffi.fieldError(e, {{ fld.name }}, {{ fld.expected }}, value);
    }
  }
{%- endif %}
{%- endfor %}
{%- for m in c.methods %}

{%- if m.packed %}

  {% if m.is_static %}static {% endif %}{{ m.ident }}(...args) {
    return {{ c.binding }}[{{ m.ffi_name }}]({{ m.call_args }});
  }
{%- else %}

  {% if m.is_static %}static {% endif %}{{ m.ident }}({% for p in m.params %}{{ p.ident }}{% if !loop.last %}, {% endif %}{% endfor %}) {
    try {
      if ({{ m.call.count_check }}) __ffi.argumentCount(arguments.length, {{ m.call.extra_arg }});
      return {{ m.call.result_open }}{{ c.binding }}[{{ m.ffi_name }}]({{ m.call_args }}){{ m.call.result_close }};
    } catch (e) {
      throw __ffi.callError(e, {{ m.call.info }}, {{ m.call.values }});
    }
  }
{%- endif %}
{%- endfor %}
};
{% if c.methods.is_empty() %}__ffi.registerType({{ c.key }}, {{ c.path }});{% else %}const {{ c.binding }} = __ffi.registerType({{ c.key }}, {{ c.path }});{% endif %}
{%- if !c.fields.is_empty() %}
const {{ c.binding }}F = __ffi.fieldGetters({{ c.key }}, [{% for fld in c.fields %}{{ fld.ffi_name }}{% if !loop.last %}, {% endif %}{% endfor %}]);
{%- endif %}
