# Registered object types of Apache's libtvm_ffi_testing.so: construction (positional and keyword),
# reflected fields (inherited ones too) read and written through the type info's getters and
# setters, methods, downcast to the most-derived registered Julia type, identity, printing,
# reference counts.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestObjects
using Test, TVMFFI, ..FFITest
const T = TVMFFI

testing_lib()
const use_count = get_global_func("testing.object_use_count")
const echo = get_global_func("testing.echo")

# Julia types as a generated package defines them.
mutable struct TestIntPair <: FFIObject
    handle::Ptr{Cvoid}
end
abstract type AbstractCxxClassBase <: FFIObject end
mutable struct TestCxxClassBase <: AbstractCxxClassBase
    handle::Ptr{Cvoid}
end
mutable struct TestCxxClassDerived <: AbstractCxxClassBase
    handle::Ptr{Cvoid}
end
# Reflected fields as properties, the way generated types expose them.
for X in (TestIntPair, TestCxxClassBase, TestCxxClassDerived)
    @eval Base.getproperty(x::$X, name::Symbol) = T.get_field(x, name)
    @eval Base.propertynames(x::$X, private::Bool = false) = Tuple(f.name for f in T.fields(x))
end

@testset "generic objects" begin
    p = T.construct("testing.TestIntPair", 1, 2)
    @test p isa TVMFFI.Object
    @test p isa FFIObject
    @test T.type_key(p) == "testing.TestIntPair"
    @test T.type_index(p) == T.type_index("testing.TestIntPair")
    @test p.a === 1 && p.b === 2
    @test propertynames(p) == (:a, :b)
    @test T.call_method(p, :sum) === 3
    @test get_global_func("testing.TestIntPairSum")(p) === 3
    @test T.get_method("testing.TestIntPair", :sum)(p) === 3
    @test_throws TVMFFI.AttributeError p.c
    @test_throws TVMFFI.AttributeError p.a = 5                  # read-only field
    @test_throws TVMFFI.AttributeError T.call_method(p, :nope)
end

@testset "reflection tables" begin
    fs = T.fields("testing.TestCxxClassDerived")
    @test [f.name for f in fs] == [:v_i64, :v_i32, :v_f64, :v_f32]
    @test fs[1].owner == "testing.TestCxxClassBase"
    @test fs[3].writable
    @test T.type_schema(fs[3].metadata) == Dict{String,Any}("type" => "float")
    @test T.ancestors("testing.TestCxxClassDerivedDerived") ==
          ["ffi.Object", "testing.TestCxxClassBase", "testing.TestCxxClassDerived"]
    ms = T.methods_of("testing.TestIntPair")
    @test [m.name for m in ms] == [:__ffi_init__, :sum]
    @test ms[1].is_static && !ms[2].is_static
    @test T.field_info("testing.TestIntPair", :a).offset == 24
    @test_throws FFIError T.type_index("testing.NoSuchType")
end

@testset "keyword construction and writable fields" begin
    o = T.construct("testing.TestObjectBase"; v_i64 = 7, v_f64 = 1.5, v_str = "hello")
    @test o.v_i64 === 7 && o.v_f64 === 1.5 && o.v_str == "hello"
    o.v_i64 = 8
    @test o.v_i64 === 8
    o.v_str = "a longer string value"
    @test o.v_str == "a longer string value"
    @test T.call_method(o, :add_i64, 2) === 10
    @test_throws FFIError o.v_i64 = "not an int"               # the setter checks the type
    d = T.construct("testing.TestObjectDerived"; v_i64 = 1, v_f64 = 2.0, v_str = "s",
                    v_map = Dict("k" => 1), v_array = (1, 2, 3))   # a numeric Vector would be a tensor
    @test d.v_map isa FFIMap && d.v_map["k"] == 1
    @test d.v_array isa FFIArray && collect(d.v_array) == [1, 2, 3]
    @test d.v_i64 === 1                                        # inherited field
    @test T.call_method(d, :add_i64, 1) === 2                  # inherited method
    d.v_array = FFIArray(["x"])
    @test d.v_array == ["x"]
