# Object types of the demo extension: constructors (with optional arguments), fields as
# properties (inherited ones too), writable fields, methods (inherited, overridden, static),
# the type hierarchy, downcasts, identity, printing, lifetime.
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestObjects
using Test, TVMFFI, Demo, ..GenTest

@testset "constructors and fields" begin
    p = Point(3, 4)
    @test p isa Point && p isa AbstractPoint && p isa FFIObject
    @test p.x === 3.0 && p.y === 4.0
    getx(p) = p.x
    @test @inferred(getx(p)) === 3.0                      # field reads are inferred
    @test propertynames(p) == (:x, :y)
    @test_throws TVMFFI.AttributeError p.x = 1.0          # read-only
    @test_throws TVMFFI.AttributeError p.nope
    @test_throws TVMFFI.AttributeError p.handle = C_NULL # the handle is not a property
    q = Point3D(1, 2)                                     # z defaults to 0
    @test q.z === 0.0
    q = Point3D(1, 2, 2)
    @test (q.x, q.y, q.z) === (1.0, 2.0, 2.0)             # inherited fields
    @test propertynames(q) == (:x, :y, :z)
    @test q isa AbstractPoint3D && q isa AbstractPoint && !(q isa Point)
end

@testset "writable fields" begin
    c = Counter("clicks")
    @test c.label == "clicks" && c.count === 0 && c.step === 1
    c2 = Counter("c", 10, 5)
    @test c2.count === 10 && c2.step === 5
    @test increment(c2) === 15
    c2.count = 100
    @test c2.count === 100
    c2.step = 2
    @test add(c2, 3) === 103
    @test increment(c2) === 105
    @test_throws TVMFFI.AttributeError c2.label = "other"
    @test_throws TVMFFI.TypeError c2.count = "many"        # the setter checks the type
    @test describe(c2) == "c: 105"
    reset(c2)
    @test c2.count === 0
    s = Shape2D("tri", [Point(0, 0), Point(1, 0), Point(0, 1)])
    @test s.color === nothing
    @test length(s.tags) == 0
    s.tags = Dict("kind" => "triangle")                   # a writable Map[str, str] field
    @test s.tags["kind"] == "triangle"
    @test Shape2D("sq", [Point(0, 0)], "red").color == "red"
end

@testset "methods" begin
    p = Point(3, 4)
    @test norm(p) === 5.0
    @test @inferred(norm(p)) === 5.0
    @test @inferred(AbstractPoint, translate(p, 0, 0)) isa Point
    t = translate(p, 1, 1)
    @test t isa Point && t.x === 4.0
    @test distance(p, Point(0, 0)) === 5.0
    q = Point3D(1, 2, 2)
    @test norm(q) === 3.0                                 # Point3D's own norm
    @test distance(q, Point(1, 2)) === 0.0                # Point's method on a Point3D
    @test to_2d(q) isa Point
    @test translate(q, 0, 0) isa AbstractPoint
    o = origin(Point)                                     # static methods take the type
    @test o.x === 0.0 && o isa Point
    @test origin(Point3D) isa Point                       # inherited statics too
    sq = square(Shape2D, 2)
    @test sq isa Shape2D && num_vertices(sq) === 4
    @test area(sq) === 4.0 && perimeter(sq) === 8.0
    c = with_step(Counter, "w", 3)
    @test c isa Counter && increment(c) === 3
    @test_throws MethodError norm(Counter("x"))           # methods dispatch on the type
end

@testset "downcast, identity, printing" begin
    q = Point3D(1, 2, 3)
    @test echo_any(q) isa Point3D                         # the most-derived registered type
    @test reverse_array([q, Point(0, 0)])[2] isa Point3D
    @test echo_any(q) == q && hash(echo_any(q)) == hash(q)
    @test q != Point3D(1, 2, 3)                           # identity, not structure
    @test sprint(show, Point(1, 2)) == "demo.Point(x=1, y=2)"
    @test occursin("demo.Counter", sprint(show, Counter("c")))
    s = Shape2D("tri", [Point(0, 0), q])
    v = s.vertices
    @test v isa FFIArray && v[2] isa Point3D && v[2] == q
end

@testset "lifetime" begin
    before = Demo.live_object_count()
    p = Point(1, 1)
    @test Demo.live_object_count() == before + 1
    close(p)
    @test !isopen(p)
    @test Demo.live_object_count() == before
    @test_throws ArgumentError norm(p)
    @test_throws ArgumentError p.x
end

check_no_leaks(label = "objects") do
    for i in 1:200
        p = Point(i, i)
        q = Point3D(i, 0, 1)
        norm(p) + norm(q) + distance(p, q)
        c = Counter("c$i", i)
        c.count = i + 1
        increment(c)
        s = Shape2D("s", [p, q, translate(p, 1, 1)])
        s.tags = Dict("i" => string(i))
        area(s)
        s.vertices[1].x
        sprint(show, s)
    end
end

end # module
