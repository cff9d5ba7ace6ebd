{{ banner }}
#pragma once

#include <{{ support_header }}>

namespace {{ namespace }} {

namespace detail {
inline constexpr const char* ffi_checksum = {{ checksum }};
inline constexpr const char* ffi_libraries[] = { {% for lib in libraries %}{{ lib }}, {% endfor %}nullptr };
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
