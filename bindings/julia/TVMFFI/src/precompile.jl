# Type-inferred code for what every generated package runs in `__init__` (opening its libraries,
# the metadata check, looking up functions, fields and methods) and for the common calls, cached
# in the precompiled package so that loading a generated package does not infer them again.
let
    Str = String
    precompile(Core.kwfunc(load_package_libraries),
        (NamedTuple{(:dirs, :artifacts),Tuple{Vector{Str},Str}}, typeof(load_package_libraries), Str, Vector{Str}))
    precompile(_find_package_library, (Str, Str, Vector{Str}, Str))
    precompile(artifact_library, (Str, Str, Str))
    precompile(load_library, (Str,))
    precompile(Core.kwfunc(check_package),
        (NamedTuple{(:regenerate, :manifest),Tuple{Str,Vector{Str}}}, typeof(check_package), Str, Str))
    precompile(manifest_differences, (Vector{Str},))
    precompile(live_line, (Str,))
    precompile(_metadata_signature, (Str, Bool))
    precompile(schema_repr, (Dict{Str,Any},))
    precompile(_schema_signature, (Dict{Str,Any}, Bool))
    precompile(parse_json, (Str,))
    precompile(type_schema, (Str,))
    precompile(global_func_metadata, (Str,))
    precompile(Core.kwfunc(get_global_func), (NamedTuple{(:allow_missing,),Tuple{Bool}}, typeof(get_global_func), Str))
    precompile(get_global_func, (Str,))
    precompile(type_index, (Str,))
    precompile(_tables, (Int32,))
    precompile(field_info, (Str, Vector{Symbol}))
    precompile(field_info, (Str, Symbol))
    precompile(init_function, (Str,))
    precompile(get_method, (Str, Symbol))
    precompile(type_attr, (Int32, Str))
    precompile(_wrapper_type, (Int32,))
    precompile(_take_any, (TVMFFIAny,))
    precompile(_copy_any, (TVMFFIAny,))
    precompile(_take_checked, (Type{Any}, TVMFFIAny))
    precompile(_take_checked, (Type{Str}, TVMFFIAny))
    precompile(kwargs_marker, ())
end
