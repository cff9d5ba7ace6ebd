# The package generated from Apache's libtvm_ffi_testing.so (a C++ library): its typed functions,
# C++ class hierarchies, auto-generated constructors (positional defaults, keyword-only
# parameters), fields of every schema type, static methods, enums and unregistered subclasses.
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestTestingLib
using Test, TVMFFI, TestingLib, ..GenTest
const L = TestingLib

@testset "typed identity functions" begin
    @test L.schema_id_int(7) === 7
    @test L.schema_id_float(2) === 2.0
    @test L.schema_id_bool(true) === true
    @test L.schema_id_string("a heap string of some length") == "a heap string of some length"
    @test L.schema_id_bytes(UInt8[1, 2]) == UInt8[1, 2]
    @test L.schema_id_dtype("int32") == DLDataType(Int32)
    @test L.schema_id_device(:cpu) == DLDevice(:cpu, 0)
    @test L.schema_id_opt_int(nothing) === nothing
    @test L.schema_id_opt_int(4) === 4
    @test L.schema_id_opt_str("s") == "s"
    @test L.schema_id_any((1, "x")) == [1, "x"]
    @test L.schema_no_args() isa Int64
    @test L.schema_no_args_no_return() === nothing
    @test L.schema_no_return(1) === nothing
    @test L.schema_id_func(x -> x + 1)(1) == 2
    @test L.schema_id_func_typed((a, b, f) -> nothing) isa FFIFunction
    @test L.test_int_pair_sum(L.TestIntPair(4, 5)) === 9
    @test L.nop() === nothing                     # packed
    @test L.echo(1, 2) == 1
    @test L.apply(x -> 2x, 21) == 42
    @test @inferred(L.add_one(1)) === 2
end

@testset "constructors of C++ classes" begin
    p = L.TestIntPair(1, 2)
    @test p.a === 1 && p.b === 2 && sum(p) === 3
    a = L.TestCxxAutoInit(1; c = 3)               # d has a default, c is keyword-only
    @test (a.a, a.b, a.c, a.d) === (1, 42, 3, 99)
    @test L.TestCxxAutoInit(1, 5; c = 3).d === 5
    @test_throws UndefKeywordError L.TestCxxAutoInit(1)
    k = L.TestCxxKwOnly(x = 1, y = 2, z = 3)
    @test (k.x, k.y, k.z, k.w) === (1, 2, 3, 100)
    @test L.TestCxxKwOnly(x = 1, y = 2, z = 3, w = 4).w === 4
    d = L.TestCxxAutoInitKwOnlyDefaults(1; k_required = 2)
    @test (d.p_required, d.p_default, d.k_required, d.k_default, d.hidden) === (1, 11, 2, 22, 33)
    @test L.TestCxxAutoInitKwOnlyDefaults(1, 5; k_required = 2, k_default = 7).k_default === 7
    c = L.TestCxxAutoInitChild(1, 2; child_kw_only = 3)
    @test (c.parent_required, c.child_required, c.parent_default, c.child_kw_only) === (1, 2, 5, 3)
    @test c isa L.AbstractTestCxxAutoInitParent
    @test L.TestCxxAutoInitAllInitOff().x === 7
    @test L.TestCxxInitSubset(5).required_field === 5
    @test L.TestCxxAutoInitSimple(1, 2).y === 2
    # What a constructor with a keyword argument whose default the library computes does: the
    # omitted argument is not passed (TVMFFI.construct drops TVMFFI.OMITTED keyword arguments).
    o = TVMFFI.construct("testing.TestCxxAutoInit", 1; :c => 3, :d => TVMFFI.OMITTED)
    @test o isa L.TestCxxAutoInit && o.d === 99
    @test TVMFFI.construct("testing.TestCxxAutoInit", 1; :c => 3, Symbol("d") => 4).d === 4
end

