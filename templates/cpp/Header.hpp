{{ lib.banner }}
{%- if !about.is_empty() %}
{{ about }}
{%- endif %}
#pragma once
{% for include in includes %}
#include {{ include }}
{%- endfor %}
{%- if declares %}
{% include "cpp/Declarations.hpp" %}
{%- endif %}
{%- for n in defined %}
{%- let c = lib.classes[n.item] %}

// {{ n.ns }}::{{ c.ident }}
{% include "cpp/ClassImpl.hpp" %}
{%- endfor %}
{%- for n in functions %}
{%- let f = lib.functions[n.item] %}
{%- if n.open %}

namespace {{ n.ns }} {
{%- endif %}
{% include "cpp/Function.hpp" %}
{%- if n.close %}

}  // namespace {{ n.ns }}
{%- endif %}
{%- endfor %}
