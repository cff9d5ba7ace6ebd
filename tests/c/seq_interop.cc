/*
 * Array / List / Shape interoperability between Apache's header-only C++ API and a runtime.
 *
 * Compiled with g++ -std=c++17 against Apache's headers and linked with -ltvm_ffi (no rpath);
 * runtime/tests/seq_interop.rs runs the same binary on ffihub's libtvm_ffi.so and on Apache's
 * (selected with LD_LIBRARY_PATH) and requires both runs to pass with identical transcripts.
 *
 * Directions covered:
 *  - containers built by inline C++ (Array elements inline, List buffers from ::operator new with
 *    C++'s data_deleter) handed to the runtime's globals, which read and mutate them (List
 *    growth replaces a C++ buffer);
 *  - containers built by the runtime's globals read and mutated by inline C++ (Array
 *    copy-on-write on a shared object, in-place mutation when unique, C++ List growth
 *    replacing the runtime's buffer while keeping the runtime's data_deleter);
 *  - Shapes both ways, ffi.ContainerFindFirstNonCPUDevice over C++-built Map/Dict/Array/List.
 *
 * Output: one line per check, "ok <name>" or "FAIL <name> ... [seq_interop.cc:<line>]"; exit
 * status 1 if any check failed. Pointers never appear in the output.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::Array;
using ffi::Function;
using ffi::List;
using ffi::Shape;
using ffi::String;

static int g_failures = 0;

static void report(bool ok, const char* name, int line, const std::string& detail) {
  if (ok) {
    std::printf("ok %s\n", name);
  } else {
    std::printf("FAIL %s %s [seq_interop.cc:%d]\n", name, detail.c_str(), line);
    ++g_failures;
  }
  std::fflush(stdout);
}

#define CHECK(cond, name) report((cond), name, __LINE__, #cond)
/* Each operand is evaluated once (some are calls that mutate). */
#define CHECK_EQ(a, b, name) CheckEq((a), (b), name, __LINE__, #a " == " #b)

static std::string Describe(int64_t v) { return std::to_string(v); }
static std::string Describe(size_t v) { return std::to_string(v); }
static std::string Describe(const std::string& v) { return "'" + v + "'"; }
static std::string Describe(const String& v) { return "'" + std::string(v) + "'"; }

template <typename A, typename B>
static void CheckEq(const A& a, const B& b, const char* name, int line, const char* text) {
  report(a == b, name, line, std::string(text) + ": got " + Describe(a));
}

/* Calls `f`, expecting an error of `kind` with `message`. */
template <typename... Args>
static void ExpectError(const char* name, int line, const Function& f, const char* kind,
                        const char* message, Args&&... args) {
  try {
    f(std::forward<Args>(args)...);
    report(false, name, line, "no error raised");
  } catch (const ffi::Error& e) {
    bool ok = e.kind() == kind && e.message() == message;
    report(ok, name, line, "got " + std::string(e.kind()) + ": " + std::string(e.message()));
  }
}
#define EXPECT_ERROR(name, f, kind, message, ...) \
  ExpectError(name, __LINE__, f, kind, message, __VA_ARGS__)

/* The raw cell of a sequence object. */
static const TVMFFISeqCell* Cell(const ffi::ObjectRef& ref) {
  return reinterpret_cast<const TVMFFISeqCell*>(reinterpret_cast<const char*>(ref.get()) +
                                                sizeof(TVMFFIObject));
}

static const void* Addr(const ffi::ObjectRef& ref) { return ref.get(); }

static bool ArrayLayoutOk(const Array<Any>& a) {
  const TVMFFISeqCell* c = Cell(a);
  return c->data == reinterpret_cast<const char*>(Addr(a)) + 56 && c->data_deleter == nullptr;
}

static bool ListLayoutOk(const List<Any>& l) {
  const TVMFFISeqCell* c = Cell(l);
  return c->data_deleter != nullptr &&
         (c->capacity == 0 || c->data != reinterpret_cast<const char*>(Addr(l)) + 56);
}

