# `Pkg.test("TVMFFI")` (or `]test` in this project) runs the package's test suite, which lives with
# the other cross-language tests in tests/julia/ of the ffihub workspace. The runtime comes from
# ENV["TVM_FFI_LIB"] / ENV["TVM_FFI_LIB_DIR"] (default: the workspace's target/release build).
include(joinpath(@__DIR__, "..", "..", "..", "..", "tests", "julia", "runtests.jl"))
