{{ banner }}
# A smoke test of the package (`Pkg.test`): it loads (which opens the library and checks its
# functions and types), its functions have methods and are registered in the runtime, and its
# types are object types.
using Test
import TVMFFI
import {{ module }}

@testset "{{ module }}" begin
    @testset "functions" begin
{%- for (name, ffi_name) in functions %}
        @test !isempty(methods({{ name }}))
        @test TVMFFI.get_global_func({{ ffi_name }}) isa TVMFFI.FFIFunction
{%- endfor %}
    end
{%- if !exports.is_empty() %}
    @testset "module exports" begin
{%- for name in exports %}
        @test !isempty(methods({{ name }}))
{%- endfor %}
    end
{%- endif %}
    @testset "types" begin
{%- for (concrete, abstract_) in types %}
        @test isconcretetype({{ concrete }}) && {{ concrete }} <: {{ abstract_ }} <: TVMFFI.FFIObject
{%- endfor %}
    end
end