static std::vector<int64_t> Ints(const ffi::ObjectRef& seq) {
  const TVMFFISeqCell* c = Cell(seq);
  std::vector<int64_t> out;
  const Any* items = static_cast<const Any*>(c->data);
  for (int64_t i = 0; i < c->size; ++i) out.push_back(items[i].cast<int64_t>());
  return out;
}

static std::string Join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

#define CHECK_INTS(seq, expected, name)                                                  \
  do {                                                                                   \
    std::string got = Join(Ints(seq));                                                   \
    report(got == (expected), name, __LINE__, std::string("expected ") + (expected) +    \
                                                  " got " + got);                        \
  } while (0)

/* ------------------------------------------------------------------------------------------ */
/* A Tensor-shaped object (type index 70, DLTensor at +24), built by hand                      */
/* ------------------------------------------------------------------------------------------ */

struct FakeTensor {
  TVMFFIObject header;
  DLTensor tensor;
  int64_t shape[1];
  int64_t strides[1];
};

static int g_fake_tensors = 0;

static void FakeTensorDeleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    delete static_cast<FakeTensor*>(self);
    --g_fake_tensors;
  }
}

static ffi::ObjectRef MakeFakeTensor(int device_type, int device_id) {
  FakeTensor* t = new FakeTensor();
  t->header.combined_ref_count = (uint64_t(1) << 32) | 1;
  t->header.type_index = ffi::TypeIndex::kTVMFFITensor;
  t->header.deleter = FakeTensorDeleter;
  t->tensor.device.device_type = static_cast<DLDeviceType>(device_type);
  t->tensor.device.device_id = device_id;
  t->tensor.ndim = 1;
  t->tensor.dtype = DLDataType{kDLFloat, 32, 1};
  t->shape[0] = 0;
  t->strides[0] = 1;
  t->tensor.shape = t->shape;
  t->tensor.strides = t->strides;
  ++g_fake_tensors;
  return ffi::ObjectRef(ffi::details::ObjectUnsafe::ObjectPtrFromOwned<ffi::Object>(
      reinterpret_cast<TVMFFIObject*>(t)));
}

/* ------------------------------------------------------------------------------------------ */
/* C++-built containers handed to the runtime                                                  */
/* ------------------------------------------------------------------------------------------ */

static void CxxArraysToRuntime() {
  Function size = Function::GetGlobalRequired("ffi.ArraySize");
  Function get = Function::GetGlobalRequired("ffi.ArrayGetItem");
  Function contains = Function::GetGlobalRequired("ffi.ArrayContains");

  Array<Any> a = {Any(1), Any(String("two")), Any(3.5),
                  Any(String("a string longer than seven bytes"))};
  CHECK(ArrayLayoutOk(a), "cxx_array.layout");
  CHECK_EQ(size(a).cast<int64_t>(), int64_t(4), "cxx_array.size");
  CHECK_EQ(get(a, 1).cast<String>(), String("two"), "cxx_array.get_small_string");
  CHECK_EQ(get(a, 3).cast<String>(), String("a string longer than seven bytes"),
           "cxx_array.get_heap_string");
  CHECK(get(a, 2).cast<double>() == 3.5, "cxx_array.get_float");
  CHECK(contains(a, "two").cast<bool>(), "cxx_array.contains_small_string");
  CHECK(contains(a, std::string("a string longer than seven bytes")).cast<bool>(),
        "cxx_array.contains_heap_string");
  CHECK(!contains(a, 2).cast<bool>(), "cxx_array.not_contains");
  EXPECT_ERROR("cxx_array.get_out_of_range", get, "IndexError", "Index 4 out of bounds 4", a, 4);

  // The runtime's result holds a new reference to an element object.
  Array<Any> inner = {Any(7)};
  Array<Any> outer = {Any(inner)};
  Any back = get(outer, 0);
  CHECK(back.cast<Array<Any>>().same_as(inner), "cxx_array.element_identity");
  CHECK_EQ(static_cast<int64_t>(inner.use_count()), int64_t(3), "cxx_array.element_refcount");
}

