# Object types defined in Julia (examples/define_types/README.md): a polygon type with a
# method, handed to the runtime's own functions as any C++ type would be. Run it with
#
#     TVM_FFI_LIB=target/release/libtvm_ffi.so scripts/julia --project=bindings/julia/TVMFFI \
#         examples/define_types/shapes.jl [reflection.json]
#
# With an argument (and `ENV["FFIHUB_DUMP_LIBRARY"]`, the path of `libffihub_dump.so`), it
# also writes the reflection of its types to that file, for `ffihub generate --metadata`.
using TVMFFI

"A point in the plane."
@ffi_object "shapes.Point" eq = :structural struct Point
    x::Float64
    y::Float64 = 0.0
end

"A closed polygon."
@ffi_object "shapes.Polygon" eq = :structural mutable struct Polygon
    "the polygon's name"
    name::String
    vertices::Vector{Point}
    parent::Union{Nothing,Polygon} = nothing
end

"The polygon's area (shoelace formula)."
@ffi_method function area(self::AbstractPolygon)::Float64
    v = collect(self.vertices)
    n = length(v)
    return abs(sum(v[i].x * v[mod1(i + 1, n)].y - v[mod1(i + 1, n)].x * v[i].y for i in 1:n)) / 2
end

square = Polygon("square", [Point(0), Point(2), Point(2, 2), Point(0, 2)])
println(square)                                      # printed by ffi.ReprPrint
@assert area(square) == 4.0
@assert TVMFFI.call_method(square, :area) == 4.0     # as C++ calls it, through reflection
square.name = "renamed"                              # checked: square.name = 1 throws a TypeError
@assert square.name == "renamed"

graph = get_global_func("ffi.ToJSONGraphString")(square, nothing)
back = get_global_func("ffi.FromJSONGraphString")(graph)
@assert back isa Polygon && back == square && !TVMFFI.same_object(back, square)
@assert deepcopy(square) == square                   # ffi.DeepCopy, compared structurally
println("area ", area(back), ", JSON graph of ", length(graph), " bytes")

if !isempty(ARGS)
    TVMFFI.load_library(ENV["FFIHUB_DUMP_LIBRARY"])
    write(ARGS[1], get_global_func("ffihub.DumpReflection")("shapes."))
    println("wrote the reflection of shapes.* to ", ARGS[1])
end
