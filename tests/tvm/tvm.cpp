// Apache TVM 0.27 through the generated C++ header (tests/tvm/run.sh): typed calls into
// namespaces that follow TVM's own (`tvm::ir`, `tvm::target`), and type truth: the header
// compiles, and every field read below converts to its declared type at run time (a value of
// another type would throw ffihub::TypeError).
#include <tvm.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../cpp/check.hpp"

int main() {
  tvm::ir::IntImm seven(7, std::nullopt, std::nullopt);
  CHECK(seven.value().to_string() == "7");
  CHECK(seven.runtime_type_key() == "ir.IntImm");
  CHECK(!seven.span().has_value());  // declared ir.Span with default None: std::optional
  CHECK(seven.ty().defined());
  ffihub::Array<std::string> kinds = tvm::target::list_target_kinds();
  bool has_llvm = false;
  for (const std::string& k : kinds) has_llvm = has_llvm || k == "llvm";
  CHECK(kinds.size() > 0 && has_llvm);
  tvm::ir::Op add = tvm::ir::get_op("relax.add");
  CHECK(add.name() == "relax.add");
  CHECK(!add.span().has_value());
  CHECK(add.num_inputs() == 2);
  CHECK(add.support_level() > 0);
  ffihub::Array<tvm::ir::ArgumentInfo> args = add.arguments();
  CHECK(args.size() == 2);
  for (const tvm::ir::ArgumentInfo& a : args) CHECK(!a.name().empty());
  auto llvm = tvm::target::target("llvm").cast<tvm::target::Target>();
  CHECK(llvm.kind().name() == "llvm");
  CHECK(llvm.keys().size() > 0);
  CHECK(llvm.attrs().size() > 0);
  CHECK(!llvm.host().has_value());
  std::printf("ok: IntImm %s, %zu target kinds, op %s, target %s\n", seven.value().to_string().c_str(),
              static_cast<size_t>(kinds.size()), add.name().c_str(), llvm.kind().name().c_str());
  return 0;
}
