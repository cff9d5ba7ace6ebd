{%- if !f.doc.is_empty() %}
/**
{%- for line in f.doc %}
 * {{ line }}
{%- endfor %}
 */
{%- endif %}
{%- if f.packed %}
export declare function {{ f.ident }}(...args: unknown[]): unknown;
{%- else %}
export declare function {{ f.ident }}({% for p in f.params %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor %}): {{ f.ret }};
{%- endif %}
