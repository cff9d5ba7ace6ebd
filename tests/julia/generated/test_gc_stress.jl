# GC stress through the generated packages: 1,000,000 calls that create and drop objects,
# strings, bytes, containers, tensors, callbacks and errors (and, every 100th call, objects of a
# type defined in Julia: checked field writes, methods called through TVM-FFI, deep copies),
# with a full collection every 10,000 calls. Nothing may crash, every result must be right, and
# afterwards the runtime's live-object count (ffihub's runtime), the demo's live Rust objects and
# the Julia keep-alive slots must be back where they started. (`TVMFFI_STRESS_CALLS` overrides
# the count; the loop and the checks are the harness's `gc_stress`.)
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestGeneratedGCStress
using Test, TVMFFI, Demo, TestingLib, ..GenTest
const L = TestingLib

@ffi_object "gc_stress.Item" mutable struct StressItem
    n::Int64
    tags::TVMFFI.ListOf{String} = String[]
    next::Union{Nothing,StressItem} = nothing
end
@ffi_method twice(self::AbstractStressItem)::Int64 = 2 * self.n
const twice_ffi = TVMFFI.get_method("gc_stress.Item", :twice)   # the method as C++ calls it

# One call of a generated wrapper per iteration (plus the conversions it implies); returns
# whether the result was right.
function wrapper_step(i::Int)
    k = i % 10
    if k == 0                                   # an object: constructor, field, method
        p = Point(i, 1)
        return p.x == i && translate(p, 1, 0).x == i + 1
    elseif k == 1                               # a heap string
        s = "a heap string, number $i"
        return echo_string(s) == s
    elseif k == 2                               # an Array[int] built from a Julia vector
        a = L.schema_id_arr_int([i, i + 1])
        return a[2] == i + 1
    elseif k == 3                               # a Map[str, Array[int]] built from a Dict
        m = L.schema_arr_map_opt([i], Dict("k" => [i]), "s")
        return m["k"][1] == i
    elseif k == 4                               # a Julia array as a tensor and back, zero-copy
        x = Float32[i, 2, 3]
        y = L.schema_id_tensor(x)
        return pointer(y) == pointer(x) && y[1] == Float32(i)
    elseif k == 5                               # a Julia closure as a callback
        return L.apply(x -> x + i, 1) == i + 1
    elseif k == 6                               # a callback that C keeps (returned and called)
        f = L.schema_id_func(y -> y * 2)
        return f(i) == 2i
    elseif k == 7                               # a tensor allocated in C, viewed from Julia
        a = arange(4)
        return a[4] == 3.0f0
    elseif k == 8                               # bytes, and a raised error every 10,000 calls
        if i % 10_000 == 8
            e = try
                raise_error("ValueError", "stress $i")
                nothing
            catch err
                err
            end
            return e isa TVMFFI.ValueError && e.message == "stress $i"
        end
        b = rand(UInt8, 16)
        return L.schema_id_bytes(b) == b
    else                                        # a plain int call
        return L.add_one(i) == i + 1
    end
end

# Objects of the type defined in Julia.
function defined_step(i::Int)
    item = StressItem(i; next = StressItem(1))
    item.tags = ["a heap string, number $i"]
    return twice_ffi(item) == 2i && deepcopy(item).next.n == 1
end

# Every 100th call also makes objects of the type defined in Julia.
step(i::Int) = wrapper_step(i) & (i % 100 != 0 || defined_step(i))

gc_stress(step, " through the generated packages")

end # module
