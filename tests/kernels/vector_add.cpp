// A TVM-compiled kernel library from C++ (tests/kernels/main.rs): one call loads it, its `main`
// is called by name on std::vector buffers viewed as tensors (zero-copy DLPack views).
//
//     vector_add LIBRARY
#include <ffihub/ffihub.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../cpp/check.hpp"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  ffihub::Module m = ffihub::Module::load(argv[1]);
  const int64_t n = 1000;
  std::vector<float> a(n), b(n, 0.5f), c(n, 0.0f);
  for (int64_t i = 0; i < n; ++i) a[i] = static_cast<float>(i + 1);
  m["main"](ffihub::Tensor::from_buffer(a.data(), {n}), ffihub::Tensor::from_buffer(b.data(), {n}),
            ffihub::Tensor::from_buffer(c.data(), {n}));
  for (int64_t i = 0; i < n; ++i) CHECK(c[i] == a[i] + b[i]);  // written into c's own memory
  // TVM's generated argument checks raise through TVM-FFI.
  std::vector<double> wrong(n);
  bool raised = false;
  try {
    m["main"](ffihub::Tensor::from_buffer(a.data(), {n}), ffihub::Tensor::from_buffer(b.data(), {n}),
              ffihub::Tensor::from_buffer(wrong.data(), {n}));
  } catch (const ffihub::Error&) {
    raised = true;
  }
  CHECK(raised);
  raised = false;
  try {
    m["no_such_kernel"];
  } catch (const ffihub::AttributeError&) {
    raised = true;
  }
  CHECK(raised);
  std::printf("cpp: vector_add ok\n");
  return 0;
}
