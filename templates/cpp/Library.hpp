{{ banner }}
#pragma once

#include <{{ support_header }}>

namespace {{ namespace }} {

namespace detail {

/// What this header was generated from; checked against the loaded library on first use.
inline const ffihub::detail::Library& ffi_library() {
  static const ffihub::detail::Library library(
      {{ file_name }}, {{ checksum }}, {{ libraries }},
      {{ regenerate }},
{%- for line in manifest %}
      {{ line }}
{%- endfor %});
  return library;
}

}  // namespace detail

}  // namespace {{ namespace }}
{%- if !classes.is_empty() %}

// Every class is declared first: signatures may name any of them.
{%- for n in classes %}
{%- if n.open %}
namespace {{ n.ns }} {
{%- endif %}
class {{ n.item.ident }};
{%- if n.close %}
}  // namespace {{ n.ns }}
{%- endif %}
{%- endfor %}
{%- endif %}
{%- for n in classes %}
{%- let c = n.item %}
{%- if n.open %}

namespace {{ n.ns }} {
{%- endif %}
{% include "cpp/Class.hpp" %}
{%- if n.close %}

}  // namespace {{ n.ns }}
{%- endif %}
{%- endfor %}
{%- for n in classes %}
{%- let c = n.item %}
{%- if c.has_definitions %}

// {{ n.ns }}::{{ c.ident }}
{% include "cpp/ClassImpl.hpp" %}
{%- endif %}
{%- endfor %}
{%- for n in functions %}
{%- let f = n.item %}
{%- if n.open %}

namespace {{ n.ns }} {
{%- endif %}
{% include "cpp/Function.hpp" %}
{%- if n.close %}

}  // namespace {{ n.ns }}
{%- endif %}
{%- endfor %}