static void CxxListsToRuntime() {
  Function append = Function::GetGlobalRequired("ffi.ListAppend");
  Function insert = Function::GetGlobalRequired("ffi.ListInsert");
  Function pop = Function::GetGlobalRequired("ffi.ListPop");
  Function erase = Function::GetGlobalRequired("ffi.ListErase");
  Function erase_range = Function::GetGlobalRequired("ffi.ListEraseRange");
  Function replace = Function::GetGlobalRequired("ffi.ListReplaceSlice");
  Function reverse = Function::GetGlobalRequired("ffi.ListReverse");
  Function clear = Function::GetGlobalRequired("ffi.ListClear");
  Function reserve = Function::GetGlobalRequired("ffi.ListReserve");
  Function set = Function::GetGlobalRequired("ffi.ListSetItem");
  Function get = Function::GetGlobalRequired("ffi.ListGetItem");
  Function size = Function::GetGlobalRequired("ffi.ListSize");
  Function contains = Function::GetGlobalRequired("ffi.ListContains");

  List<Any> l = {1, 2, 3};
  CHECK(ListLayoutOk(l), "cxx_list.layout");
  CHECK_EQ(l.capacity(), size_t(4), "cxx_list.capacity");
  append(l, 4);
  CHECK_EQ(l.capacity(), size_t(4), "cxx_list.append_in_place");
  // The runtime grows the C++ buffer: the old buffer goes to C++'s deleter.
  append(l, 5);
  CHECK_EQ(l.capacity(), size_t(8), "cxx_list.append_grows");
  CHECK(ListLayoutOk(l), "cxx_list.layout_after_growth");
  CHECK_INTS(l, "[1,2,3,4,5]", "cxx_list.after_append");
  // C++ keeps mutating the buffer the runtime installed.
  l.push_back(6);
  l.push_back(7);
  l.push_back(8);
  l.push_back(9);  // C++ grows the runtime's buffer
  CHECK_EQ(l.capacity(), size_t(16), "cxx_list.cxx_grows_runtime_buffer");
  CHECK_INTS(l, "[1,2,3,4,5,6,7,8,9]", "cxx_list.after_cxx_push");
  CHECK_EQ(size(l).cast<int64_t>(), int64_t(9), "cxx_list.size");
  insert(l, 0, 0);
  insert(l, 10, 10);
  CHECK_INTS(l, "[0,1,2,3,4,5,6,7,8,9,10]", "cxx_list.insert");
  CHECK_EQ(pop(l, 10).cast<int64_t>(), int64_t(10), "cxx_list.pop_value");
  erase(l, 0);
  erase_range(l, 0, 2);
  CHECK_INTS(l, "[3,4,5,6,7,8,9]", "cxx_list.erase");
  List<Any> repl = {30, 40};
  replace(l, 0, 2, repl);
  CHECK_INTS(l, "[30,40,5,6,7,8,9]", "cxx_list.replace_slice");
  replace(l, 0, 1, l);
  CHECK_INTS(l, "[30,40,5,6,7,8,9,40,5,6,7,8,9]", "cxx_list.replace_slice_self");
  reverse(l);
  CHECK_INTS(l, "[9,8,7,6,5,40,9,8,7,6,5,40,30]", "cxx_list.reverse");
  set(l, 0, 99);
  CHECK_EQ(get(l, 0).cast<int64_t>(), int64_t(99), "cxx_list.set_get");
  CHECK(contains(l, 40).cast<bool>(), "cxx_list.contains");
  EXPECT_ERROR("cxx_list.insert_out_of_range", insert, "IndexError",
               "Index 14 out of bounds [0, 13]", l, 14, 0);
  EXPECT_ERROR("cxx_list.set_out_of_range", set, "IndexError", "Index 13 out of bounds 13", l,
               13, 0);
  EXPECT_ERROR("cxx_list.pop_out_of_range", pop, "IndexError", "Index -1 out of bounds 13", l,
               -1);
  EXPECT_ERROR("cxx_list.erase_range_bad", erase_range, "IndexError",
               "Erase range [3, 1) out of bounds 13", l, 3, 1);
  reserve(l, 40);
  CHECK_EQ(l.capacity(), size_t(40), "cxx_list.reserve");
  clear(l);
  CHECK(l.empty() && l.capacity() == 40, "cxx_list.clear_keeps_capacity");
  l.push_back(String("after clear"));
  CHECK_EQ(l[0].cast<String>(), String("after clear"), "cxx_list.reuse_after_clear");

  // A default C++ List has no buffer at all (capacity 0, data NULL).
  List<Any> empty;
  CHECK(Cell(empty)->data == nullptr && empty.capacity() == 0, "cxx_list.empty_has_no_buffer");
  append(empty, String("first"));
  CHECK(empty.size() == 1 && empty.capacity() == 1, "cxx_list.append_to_empty");
  empty.push_back(2);
  CHECK_EQ(empty.capacity(), size_t(2), "cxx_list.cxx_grows_after_runtime");

  // List<Any> parameters take Arrays as temporary copies: the Array does not change.
  Array<Any> arr = {1, 2};
  append(arr, 3);
  CHECK_INTS(arr, "[1,2]", "cxx_list.append_to_array_is_a_copy");
  CHECK_EQ(pop(arr, 0).cast<int64_t>(), int64_t(1), "cxx_list.pop_from_array_copy");
  CHECK_INTS(arr, "[1,2]", "cxx_list.pop_from_array_is_a_copy");
}

