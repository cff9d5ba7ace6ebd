{#- Shared fragments of the C++ templates. -#}
{%- macro doc(lines, indent) -%}
{%- if !lines.is_empty() %}
{{ indent }}/**
{%- for line in lines.iter() %}
{%- if line.is_empty() %}
{{ indent }} *
{%- else %}
{{ indent }} * {{ line }}
{%- endif %}
{%- endfor %}
{{ indent }} */
{%- endif %}
{%- endmacro -%}
{%- macro params(ps) -%}
{%- for p in ps.iter() %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor -%}
{%- endmacro -%}
{%- macro args(ps) -%}
{%- for p in ps.iter() %}, {{ p.ident }}{% endfor -%}
{%- endmacro -%}
