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
{%- if !classes.is_empty() %}
{% for c in classes %}
class {{ c.ident }};
{%- endfor %}
{%- endif %}
{%- for c in classes %}
{% include "cpp/Class.hpp" %}
{%- endfor %}
{%- for c in classes %}
{%- if c.has_definitions %}

// {{ c.ident }}
{% include "cpp/ClassImpl.hpp" %}
{%- endif %}
{%- endfor %}
{%- for f in functions %}
{% include "cpp/Function.hpp" %}
{%- endfor %}

}  // namespace {{ namespace }}
