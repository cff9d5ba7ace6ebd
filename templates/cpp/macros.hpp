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
{%- macro params_with_defaults(ps) -%}
{%- for p in ps.iter() %}{{ p.decl }}{{ p.default }}{% if !loop.last %}, {% endif %}{% endfor -%}
{%- endmacro -%}
{%- macro options_declaration(options, of) -%}
{%- if let Some(o) = options %}
  /// The keyword-only parameters of {{ of }} (defined below, after every class).
  struct {{ o.ident }};
{%- endif %}
{%- endmacro -%}
{%- macro options_struct(o) -%}
{%- call doc(o.doc, "") %}{% endcall %}
struct {{ o.definition }} {
{%- for mem in o.members.iter() %}
{%- call doc(mem.doc, "  ") %}{% endcall %}
  {{ mem.decl }}{{ mem.init }};
{%- endfor %}
};
{%- endmacro -%}
