//! `ffi.DeepCopy`, with the semantics of Apache's copier:
//!
//! * POD values, strings, bytes, shapes, BigInts and enum singletons are returned as they are;
//! * Arrays and Maps are rebuilt from copied elements; Lists and Dicts are copied into fresh
//!   containers; reflected objects are copied with their `__ffi_shallow_copy__` attribute and
//!   their fields replaced by copies (types without one are "not copy-constructible");
//! * sharing is kept (an object reached twice is copied once) and so are cycles: a mutable copy
//!   is registered before its children are copied, and references to an immutable container
//!   still being built are patched once everything is copied.
//!
//! The walk keeps its work on a heap stack, so depth is bounded only by [`MAX_DEPTH`].

use crate::abi::{TVMFFIAny, TVMFFIFieldInfo, TVMFFIObject};
use crate::containers::map::{Dict, Map, MapView};
use crate::containers::seq::{seq_elements, Array, List};
use crate::registry::reflection::{all_fields, get_field, set_field};
use crate::registry::types::type_key_of;
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::is_object_index;
use std::collections::{HashMap, HashSet};

/// The deepest nesting the walk accepts (Apache's limit).
pub const MAX_DEPTH: usize = 1 << 20;

/// Same value: equal tags and payload bits (identity for objects).
pub(crate) fn same_as(a: &TVMFFIAny, b: &TVMFFIAny) -> bool {
    // SAFETY: reading the payload as raw bits is valid for every kind.
    a.type_index == b.type_index && unsafe { a.value.v_uint64 == b.value.v_uint64 }
}

fn address(value: &TVMFFIAny) -> usize {
    // SAFETY: callers pass object values.
    unsafe { value.value.v_obj as usize }
}

enum Kind {
    Array,
    Map,
    List(List),
    Dict(Dict),
    Object(Vec<&'static TVMFFIFieldInfo>),
}

struct Frame {
    original: Any,
    kind: Kind,
    children: Vec<Any>,
    next: usize,
    copy: Any,
    resolved: Vec<Any>,
}

#[derive(Default)]
struct Copier {
    copies: HashMap<usize, Any>,
    building: HashSet<usize>,
    deferred: bool,
}

/// A deep copy of `value`.
pub fn deep_copy(value: &Any) -> Result<Any, Error> {
    let mut copier = Copier::default();
    let result = match copier.immediate(value) {
        Some(copy) => copy,
        None => copier.run(value)?,
    };
    if copier.deferred {
        copier.fix_up()?;
    }
    Ok(result)
}

impl Copier {
    /// The copy of a value that needs no frame, if it is one.
    fn immediate(&mut self, value: &Any) -> Option<Any> {
        let raw = value.as_raw();
        if !is_object_index(raw.type_index) {
            return Some(value.clone());
        }
        if let Some(copy) = self.copies.get(&address(raw)) {
            return Some(copy.clone());
        }
        if self.building.contains(&address(raw)) {
            // An Array or Map that contains itself through mutable containers: patched later.
            self.deferred = true;
            return Some(value.clone());
        }
        match raw.type_index {
            tindex::STR | tindex::BYTES | tindex::SHAPE | tindex::BIG_INT => Some(value.clone()),
            t if crate::registry::types::is_instance(
                t,
                crate::registry::types::runtime_index::ENUM,
            ) =>
            {
                Some(value.clone())
            }
            _ => None,
        }
    }

    fn frame(&mut self, value: &Any) -> Result<Frame, Error> {
        let raw = value.as_raw();
        let obj = raw_obj(raw);
        // SAFETY: `value` holds a live object of the kind its tag says.
        let (kind, children, copy) = unsafe {
            match raw.type_index {
                tindex::ARRAY => {
                    self.building.insert(address(raw));
                    (Kind::Array, owned(seq_elements(obj))?, Any::none())
                }
                tindex::LIST => {
                    let items = owned(seq_elements(obj))?;
                    let list = List::with_capacity(items.len());
                    let copy = list.clone().into_any();
                    self.copies.insert(address(raw), copy.clone());
                    (Kind::List(list), items, copy)
                }
                tindex::MAP | tindex::DICT => {
                    let view = MapView::from_raw(obj).expect("a map");
                    let mut items = Vec::with_capacity(view.len() * 2);
                    for (k, v) in view.iter() {
                        items.push(k);
                        items.push(v);
                    }
                    if raw.type_index == tindex::MAP {
                        self.building.insert(address(raw));
                        (Kind::Map, items, Any::none())
                    } else {
                        let dict = Dict::new();
                        let copy = dict.clone().into_any();
                        self.copies.insert(address(raw), copy.clone());
                        (Kind::Dict(dict), items, copy)
                    }
                }
                t => {
                    let copy = shallow_copy(value)?;
                    self.copies.insert(address(raw), copy.clone());
                    let info = crate::registry::types::type_info(t).expect("a registered type");
                    let fields = all_fields(info);
                    let children = fields
                        .iter()
                        .map(|f| get_field(f, obj))
                        .collect::<Result<Vec<_>, _>>()?;
                    (Kind::Object(fields), children, copy)
                }
            }
        };
        Ok(Frame {
            original: value.clone(),
            kind,
            resolved: Vec::with_capacity(children.len()),
            children,
            next: 0,
            copy,
        })
    }

