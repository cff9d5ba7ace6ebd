"""
{%- for line in t.doc %}
{{ line }}
{%- endfor %}
"""
mutable struct {{ t.ident }} <: {{ t.abstract_ident }}
    handle::Ptr{Cvoid}
    {{ t.ident }}(handle::Ptr{Cvoid}) = new(handle)
end
{%- if !t.fields.is_empty() %}

const {{ t.fields_handle }} = TVMFFI.FieldInfo[]  # filled in __init__
{%- endif %}

Base.propertynames(::{{ t.ident }}, private::Bool = false) = {{ t.property_names }}

@inline function Base.getproperty(self::{{ t.ident }}, name::Symbol)
{%- for fld in t.fields %}
    name === {{ fld.symbol }} && return TVMFFI.get_field({{ fld.ret }}, self, {{ t.fields_handle }}[{{ fld.index }}])
{%- endfor %}
{%- for prop in t.properties %}
    name === {{ prop.symbol }} && return {{ prop.function }}(self)
{%- endfor %}
    return TVMFFI.get_field(self, name)
end

@inline function Base.setproperty!(self::{{ t.ident }}, name::Symbol, value)
{%- for fld in t.fields %}
{%- if let Some(conv) = fld.setter %}
    name === {{ fld.symbol }} && return (TVMFFI.set_field!(self, {{ t.fields_handle }}[{{ fld.index }}], {{ conv }}); value)
{%- endif %}
{%- endfor %}
    TVMFFI.set_field!(self, name, value)  # read-only and unknown fields throw AttributeError
    return value
end
