"""
    {{ t.ident }}
{%- if !t.doc.is_empty() %}

{%- for line in t.doc %}
{{ line }}
{%- endfor %}
{%- endif %}
"""
abstract type {{ t.abstract_ident }} <: {{ t.parent_abstract }} end

struct {{ t.ident }} <: {{ t.abstract_ident }}
    _ffi_obj::TVMFFI.Object
    {{ t.ident }}(::TVMFFI.Wrap, obj::TVMFFI.Object) = new(obj)
end
{%- if let Some(c) = t.constructor %}

function {{ t.ident }}({% for p in c.positional %}{{ p.ident }}{{ p.annot }}{{ p.default }}{% if !loop.last %}, {% endif %}{% endfor %}{% if !c.keyword.is_empty() %}; {% for p in c.keyword %}{{ p.ident }}{{ p.annot }}{{ p.default }}{% if !loop.last %}, {% endif %}{% endfor %}{% endif %})
    obj = TVMFFI.construct({{ t.key }}, ({% for p in c.positional %}{{ p.ident }}, {% endfor %}), ({% for p in c.keyword %}{{ p.ident }} = {{ p.ident }}, {% endfor %}))
    return {{ t.ident }}(TVMFFI.Wrap(), obj)
end
{%- endif %}
{%- if !t.fields.is_empty() %}

Base.propertynames(::{{ t.ident }}) = ({% for fld in t.fields %}:{{ fld.ident }}, {% endfor %})

function Base.getproperty(self::{{ t.ident }}, name::Symbol)
{%- for fld in t.fields %}
    name === :{{ fld.ident }} && return TVMFFI.get_field(self, {{ fld.ffi_name }}){{ fld.ret }}
{%- endfor %}
    return getfield(self, name)
end
{%- endif %}
{%- if t.has_setters %}

function Base.setproperty!(self::{{ t.ident }}, name::Symbol, value)
{%- for fld in t.fields %}
{%- if fld.writable %}
    name === :{{ fld.ident }} && return TVMFFI.set_field!(self, {{ fld.ffi_name }}, value)
{%- endif %}
{%- endfor %}
    return setfield!(self, name, value)
end
{%- endif %}
{%- for m in t.methods %}
{% if !m.doc.is_empty() %}
"""
{%- for line in m.doc %}
{{ line }}
{%- endfor %}
"""
{%- endif %}
{%- if m.packed %}
{{ m.ident }}({{ m.receiver }}, args...) = TVMFFI.call_method({{ m.target }}, {{ m.ffi_name }}, args...)
{%- else %}
function {{ m.ident }}({{ m.receiver }}{% for p in m.params %}, {{ p.ident }}{{ p.annot }}{% endfor %}){{ m.ret }}
    return TVMFFI.call_method({{ m.target }}, {{ m.ffi_name }}{% for p in m.params %}, {{ p.ident }}{% endfor %}){{ m.ret }}
end
{%- endif %}
{%- endfor %}
