{%- import "cpp/macros.hpp" as m -%}
{%- if let Some(o) = f.options %}
{%- call m::options_struct(o) %}{% endcall %}
{% endif %}
{%- call m::doc(f.doc, "") %}{% endcall %}
{%- if f.packed %}
template <typename... Args>
inline ffihub::Any {{ f.ident }}(Args&&... args) {
  static const ffihub::detail::{{ f.lookup.0 }} ffi_function(detail::ffi_library, {{ f.lookup.1 }});
  return ffi_function(std::forward<Args>(args)...);
}
{%- else %}
inline {{ f.ret }} {{ f.ident }}({% call m::params_with_defaults(f.params) %}{% endcall %}) {
  static const ffihub::detail::{{ f.lookup.0 }} ffi_function(detail::ffi_library, {{ f.lookup.1 }});
  return ffi_function.call<{{ f.ret }}>({{ f.args }});
}
{%- endif %}
