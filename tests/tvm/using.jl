# `using Tvm`, and `using` each of its submodules, next to Base: in a fresh module each, every
# name the module exports and every name Base and Core export is looked up. A name exported by
# both would print Julia's "WARNING: both ... export ..." there (tests/tvm/run.sh fails on any
# WARNING on stderr).
import Tvm

function submodules(m::Module, out = Module[m])
    for name in names(m; all = true)
        isdefined(m, name) || continue
        x = getfield(m, name)
        if x isa Module && x !== m && parentmodule(x) === m
            push!(out, x)
            submodules(x, out)
        end
    end
    return out
end

for m in submodules(Tvm)
    probe = Module(:Probe)
    Core.eval(probe, Expr(:using, Expr(:., fullname(m)...)))
    for name in union(names(m), names(Base), names(Core))
        try
            Core.eval(probe, name)
        catch e
            e isa UndefVarError || rethrow()
        end
    end
end
println("looked up the exports of ", length(submodules(Tvm)), " modules next to Base's")
