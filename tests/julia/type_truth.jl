# Type truth for generated Julia packages: the values they return are of the types they declare.
# The declared type of a property is what the generated `getproperty` returns, as Julia infers
# it from the generated code (`TVMFFI.get_field(R, ...)` returns an `R`); of a container element,
# the container's element type (`FFIArray{Int64}` holds `Int64`s). `walk!` reads every property
# of every object it reaches, and every element of every container (up to `ELEMENTS` each),
# checking each value with `isa`. Used by tests/julia/generated/test_type_truth.jl and
# tests/tvm/calls.jl.
module TypeTruth

using TVMFFI

export Report, walk!, check!

"""Elements of a container that `walk!` reads at most."""
const ELEMENTS = 20

"""What a walk saw: values checked, the declarations (`T.name`) observed, and mismatches."""
mutable struct Report
    checked::Int
    observed::Set{String}
    mismatches::Vector{String}
    seen::Vector{Any}
end
Report() = Report(0, Set{String}(), String[], Any[])

const _DECLARED = Dict{Tuple{DataType,Symbol},Any}()

"""The declared type of `x.name` for objects of type `T`: what Julia infers `getproperty` returns."""
function declared(T::DataType, name::Symbol)
    get!(_DECLARED, (T, name)) do
        read = Core.eval(@__MODULE__, :(x -> x.$name))
        Base.invokelatest(() -> only(Base.return_types(read, (T,))))
    end
end

"""Checks that `value` (what `what` returned) is a `T`."""
function check!(r::Report, what::String, value, T)
    r.checked += 1
    push!(r.observed, what)
    value isa T || push!(r.mismatches, "$what is declared $T, got a value of type $(typeof(value))")
    return value
end

"""Checks every property and element reachable from `x`, `depth` levels deep."""
function walk!(r::Report, x, depth::Int)
    depth == 0 && return r
    if x isa Union{FFIArray,FFIList}
        for i in 1:min(length(x), ELEMENTS)
            walk!(r, check!(r, "element of $(typeof(x))", x[i], eltype(x)), depth - 1)
        end
    elseif x isa Union{FFIMap,FFIDict}
        for (i, (k, v)) in enumerate(x)
            i > ELEMENTS && break
            check!(r, "key of $(typeof(x))", k, keytype(x))
            walk!(r, check!(r, "value of $(typeof(x))", v, valtype(x)), depth - 1)
        end
    elseif x isa TVMFFI.FFIObject && !(x isa Union{FFIFunction,FFIModule,FFITensor,TVMFFI.Object})
        (length(r.seen) >= 2000 || any(s -> TVMFFI.same_object(s, x), r.seen)) && return r
        push!(r.seen, x)
        T = typeof(x)
        for name in propertynames(x)
            value = getproperty(x, name)
            walk!(r, check!(r, "$T.$name", value, declared(T, name)), depth - 1)
        end
    end
    return r
end

end
