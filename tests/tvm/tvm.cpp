// Apache TVM 0.27 through the generated C++ header (tests/tvm/run.sh): typed calls into
// namespaces that follow TVM's own (`tvm::ir`, `tvm::target`), and type truth: the header
// compiles, and every field read below converts to its declared type at run time (a value of
// another type would throw ffihub::TypeError).
#include <tvm.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

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
  // The class's constructor, as in Python (`Target("llvm")`): the packed global `target.Target`,
  // a variadic template constructor that leaves copies and moves to the copy and move
  // constructors (noexcept; the packed one is not).
  using tvm::target::Target;
  static_assert(std::is_nothrow_constructible_v<Target, Target&>);
  static_assert(std::is_nothrow_constructible_v<Target, const Target&>);
  static_assert(std::is_nothrow_constructible_v<Target, Target&&>);
  static_assert(!std::is_nothrow_constructible_v<Target, const char*>);
  static_assert(!std::is_convertible_v<const char*, Target>, "explicit");
  Target llvm("llvm");
  CHECK(ffihub::repr(llvm) == ffihub::repr(tvm::target::target("llvm")));
  Target copied(llvm);
  const Target& const_llvm = llvm;
  Target copied_const(const_llvm);
  Target moved(std::move(copied_const));
  CHECK(copied.same_as(llvm) && moved.same_as(llvm));
  CHECK(llvm.kind().name() == "llvm");
  CHECK(llvm.keys().size() > 0);
  CHECK(llvm.attrs().size() > 0);
  CHECK(!llvm.host().has_value());
  // Constructors of the Python API whose parameters all have defaults (`AnyType()`,
  // `MemoryDatabase()`: module_equality "structural") or are keyword-only
  // (`EvolutionarySearch(population_size=8)`): a default constructor, an options struct.
  CHECK(tvm::relax::AnyType().runtime_type_key() == "relax.AnyType");
  CHECK(tvm::s_tir::meta_schedule::MemoryDatabase().runtime_type_key() ==
        "s_tir.meta_schedule.MemoryDatabase");
  using tvm::s_tir::meta_schedule::EvolutionarySearch;
  CHECK(EvolutionarySearch().population_size() == 512);
  EvolutionarySearch::SearchStrategyEvolutionarySearchOptions small;
  small.population_size = 8;
  CHECK(EvolutionarySearch(small).population_size() == 8);
  // The IR program of tests/tvm/ir_program.py, through the constructors and methods TVM's
  // Python API gives its globals (ADR 0019): it prints what TVM's Python prints for it (the
  // file TVM_IR_EXPECTED). What Python computes in `__init__` (PrimFunc's missing return type
  // and empty attributes, the dict's string key) is spelled out.
  const DLDataType i32 = ffihub::dtype("int32");
  tvm::ir::Var x("x", tvm::ir::PrimType(i32));
  tvm::ir::Var y("y", tvm::ir::PrimType(i32));
  tvm::prim::Add e(x, tvm::prim::Mul(y, tvm::ir::IntImm(i32, 2)));
  tvm::ir::BaseFunc f =
      tvm::tirx::PrimFunc({x, y}, tvm::tirx::Evaluate(e), tvm::ir::type_missing(),
                          tvm::ir::DictAttrs(ffihub::Map<std::string, ffihub::Any>()))
          .with_attr("global_symbol", std::string("main"));
  tvm::ir::IRModule mod({{tvm::ir::GlobalVar("main"), f}}, ffihub::ObjectRef(), {});
  const char* expected_file = std::getenv("TVM_IR_EXPECTED");
  CHECK(expected_file != nullptr);
  std::ifstream in(expected_file);
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(ffihub::repr(e) + "\n----\n" + ffihub::repr(mod) == expected.str());
  std::printf("ok: IntImm %s, %zu target kinds, op %s, target %s\n", seven.value().to_string().c_str(),
              static_cast<size_t>(kinds.size()), add.name().c_str(), llvm.kind().name().c_str());
  return 0;
}
