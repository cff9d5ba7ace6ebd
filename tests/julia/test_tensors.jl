# Tensors without copies, both ways (DLPack): Julia arrays passed to C kernels are changed in place
# (including a 100-million-element Float32 array), tensors made in C come back as Julia arrays
# over the same memory, row-major data reads with C indices, lifetimes hold in both directions.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestTensors
using Test, TVMFFI, ..FFITest
const T = TVMFFI

testing_lib()
const K = kernels()
const add_one_inplace = K["add_one_inplace"]
const identity_c = K["identity"]
const data_ptr = K["data_ptr"]
const make_iota = K["make_iota"]
const make_matrix = K["make_matrix"]
const live_buffers = K["live_buffers"]
const id_tensor = get_global_func("testing.schema_id_tensor")

@testset "Julia array -> C kernel, in place" begin
    x = Float32[1, 2, 3, 4]
    add_one_inplace(x)
    @test x == Float32[2, 3, 4, 5]
    m = reshape(Float32.(1:6), 2, 3)
    add_one_inplace(m)
    @test m == reshape(Float32.(2:7), 2, 3)
    @test data_ptr(x) == Int(pointer(x))
    @test_throws TVMFFI.ValueError add_one_inplace(Float64[1, 2])
end

@testset "100 million Float32 elements, zero-copy" begin
    n = 100_000_000
    big = fill(1.0f0, n)
    p = pointer(big)
    t = @elapsed add_one_inplace(big)
    @test pointer(big) == p
    @test big[1] == 2.0f0 && big[n] == 2.0f0 && big[n ÷ 2] == 2.0f0
    @test all(==(2.0f0), big)
    @test data_ptr(big) == Int(p)
    # a tensor returned from C over the same memory is wrapped, not copied
    back = identity_c(big)
    @test back isa Array{Float32,1}
    @test pointer(back) == p
    @test length(back) == n
    back[7] = 42.0f0
    @test big[7] == 42.0f0
    @test id_tensor(big) isa Array{Float32,1} && pointer(id_tensor(big)) == p
    @info "add_one_inplace over $n Float32 elements took $(round(t, digits = 3)) s"
    big = back = nothing
    GC.gc()
end

@testset "C-allocated tensor -> Julia array, zero-copy" begin
    a = make_iota(10)
    @test a isa Vector{Float32}
    @test a == Float32.(0:9)
    @test Int(pointer(a)) == data_ptr(a)              # passing `a` back passes the same tensor
    add_one_inplace(a)                                 # C writes, Julia sees it
    @test a == Float32.(1:10)
    a[1] = 100.0f0                                     # Julia writes, C sees it
    @test identity_c(a)[1] == 100.0f0
    @test pointer(identity_c(a)) == pointer(a)
end

# In a function, so that no top-level slot keeps the array reachable afterwards.
function use_c_tensor()
    a = make_iota(1000)
    live = live_buffers()
    GC.gc()
    return live, sum(a)                                 # still valid after a collection
end

@testset "C memory lives as long as the Julia array" begin
    GC.gc()
    base = live_buffers()
    live, s = use_c_tensor()
    @test live == base + 1
    @test s == sum(0:999)
    for _ in 1:3
        GC.gc()
    end
    @test live_buffers() == base                       # freed once the array was collected
end

@testset "row-major tensors read with C indices" begin
    m = make_matrix(2, 3)                              # C: m[i][j] = 10 i + j
    @test size(m) == (2, 3)
    @test m isa PermutedDimsArray
    @test [m[i, j] for i in 1:2, j in 1:3] == Float32[0 1 2; 10 11 12]
    @test data_ptr(m) == Int(pointer(parent(m)))       # same memory, passed back as the same tensor
    add_one_inplace(m)
    @test m[2, 3] == 13.0f0
    r = identity_c(m)
    @test r isa PermutedDimsArray && r == m
    # a row-major view made in Julia goes as a row-major tensor
    j = collect(reshape(Float32.(1:6), 3, 2))
    pd = PermutedDimsArray(j, (2, 1))
    @test size(pd) == (2, 3)
    back = id_tensor(pd)
    @test back == pd
    @test pointer(parent(back)) == pointer(j)
end

@testset "column-major Julia matrices keep their layout" begin
    m = rand(Float64, 3, 4)
    back = id_tensor(m)
    @test back isa Matrix{Float64}
    @test back == m
    @test pointer(back) == pointer(m)
    t = FFITensor(m)
    @test T.shape(t) == [3, 4]
    @test T.dtype(t) == DLDataType(Float64)
    @test T.device(t) == DLDevice(:cpu, 0)
    @test T.data_pointer(t) == Ptr{Cvoid}(pointer(m))
    @test T.to_array(t) == m
end

@testset "element types" begin
    for Tp in (Float16, Float32, Float64, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Bool, ComplexF32, ComplexF64)
        x = Tp == Bool ? [true, false, true] : Tp[1, 2, 3]
        t = FFITensor(x)
        @test T.dtype(t) == DLDataType(Tp)
        # a Vector{UInt8} argument is bytes; FFITensor(x) makes it a tensor explicitly
        y = id_tensor(Tp == UInt8 ? t : x)
        @test eltype(y) === Tp && y == x && pointer(y) == pointer(x)
    end
    @test string(T.dtype(FFITensor(Float32[1]))) == "float32"
