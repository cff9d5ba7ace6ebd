// One namespace of the generated Apache TVM 0.27 headers alone (tests/tvm/run.sh): `tvm/ir.hpp`
// compiles without the other namespaces' bodies (and so much faster than the umbrella tvm.hpp).
#include <tvm/ir.hpp>

#include <cstdio>

#include "../cpp/check.hpp"

int main() {
  tvm::ir::IntImm seven(7, std::nullopt, std::nullopt);
  CHECK(seven.runtime_type_key() == "ir.IntImm");
  tvm::ir::Op add = tvm::ir::get_op("relax.add");
  CHECK(add.name() == "relax.add");
  std::printf("ok: ir alone: IntImm, op %s\n", add.name().c_str());
  return 0;
}
