# Object types defined in Julia (`@ffi_object`, `@ffi_method`): created, read and written from
# Julia; passed to C++ code built against Apache's headers (tests/c/reflect_probe.cc, which
# reaches them only through reflection: it reads every field, calls methods and returns modified
# copies); printed by ffi.ReprPrint, compared and hashed structurally, round-tripped through
# JSON graphs, deep-copied; derived from (a Julia type from a Julia type, and from the generated
# C++ class testing.TestObjectBase); released under forced GC; the errors of bad input; and a
# precompiled package (fixtures/DefineFixture) that registers its type in `__init__`.
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestDefine
using Test, TVMFFI, TestingLib, ..GenTest
const T = TVMFFI

T.load_library(ENV["FFIHUB_REFLECT_PROBE"])
const describe = get_global_func("reflect_probe.describe")
const call_method = get_global_func("reflect_probe.call_method")
const with_field = get_global_func("reflect_probe.with_field")
const use_count = get_global_func("testing.object_use_count")
const to_json_graph = get_global_func("ffi.ToJSONGraphString")
const from_json_graph = get_global_func("ffi.FromJSONGraphString")

"A field of any value, `nothing` by default."
@ffi_object "define_test.Loose" mutable struct Loose
    x::Any = nothing
end

"A point with integer coordinates."
@ffi_object "define_test.Point" eq = :structural struct Point
    x::Int64
    y::Int64 = 0
end

@ffi_object "define_test.Shape" eq = :structural mutable struct Shape
    "how many corners"
    corners::Int64
    scale::Float64 = 1.0
    name::String
    points::Vector{Point}
    origin::Point
    parent::Union{Nothing,Shape} = nothing
end

"The area of a shape's bounding box, times `k`."
@ffi_method function area(self::AbstractShape, k::Float64)::Float64
    xs = [p.x for p in self.points]
    ys = [p.y for p in self.points]
    return (maximum(xs) - minimum(xs)) * (maximum(ys) - minimum(ys)) * self.scale * k
end

@ffi_method function renamed(self::AbstractShape, name::String)::AbstractShape
    copy = Base.copy(self)
    copy.name = name
    return copy
end

@ffi_method function fails(self::AbstractShape, why::String)::Int64
    throw(ArgumentError("cannot do that: $why"))
end

corners_of(s) = s.corners
scale_of(s) = s.scale
name_of(s) = s.name
points_of(s) = s.points
origin_of(s) = s.origin
square_points() = [Point(0), Point(2), Point(2, 2), Point(0, 2)]
make_square(name = "square") = Shape(4; name = name, points = square_points(), origin = Point(1, 1))

@testset "create, read and write from Julia" begin
    s = make_square()
    @test s isa Shape && s isa AbstractShape && s isa FFIObject
    @test T.type_key(s) == "define_test.Shape"
    @test propertynames(s) == (:corners, :scale, :name, :points, :origin, :parent)
    @test @inferred(corners_of(s)) === 4                  # field reads are inferred
    @test @inferred(scale_of(s)) === 1.0                  # the default
    @test @inferred(name_of(s)) == "square"
    @test @inferred(points_of(s)) isa FFIArray && length(s.points) == 4
    @test s.points[3] isa Point && s.points[3].x === 2 && s.points[3].y === 2
    @test @inferred(AbstractPoint, origin_of(s)) == Point(1, 1)   # eq = :structural
    @test s.parent === nothing                            # Optional, defaulted
    s.scale = 3                                           # converted like TVM-FFI converts
    @test s.scale === 3.0
    s.name = "renamed"
    @test s.name == "renamed"
    s.points = [Point(5)]                                 # a Julia vector, built as an ffi.Array
    @test length(s.points) == 1 && s.points[1].x == 5
    child = Shape(3, 2.0, "tri", [Point(0)], Point(0), s) # positional, in declaration order
    @test T.same_object(child.parent, s) && child.scale === 2.0
    child.parent = nothing
    @test child.parent === nothing
    @test_throws TVMFFI.AttributeError Point(1).x = 2     # a `struct`'s fields are read-only
    @test Point(x = 4).x === 4 && Point(4, 5).y === 5
end