/* ------------------------------------------------------------------------------------------ */
/* Runtime-built containers read and mutated by inline C++                                     */
/* ------------------------------------------------------------------------------------------ */

static void RuntimeArraysToCxx() {
  Function make = Function::GetGlobalRequired("ffi.Array");
  Function get = Function::GetGlobalRequired("ffi.ArrayGetItem");
  Function size = Function::GetGlobalRequired("ffi.ArraySize");

  Array<Any> a = make(1, "x", 2.5).cast<Array<Any>>();
  CHECK(ArrayLayoutOk(a), "runtime_array.layout");
  CHECK(a.size() == 3 && a.capacity() == 3, "runtime_array.size_capacity");
  CHECK_EQ(a[0].cast<int64_t>(), int64_t(1), "runtime_array.read_int");
  CHECK_EQ(a[1].cast<String>(), String("x"), "runtime_array.read_string");
  CHECK(a[2].cast<double>() == 2.5, "runtime_array.read_float");
  int count = 0;
  for (const Any& v : a) count += v != nullptr;
  CHECK_EQ(int64_t(count), int64_t(3), "runtime_array.iterate");

  // Copy-on-write: a shared Array is copied before a C++ mutation.
  Array<Any> shared = a;
  const void* before = Addr(a);
  shared.push_back(4);
  CHECK(Addr(a) == before && a.size() == 3, "runtime_array.cow_original_untouched");
  CHECK(Addr(shared) != before && shared.size() == 4, "runtime_array.cow_copy_mutated");
  CHECK_EQ(size(a).cast<int64_t>(), int64_t(3), "runtime_array.cow_runtime_sees_original");
  CHECK_EQ(size(shared).cast<int64_t>(), int64_t(4), "runtime_array.cow_runtime_sees_copy");

  // Unique: C++ mutates the runtime's object in place.
  CHECK(a.unique(), "runtime_array.unique");
  a.Set(0, 10);
  CHECK(Addr(a) == before, "runtime_array.set_in_place");
  CHECK_EQ(get(a, 0).cast<int64_t>(), int64_t(10), "runtime_array.runtime_sees_in_place_set");
  a.pop_back();
  CHECK(Addr(a) == before && size(a).cast<int64_t>() == 2, "runtime_array.pop_in_place");
  // Full: C++ moves the elements out of the runtime's object into its own.
  a.push_back(String("three"));
  a.push_back(4);
  CHECK(Addr(a) != before && a.capacity() == 6, "runtime_array.grow_moves");
  CHECK_EQ(get(a, 2).cast<String>(), String("three"), "runtime_array.after_move");
  CHECK_EQ(size(a).cast<int64_t>(), int64_t(4), "runtime_array.size_after_move");

  // An empty runtime Array has capacity 0 and grows to 1 in C++.
  Array<Any> empty = make().cast<Array<Any>>();
  CHECK(empty.empty() && empty.capacity() == 0 && ArrayLayoutOk(empty), "runtime_array.empty");
  empty.push_back(1);
  CHECK_EQ(empty.capacity(), size_t(1), "runtime_array.empty_grows");

  // Typed view: Array<int64_t> accepts the runtime's Array of ints without copying.
  Any ints = make(1, 2, 3);
  Array<int64_t> typed = ints.cast<Array<int64_t>>();
  CHECK(typed.same_as(ints.cast<Array<Any>>()), "runtime_array.typed_view_no_copy");
  CHECK_EQ(typed[2], int64_t(3), "runtime_array.typed_read");
}

