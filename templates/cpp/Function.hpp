{%- if !f.doc.is_empty() %}
/**
{%- for line in f.doc %}
 * {{ line }}
{%- endfor %}
 */
{%- endif %}
{%- if f.packed %}
template <typename... Args>
inline ffihub::Any {{ f.ident }}(Args&&... args) {
  return ffihub::call_global<ffihub::Any>({{ f.ffi_name }}, std::forward<Args>(args)...);
}
{%- else %}
inline {{ f.ret }} {{ f.ident }}({% for p in f.params %}{{ p.decl }}{% if !loop.last %}, {% endif %}{% endfor %}) {
  return ffihub::call_global<{{ f.ret }}>({{ f.ffi_name }}{% for p in f.params %}, {{ p.ident }}{% endfor %});
}
{%- endif %}