@testset "C++ reads every field through reflection, calls methods, returns a modified copy" begin
    s = make_square()
    @test describe(s) == "define_test.Shape(corners=4, scale=1, name=\"square\", points=[" *
                         "define_test.Point(x=0, y=0), define_test.Point(x=2, y=0), define_test.Point(x=2, y=2), " *
                         "define_test.Point(x=0, y=2)], origin=define_test.Point(x=1, y=1), parent=None)"
    @test call_method(s, "area", 2) === 8.0               # an int argument for a Float64
    r = call_method(s, "renamed", "other")
    @test r isa Shape && r.name == "other" && s.name == "square"
    c = with_field(s, "corners", 5)
    @test c isa Shape && c.corners === 5 && s.corners === 4
    @test c.points == s.points && c.origin == s.origin
    m = T.get_method("define_test.Shape", :area)
    @test m(s, 1.0) === 4.0
    @test T.call_method(s, :renamed, "via reflection").name == "via reflection"
end

@testset "printing, structural equality and hashing, JSON graphs, deep copies" begin
    s = make_square()
    printed = "define_test.Shape(corners=4, scale=1, name=\"square\", points=(" *
              "define_test.Point(x=0, y=0), define_test.Point(x=2, y=0), define_test.Point(x=2, y=2), " *
              "define_test.Point(x=0, y=2)), origin=define_test.Point(x=1, y=1), parent=None)"
    @test T.repr_ffi(s) == printed
    @test sprint(show, s) == printed
    t = make_square()
    @test !T.same_object(s, t)
    @test T.structural_equal(s, t) && s == t && isequal(s, t)
    @test T.structural_hash(s) == T.structural_hash(t) && hash(s) == hash(t)
    @test s != make_square("other") && !T.structural_equal(s, make_square("other"))
    @test T.structural_hash(s) != T.structural_hash(make_square("other"))
    nested = Shape(1; name = "n", points = Point[], origin = Point(0), parent = s)
    back = from_json_graph(to_json_graph(nested, nothing))
    @test back isa Shape && !T.same_object(back, nested) && back == nested
    @test back.parent.points[2] == Point(2)
    d = deepcopy(nested)
    @test d isa Shape && d == nested && !T.same_object(d.parent, nested.parent)
    d.parent.name = "changed"
    @test nested.parent.name == "square"
    shallow = copy(nested)
    @test T.same_object(shallow.parent, nested.parent)
end

@ffi_object "define_test.Labeled" mutable struct Labeled <: Shape
    label::String = "none"
    counts::TVMFFI.ListOf{Int64} = Int64[]
end

# Overrides `area` for Labeled (and what derives from it); `renamed` is inherited.
@ffi_method area(self::AbstractLabeled, k::Float64)::Float64 = -k

@ffi_object "define_test.Tagged" mutable struct Tagged <: TestingLib.TestObjectBase
    tag::String
    weight::Float64 = 0.5
end

@testset "derived types" begin
    l = Labeled(4; name = "l", points = square_points(), origin = Point(0), label = "L")
    @test l isa AbstractShape && l isa AbstractLabeled
    @test T.ancestors(l) == ["ffi.Object", "define_test.Shape"]
    @test propertynames(l) == (:corners, :scale, :name, :points, :origin, :parent, :label, :counts)
    @test l.corners === 4 && l.label == "L"
    push!(l.counts, 1)                                    # a List default is made per object
    @test collect(l.counts) == [1] && isempty(Labeled(0; name = "", points = [], origin = Point(0)).counts)
    @test call_method(l, "area", 2.0) === -2.0            # the override, found by C++
    @test call_method(l, "renamed", "r").name == "r"      # the inherited method
    @test area(l, 2.0) === -2.0 && area(make_square(), 1.0) === 4.0
    @test describe(l) == "define_test.Labeled(corners=4, scale=1, name=\"l\", points=[" *
                         "define_test.Point(x=0, y=0), define_test.Point(x=2, y=0), define_test.Point(x=2, y=2), " *
                         "define_test.Point(x=0, y=2)], origin=define_test.Point(x=0, y=0), parent=None, " *
                         "label=\"L\", counts=List[1])"
    s = make_square()
    s.parent = l                                          # a Labeled where a Shape is declared
    @test s.parent isa Labeled

    t = Tagged(v_i64 = 40, v_f64 = 1.5, v_str = "cxx", tag = "julia")
    @test t isa TestingLib.AbstractTestObjectBase
    @test TestingLib.add_i64(t, 2) === 42                 # the C++ method of the C++ parent
    @test call_method(t, "add_i64", 2) === 42
    @test (t.v_i64, t.v_f64, t.v_str, t.tag, t.weight) == (40, 1.5, "cxx", "julia", 0.5)
    t.v_i64 = 1
    t.tag = "changed"
    @test describe(t) == "define_test.Tagged(v_i64=1, v_f64=1.5, v_str=\"cxx\", tag=\"changed\", weight=0.5)"
    @test T.structural_equal(deepcopy(t), t)
    @test from_json_graph(to_json_graph(t, nothing)) isa Tagged
