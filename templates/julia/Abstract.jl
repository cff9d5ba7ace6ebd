"""
{%- for line in t.abstract_doc %}
{{ line }}
{%- endfor %}
"""
abstract type {{ t.abstract_ident }} <: {{ t.parent_abstract }} end
