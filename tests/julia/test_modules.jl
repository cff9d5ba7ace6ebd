# Modules: shared libraries loaded through the runtime (`ffi.ModuleLoadFromFile`), their exported
# functions, docs and metadata, and the system library.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestModules
using Test, TVMFFI, ..FFITest
const T = TVMFFI

const testing_path = testing_lib()

@testset "a C library compiled here" begin
    m = kernels()
    @test m isa FFIModule
    @test T.type_key(m) == "ffi.Module"
    @test T.module_kind(m) == "library"
    @test T.implements_function(m, "make_iota")
    @test !T.implements_function(m, "no_such_function")
    f = m["make_iota"]
    @test f isa FFIFunction
    @test f(3) == Float32[0, 1, 2]
    @test T.get_function(m, "no_such_function") === nothing
    @test_throws Base.KeyError m["no_such_function"]
    @test occursin("kind=\"library\"", sprint(show, m))
end

@testset "compiled kernels: load one library, call functions by name" begin
    # The seeds' add_one_c, as a code generator emits it: no metadata, no globals.
    dir = mktempdir()
    lib = joinpath(dir, "add_one_c.so")
    inc = joinpath(REPO_ROOT, "runtime", "include")
    run(`gcc -std=c11 -O2 -shared -fPIC -Wno-unused-variable -Wno-unused-parameter -I$inc
         $(joinpath(REPO_ROOT, "examples", "add_one_c", "add_one_c.c")) -o $lib`)
    m = load_module(lib)
    x = Float32[1, 2, 3, 4]
    y = zeros(Float32, 4)
    @test m.add_one_c(x, y) === nothing
    @test y == Float32[2, 3, 4, 5]                 # written in place: the call saw y's memory
    @test m.add_one_c isa FFIFunction
    @test propertynames(m) == ()
    cd(dir) do  # a bare file name is the file in the working folder, not a loader search
        @test load_module("add_one_c.so").add_one_c isa FFIFunction
    end
    err = try
        m.no_such_kernel
        nothing
    catch e
        e
    end
    @test err isa ArgumentError && occursin("no function `no_such_kernel`", err.msg)
    @test_throws T.FFIError{:ValueError} m.add_one_c(1, y)  # the kernel's own error
    for bad in (joinpath(dir, "missing.so"), joinpath(REPO_ROOT, "README.md"))
        err = try
            load_module(bad)
            nothing
        catch e
            e
        end
        @test err isa T.FFIError && occursin(basename(bad), err.message)
    end
end

@testset "Apache's testing library as a module" begin
    m = load_module(testing_path)
    @test T.module_kind(m) == "library"
    @test m["testing_dll_schema_id_int"](41) === 41
    add = m["testing_dll_test_add_with_docstring"]
    @test add(2, 3) === 5
    doc = T.function_doc(m, "testing_dll_test_add_with_docstring")
    @test doc isa String && !isempty(doc)
    md = T.function_metadata(m, "testing_dll_schema_id_int")
    @test md isa String
    ts = T.type_schema(md)
    @test ts["named_args"]["params"] == Any[Dict{String,Any}("type" => "int")]
    @test T.function_doc(m, "testing_dll_schema_id_int") === nothing
end

@testset "functions keep their module alive" begin
    f = let m = load_module(testing_path)
        m["testing_dll_schema_id_int"]
    end
    GC.gc()
    @test f(7) === 7
end

@testset "system library" begin
    lib = system_lib("testing.")
    @test lib isa FFIModule
    @test lib["add_one"](10) === 11
    @test system_lib()["testing.add_one"](1) === 2
    @test T.same_object(system_lib("testing."), system_lib("testing."))   # one module per prefix
end

@testset "imports" begin
    a = load_module(testing_path)
    b = kernels()
    T.import_module!(a, b)
    @test T.get_function(a, "make_iota"; query_imports = true)(2) == Float32[0, 1]
    @test T.get_function(a, "make_iota") === nothing
end

@testset "errors" begin
    e = try
        load_module("/nonexistent/library.so")
        nothing
    catch err
        err
    end
    @test e isa FFIError
    @test occursin("nonexistent", e.message)
end

check_no_leaks(label = "modules") do
    m = load_module(testing_path)
    k = kernels()
    for i in 1:100
        m["testing_dll_schema_id_int"](i)
        k["identity"](i)
        system_lib("testing.")["add_one"](i)
        T.implements_function(m, "testing_dll_schema_id_int")
    end
end

end # module
