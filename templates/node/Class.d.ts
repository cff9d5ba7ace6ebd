{%- if !c.doc.is_empty() %}
/**
{%- for line in c.doc %}
 * {{ line }}
{%- endfor %}
 */
{%- endif %}
export declare class {{ c.ident }} extends {{ c.base }} {
{%- if let Some(k) = c.constructor %}
  constructor({% for p in k.positional %}{{ p.decl }}, {% endfor %}options{% if k.options_optional %}?{% endif %}: { {% for p in k.keyword %}{{ p.decl }}; {% endfor %}});
{%- else %}
  protected constructor();
{%- endif %}
{%- for fld in c.fields %}
  {% if !fld.writable %}readonly {% endif %}{{ fld.ident }}: {{ fld.ty }};
{%- endfor %}
{%- for m in c.methods %}
{%- if !m.doc.is_empty() %}
  /**
{%- for line in m.doc %}
   * {{ line }}
{%- endfor %}
   */
{%- endif %}
{%- if m.packed %}
  {% if m.is_static %}static {% endif %}{{ m.ident }}(...args: unknown[]): unknown;
{%- else %}
  {% if m.is_static %}static {% endif %}{{ m.ident }}({% for p in m.params %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor %}): {{ m.ret }};
{%- endif %}
{%- endfor %}
}
