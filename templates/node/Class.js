{% if let Some(k) = c.constructor -%}
const {{ c.binding }}C = {{ k.call_info }};
{% if let Some(a) = k.arrange -%}
// The library's positional arguments from the constructor's.
function {{ c.binding }}A({{ a.js_params }}) {
{%- if !a.prologue.is_empty() %}
  {{ a.prologue }}
{%- endif %}
  return [{{ a.args }}];
}
{% endif -%}
{% endif -%}
{{ c.path }} = class {{ c.ident }} extends {{ c.js_base }} {
{%- if let Some(k) = c.constructor %}
  constructor(...args) {
{%- if !c.member_constructors.is_empty() %}
    const made = __ffi.constructByMember(args, [{% for mc in c.member_constructors %}[{{ mc.min }}, {{ mc.max }}, {{ mc.global }}]{% if !loop.last %}, {% endif %}{% endfor %}], true);
    if (made !== undefined) return made;
{%- endif %}
{%- if k.arrange.is_some() %}
    super(__ffi.constructArranged({{ c.key }}, args, {{ c.binding }}A, {{ c.binding }}C));
{%- else %}
    super(__ffi.construct({{ c.key }}, args, {{ k.coercions }}, {{ k.keywords }}, {{ c.binding }}C));
{%- endif %}
  }
{%- else if !c.member_constructors.is_empty() %}
  constructor(...args) {
    const made = __ffi.constructByMember(args, [{% for mc in c.member_constructors %}[{{ mc.min }}, {{ mc.max }}, {{ mc.global }}]{% if !loop.last %}, {% endif %}{% endfor %}], false);
    if (made !== undefined) return made;
    super(args[0]);
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
{% if let Some(g) = m.global %}
{%- if m.property %}
  get {{ m.ident }}() {
    return {{ g }}(this);
  }
{%- else %}
  {{ m.ident }}(...args) {
    return {{ g }}(this, ...args);
  }
{%- endif %}
{%- else %}
  {% if m.property %}get {% endif %}{% if m.is_static %}static {% endif %}{{ m.ident }}({{ m.call.js_params }}) {
{%- if m.packed %}
    return {{ c.binding }}[{{ m.ffi_name }}]({{ m.call.args }});
{%- else %}
    try {
      if ({{ m.call.errors.count_check }}) __ffi.argumentCount(arguments.length, {{ m.call.errors.extra_arg }});
{%- if !m.call.prologue.is_empty() %}
      {{ m.call.prologue }}
{%- endif %}
      return {{ m.call.result.0 }}{{ c.binding }}[{{ m.ffi_name }}]({{ m.call.args }}){{ m.call.result.1 }};
    } catch (e) {
      throw __ffi.callError(e, {{ m.call.errors.info }}, {{ m.call.errors.values }});
    }
{%- endif %}
  }
{%- endif %}
{%- endfor %}
};
{% if c.methods.is_empty() %}__ffi.registerType({{ c.key }}, {{ c.path }});{% else %}const {{ c.binding }} = __ffi.registerType({{ c.key }}, {{ c.path }});{% endif %}
{%- if !c.fields.is_empty() %}
const {{ c.binding }}F = __ffi.fieldGetters({{ c.key }}, [{% for fld in c.fields %}{{ fld.ffi_name }}{% if !loop.last %}, {% endif %}{% endfor %}]);
{%- endif %}