static void RuntimeListsToCxx() {
  Function make = Function::GetGlobalRequired("ffi.List");
  Function get = Function::GetGlobalRequired("ffi.ListGetItem");
  Function size = Function::GetGlobalRequired("ffi.ListSize");
  Function append = Function::GetGlobalRequired("ffi.ListAppend");

  List<Any> l = make(1, 2, 3).cast<List<Any>>();
  CHECK(ListLayoutOk(l), "runtime_list.layout");
  CHECK(l.size() == 3 && l.capacity() == 4, "runtime_list.size_capacity");
  List<Any> alias = l;
  l.push_back(4);  // in place, visible through every handle
  CHECK(alias.size() == 4 && size(alias).cast<int64_t>() == 4, "runtime_list.shared_mutation");
  // C++ growth: ::operator new buffer, the runtime's old buffer released by the runtime's
  // data_deleter, which stays installed and later frees the C++ buffer.
  l.push_back(5);
  CHECK_EQ(l.capacity(), size_t(8), "runtime_list.cxx_growth");
  CHECK_INTS(l, "[1,2,3,4,5]", "runtime_list.after_cxx_growth");
  CHECK_EQ(get(l, 4).cast<int64_t>(), int64_t(5), "runtime_list.runtime_reads_cxx_buffer");
  // ...and the runtime grows the C++ buffer again.
  for (int i = 6; i <= 9; ++i) append(l, i);
  CHECK_EQ(l.capacity(), size_t(16), "runtime_list.runtime_growth_after_cxx");
  l.insert(l.begin() + 1, 100);
  l.erase(l.begin() + 2);
  l.Set(0, String("zero"));
  CHECK_EQ(get(l, 0).cast<String>(), String("zero"), "runtime_list.cxx_set");
  CHECK_EQ(get(l, 1).cast<int64_t>(), int64_t(100), "runtime_list.cxx_insert");
  l.resize(3);
  CHECK_EQ(size(l).cast<int64_t>(), int64_t(3), "runtime_list.cxx_resize");
  l.reserve(64);
  CHECK_EQ(l.capacity(), size_t(64), "runtime_list.cxx_reserve");
  l.clear();
  CHECK_EQ(size(alias).cast<int64_t>(), int64_t(0), "runtime_list.cxx_clear");

  // An empty ffi.List() has capacity 4.
  List<Any> e = make().cast<List<Any>>();
  CHECK(e.empty() && e.capacity() == 4, "runtime_list.empty_capacity");
}