@testset "class hierarchy" begin
    dd = L.TestCxxClassDerivedDerived(1, 2, 3.0, true, 4.0, "dd")
    @test dd isa L.TestCxxClassDerivedDerived
    @test dd isa L.AbstractTestCxxClassDerived && dd isa L.AbstractTestCxxClassBase
    @test (dd.v_i64, dd.v_i32, dd.v_f64, dd.v_f32, dd.v_str, dd.v_bool) === (1, 2, 3.0, 4.0, "dd", true)
    dd.v_i64 = 10                                 # inherited writable field
    @test dd.v_i64 === 10
    @test propertynames(dd) == (:v_i64, :v_i32, :v_f64, :v_f32, :v_str, :v_bool)
    @test L.TestCxxClassDerived(1, 2, 3.0).v_f32 isa Float64
    u = L.make_unregistered_object()              # a subclass with no registration of its own
    @test u isa L.TestUnregisteredObject
    @test L.get_v1_plus_one(u) === u.v1 + 1
    @test L.get_v2_plus_two(u) === u.v2 + 2
    ub = L.TestUnregisteredBaseObject(5)
    @test L.get_v1_plus_one(ub) === 6
    @test_throws MethodError L.get_v2_plus_two(ub)
end

@testset "fields of every schema type" begin
    s = L.make_with(L.SchemaAllTypes, 1, 2.5, "s")
    @test s isa L.SchemaAllTypes
    @test s.v_int === 1 && s.v_float === 2.5 && s.v_string == "s"
    s.v_bool = true
    s.v_float = 3                                 # converted to float
    s.v_string = "a longer string than seven bytes"
    s.v_bytes = UInt8[1, 2, 3]
    s.v_device = (:cuda, 1)
    s.v_dtype = Float16
    s.v_opt_int = nothing
    s.v_opt_str = "o"
    s.v_arr_int = [1, 2, 3]                       # an Array[int], not a tensor
    s.v_arr_str = ("a", "b")
    s.v_map_str_int = Dict("k" => 1)
    s.v_map_str_arr_int = Dict("k" => [1, 2])
    s.v_variant = [4, 5]
    s.v_opt_arr_variant = [1, "x"]
    @test s.v_bool === true && s.v_float === 3.0
    @test s.v_string == "a longer string than seven bytes"
    @test s.v_bytes == UInt8[1, 2, 3]
    @test s.v_device == DLDevice(:cuda, 1) && s.v_dtype == DLDataType(Float16)
    @test s.v_opt_int === nothing && s.v_opt_str == "o"
    @test collect(s.v_arr_int) == [1, 2, 3] && collect(s.v_arr_str) == ["a", "b"]
    @test s.v_map_str_int["k"] === 1
    @test collect(s.v_map_str_arr_int["k"]) == [1, 2]
    @test collect(s.v_variant) == [4, 5]
    @test collect(s.v_opt_arr_variant) == [1, "x"]
    @test L.add_int(s, 1) === 2
    @test collect(L.append_int(s, [1, 2], 3)) == [1, 2, 3]
    @test L.maybe_concat(s, "a", nothing) == "a"
    @test L.merge_map(s, Dict("a" => [1]), Dict("b" => [2]))["b"] == [2]
end

@testset "objects in fields" begin
    base = L.TestObjectBase(1, 2.0, "x")
    @test base.v_i64 === 1 && L.add_i64(base, 1) === 2
    h = L.TestObjectPtrHolder(base)
    @test h.value == base && h.optional_value === nothing
    h.optional_value = base
    @test h.optional_value == base
    d = L.TestObjectDerived(Dict("k" => 1), (1, 2), 1, 2.0, "s")   # required ones first
    @test d.v_map["k"] === 1 && collect(d.v_array) == [1, 2]
    @test L.add_i64(d, 5) === 6                   # inherited method
end

@testset "module exports (TVM_FFI_DLL_EXPORT_TYPED_FUNC)" begin
    @test L.testing_dll_schema_id_int(7) === 7
    @test L.testing_dll_test_add_with_docstring(2, 3) === 5
    @test_throws ArgumentError L.testing_dll_schema_id_int("x")
    # The _DOC variant's docstring (`__tvm_ffi__doc_<name>`) is the Julia docstring.
    @test occursin("Add two integers and return the sum.", string(Base.Docs.doc(L.testing_dll_test_add_with_docstring)))
end

check_no_leaks(label = "testing library") do
    for i in 1:100
        L.TestCxxAutoInit(i; c = i)
        dd = L.TestCxxClassDerivedDerived(i, 2, 3.0, true)
        dd.v_str = "str $i"
        s = L.make_with(L.SchemaAllTypes, i, 1.0, "s")
        s.v_map_str_arr_int = Dict("k" => [i])
        s.v_arr_int = [i, i]
        L.schema_arr_map_opt([i, nothing], Dict("x" => [i]), nothing)
    end
end

end # module