end

@testset "non-contiguous views" begin
    x = collect(Float32, 1:10)
    v = view(x, 1:2:9)                                  # stride 2
    t = id_tensor(v)
    @test t isa FFITensor                               # not viewable as a Julia Array without a copy
    @test T.shape(t) == [5]
    @test T.data_pointer(t) == Ptr{Cvoid}(pointer(x))
    @test_throws ArgumentError T.to_array(t)
    @test sprint(show, t) == "FFITensor(float32[5] on cpu:0)"
    # contiguous views are fine
    w = view(x, 3:6)
    @test id_tensor(w) == Float32[3, 4, 5, 6]
    @test pointer(id_tensor(w)) == pointer(x, 3)
end

function tensor_outlives_its_array()
    t = let
        tmp = Float64[1, 2, 3]
        FFITensor(tmp)
    end
    for _ in 1:3
        GC.gc()
    end
    return T.to_array(t) == [1.0, 2.0, 3.0], t
end

@testset "a tensor keeps its Julia array alive" begin
    for _ in 1:3
        GC.gc()
    end
    T.sweep_keepalive!()
    slots = T.keepalive_count()
    ok, t = tensor_outlives_its_array()
    @test ok
    @test T.keepalive_count() == slots + 1
    close(t)
    t = nothing
    for _ in 1:3
        GC.gc()
    end
    T.sweep_keepalive!()
    @test T.keepalive_count() == slots
end

@testset "tensors inside containers" begin
    x = Float32[5, 6, 7]
    arr = get_global_func("testing.make_array_with_tensor")(x)
    @test arr isa FFIArray
    el = arr[1]
    @test el isa Vector{Float32} && pointer(el) == pointer(x)
    d = get_global_func("testing.make_map_with_tensor")(x)
    @test any(v -> v isa AbstractArray && pointer(v) == pointer(x), values(d))
end

@testset "empty and zero-dimensional tensors" begin
    @test id_tensor(Float32[]) == Float32[]
    z = fill(3.0)
    r = id_tensor(z)
    @test size(r) == () && r[] == 3.0
end

@testset "DLTensor* views passed to Julia callbacks are copied" begin
    x = Float32[1, 2, 3]
    seen = K["call_with_dltensor_ptr"](v -> (v isa Vector{Float32} && pointer(v) != pointer(x) ? sum(v) : -1.0), x)
    @test seen == 6.0
end

check_no_leaks(label = "tensors") do
    for i in 1:200
        x = rand(Float32, 16)
        add_one_inplace(x)
        identity_c(x)
        id_tensor(reshape(x, 4, 4))
        a = make_iota(8)
        add_one_inplace(a)
        make_matrix(2, 2)[1, 2]
        FFITensor(x)
    end
end
@testset "C buffers released" begin
    for _ in 1:3
        GC.gc()
    end
    @test live_buffers() == 0
end


@testset "an array passed for one call is protected during the call only" begin
    apply = get_global_func("testing.apply")
    sweep() = (GC.gc(); T.sweep_keepalive!())
    for kept_before in (false, true)
        v = ones(1000)
        t = kept_before ? T.FFITensor(v) : nothing
        # a callback during the call: the memory under the call's tensor cannot move
        seen = apply(v) do tensor_view
            if T._ARRAYS_OWN_MEMORY
                push!(v, 2.0)        # moves `v`; the call's memory stays valid
            else
                @test_throws ErrorException("cannot resize array with shared data") push!(v, 2.0)
            end
            sum(tensor_view)
        end
        @test seen == 1000.0
        # the callback's view of the tensor holds it until collected; then the array is kept
        # no more (and by the tensor made before only until that is closed)
        kept_before && close(t)
        sweep()
        @test !T.is_kept(v)
        push!(v, 3.0)                # resizable again
        @test v[end] == 3.0
    end
    # kept during the call by a tensor made in a callback: still kept after the call
    v = ones(100)
    t2 = Ref{Any}(nothing)
    apply(v) do _
        t2[] = T.FFITensor(v)
        nothing
    end
    sweep()
    @test T.is_kept(v) || T._ARRAYS_OWN_MEMORY
    T._ARRAYS_OWN_MEMORY || @test_throws ErrorException push!(v, 1.0)
    close(t2[])
    sweep()
    @test !T.is_kept(v)
    push!(v, 1.0)
    @test length(v) == 101
    # kept by the callee (the result holds the tensor): kept while the result lives
    w = ones(10)
    r = id_tensor(w)
    @test T.is_kept(w) || T._ARRAYS_OWN_MEMORY
    T._ARRAYS_OWN_MEMORY || @test_throws ErrorException push!(w, 1.0)
    r = nothing
    sweep()
    @test !T.is_kept(w)
    push!(w, 1.0)
    @test length(w) == 11
end

end # module
