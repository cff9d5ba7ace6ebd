class {{ c.ident }} extends {{ c.base }} {
{%- if let Some(k) = c.constructor %}
  constructor({% for p in k.positional %}{{ p.ident }}, {% endfor %}options = {}) {
    super(ffi.construct({{ c.key }}, [{% for p in k.positional %}{{ p.ident }}{% if !loop.last %}, {% endif %}{% endfor %}], options));
  }
{%- endif %}
{%- for fld in c.fields %}

  get {{ fld.ident }}() {
    return ffi.getField(this, {{ fld.ffi_name }});
  }
{%- if fld.writable %}

  set {{ fld.ident }}(value) {
    ffi.setField(this, {{ fld.ffi_name }}, value);
  }
{%- endif %}
{%- endfor %}
{%- for m in c.methods %}

  {% if m.is_static %}static {% endif %}{{ m.ident }}(...args) {
    return ffi.callMethod({{ m.target }}, {{ m.ffi_name }}, ...args);
  }
{%- endfor %}
}
ffi.registerType({{ c.key }}, {{ c.ident }});