static void Shapes() {
  Function make = Function::GetGlobalRequired("ffi.Shape");
  Function make_array = Function::GetGlobalRequired("ffi.Array");
  Function get = Function::GetGlobalRequired("ffi.ArrayGetItem");

  Shape s = make(2, 3, 4).cast<Shape>();
  CHECK(s.size() == 3 && s[0] == 2 && s[2] == 4 && s.Product() == 24, "shape.read");
  CHECK(reinterpret_cast<const char*>(s.data()) == reinterpret_cast<const char*>(Addr(s)) + 40,
        "shape.inline_layout");
  Shape empty = make().cast<Shape>();
  CHECK(empty.size() == 0 && empty.Product() == 1, "shape.empty");
  EXPECT_ERROR("shape.bad_argument", make, "ValueError",
               "Expect shape to take list of int arguments", 1, 2.5);

  // C++ shapes (inline and std::vector-backed) travel through the runtime's containers.
  Shape inline_shape = {5, 6};
  Shape vector_shape(std::vector<int64_t>{7, 8, 9});
  Any arr = make_array(inline_shape, vector_shape, s);
  Shape back0 = get(arr, 0).cast<Shape>();
  Shape back1 = get(arr, 1).cast<Shape>();
  CHECK(back0.same_as(inline_shape) && back0[1] == 6, "shape.cxx_inline_roundtrip");
  CHECK(back1.same_as(vector_shape) && back1.Product() == 504, "shape.cxx_vector_roundtrip");
}

static void Devices() {
  Function find = Function::GetGlobalRequired("ffi.ContainerFindFirstNonCPUDevice");
  auto device_of = [&](const Any& v) {
    DLDevice d = find(v).cast<DLDevice>();
    return std::to_string(int(d.device_type)) + ":" + std::to_string(d.device_id);
  };
  {
    ffi::ObjectRef cpu = MakeFakeTensor(kDLCPU, 0);
    ffi::ObjectRef cuda = MakeFakeTensor(kDLCUDA, 3);
    ffi::ObjectRef rocm = MakeFakeTensor(kDLROCM, 1);
    CHECK_EQ(device_of(Any(1)), std::string("1:0"), "device.pod");
    CHECK_EQ(device_of(Any(cuda)), std::string("2:3"), "device.tensor");
    CHECK_EQ(device_of(Any(Array<Any>{cpu, cpu})), std::string("1:0"), "device.all_cpu");
    CHECK_EQ(device_of(Any(Array<Any>{cpu, List<Any>{1, rocm}, cuda})), std::string("10:1"),
             "device.nested_first_wins");
    ffi::Map<Any, Any> small{{String("a"), cpu}, {String("b"), cuda}};
    CHECK_EQ(device_of(Any(small)), std::string("2:3"), "device.small_map");
    ffi::Map<Any, Any> dense;
    for (int i = 0; i < 40; ++i) dense.Set(i, cpu);
    dense.Set(String("late"), rocm);
    dense.Set(String("later"), cuda);
    CHECK(dense.size() == 42, "device.dense_map_built");
    CHECK_EQ(device_of(Any(dense)), std::string("10:1"), "device.dense_map_insertion_order");
    ffi::Dict<Any, Any> dict;
    dict.Set(String("k"), Array<Any>{cpu, cuda});
    CHECK_EQ(device_of(Any(dict)), std::string("2:3"), "device.dict_of_array");
    // A List that holds itself: Apache recurses forever, so only the non-cyclic part is
    // checked here (a cycle is tested on ffihub alone, in Rust).
    List<Any> keys_only;
    keys_only.push_back(ffi::Map<Any, Any>{{cuda, 1}});
    CHECK_EQ(device_of(Any(keys_only)), std::string("1:0"), "device.map_keys_ignored");
  }
  CHECK_EQ(int64_t(g_fake_tensors), int64_t(0), "device.tensors_released");
}

int main() {
  try {
    CxxArraysToRuntime();
    CxxListsToRuntime();
    RuntimeArraysToCxx();
    RuntimeListsToCxx();
    Shapes();
    Devices();
  } catch (const std::exception& e) {
    std::printf("FAIL uncaught exception: %s\n", e.what());
    return 1;
  }
  std::printf("%s: %d failure(s)\n", g_failures ? "FAILED" : "PASSED", g_failures);
  return g_failures ? 1 : 0;
}
