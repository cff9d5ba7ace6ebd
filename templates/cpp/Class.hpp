{%- if !c.doc.is_empty() %}
/**
{%- for line in c.doc %}
 * {{ line }}
{%- endfor %}
 */
{%- endif %}
class {{ c.ident }} : public {{ c.base }} {
 public:
  static constexpr const char* type_key = {{ c.key }};
  using {{ c.base }}::{{ c.base_name }};
{%- if let Some(params) = c.constructor %}
  explicit {{ c.ident }}({% for p in params %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor %});
{%- endif %}
{%- for fld in c.fields %}
  {{ fld.ty }} {{ fld.ident }}() const;
{%- if let Some(setter) = fld.setter %}
  void {{ setter }}({{ fld.ty }} value);
{%- endif %}
{%- endfor %}
{%- for m in c.methods %}
{%- if !m.doc.is_empty() %}
  /**
{%- for line in m.doc %}
   * {{ line }}
{%- endfor %}
   */
{%- endif %}
{%- if m.packed %}
  template <typename... Args>
  {% if m.is_static %}static {% endif %}ffihub::Any {{ m.ident }}(Args&&... args){% if !m.is_static %} const{% endif %} {
    return ffihub::call_method<ffihub::Any>({% if m.is_static %}type_key{% else %}*this{% endif %}, {{ m.ffi_name }}, std::forward<Args>(args)...);
  }
{%- else %}
  {% if m.is_static %}static {% endif %}{{ m.ret }} {{ m.ident }}({% for p in m.params %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor %}){% if !m.is_static %} const{% endif %};
{%- endif %}
{%- endfor %}
};