end

@testset "method and field types in the reflection metadata" begin
    fs = T.fields("define_test.Shape")
    @test [T.type_schema(f.metadata)["type"] for f in fs] ==
          ["int", "float", "ffi.String", "ffi.Array", "define_test.Point", "Optional"]
    @test T.type_schema(fs[4].metadata)["args"] == Any[Dict{String,Any}("type" => "define_test.Point")]
    @test all(f.writable for f in fs) && !any(f.writable for f in T.fields("define_test.Point"))
    @test fs[2].flags & T.kTVMFFIFieldFlagBitMaskHasDefault != 0
    schema = T.type_schema(T.methods_of("define_test.Shape")[1].metadata)
    @test schema["named_args"]["params"] == Any[Dict{String,Any}("type" => "define_test.Shape"),
                                                Dict{String,Any}("type" => "float")]
    @test schema["named_args"]["return"] == Any[Dict{String,Any}("type" => "float")]
end

@testset "bad input" begin
    err(f) = try
        f()
        nothing
    catch e
        e
    end
    dup = err(() -> @eval @ffi_object "define_test.Point" struct PointAgain
        x::Int64
    end)
    @test dup isa ArgumentError && occursin("define_test.Point is already registered", dup.msg)
    bad = err(() -> @eval @ffi_object "define_test.Bad" struct Bad
        z::Complex{Float64}
    end)
    @test bad isa ArgumentError && occursin("field `z` of define_test.Bad", bad.msg) &&
          occursin("$(Complex{Float64}) has no TVM-FFI equivalent", bad.msg)   # ComplexF64 on 1.6+
    @test T._lookup_type_index("define_test.Bad") === nothing          # nothing was registered
    bad = err(() -> @eval @ffi_object "define_test.Shadow" struct Shadow <: Shape
        corners::Int64
    end)
    @test bad isa ArgumentError && occursin("field `corners` of define_test.Shadow: the name is already a field", bad.msg)
    bad = err(() -> @eval @ffi_method cplx(self::AbstractShape, z::Complex{Float64}) = 0)
    @test bad isa ArgumentError && occursin("parameter `z` of define_test.Shape.cplx", bad.msg)
    @test !any(m -> m.name === :cplx, T.methods_of("define_test.Shape"))
    s = make_square()
    e = err(() -> s.corners = "four")
    @test e isa TVMFFI.TypeError && e.message == "field `corners` of define_test.Shape expects int, got str"
    e = err(() -> s.origin = make_square())
    @test e isa TVMFFI.TypeError &&
          e.message == "field `origin` of define_test.Shape expects define_test.Point, got define_test.Shape"
    e = err(() -> s.points = [Point(1), "p"])
    @test e isa TVMFFI.TypeError && occursin("expects Array[define_test.Point], got ffi.Array (element 1 is str)", e.message)
    e = err(() -> with_field(s, "name", 3))                              # a write from C++
    @test e isa TVMFFI.TypeError && occursin("field `name` of define_test.Shape expects str, got int", e.message)
    @test s.corners === 4 && s.name == "square"
    e = err(() -> call_method(s, "fails", "now"))                        # a throwing method, called from C++
    @test e isa TVMFFI.ValueError && occursin("ArgumentError: cannot do that: now", e.message)
    @test occursin("in fails", e.backtrace)
    e = err(() -> call_method(s, "area", "wide"))
    @test e isa TVMFFI.TypeError && e.message == "argument `k` of define_test.Shape.area expects Float64, got str"
    e = err(() -> call_method(s, "area"))
    @test e isa TVMFFI.TypeError && e.message == "define_test.Shape.area takes 2 arguments (self, k), got 1"
    e = err(() -> Shape(4; name = "no points"))
    @test e isa TVMFFI.FFIError && occursin("points", e.message)
    e = err(() -> Shape(4; nme = "typo"))
    @test e isa ArgumentError && occursin("has no field nme", e.msg)
    e = err(() -> @eval @ffi_object "define_test.FromHidden" struct FromHidden <: TestingLib.TestCxxClassHiddenField
        a::Int64
    end)
    @test e isa ArgumentError && occursin("cannot derive from testing.TestCxxClassHiddenField", e.msg)
