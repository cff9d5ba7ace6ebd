{{ m.banner }}
import * as __ffi from {{ m.support }};
import * as __ffiRoot from './index';
{%- for n in m.dts_classes %}
{%- let c = m.classes[n.item] %}
{%- if n.open && !n.ns.is_empty() %}

export declare namespace {{ n.ns }} {
{%- endif %}

{% include "node/Class.d.ts" %}
{%- if n.close && !n.ns.is_empty() %}
}
{%- endif %}
{%- endfor %}
{%- for n in m.dts_functions %}
{%- let f = m.functions[n.item] %}
{%- if n.open && !n.ns.is_empty() %}

export declare namespace {{ n.ns }} {
{%- endif %}

{% include "node/Function.d.ts" %}
{%- if n.close && !n.ns.is_empty() %}
}
{%- endif %}
{%- endfor %}
