# Strings and bytes: the small-string encoding (<= 7 bytes inline), heap String/Bytes objects,
# embedded NULs, UTF-8, large payloads, and raw `const char*` / `TVMFFIByteArray*` views.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestStrings
using Test, TVMFFI, ..FFITest
const T = TVMFFI

testing_lib()
const echo = get_global_func("testing.echo")
const id_string = get_global_func("testing.schema_id_string")
const id_bytes = get_global_func("testing.schema_id_bytes")
const ffi_string = get_global_func("ffi.String")
const ffi_bytes = get_global_func("ffi.Bytes")

@testset "small-string boundary" begin
    for n in 0:20
        s = "x"^n
        a = T.to_any(s)
        @test a.type_index == (n <= 7 ? T.kTVMFFISmallStr : T.kTVMFFIStr)
        @test T.from_any(a; owned = true) == s
        @test echo(s) == s
        @test id_string(s) == s
        @test ffi_string(s) == s
    end
end

@testset "content" begin
    for s in ("", "a", "héllo wörld", "日本語のテキスト", "emoji 🎉🎉", "nul\0inside", "\0", "tab\tnewline\n",
              "ends with nul\0", repeat("0123456789", 1000))
        @test echo(s) == s
        @test id_string(s) == s
        @test ffi_string(s) == s
        @test sizeof(echo(s)) == sizeof(s)
    end
    big = repeat("abcdefgh", 1 << 17)                  # 1 MiB
    @test echo(big) == big
end

@testset "results are Julia Strings (copies)" begin
    s = echo("a string that lives on the heap")
    @test s isa String
    @test ffi_string("small") isa String
end

@testset "bytes" begin
    for n in (0, 1, 7, 8, 9, 100, 4096)
        b = rand(UInt8, n)
        a = T.to_any(b)
        @test a.type_index == (n <= 7 ? T.kTVMFFISmallBytes : T.kTVMFFIBytes)
        T.release_any(a)
        @test echo(b) == b
        @test id_bytes(b) == b
        @test ffi_bytes(b) == b
        @test echo(b) isa Vector{UInt8}
    end
    @test echo(b"\x00\xff\x00") == UInt8[0x00, 0xff, 0x00]
    # strings and bytes stay distinct
    @test echo("abc") isa String
    @test echo(Vector{UInt8}("abc")) isa Vector{UInt8}
    @test_throws FFIError id_string(UInt8[1, 2, 3])
end

# Values that only exist as argument views: `const char*` (RawStr) and `TVMFFIByteArray*`. The
# callee converting them to owned values must copy them into String / Bytes.
function call_with_views(f::FFIFunction, anys::Vector{T.TVMFFIAny})
    rv = Ref(T.TVMFFIAny(0, 0, 0))
    rc = GC.@preserve f anys ccall(T._fp_TVMFFIFunctionCall[], Cint,
        (Ptr{Cvoid}, Ptr{T.TVMFFIAny}, Int32, Ptr{T.TVMFFIAny}), T.handle(f), anys, length(anys), rv)
    rc == 0 || throw(T._take_raised_error())
    return T.from_any(rv[]; owned = true)
end

@testset "raw const char* and ByteArray* views" begin
    for s in ("raw", "a raw C string longer than seven bytes")
        GC.@preserve s begin
            raw = T.TVMFFIAny(T.kTVMFFIRawStr, 0, UInt64(pointer(s)))
            @test call_with_views(echo, [raw]) == s
            @test call_with_views(id_string, [raw]) == s
        end
        b = Vector{UInt8}(s)
        ba = Ref(T.TVMFFIByteArray(pointer(b), length(b)))
        GC.@preserve b ba begin
            view = T.TVMFFIAny(T.kTVMFFIByteArrayPtr, 0, UInt64(Base.unsafe_convert(Ptr{T.TVMFFIByteArray}, ba)))
            @test call_with_views(echo, [view]) == b
            @test call_with_views(id_bytes, [view]) == b
        end
    end
    # ... and a Julia callback receiving them gets copies
    got = Any[]
    cb = FFIFunction((x...) -> (push!(got, x...); nothing))
    s = "seen by a Julia callback"
    GC.@preserve s call_with_views(cb, [T.TVMFFIAny(T.kTVMFFIRawStr, 0, UInt64(pointer(s)))])
    @test got == Any[s]
end

check_no_leaks(label = "strings") do
    for i in 1:300
        echo("a heap string number $i")
        id_string("s$i")
        ffi_bytes(rand(UInt8, i))
    end
end

end # module
