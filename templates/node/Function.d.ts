{% if !f.doc.is_empty() -%}
/**
{%- for line in f.doc %}
 * {{ line }}
{%- endfor %}
 */
{% endif -%}
{{ f.decl }}function {{ f.ident }}({{ f.call.dts_params }}): {{ f.ret }};
