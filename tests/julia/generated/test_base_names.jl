# A library whose functions, methods and types are named like Base's on some Julia version
# (`stack` 1.9+, `allequal` 1.8+, `insertdims` 1.12+, `logrange` 1.11+, the keyword `public`,
# the builtin `tuple`, `sum` on every version; the types `Range` and `Pair`): defined in this
# process, dumped (libffihub_dump.so), generated, precompiled and loaded with `using`, after which
# Base's own functions still work and the package's are reached through its name. Then the
# generator's lists of Base's names are checked against this Julia's.
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestBaseNames
using Test, TVMFFI, ..GenTest
const T = TVMFFI

const FUNCTIONS = ["stack", "allequal", "insertdims", "logrange", "public", "tuple", "sum", "plain"]

# (`@ffi_object` names the abstract type `AbstractRange` in this module, shadowing Base's here;
# the generated package calls it `AbstractRange_`.)
@ffi_object "names_test.Range" mutable struct Range
    lo::Int64
    hi::Int64
end
# Methods (a method and a function cannot share a name): `insorted` 1.6+, `eachsplit` 1.8+, the
# builtin `nfields`, `length` on every version.
@ffi_method insorted(self::AbstractRange)::Int64 = self.hi - self.lo
@ffi_method eachsplit(self::AbstractRange)::Int64 = self.hi + self.lo
@ffi_method nfields(self::AbstractRange)::Int64 = self.lo
@ffi_method length(self::AbstractRange)::Int64 = self.lo + self.hi + 1

@ffi_object "names_test.Pair" struct Pair_
    key::String
end

@testset "a package named like Base's names precompiles and leaves Base working" begin
    for (i, name) in enumerate(FUNCTIONS)
        T.register_global_func("names_test.$name", (xs...) -> i; override = true)
    end
    T.load_library(ENV["FFIHUB_DUMP_LIBRARY"])
    text = get_global_func("ffihub.DumpReflection")("names_test.")
    dir = mktempdir()
    file = joinpath(dir, "names_test.json")
    write(file, text)
    run(`$(ENV["FFIHUB_BIN"]) generate --lang julia --name names_test --metadata $file --out $(joinpath(dir, "NamesTest"))`)
    source = read(joinpath(dir, "NamesTest", "src", "NamesTest.jl"), String)
    @test occursin("AbstractRange_", source)                  # TVM's ir.Range: not AbstractRange
    push!(LOAD_PATH, dir)
    try
        @eval import NamesTest                                 # precompiles it
    finally
        pop!(LOAD_PATH)
    end
    N = Base.invokelatest(() -> NamesTest)
    exported = Base.invokelatest(() -> names(N))
    @test isempty(intersect(exported, names(Base)))           # nothing clashes with Base's
    @test all(n -> !(String(n) in FUNCTIONS) || n === :plain, exported)
    @test :plain in exported
    # Base's own still work unqualified in a module that uses the package (the package's own
    # functions of these names are reached through its name).
    # (This test module defined its own `length` and `nfields` with @ffi_method above.)
    probe = Module(:Probe)
    push!(LOAD_PATH, dir)
    try
        @test Core.eval(probe, quote
            using NamesTest
            (sum([1, 2, 3]), tuple(1, 2), typeof(1), Pair(1, 2).first)
        end) == (6, (1, 2), Int, 1)
    finally
        pop!(LOAD_PATH)
    end
    isdefined(Base, :stack) && @test Base.stack([[1, 2], [3, 4]]) == [1 3; 2 4]
    isdefined(Base, :allequal) && @test Base.allequal([1, 1])
    isdefined(Base, :logrange) && @test length(Base.logrange(1, 100, 3)) == 3
    # The package's functions, through its name.
    for (i, name) in enumerate(FUNCTIONS)
        @test Base.invokelatest(() -> getfield(N, Symbol(name))()) == i
    end
    # Its methods: on Base's function where this Julia's Base has it, else on the package's.
    method(name) = T.extends_base(name) ? getfield(Base, name) : getfield(N, name)
    r = Base.invokelatest(() -> N.Range(2, 7))
    @test Base.invokelatest(() -> method(:insorted)(r)) == 5
    @test Base.invokelatest(() -> method(:eachsplit)(r)) == 9
    @test Base.invokelatest(() -> N.nfields(r)) == 2            # a builtin: the package's own
    @test Base.nfields(r) == 1                                   # Core's, untouched
    @test Base.invokelatest(() -> Base.length(r)) == 10         # Base.length, for its type
    p = Base.invokelatest(() -> N.Pair_("k"))
    @test Base.invokelatest(() -> p.key) == "k"
end

# The generator's name data (bindgen/src/lang/julia/base_names) against this Julia: every name
# its Base and Core export is escaped (in some version's list or in later.txt), this version's
# list (where there is one) is exactly its exports, and every exported builtin that every version
# exports is in builtins.txt (a later builtin goes through `@extend_base`, which leaves it alone).
@testset "the generator's Base and Core names match Julia $VERSION" begin
    dir = joinpath(@__DIR__, "..", "..", "..", "bindgen", "src", "lang", "julia", "base_names")
    list(file) = Set(Symbol.(filter(l -> !isempty(l) && !startswith(l, "#"), readlines(joinpath(dir, file)))))
    # `names` lists public names too from 1.11; only exported ones clash with a package's.
    exported(m) = [n for n in names(m) if occursin(r"^[A-Za-z_][A-Za-z0-9_!]*$", String(n)) &&
                   (!isdefined(Base, :isexported) || Base.isexported(m, n))]
    running = Set(vcat(exported(Base), exported(Core)))
    versions = filter(f -> occursin(r"^\d+\.\d+\.txt$", f), readdir(dir))
    @test "1.5.txt" in versions
    later = list("later.txt")
    @test isempty(setdiff(running, union(later, map(list, versions)...)))
    mine = "$(VERSION.major).$(VERSION.minor).txt"
    mine in versions && @test list(mine) == running
    every = setdiff(intersect(map(list, versions)...), later)
    builtin(n) = getfield(isdefined(Base, n) ? Base : Core, n) isa Core.Builtin
    @test filter(n -> n in every && builtin(n), running) == list("builtins.txt")
end

end # module
