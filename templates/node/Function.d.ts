{% if !f.doc.is_empty() -%}
/**
{%- for line in f.doc %}
 * {{ line }}
{%- endfor %}
 */
{% endif -%}
{{ f.decl }}function {{ f.ident }}({% if f.packed %}...args: unknown[]{% else %}{% for p in f.params %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor %}{% endif %}): {{ f.ret }};