end

@testset "downcast to the most-derived registered Julia type" begin
    T.register_object_type("testing.TestIntPair", TestIntPair)
    p = T.construct("testing.TestIntPair", 3, 4)
    @test p isa TestIntPair
    @test T.get_field(p, :a) === 3
    @test echo(p) isa TestIntPair
    @test T.construct(TestIntPair, 5, 6) isa TestIntPair
    @test T.registered_object_type("testing.TestIntPair") === TestIntPair

    make_dd() = T.construct("testing.TestCxxClassDerivedDerived"; v_i64 = 1, v_i32 = 2, v_f64 = 3.0,
                            v_f32 = 4.0, v_str = "dd", v_bool = true)
    @test make_dd() isa TVMFFI.Object
    T.register_object_type("testing.TestCxxClassBase", TestCxxClassBase)
    dd = make_dd()
    @test dd isa TestCxxClassBase                              # only the base is registered
    @test T.get_field(dd, :v_str) == "dd"                      # fields of the real type still work
    T.register_object_type("testing.TestCxxClassDerived", TestCxxClassDerived)
    dd2 = make_dd()
    @test dd2 isa TestCxxClassDerived                          # now the nearer ancestor wins
    @test dd2 isa AbstractCxxClassBase
    @test T.get_field(dd2, :v_bool) === true
    @test T.get_field(dd2, :v_i64) === 1
    b = T.construct("testing.TestCxxClassBase"; v_i64 = 5, v_i32 = 6)
    @test b isa TestCxxClassBase
    # objects inside containers are downcast too
    @test FFIArray([dd2, b])[1] isa TestCxxClassDerived
    @test_throws ArgumentError T.register_object_type("x", FFIObject)
end

@testset "identity and printing" begin
    p = T.construct("testing.TestIntPair", 1, 2)
    q = echo(p)
    @test q == p && T.same_object(p, q) && hash(p) == hash(q)
    @test p != T.construct("testing.TestIntPair", 1, 2)
    @test sprint(show, p) == "testing.TestIntPair(a=1, b=2)"
    @test T.repr_ffi(p) == "testing.TestIntPair(a=1, b=2)"
    u = get_global_func("testing.make_unregistered_object")()
    @test T.type_key(u) == "testing.TestUnregisteredObject"
    @test u.v1 === 41 && u.v2 === 42
end

@testset "reference counts" begin
    p = T.construct("testing.TestIntPair", 1, 2)
    @test use_count(p) == 1                                    # arguments are borrowed
    q = echo(p)
    @test use_count(p) == 2                                    # the result owns one reference
    close(q)
    @test use_count(p) == 1
    holder = T.construct("testing.TestObjectPtrHolder";
                         value = T.construct("testing.TestObjectBase"; v_i64 = 1, v_f64 = 0.0, v_str = ""),
                         optional_value = nothing)
    v = holder.value
    n = use_count(v)
    for _ in 1:100
        holder.value                                           # reading a field does not leak
    end
    GC.gc()
    @test use_count(v) == n
    @test holder.optional_value === nothing
end

@testset "closed objects" begin
    p = T.construct("testing.TestIntPair", 1, 2)          # a TestIntPair (registered above)
    @test isopen(p)
    close(p)
    @test !isopen(p)
    @test_throws ArgumentError T.get_field(p, :a)
    @test_throws ArgumentError echo(p)
    @test occursin("<closed>", sprint(show, p))
end

check_no_leaks(label = "objects") do
    for i in 1:200
        p = T.construct("testing.TestIntPair", i, i)
        p.a + p.b
        T.call_method(p, :sum)
        o = T.construct("testing.TestObjectBase"; v_i64 = i, v_f64 = 0.5, v_str = "obj $i")
        o.v_str = "changed $i"
        o.v_str
        d = T.construct("testing.TestObjectDerived"; v_i64 = 1, v_f64 = 2.0, v_str = "s",
                        v_map = Dict("k" => p), v_array = [p, o])
        d.v_map["k"].a
        sprint(show, p)
    end
end

end # module
