//! Container operations release every object they allocate (alone in its process, so the
//! live-object counter sees nothing else).

use tvm_ffi::containers::seq::{Array, List};
use tvm_ffi::containers::shape::Shape;
use tvm_ffi::value::any::Any;
use tvm_ffi::value::object::live_object_count;

fn call(name: &str, args: &[&Any]) -> Result<Any, tvm_ffi::value::error::Error> {
    let entry = tvm_ffi::registry::globals::get(name.as_bytes()).expect("registered");
    let raw: Vec<_> = args.iter().map(|a| *a.as_raw()).collect();
    // SAFETY: a live Function and valid argument views.
    unsafe { tvm_ffi::value::function::call(entry.function.as_ptr(), &raw) }
}

fn workload() {
    let heap = || Any::string("a string that lives on the heap");
    let mut array = Array::from_vec(vec![heap(), Any::int(1)]);
    let shared = array.clone();
    array.push(heap());
    array.reserve(10);
    array.insert(0, Shape::new(&[1, 2]).into_any()).unwrap();
    array.erase_range(0, 2).unwrap();
    drop(shared);
    let mut list = List::from_vec(vec![heap(), array.clone().into_any()]);
    for i in 0..20 {
        list.push(if i % 2 == 0 { heap() } else { Any::int(i) });
    }
    list.replace_slice(1, 5, vec![heap(), heap()]).unwrap();
    list.reverse();
    let list_any = list.clone().into_any();
    call("ffi.ListAppend", &[&list_any, &heap()]).unwrap();
    call("ffi.ListPop", &[&list_any, &Any::int(0)]).unwrap();
    let _ = call("ffi.ListPop", &[&list_any, &Any::int(1000)]).unwrap_err();
    call(
        "ffi.ListReplaceSlice",
        &[&list_any, &Any::int(0), &Any::int(3), &list_any],
    )
    .unwrap();
    let made = call("ffi.Array", &[&heap(), &list_any, &Any::int(3)]).unwrap();
    call("ffi.ArrayGetItem", &[&made, &Any::int(1)]).unwrap();
    call("ffi.ArrayContains", &[&made, &heap()]).unwrap();
    call("ffi.Shape", &[&Any::int(3), &Any::int(4)]).unwrap();
    let _ = call("ffi.Shape", &[&heap()]).unwrap_err();
    call("ffi.ContainerFindFirstNonCPUDevice", &[&made]).unwrap();
    list.clear();
}

#[test]
fn container_operations_do_not_leak() {
    // Warm up: the registry and the first error backtrace allocate once for the process.
    workload();
    let before = live_object_count();
    for _ in 0..3 {
        workload();
    }
    assert_eq!(
        live_object_count(),
        before,
        "objects leaked by container operations"
    );
}
