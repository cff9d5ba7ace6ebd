
namespace {{ lib.namespace }} {

namespace detail {

/// What this header was generated from; checked against the loaded library on first use.
inline const ffihub::detail::Library& ffi_library() {
  static const char* const manifest[] = {
{%- for line in lib.manifest %}
      {{ line }},
{%- endfor %}
  };
  static const ffihub::detail::Library library(
      {{ lib.file_name }}, {{ lib.checksum }}, {{ lib.libraries }},
      {{ lib.regenerate }}, manifest);
  return library;
}

}  // namespace detail

}  // namespace {{ lib.namespace }}
{%- if !declared.is_empty() %}

// Every class is declared first: signatures may name any of them.
{%- for n in declared %}
{%- if n.open %}
namespace {{ n.ns }} {
{%- endif %}
class {{ lib.classes[n.item].ident }};
{%- if n.close %}
}  // namespace {{ n.ns }}
{%- endif %}
{%- endfor %}
{%- endif %}
{%- for n in declared %}
{%- let c = lib.classes[n.item] %}
{%- if n.open %}

namespace {{ n.ns }} {
{%- endif %}
{% include "cpp/Class.hpp" %}
{%- if n.close %}

}  // namespace {{ n.ns }}
{%- endif %}
{%- endfor %}
