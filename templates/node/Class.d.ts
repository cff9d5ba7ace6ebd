{% if !c.doc.is_empty() -%}
/**
{%- for line in c.doc %}
 * {{ line }}
{%- endfor %}
 */
{% endif -%}
{{ c.decl }}class {{ c.ident }} extends {{ c.base }} {
{%- for mc in c.member_constructors %}
{%- if !mc.doc.is_empty() %}
  /**
{%- for line in mc.doc %}
   * {{ line }}
{%- endfor %}
   */
{%- endif %}
  constructor({{ mc.dts_params }});
{%- endfor %}
{%- if let Some(k) = c.constructor %}
{%- if !k.jsdoc.is_empty() %}
  /**
{%- for line in k.jsdoc %}
   * {{ line }}
{%- endfor %}
   */
{%- endif %}
  constructor({% for p in k.positional %}{{ p.decl }}{% if !loop.last || !k.keyword.is_empty() %}, {% endif %}{% endfor %}{% if !k.keyword.is_empty() %}options{% if k.options_optional %}?{% endif %}: { {% for p in k.keyword %}{{ p.decl }}; {% endfor %}}{% endif %});
{%- else if c.member_constructors.is_empty() %}
  protected constructor(token: never);
{%- endif %}
{%- for fld in c.fields %}
{%- if !fld.doc.is_empty() %}
  /**
{%- for line in fld.doc %}
   * {{ line }}
{%- endfor %}
   */
{%- endif %}
{%- if fld.writable %}
  get {{ fld.ident }}(): {{ fld.ty }};
  set {{ fld.ident }}(value: {{ fld.input_ty }});
{%- else %}
  readonly {{ fld.ident }}: {{ fld.ty }};
{%- endif %}
{%- endfor %}
{%- for m in c.methods %}
{%- if !m.doc.is_empty() %}
  /**
{%- for line in m.doc %}
   * {{ line }}
{%- endfor %}
   */
{%- endif %}
{%- if m.property %}
  readonly {{ m.ident }}: {{ m.ret }};
{%- else %}
  {% if m.is_static %}static {% endif %}{{ m.ident }}({{ m.call.dts_params }}): {{ m.ret }};
{%- endif %}
{%- endfor %}
}
