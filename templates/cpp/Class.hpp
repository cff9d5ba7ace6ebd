{%- import "cpp/macros.hpp" as m -%}
{%- call m::doc(c.doc, "") %}{% endcall %}
class {{ c.ident }} : public {{ c.base }} {
 public:
  static constexpr const char* type_key = {{ c.key }};
  /// Internal: takes an owned reference (objects come from the constructor and from calls).
  explicit {{ c.ident }}(ffihub::detail::Owned owned) noexcept : {{ c.base }}(owned) {}
{%- if let Some(ctor) = c.constructor %}
{%- call m::options_declaration(ctor.options, "the constructor") %}{% endcall %}
{%- call m::doc(ctor.doc, "  ") %}{% endcall %}
  explicit {{ c.ident }}({% for p in ctor.params %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor %});
{%- if ctor.default_ctor.is_some() %}
  {{ c.ident }}();
{%- endif %}
{%- endif %}
{%- for mc in c.member_constructors %}
{%- call m::options_declaration(mc.options, "the next constructor") %}{% endcall %}
{%- call m::doc(mc.doc, "  ") %}{% endcall %}
{%- if mc.packed %}
  template <typename... Args, ffihub::detail::enable_packed_constructor<{{ c.ident }}, ffihub::detail::TakenCounts<{{ mc.taken_counts }}>, Args...> = 0>
  explicit {{ c.ident }}(Args&&... args)
      : {{ c.ident }}([&] {
          static const ffihub::detail::GlobalFunction ffi_function(detail::ffi_library, {{ mc.global }});
          return ffi_function.call<{{ c.ident }}>(std::forward<Args>(args)...);
        }()) {}
{%- else %}
  {% if mc.params.len() == 1 %}explicit {% endif %}{{ c.ident }}({% call m::params(mc.params) %}{% endcall %});
{%- if mc.default_ctor.is_some() %}
  {{ c.ident }}();
{%- endif %}
{%- endif %}
{%- endfor %}
{%- for fld in c.fields %}
{%- call m::doc(fld.doc, "  ") %}{% endcall %}
  {{ fld.ty }} {{ fld.ident }}() const;
{%- if let Some(setter) = fld.setter %}
  void {{ setter }}({{ fld.param_ty }} value);
{%- endif %}
{%- endfor %}
{%- for meth in c.methods %}
{%- call m::options_declaration(meth.options, format!("`{}`", meth.ident)) %}{% endcall %}
{%- call m::doc(meth.doc, "  ") %}{% endcall %}
{%- if meth.packed %}
  template <typename... Args>
  {% if meth.is_static %}static {% endif %}ffihub::Any {{ meth.ident }}(Args&&... args){% if !meth.is_static %} const{% endif %} {
{%- if meth.is_static %}
    static const ffihub::detail::StaticMethodAccess ffi_method(detail::ffi_library, {{ c.ident }}::type_key, {{ meth.ffi_name }});
    return ffi_method(std::forward<Args>(args)...);
{%- else %}
    static const ffihub::detail::MethodAccess ffi_method(detail::ffi_library, {{ c.ident }}::type_key, {{ meth.ffi_name }});
    return ffi_method.call<ffihub::Any>(*this, std::forward<Args>(args)...);
{%- endif %}
  }
{%- else %}
  {% if meth.is_static %}static {% endif %}{{ meth.ret }} {{ meth.ident }}({% call m::params(meth.params) %}{% endcall %}){% if !meth.is_static %} const{% endif %};
{%- endif %}
{%- endfor %}
};
