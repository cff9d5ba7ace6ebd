# Generated methods named like a function of `Base`: Base's function is extended where the running
# Julia's `Base` has that name as a generic function (the exports of Base differ between versions:
# `stack` is 1.9+, `logrange` 1.11+), else the package's own function of that name is defined.
# Decided when the package is precompiled, on the Julia that loads it.

"""
    TVMFFI.extends_base(name::Symbol) -> Bool

Whether the running Julia's `Base` has `name` as a generic function that packages may add
methods to (not a builtin such as `tuple` or `typeof`, not missing as `stack` is before 1.9).
"""
extends_base(name::Symbol) =
    isdefined(Base, name) && (f = getfield(Base, name); f isa Function && !(f isa Core.Builtin))

"""
    TVMFFI.@extend_base function name(args...) ... end

Defines the method on `Base.name` when [`extends_base`](@ref)`(:name)`, else on `name` as written
(a function of the calling module, or `Mod.name`). Generated packages use it for methods named
like a function that only some Julia versions' `Base` has. A docstring before the macro
documents the method.
"""
macro extend_base(def)
    call = def.args[1]
    while call isa Expr && call.head in (:where, :(::))
        call = call.args[1]
    end
    (call isa Expr && call.head === :call) || throw(ArgumentError("@extend_base: expected a method definition"))
    name = call.args[1]
    base_name = name isa Symbol ? name : (name isa Expr && name.head === :. ? name.args[2].value : nothing)
    base_name isa Symbol || throw(ArgumentError("@extend_base: cannot name the function of $name"))
    if extends_base(base_name)
        call.args[1] = Expr(:., :Base, QuoteNode(base_name))
    end
    return esc(:(Base.@__doc__ $def))
end
