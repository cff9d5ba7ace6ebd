{%- if let Some(params) = c.constructor %}
inline {{ c.ident }}::{{ c.ident }}({% for p in params %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor %})
    : {{ c.base }}(ffihub::construct(type_key{% for p in params %}, {{ p.ident }}{% endfor %})) {}
{%- endif %}
{%- for fld in c.fields %}
inline {{ fld.ty }} {{ c.ident }}::{{ fld.ident }}() const { return get_field<{{ fld.ty }}>({{ fld.ffi_name }}); }
{%- if let Some(setter) = fld.setter %}
inline void {{ c.ident }}::{{ setter }}({{ fld.ty }} value) { set_field({{ fld.ffi_name }}, std::move(value)); }
{%- endif %}
{%- endfor %}
{%- for m in c.methods %}
{%- if !m.packed %}
inline {{ m.ret }} {{ c.ident }}::{{ m.ident }}({% for p in m.params %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor %}){% if !m.is_static %} const{% endif %} {
  return ffihub::call_method<{{ m.ret }}>({% if m.is_static %}type_key{% else %}*this{% endif %}, {{ m.ffi_name }}{% for p in m.params %}, {{ p.ident }}{% endfor %});
}
{%- endif %}
{%- endfor %}