    fn run(&mut self, root: &Any) -> Result<Any, Error> {
        let mut stack = vec![self.frame(root)?];
        loop {
            let top = stack.last_mut().expect("frame");
            if top.next < top.children.len() {
                let child = top.children[top.next].clone();
                top.next += 1;
                match self.immediate(&child) {
                    Some(copy) => feed(stack.last_mut().expect("frame"), copy)?,
                    None => {
                        if stack.len() >= MAX_DEPTH {
                            return Err(Error::new(
                                "ValueError",
                                format!(
                                    "ObjectGraphDFS: maximum stack depth ({MAX_DEPTH}) exceeded"
                                ),
                            ));
                        }
                        let frame = self.frame(&child)?;
                        stack.push(frame);
                    }
                }
                continue;
            }
            let frame = stack.pop().expect("frame");
            let key = address(frame.original.as_raw());
            let copy = match frame.kind {
                Kind::Array => {
                    self.building.remove(&key);
                    let copy = Array::from_vec(frame.resolved).into_any();
                    self.copies.insert(key, copy.clone());
                    copy
                }
                Kind::Map => {
                    self.building.remove(&key);
                    let mut map = Map::new();
                    let mut items = frame.resolved.into_iter();
                    while let (Some(k), Some(v)) = (items.next(), items.next()) {
                        map.set(k, v)?;
                    }
                    let copy = map.into_any();
                    self.copies.insert(key, copy.clone());
                    copy
                }
                _ => frame.copy,
            };
            match stack.last_mut() {
                Some(parent) => feed(parent, copy)?,
                None => return Ok(copy),
            }
        }
    }

    /// Replaces the originals that stood in for Arrays and Maps under construction.
    fn fix_up(&self) -> Result<(), Error> {
        let replacement = |value: &Any| -> Option<Any> {
            let raw = value.as_raw();
            if !is_object_index(raw.type_index) {
                return None;
            }
            self.copies
                .get(&address(raw))
                .filter(|copy| !same_as(copy.as_raw(), raw))
                .cloned()
        };
        for copy in self.copies.values() {
            let raw = copy.as_raw();
            match raw.type_index {
                tindex::LIST => {
                    let mut list = List::from_object(copy.as_object().expect("object").clone())
                        .expect("a list");
                    for i in 0..list.len() {
                        let item = list.get(i).expect("in range");
                        if let Some(new) = replacement(&item) {
                            list.set(i as i64, new)?;
                        }
                    }
                }
                tindex::DICT => {
                    let mut dict = Dict::from_object(copy.as_object().expect("object").clone())
                        .expect("a dict");
                    let changes: Vec<(Any, Any, Any)> = dict
                        .view()
                        .iter()
                        .filter_map(|(k, v)| {
                            let (nk, nv) = (replacement(&k), replacement(&v));
                            (nk.is_some() || nv.is_some())
                                .then(|| (k.clone(), nk.unwrap_or(k), nv.unwrap_or(v)))
                        })
                        .collect();
                    for (old_key, key, value) in changes {
                        dict.erase(&old_key)?;
                        dict.set(key, value)?;
                    }
                }
                t if t >= tindex::STATIC_OBJECT_END => {
                    let info = crate::registry::types::type_info(t).expect("a registered type");
                    let obj = raw_obj(raw);
                    // SAFETY: `obj` is a live object of type `t`; the fields are its type's.
                    unsafe {
                        for field in all_fields(info) {
                            if let Some(new) = replacement(&get_field(field, obj)?) {
                                set_field(field, obj, new.as_raw())?;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

fn raw_obj(raw: &TVMFFIAny) -> *mut TVMFFIObject {
    // SAFETY: callers pass object values.
    unsafe { raw.value.v_obj }
}

/// Owned copies of borrowed element views.
fn owned(items: &[TVMFFIAny]) -> Result<Vec<Any>, Error> {
    // SAFETY: elements of a live container are valid values.
    items
        .iter()
        .map(|v| unsafe { crate::value::any::view_to_owned(v) })
        .collect()
}

/// Hands a copied child to the frame that asked for it.
fn feed(frame: &mut Frame, copy: Any) -> Result<(), Error> {
    match &mut frame.kind {
        Kind::Array | Kind::Map => frame.resolved.push(copy),
        Kind::List(list) => list.push(copy),
        Kind::Dict(dict) => {
            frame.resolved.push(copy);
            if frame.resolved.len() == 2 {
                let value = frame.resolved.pop().expect("value");
                let key = frame.resolved.pop().expect("key");
                dict.set(key, value)?;
            }
        }
        Kind::Object(fields) => {
            let i = frame.resolved.len();
            if !same_as(frame.children[i].as_raw(), copy.as_raw()) {
                let obj = raw_obj(frame.copy.as_raw());
                // SAFETY: the field belongs to the copy's type.
                unsafe { set_field(fields[i], obj, copy.as_raw())? };
            }
            // Keep the count of fed fields; the values themselves live in the copy.
            frame.resolved.push(Any::none());
        }
    }
    Ok(())
}

/// The `__ffi_shallow_copy__` of an object.
fn shallow_copy(value: &Any) -> Result<Any, Error> {
    let type_index = value.type_index();
    let hook = crate::registry::types::attr_value(b"__ffi_shallow_copy__", type_index)
        .and_then(|h| h.as_object().cloned())
        .ok_or_else(|| {
            Error::new(
                "InternalError",
                format!(
                    "Check failed: (copy_fn.has_value()) is false: Cannot deep copy object of type \"{}\" because it is not copy-constructible",
                    type_key_of(type_index)
                ),
            )
        })?;
    // SAFETY: `hook` is a live Function and the argument a valid value.
    unsafe { crate::value::function::call(hook.as_ptr(), &[*value.as_raw()]) }
}
