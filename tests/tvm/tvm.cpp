// Apache TVM 0.27 through the generated C++ header (tests/tvm/run.sh): typed calls into
// namespaces that follow TVM's own (`tvm::ir`, `tvm::target`).
#include <tvm.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../cpp/check.hpp"

int main() {
  tvm::ir::IntImm seven(7, std::nullopt, std::nullopt);
  CHECK(seven.value().to_string() == "7");
  CHECK(seven.runtime_type_key() == "ir.IntImm");
  ffihub::Array<std::string> kinds = tvm::target::list_target_kinds();
  bool has_llvm = false;
  for (const std::string& k : kinds) has_llvm = has_llvm || k == "llvm";
  CHECK(kinds.size() > 0 && has_llvm);
  tvm::ir::Op add = tvm::ir::get_op("relax.add");
  CHECK(add.name() == "relax.add");
  std::printf("ok: IntImm %s, %zu target kinds, op %s\n", seven.value().to_string().c_str(),
              static_cast<size_t>(kinds.size()), add.name().c_str());
  return 0;
}