end

@testset "a precompiled package registers its types in __init__" begin
    push!(LOAD_PATH, joinpath(@__DIR__, "fixtures"))
    try
        @eval using DefineFixture
    finally
        pop!(LOAD_PATH)
    end
    item = Base.invokelatest(() -> DefineFixture.Item(count = 4, tags = ["a"]))
    @test T.type_key(item) == "define_fixture.Item"
    @test call_method(item, "twice") === 8
    @test describe(item) == "define_fixture.Item(count=4, tags=[\"a\"])"
end

@ffi_object "define_dump.Item" mutable struct DumpedItem
    count::Int64
    tags::Vector{String} = String[]
end
@ffi_method twice(self::AbstractDumpedItem)::Int64 = 2 * self.count

@testset "ffihub dump of this process lists the defined types; a package generated from it binds them" begin
    T.load_library(ENV["FFIHUB_DUMP_LIBRARY"])
    text = get_global_func("ffihub.DumpReflection")("define_dump.")
    doc = T.parse_json(text)
    @test [t["key"] for t in doc["types"]] == ["define_dump.Item"]
    item = doc["types"][1]
    @test [(f["name"], f["type"]["type"]) for f in item["fields"]] == [("count", "int"), ("tags", "ffi.Array")]
    @test [m["name"] for m in item["methods"]] == ["twice"]
    dir = mktempdir()
    file = joinpath(dir, "define_dump.json")
    write(file, text)
    run(`$(ENV["FFIHUB_BIN"]) generate --lang julia --name define_dump --metadata $file --out $(joinpath(dir, "DefineDump"))`)
    push!(LOAD_PATH, dir)
    try
        @eval import DefineDump
    finally
        pop!(LOAD_PATH)
    end
    made = Base.invokelatest(() -> DefineDump.Item(3, ["a"]))      # the generated constructor
    @test T.type_key(made) == "define_dump.Item"
    @test Base.invokelatest(() -> (made.count, collect(made.tags), DefineDump.twice(made))) == (3, ["a"], 6)
end

@testset "examples/define_types/shapes.jl runs and dumps its types" begin
    out = joinpath(mktempdir(), "shapes.json")
    example = joinpath(@__DIR__, "..", "..", "..", "examples", "define_types", "shapes.jl")
    cmd = `$(Base.julia_cmd()) --startup-file=no --project=$(dirname(dirname(pathof(TVMFFI)))) $example $out`
    text = read(cmd, String)
    @test occursin("area 4.0", text)
    @test [t["key"] for t in T.parse_json(read(out, String))["types"]] == ["shapes.Point", "shapes.Polygon"]
end

@testset "lifetimes: released under forced GC" begin
    shared = Point(7, 7)
    base = use_count(shared)
    function workload()
        for i in 1:200
            s = Shape(i; name = "s$i", points = [shared, Point(i)], origin = shared)
            c = with_field(s, "corners", i + 1)
            d = from_json_graph(to_json_graph(c, nothing))
            l = Labeled(i; name = "l", points = [shared], origin = shared, parent = s)
            push!(l.counts, i)
            call_method(l, "renamed", "x")
            deepcopy(l)
            T.structural_hash(d)
        end
    end
    check_no_leaks(workload; label = "defined objects")
    settle()
    @test use_count(shared) == base                      # every object that held it was freed
end

@testset "a field x::Any = nothing" begin
    l = Loose()
    @test l.x === nothing
    l.x = 3
    @test l.x == 3
    l.x = nothing
    @test l.x === nothing
    @test Loose("s").x == "s"
end

end # module
