# Prints `string(@doc <name>)` for each qualified name, after loading generated Julia packages
# from their folders (tests/docs/main.rs):
#
#     julia --project=bindings/julia/TVMFFI docstrings.jl PKG_DIR... :: Module.function...
#
# Each docstring is printed between `=== <name>` and `=== end` lines.
using TVMFFI

split_at = findfirst(==("::"), ARGS)
for dir in ARGS[1:(split_at - 1)]
    name = match(r"(?m)^name = \"(.*)\"$", read(joinpath(dir, "Project.toml"), String))[1]
    include(joinpath(dir, "src", name * ".jl"))
end
for qualified in ARGS[(split_at + 1):end]
    println("=== ", qualified)
    println(string(Core.eval(Main, :(@doc $(Meta.parse(qualified))))))
    println("=== end")
end
