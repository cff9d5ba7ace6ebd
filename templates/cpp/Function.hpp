{%- import "cpp/macros.hpp" as m -%}
{%- call m::doc(f.doc, "") %}{% endcall %}
{%- if f.packed %}
template <typename... Args>
inline ffihub::Any {{ f.ident }}(Args&&... args) {
  static const ffihub::detail::{{ f.lookup.0 }} ffi_function(detail::ffi_library, {{ f.lookup.1 }});
  return ffi_function(std::forward<Args>(args)...);
}
{%- else %}
inline {{ f.ret }} {{ f.ident }}({% call m::params(f.params) %}{% endcall %}) {
  static const ffihub::detail::{{ f.lookup.0 }} ffi_function(detail::ffi_library, {{ f.lookup.1 }});
  return ffi_function.call<{{ f.ret }}>({% for p in f.params %}{{ p.ident }}{% if !loop.last %}, {% endif %}{% endfor %});
}
{%- endif %}
