"""
{%- for line in mb.doc %}
{{ line }}
{%- endfor %}
"""
{%- for o in mb.overloads %}
{%- if !loop.first %}
{% endif %}
{% if mb.extend_base %}TVMFFI.@extend_base {% endif %}{{ mb.def_name }}({{ o.params }}){{ o.where_clause }} =
    {{ o.call }}
{%- endfor %}
{%- if let Some((params, call)) = mb.fallback %}

{{ mb.def_name }}({{ params }}) = {{ call }}
{%- endif %}
