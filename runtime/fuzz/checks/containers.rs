//! The property of the `containers` fuzz target, shared with the corpus replay test
//! (`runtime/tests/fuzz_containers.rs`): the input is a script that builds nested values with
//! the container globals through the C surface, and reads them back with the lookup globals.

use tvm_ffi::abi::{TVMFFIAny, TVMFFIByteArray, TVMFFIObject};
use tvm_ffi::value::any::{Any, RAW_NONE};
use tvm_ffi::value::error::take_raised_or_unknown;
use tvm_ffi::value::object::live_object_count;

extern "C" {
    fn TVMFFIFunctionGetGlobal(name: *const TVMFFIByteArray, out: *mut *mut TVMFFIObject) -> i32;
    fn TVMFFIFunctionCall(
        func: *mut TVMFFIObject,
        args: *mut TVMFFIAny,
        num_args: i32,
        result: *mut TVMFFIAny,
    ) -> i32;
    fn TVMFFIObjectDecRef(obj: *mut TVMFFIObject) -> i32;
}

/// Calls the global function `name` on borrowed `args`; a failure is the raised error's kind.
fn call_global(name: &str, args: &[Any]) -> Result<Any, String> {
    let name = TVMFFIByteArray {
        data: name.as_ptr().cast(),
        size: name.len(),
    };
    let mut func = std::ptr::null_mut();
    // SAFETY: valid pointers.
    assert_eq!(unsafe { TVMFFIFunctionGetGlobal(&name, &mut func) }, 0);
    assert!(!func.is_null(), "the container globals are registered");
    let mut views: Vec<TVMFFIAny> = args.iter().map(|a| *a.as_raw()).collect();
    let mut result = RAW_NONE;
    // SAFETY: `func` is a live Function; the views borrow `args`, which outlive the call.
    let code =
        unsafe { TVMFFIFunctionCall(func, views.as_mut_ptr(), views.len() as i32, &mut result) };
    // SAFETY: the reference GetGlobal returned is ours.
    unsafe { TVMFFIObjectDecRef(func) };
    match code {
        // SAFETY: on success `result` holds an owned value.
        0 => Ok(unsafe { Any::from_raw(result) }),
        code => Err(String::from_utf8_lossy(take_raised_or_unknown(code).kind()).into_owned()),
    }
}

/// At most this many values on the script's stack (bounds the work per input).
const MAX_STACK: usize = 64;

/// Strings are prefixes of this: up to 7 bytes stay inline, longer ones live on the heap.
const TEXT: &str = "key-with-a-long-shared-prefix";

/// Runs the script `data` byte by byte: each byte picks an operation, and the following byte (if
/// any) its operand. Values are pushed (ints, floats, bools, None, short inline and long heap
/// strings), popped into Arrays, Lists, Maps and Dicts (keys and values alternate), shared
/// (duplicated), and looked up (item by index or key, size, membership). Every call succeeds or
/// raises a clean error; at the end everything is dropped. The first run may leave what the
/// runtime keeps for good (the global function table, built on first use); a second run must
/// leave the live-object count exactly where it was.
pub fn check_containers(data: &[u8]) {
    run_script(data);
    let baseline = live_object_count();
    run_script(data);
    assert_eq!(
        live_object_count(),
        baseline,
        "the script leaked or over-released"
    );
}

fn run_script(data: &[u8]) {
    let mut stack: Vec<Any> = Vec::new();
    let mut bytes = data.iter().copied();
    while let Some(op) = bytes.next() {
        let arg = bytes.next().unwrap_or(0);
        let count = usize::from(arg % 5).min(stack.len());
        let popped = |stack: &mut Vec<Any>, n: usize| stack.split_off(stack.len() - n);
        let outcome = match op % 12 {
            0 => Ok(Any::int(i64::from(arg as i8) << (arg % 7 * 8))),
            1 => Ok(Any::float(f64::from(arg as i8) / 3.0)),
            2 => Ok([Any::none(), Any::bool(arg % 2 == 1)][usize::from(arg % 4 < 2)].clone()),
            3 => Ok(Any::string(&TEXT[..usize::from(arg) % (TEXT.len() + 1)])),
            4 => call_global("ffi.Array", &popped(&mut stack, count)),
            5 => call_global("ffi.List", &popped(&mut stack, count)),
            6 => call_global("ffi.Map", &popped(&mut stack, count & !1)),
            7 => call_global("ffi.Dict", &popped(&mut stack, count & !1)),
            8 => match stack.last() {
                Some(top) => Ok(top.clone()),
                None => continue,
            },
            9..=11 if stack.len() >= 2 => {
                let pair = popped(&mut stack, 2);
                let getter = ["ffi.ArrayGetItem", "ffi.MapGetItem", "ffi.DictGetItem"];
                let other = ["ffi.ArraySize", "ffi.ListContains", "ffi.MapCount"];
                let name = if arg % 2 == 0 { getter } else { other }[usize::from(op % 12 - 9)];
                let args = if name.ends_with("Size") {
                    &pair[..1]
                } else {
                    &pair[..]
                };
                call_global(name, args)
            }
            _ => continue,
        };
        match outcome {
            Ok(value) if stack.len() < MAX_STACK => stack.push(value),
            Ok(_) => {}
            Err(kind) => assert!(
                ["TypeError", "IndexError", "KeyError", "ValueError"].contains(&kind.as_str()),
                "unexpected {kind}"
            ),
        }
    }
}
