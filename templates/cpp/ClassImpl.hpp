{%- import "cpp/macros.hpp" as m -%}
{%- if let Some(ctor) = c.constructor %}
{%- if let Some(o) = ctor.options %}
{%- call m::options_struct(o) %}{% endcall %}
{%- endif %}
{%- endif %}
{%- for mc in c.member_constructors %}
{%- if let Some(o) = mc.options %}
{%- call m::options_struct(o) %}{% endcall %}
{%- endif %}
{%- endfor %}
{%- for meth in c.methods %}
{%- if let Some(o) = meth.options %}
{%- call m::options_struct(o) %}{% endcall %}
{%- endif %}
{%- endfor %}
{%- if let Some(ctor) = c.constructor %}
inline {{ c.qualified }}::{{ c.ident }}({% call m::params_with_defaults(ctor.params) %}{% endcall %})
{%- if ctor.assembled %}
    : {{ c.base }}(ffihub::detail::construct_kw<{{ c.ident }}>(detail::ffi_library, ffihub::detail::Kwargs()
{%- for a in ctor.args %}
          .{% if a.keyword %}add{% else %}positional{% endif %}{% if a.optional %}_optional{% endif %}({{ a.name }}, {{ a.expr }})
{%- endfor %})) {}
{%- else %}
    : {{ c.base }}(ffihub::detail::construct<{{ c.ident }}>(detail::ffi_library{% for a in ctor.args %}, {{ a.expr }}{% endfor %})) {}
{%- endif %}
{%- if let Some(first) = ctor.default_ctor %}
inline {{ c.qualified }}::{{ c.ident }}() : {{ c.ident }}({{ first }}) {}
{%- endif %}
{%- endif %}
{%- for mc in c.member_constructors %}
{%- if !mc.packed %}
inline {{ c.qualified }}::{{ c.ident }}({% call m::params_with_defaults(mc.params) %}{% endcall %})
    : {{ c.ident }}([&] {
        static const ffihub::detail::GlobalFunction ffi_function(detail::ffi_library, {{ mc.global }});
        return ffi_function.call<{{ c.ident }}>({{ mc.args }});
      }()) {}
{%- if let Some(first) = mc.default_ctor %}
inline {{ c.qualified }}::{{ c.ident }}() : {{ c.ident }}({{ first }}) {}
{%- endif %}
{%- endif %}
{%- endfor %}
{%- for fld in c.fields %}
inline {{ fld.ty }} {{ c.qualified }}::{{ fld.ident }}() const {
  static const ffihub::detail::FieldAccess ffi_field(detail::ffi_library, {{ c.ident }}::type_key, {{ fld.ffi_name }});
  return ffi_field.get<{{ fld.ty }}>(*this);
}
{%- if let Some(setter) = fld.setter %}
inline void {{ c.qualified }}::{{ setter }}({{ fld.param_ty }} value) {
  static const ffihub::detail::FieldAccess ffi_field(detail::ffi_library, {{ c.ident }}::type_key, {{ fld.ffi_name }});
  ffi_field.set(*this, value);
}
{%- endif %}
{%- endfor %}
{%- for meth in c.methods %}
{%- if !meth.packed %}
inline {{ meth.ret }} {{ c.qualified }}::{{ meth.ident }}({% call m::params_with_defaults(meth.params) %}{% endcall %}){% if !meth.is_static %} const{% endif %} {
{%- if let Some(g) = meth.global %}
  static const ffihub::detail::GlobalFunction ffi_function(detail::ffi_library, {{ g }});
  return ffi_function.call<{{ meth.ret }}>(*this{% if !meth.args.is_empty() %}, {{ meth.args }}{% endif %});
{%- else if meth.is_static %}
  static const ffihub::detail::StaticMethodAccess ffi_method(detail::ffi_library, {{ c.ident }}::type_key, {{ meth.ffi_name }});
  return ffi_method.call<{{ meth.ret }}>({{ meth.args }});
{%- else %}
  static const ffihub::detail::MethodAccess ffi_method(detail::ffi_library, {{ c.ident }}::type_key, {{ meth.ffi_name }});
  return ffi_method.call<{{ meth.ret }}>(*this{% if !meth.args.is_empty() %}, {{ meth.args }}{% endif %});
{%- endif %}
}
{%- endif %}
{%- endfor %}
