//! The JSON object graph (`ffi.ToJSONGraph`, `ffi.FromJSONGraph` and their `...String` forms),
//! in Apache's format so that either runtime reads what the other wrote:
//!
//! ```text
//! {"root_index": <int>, "nodes": [<node>, ...], "metadata": <any, optional>}
//! node = {"type": <type key>, "data": <payload>}        (None has no "data")
//! ```
//!
//! Nodes are listed children first; equal values (`AnyEqual`: strings by content, objects by
//! identity) share one node, which keeps sharing across a round trip. Payloads: bool, int and
//! float as themselves, DataType as its string, Device as `[type, id]`, String as itself, Bytes
//! in base64, Shape as its dims, Array/List as child indices, Map/Dict as `[k0, v0, k1, ...]`
//! indices, enums by their index, types with a `__data_to_json__` attribute by its result,
//! other reflected objects as `{field: value}` with POD fields inline and the rest as indices.
//!
//! Both directions keep their work on heap stacks. Reading validates everything it indexes and
//! fails with a ValueError on malformed input, cycles, or nesting deeper than [`MAX_DEPTH`].

use crate::abi::{TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo};
use crate::containers::any_hash::{equal_of, hash_of};
use crate::containers::map::{Dict, Map, MapView};
use crate::containers::seq::{seq_elements, Array, List};
use crate::containers::shape::Shape;
use crate::registry::reflection::{all_fields, get_field, set_field, set_field_to_default};
use crate::registry::types::runtime_index::{ENUM, INT_ENUM};
use crate::registry::types::type_key_of;
use crate::tindex;
use crate::value::any::{byte_array_slice, Any};
use crate::value::error::Error;
use crate::value::object::{is_object_index, ObjectRef};
use crate::walks::json::Value;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

/// The deepest chain of nested nodes a graph may decode to. Reading, writing and releasing do
/// not recurse, so this only bounds the reader's heap stack against hostile input.
pub const MAX_DEPTH: usize = 100_000;

const DATA_TO_JSON: &[u8] = b"__data_to_json__";
const DATA_FROM_JSON: &[u8] = b"__data_from_json__";

fn graph_error(message: impl AsRef<str>) -> Error {
    Error::new(
        "ValueError",
        format!("Invalid JSON Object Graph: {}", message.as_ref()),
    )
}

/// A value as a hash-map key with `AnyHash` / `AnyEqual` semantics (hook errors count as
/// "different", which only costs sharing).
struct Key(Any);

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(hash_of(&self.0).unwrap_or(0));
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        equal_of(&self.0, &other.0).unwrap_or(false)
    }
}

impl Eq for Key {}

fn is_instance_of(type_index: i32, ancestor: i32) -> bool {
    crate::registry::types::is_instance(type_index, ancestor)
}

/// Does a field's value go inline (POD kinds) rather than into a node of its own?
fn inline_field(field: &TVMFFIFieldInfo) -> bool {
    matches!(
        field.field_static_type_index,
        tindex::NONE | tindex::BOOL | tindex::INT | tindex::FLOAT | tindex::DATA_TYPE
    )
}

// ------------------------------------------------------------------------------------------
// Writing
// ------------------------------------------------------------------------------------------

/// The payload of one node.
enum Data {
    /// None: no "data" key.
    Nothing,
    /// A JSON value (scalars, hook results, enum indices).
    Value(Any),
    /// Integers (child indices, shape dims, device fields).
    Ints(Vec<i64>),
    /// An object's fields: inline values or child indices.
    Fields(Vec<(Any, Any)>),
}

struct Node {
    type_key: Any,
    data: Data,
}

/// What a node that has children collects while they are written.
enum Pending {
    Seq,
    MapLike,
    /// Field names, and which fields are inline.
    Object(Vec<(Any, bool)>),
}

struct WriteFrame {
    value: Any,
    type_key: Any,
    pending: Pending,
    children: Vec<Any>,
    next: usize,
    done: Vec<Any>,
    /// Identity of a List/Dict/object being written, for cycle detection.
    identity: usize,
}

struct GraphWriter {
    nodes: Vec<Node>,
    index_of: HashMap<Key, i64>,
    type_keys: HashMap<i32, Any>,
    /// The objects whose frames are open (a set: chains can be a million levels deep).
    in_progress: HashSet<usize>,
}

impl GraphWriter {
    fn new() -> GraphWriter {
        GraphWriter {
            nodes: Vec::new(),
            index_of: HashMap::new(),
            type_keys: HashMap::new(),
            in_progress: HashSet::new(),
        }
    }

    fn type_key(&mut self, type_index: i32) -> Any {
        let canonical = match type_index {
            tindex::SMALL_STR => tindex::STR,
            tindex::SMALL_BYTES => tindex::BYTES,
            t => t,
        };
        self.type_keys
            .entry(canonical)
            .or_insert_with(|| Any::string(type_key_of(canonical)))
            .clone()
    }

    fn add(&mut self, value: Any, node: Node) -> i64 {
        let index = self.nodes.len() as i64;
        self.nodes.push(node);
        self.index_of.insert(Key(value), index);
        index
    }

    /// Writes the graph of `root` and returns the root's index.
    fn run(&mut self, root: &Any) -> Result<i64, Error> {
        let mut stack: Vec<WriteFrame> = Vec::new();
        let mut result = match self.visit(root)? {
            Ok(index) => index,
            Err(frame) => {
                stack.push(frame);
                -1
            }
        };
        while let Some(top) = stack.last_mut() {
            if top.next < top.children.len() {
                let child = top.children[top.next].clone();
                let inline = matches!(&top.pending, Pending::Object(f) if f[top.next].1);
                top.next += 1;
                if inline {
                    top.done.push(child);
                    continue;
                }
                match self.visit(&child)? {
                    Ok(index) => stack.last_mut().expect("frame").done.push(Any::int(index)),
                    Err(frame) => stack.push(frame),
                }
                continue;
            }
            let frame = stack.pop().expect("frame");
            if frame.identity != 0 {
                self.in_progress.remove(&frame.identity);
            }
            let data = match frame.pending {
                Pending::Seq | Pending::MapLike => Data::Ints(
                    frame
                        .done
                        .iter()
                        // SAFETY: child results are Int values.
                        .map(|v| unsafe { v.as_raw().value.v_int64 })
                        .collect(),
                ),
                Pending::Object(fields) => Data::Fields(
                    fields
                        .into_iter()
                        .map(|(name, _)| name)
                        .zip(frame.done)
                        .collect(),
                ),
            };
            let index = self.add(
                frame.value,
                Node {
                    type_key: frame.type_key,
                    data,
                },
            );
            match stack.last_mut() {
                Some(parent) => parent.done.push(Any::int(index)),
                None => result = index,
            }
        }
        Ok(result)
    }

    /// The index of a value's node, writing it now if it has no children, or the frame that
    /// writes it once its children are written.
    fn visit(&mut self, value: &Any) -> Result<Result<i64, WriteFrame>, Error> {
        let key = Key(value.clone());
        if let Some(&index) = self.index_of.get(&key) {
            return Ok(Ok(index));
        }
        let raw = value.as_raw();
        let type_index = raw.type_index;
        let type_key = self.type_key(type_index);
        // SAFETY (all payload reads below): the tag says which payload is set.
        let data = unsafe {
            match type_index {
                tindex::NONE => Data::Nothing,
                tindex::BOOL | tindex::INT | tindex::FLOAT | tindex::SMALL_STR | tindex::STR => {
                    Data::Value(value.clone())
                }
                tindex::DATA_TYPE => Data::Value(Any::string(
                    crate::registry::dtype::format_dtype_registered(raw.value.v_dtype)?,
                )),
                tindex::DEVICE => Data::Ints(vec![
                    raw.value.v_device.device_type as i64,
                    raw.value.v_device.device_id as i64,
                ]),
                tindex::SMALL_BYTES | tindex::BYTES => Data::Value(Any::string(base64_encode(
                    crate::value::string::bytes_bytes(raw).expect("bytes"),
                ))),
                tindex::SHAPE => {
                    Data::Ints(crate::containers::shape::shape_dims(raw.value.v_obj).to_vec())
                }
                tindex::ARRAY | tindex::LIST => {
                    let children = seq_elements(raw.value.v_obj)
                        .iter()
                        .map(|v| crate::value::any::view_to_owned(v))
                        .collect::<Result<Vec<_>, _>>()?;
                    return self.frame(value, type_key, Pending::Seq, children).map(Err);
                }
                tindex::MAP | tindex::DICT => {
                    let view = MapView::from_raw(raw.value.v_obj).expect("a map");
                    let mut children = Vec::with_capacity(view.len() * 2);
                    for (k, v) in view.iter() {
                        children.push(k);
                        children.push(v);
                    }
                    return self
                        .frame(value, type_key, Pending::MapLike, children)
                        .map(Err);
                }
                t if is_object_index(t) => match self.object_data(value)? {
                    Ok(data) => data,
                    Err((fields, children)) => {
                        return self
                            .frame(value, type_key, Pending::Object(fields), children)
                            .map(Err)
                    }
                },
                other => {
                    return Err(Error::new(
                        "RuntimeError",
                        format!("Cannot serialize type `{}`", type_key_of(other)),
                    ))
                }
            }
        };
        Ok(Ok(self.add(value.clone(), Node { type_key, data })))
    }

    fn frame(
        &mut self,
        value: &Any,
        type_key: Any,
        pending: Pending,
        children: Vec<Any>,
    ) -> Result<WriteFrame, Error> {
        let type_index = value.type_index();
        // SAFETY: frames are made for object values only.
        let identity = unsafe { value.as_raw().value.v_obj } as usize;
        if self.in_progress.contains(&identity) {
            let what = match type_index {
                tindex::LIST => "a List contains itself".to_string(),
                tindex::DICT => "a Dict contains itself".to_string(),
                t => format!("a `{}` contains itself", type_key_of(t)),
            };
            return Err(Error::new(
                "ValueError",
                format!("Cycle detected during serialization: {what}"),
            ));
        }
        self.in_progress.insert(identity);
        Ok(WriteFrame {
            value: value.clone(),
            type_key,
            pending,
            done: Vec::with_capacity(children.len()),
            children,
            next: 0,
            identity,
        })
    }

    /// An object's payload when it has no children of its own (enums, `__data_to_json__`), or
    /// its fields and field values.
    #[allow(clippy::type_complexity)]
    fn object_data(
        &mut self,
        value: &Any,
    ) -> Result<Result<Data, (Vec<(Any, bool)>, Vec<Any>)>, Error> {
        let type_index = value.type_index();
        let obj = value.as_object().expect("an object");
        if is_instance_of(type_index, ENUM) {
            // SAFETY: enum objects hold `_int_index` at +24 and `_str_index` (an Any) at +32.
            let index = unsafe {
                let base = obj.as_ptr().cast::<u8>();
                if is_instance_of(type_index, INT_ENUM) {
                    Any::int(base.add(24).cast::<i64>().read())
                } else {
                    crate::registry::reflection::Accessor::Any.read(base.add(32))
                }
            };
            return Ok(Ok(Data::Value(index)));
        }
        if let Some(hook) = crate::registry::types::attr_value(DATA_TO_JSON, type_index) {
            let hook = hook
                .as_object()
                .ok_or_else(|| Error::new("TypeError", "__data_to_json__ must be a Function"))?
                .clone();
            // SAFETY: `hook` is a live Function; the argument is a valid value.
            let data = unsafe { crate::value::function::call(hook.as_ptr(), &[*value.as_raw()])? };
            return Ok(Ok(Data::Value(data)));
        }
        let info = crate::registry::types::type_info(type_index)
            .ok_or_else(|| Error::new("TypeError", format!("unknown type index {type_index}")))?;
        if !has_creator(info) {
            return Err(Error::new(
                "TypeError",
                format!(
                    "Type `{}` does not support ToJSONGraph (no native creator or __ffi_new__ type attr)",
                    type_key_of(type_index)
                ),
            ));
        }
        // SAFETY: `info` is registered; fields belong to the object's type.
        let fields = unsafe { all_fields(info) };
        let mut names = Vec::with_capacity(fields.len());
        let mut children = Vec::with_capacity(fields.len());
        for field in fields {
            // SAFETY: as above.
            let mut field_value = unsafe { get_field(field, obj.as_ptr())? };
            if field.field_static_type_index == tindex::DATA_TYPE {
                // SAFETY: a DataType field reads as a DataType value.
                let dtype = unsafe { field_value.as_raw().value.v_dtype };
                field_value = Any::string(crate::registry::dtype::format_dtype_registered(dtype)?);
            } else if field.field_static_type_index == tindex::NONE {
                field_value = Any::none();
            }
            // SAFETY: field names point at registry-owned storage.
            let name = Any::string(unsafe { byte_array_slice(&field.name) });
            names.push((name, inline_field(field)));
            children.push(field_value);
        }
        Ok(Err((names, children)))
    }

    /// The graph as a value (`ffi.ToJSONGraph`).
    fn into_value(self, root_index: i64, metadata: &Any) -> Result<Any, Error> {
        let mut nodes = Vec::with_capacity(self.nodes.len());
        for node in self.nodes {
            let mut pairs = vec![(Any::string("type"), node.type_key)];
            let data = match node.data {
                Data::Nothing => None,
                Data::Value(v) => Some(v),
                Data::Ints(ints) => {
                    Some(Array::from_vec(ints.into_iter().map(Any::int).collect()).into_any())
                }
                Data::Fields(fields) => Some(Map::from_pairs(fields)?.into_any()),
            };
            if let Some(data) = data {
                pairs.push((Any::string("data"), data));
            }
            nodes.push(Map::from_pairs(pairs)?.into_any());
        }
        let mut top = vec![
            (Any::string("root_index"), Any::int(root_index)),
            (Any::string("nodes"), Array::from_vec(nodes).into_any()),
        ];
        if metadata.type_index() != tindex::NONE {
            top.push((Any::string("metadata"), metadata.clone()));
        }
        Ok(Map::from_pairs(top)?.into_any())
    }

    /// The graph as compact JSON text (`ffi.ToJSONGraphString`), the same text as
    /// `Stringify(ToJSONGraph(...))` without building the intermediate value.
    fn into_text(self, root_index: i64, metadata: &Any) -> Result<Vec<u8>, Error> {
        let mut out = Vec::with_capacity(self.nodes.len() * 32);
        out.extend_from_slice(b"{\"root_index\":");
        crate::walks::json::write_int(&mut out, root_index);
        out.extend_from_slice(b",\"nodes\":[");
        for (i, node) in self.nodes.iter().enumerate() {
            if i != 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"type\":");
            write_any(&mut out, &node.type_key)?;
            match &node.data {
                Data::Nothing => {}
                Data::Value(v) => {
                    out.extend_from_slice(b",\"data\":");
                    write_any(&mut out, v)?;
                }
                Data::Ints(ints) => {
                    out.extend_from_slice(b",\"data\":[");
                    for (k, v) in ints.iter().enumerate() {
                        if k != 0 {
                            out.push(b',');
                        }
                        crate::walks::json::write_int(&mut out, *v);
                    }
                    out.push(b']');
                }
                Data::Fields(fields) => {
                    out.extend_from_slice(b",\"data\":");
                    // Field names are unique, so the map the value form builds keeps them all,
                    // in order.
                    out.push(b'{');
                    for (k, (name, value)) in fields.iter().enumerate() {
                        if k != 0 {
                            out.push(b',');
                        }
                        write_any(&mut out, name)?;
                        out.push(b':');
                        write_any(&mut out, value)?;
                    }
                    out.push(b'}');
                }
            }
            out.push(b'}');
        }
        out.push(b']');
        if metadata.type_index() != tindex::NONE {
            out.extend_from_slice(b",\"metadata\":");
            write_any(&mut out, metadata)?;
        }
        out.push(b'}');
        Ok(out)
    }
}

fn write_any(out: &mut Vec<u8>, value: &Any) -> Result<(), Error> {
    // SAFETY: an owned value is valid.
    unsafe { crate::walks::json::write_value(out, value.as_raw(), 0) }
}

fn has_creator(info: &crate::abi::TVMFFITypeInfo) -> bool {
    // SAFETY: metadata pointers of registered types are valid or NULL.
    unsafe { info.metadata.as_ref() }.is_some_and(|m| m.creator.is_some())
        || crate::registry::types::attr_value(b"__ffi_new__", info.type_index).is_some()
}

/// `ffi.ToJSONGraph`: the graph of `value` as a JSON value, with `metadata` unless it is None.
pub fn to_json_graph(value: &Any, metadata: &Any) -> Result<Any, Error> {
    let mut writer = GraphWriter::new();
    let root = writer.run(value)?;
    writer.into_value(root, metadata)
}

/// `ffi.ToJSONGraphString`: the graph of `value` as compact JSON text.
pub fn to_json_graph_string(value: &Any, metadata: &Any) -> Result<Vec<u8>, Error> {
    let mut writer = GraphWriter::new();
    let root = writer.run(value)?;
    writer.into_text(root, metadata)
}

// ------------------------------------------------------------------------------------------
// Reading
// ------------------------------------------------------------------------------------------

/// What a node with children builds once they are decoded.
enum Build {
    Array,
    List,
    Map,
    Dict,
    /// The object (created before its fields are read) and its fields, in order, with whether
    /// each came from a child node, was inline, or takes its default.
    Object(ObjectRef, Vec<(&'static TVMFFIFieldInfo, FieldSource)>),
}

enum FieldSource {
    Node,
    Inline,
    Default,
}

enum Slot {
    Node(i64),
    Ready(Any),
}

struct ReadFrame {
    node: usize,
    build: Build,
    slots: Vec<Slot>,
    next: usize,
    done: Vec<Any>,
}

struct GraphReader<'g> {
    nodes: &'g [Value],
    decoded: Vec<Option<Any>>,
    in_progress: Vec<bool>,
    /// Type keys seen so far and their indices (a graph uses few types; this spares the
    /// registry lookup per node).
    type_indices: Vec<(&'g [u8], i32)>,
}

fn expect_int(value: &Value, what: &str) -> Result<i64, Error> {
    match value {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(*b as i64),
        other => Err(graph_error(format!(
            "{what} must be an integer, got `{}`",
            other.type_key()
        ))),
    }
}

fn expect_string<'v>(value: &'v Value, what: &str) -> Result<&'v [u8], Error> {
    match value {
        Value::Str(s) => Ok(s),
        other => Err(graph_error(format!(
            "{what} must be a string, got `{}`",
            other.type_key()
        ))),
    }
}

fn expect_ints(value: &Value, what: &str) -> Result<Vec<i64>, Error> {
    match value {
        Value::Array(items) => items.iter().map(|v| expect_int(v, what)).collect(),
        other => Err(graph_error(format!(
            "{what} must be an array, got `{}`",
            other.type_key()
        ))),
    }
}

/// A bool or float payload (ints convert, as the reference's casts do).
fn expect_scalar(value: &Value, kind: i32) -> Result<f64, Error> {
    match value {
        Value::Bool(b) => Ok(*b as i64 as f64),
        Value::Int(i) => Ok(*i as f64),
        Value::Float(f) if kind == tindex::FLOAT => Ok(*f),
        other => Err(graph_error(format!(
            "{} data must be a {}, got `{}`",
            type_key_of(kind),
            type_key_of(kind),
            other.type_key()
        ))),
    }
}

impl<'g> GraphReader<'g> {
    fn new(graph: &'g Value) -> Result<(GraphReader<'g>, i64), Error> {
        if !matches!(graph, Value::Object(_)) {
            return Err(Error::new(
                "ValueError",
                "Invalid JSON Object Graph, expected an object",
            ));
        }
        let Some(Value::Int(root)) = graph.get(b"root_index") else {
            return Err(Error::new(
                "ValueError",
                "Invalid JSON Object Graph, expected `root_index` integer field",
            ));
        };
        let Some(Value::Array(nodes)) = graph.get(b"nodes") else {
            return Err(Error::new(
                "ValueError",
                "Invalid JSON Object Graph, expected `nodes` array field",
            ));
        };
        Ok((
            GraphReader {
                nodes,
                decoded: vec![None; nodes.len()],
                in_progress: vec![false; nodes.len()],
                type_indices: Vec::new(),
            },
            *root,
        ))
    }

    /// The type index a node's `type` names.
    fn type_index(&mut self, type_key: &'g Value) -> Result<i32, Error> {
        let key = expect_string(type_key, "a node's `type`")?;
        if let Some((_, index)) = self.type_indices.iter().find(|(k, _)| *k == key) {
            return Ok(*index);
        }
        let index = crate::registry::types::key_to_index(key).ok_or_else(|| {
            graph_error(format!("unknown type `{}`", String::from_utf8_lossy(key)))
        })?;
        self.type_indices.push((key, index));
        Ok(index)
    }

    fn check_index(&self, index: i64) -> Result<usize, Error> {
        usize::try_from(index)
            .ok()
            .filter(|&i| i < self.decoded.len())
            .ok_or_else(|| graph_error(format!("invalid node index {index}")))
    }

    fn run(&mut self, root: i64) -> Result<Any, Error> {
        let mut stack: Vec<ReadFrame> = Vec::new();
        let mut result = match self.visit(root)? {
            Ok(value) => return Ok(value),
            Err(frame) => {
                stack.push(frame);
                Any::none()
            }
        };
        while let Some(top) = stack.last_mut() {
            if top.next < top.slots.len() {
                let slot = std::mem::replace(&mut top.slots[top.next], Slot::Node(-1));
                top.next += 1;
                match slot {
                    Slot::Ready(value) => top.done.push(value),
                    Slot::Node(index) => match self.visit(index)? {
                        Ok(value) => stack.last_mut().expect("frame").done.push(value),
                        Err(frame) => {
                            if stack.len() >= MAX_DEPTH {
                                return Err(graph_error(format!(
                                    "nodes nested deeper than {MAX_DEPTH} levels"
                                )));
                            }
                            stack.push(frame)
                        }
                    },
                }
                continue;
            }
            let frame = stack.pop().expect("frame");
            let value = finish(frame.build, frame.done)?;
            self.in_progress[frame.node] = false;
            self.decoded[frame.node] = Some(value.clone());
            match stack.last_mut() {
                Some(parent) => parent.done.push(value),
                None => result = value,
            }
        }
        Ok(result)
    }

    /// The value of node `index`: already decoded, decoded now (no children), or the frame that
    /// decodes it.
    fn visit(&mut self, index: i64) -> Result<Result<Any, ReadFrame>, Error> {
        let i = self.check_index(index)?;
        if let Some(value) = &self.decoded[i] {
            return Ok(Ok(value.clone()));
        }
        if self.in_progress[i] {
            return Err(graph_error(format!("node {index} contains itself")));
        }
        let node: &'g Value = &self.nodes[i];
        if !matches!(node, Value::Object(_)) {
            return Err(graph_error(format!("node {index} is not an object")));
        }
        let type_key = node
            .get(b"type")
            .ok_or_else(|| graph_error(format!("node {index} has no `type`")))?;
        let type_index = self.type_index(type_key)?;
        let data = || {
            node.get(b"data")
                .ok_or_else(|| graph_error(format!("node {index} has no `data`")))
        };
        let value = match type_index {
            tindex::NONE => Any::none(),
            tindex::BOOL => Any::bool(expect_scalar(data()?, tindex::BOOL)? != 0.0),
            tindex::INT => Any::int(expect_int(data()?, "Int data")?),
            tindex::FLOAT => Any::float(expect_scalar(data()?, tindex::FLOAT)?),
            tindex::DATA_TYPE => Any::dtype(crate::registry::dtype::parse_dtype_registered(
                expect_string(data()?, "DataType data")?,
            )?),
            tindex::DEVICE => {
                let fields = expect_ints(data()?, "Device data")?;
                let [device_type, device_id] = fields[..] else {
                    return Err(graph_error(format!(
                        "Device data must be an array of [device_type, device_id], got {} element(s)",
                        fields.len()
                    )));
                };
                let narrow = |v: i64| {
                    i32::try_from(v)
                        .map_err(|_| graph_error(format!("Device field {v} out of range")))
                };
                Any::device(crate::dlpack::DLDevice {
                    device_type: narrow(device_type)?,
                    device_id: narrow(device_id)?,
                })
            }
            tindex::STR => Any::string(expect_string(data()?, "String data")?),
            tindex::BYTES => crate::value::string::bytes_any(&base64_decode(expect_string(
                data()?,
                "Bytes data",
            )?)?),
            tindex::SHAPE => Shape::new(&expect_ints(data()?, "Shape data")?).into_any(),
            tindex::ARRAY | tindex::LIST | tindex::MAP | tindex::DICT => {
                let children = expect_ints(data()?, "container data")?;
                let build = match type_index {
                    tindex::ARRAY => Build::Array,
                    tindex::LIST => Build::List,
                    _ if children.len() % 2 != 0 => {
                        return Err(graph_error(format!(
                        "Map/Dict data must contain an even number of [key, value] entries, got {}",
                        children.len()
                    )))
                    }
                    tindex::MAP => Build::Map,
                    _ => Build::Dict,
                };
                return Ok(Err(self.frame(
                    i,
                    build,
                    children.into_iter().map(Slot::Node).collect(),
                )));
            }
            t if is_object_index(t) => match self.object(t, data()?)? {
                Ok(value) => value,
                Err((build, slots)) => return Ok(Err(self.frame(i, build, slots))),
            },
            other => {
                return Err(graph_error(format!(
                    "cannot decode a node of type `{}`",
                    type_key_of(other)
                )))
            }
        };
        self.decoded[i] = Some(value.clone());
        Ok(Ok(value))
    }

    fn frame(&mut self, node: usize, build: Build, slots: Vec<Slot>) -> ReadFrame {
        self.in_progress[node] = true;
        ReadFrame {
            node,
            build,
            done: Vec::with_capacity(slots.len()),
            slots,
            next: 0,
        }
    }

    /// An object node: an enum singleton, a `__data_from_json__` result, or a fresh object
    /// whose fields are set once their nodes are decoded.
    #[allow(clippy::type_complexity)]
    fn object(
        &mut self,
        type_index: i32,
        data: &Value,
    ) -> Result<Result<Any, (Build, Vec<Slot>)>, Error> {
        if is_instance_of(type_index, ENUM) {
            let index = if is_instance_of(type_index, INT_ENUM) {
                Any::int(expect_int(data, "IntEnum data")?)
            } else {
                Any::string(expect_string(data, "Enum data")?)
            };
            return enum_singleton(type_index, &index).map(Ok);
        }
        if let Some(hook) = crate::registry::types::attr_value(DATA_FROM_JSON, type_index) {
            let hook = hook
                .as_object()
                .ok_or_else(|| Error::new("TypeError", "__data_from_json__ must be a Function"))?
                .clone();
            let data = data.to_any()?;
            // SAFETY: `hook` is a live Function; the argument is a valid value.
            return unsafe { crate::value::function::call(hook.as_ptr(), &[*data.as_raw()]) }
                .map(Ok);
        }
        let info = crate::registry::types::type_info(type_index).expect("a registered type");
        if !matches!(data, Value::Object(_)) {
            return Err(graph_error(format!(
                "data of `{}` must be an object",
                type_key_of(type_index)
            )));
        }
        let obj = crate::registry::reflection::create_empty(info)?;
        let mut fields = Vec::new();
        let mut slots = Vec::new();
        // SAFETY: `info` is registered.
        for field in unsafe { all_fields(info) } {
            // SAFETY: field names point at registry-owned storage.
            let name = unsafe { byte_array_slice(&field.name) };
            match data.get(name) {
                Some(value) if inline_field(field) => {
                    let value = if field.field_static_type_index == tindex::DATA_TYPE {
                        Any::dtype(crate::registry::dtype::parse_dtype_registered(
                            expect_string(value, "a DataType field")?,
                        )?)
                    } else {
                        value.to_any()?
                    };
                    fields.push((field, FieldSource::Inline));
                    slots.push(Slot::Ready(value));
                }
                Some(index) => {
                    fields.push((field, FieldSource::Node));
                    slots.push(Slot::Node(expect_int(index, "a field's node index")?));
                }
                None if field.flags & Flag::kTVMFFIFieldFlagBitMaskHasDefault as i64 != 0 => {
                    fields.push((field, FieldSource::Default));
                }
                None => {
                    return Err(Error::new(
                        "TypeError",
                        format!(
                            "Required field `{}` not set in type `{}`",
                            String::from_utf8_lossy(name),
                            type_key_of(type_index)
                        ),
                    ))
                }
            }
        }
        Ok(Err((Build::Object(obj, fields), slots)))
    }
}

/// Builds a node's value from its decoded children.
fn finish(build: Build, done: Vec<Any>) -> Result<Any, Error> {
    Ok(match build {
        Build::Array => Array::from_vec(done).into_any(),
        Build::List => List::from_vec(done).into_any(),
        Build::Map | Build::Dict => {
            let mut pairs = Vec::with_capacity(done.len() / 2);
            let mut items = done.into_iter();
            while let (Some(k), Some(v)) = (items.next(), items.next()) {
                pairs.push((k, v));
            }
            if matches!(build, Build::Map) {
                let mut map = Map::new();
                for (k, v) in pairs {
                    map.set(k, v)?;
                }
                map.into_any()
            } else {
                let mut dict = Dict::new();
                for (k, v) in pairs {
                    dict.set(k, v)?;
                }
                dict.into_any()
            }
        }
        Build::Object(obj, fields) => {
            let mut values = done.into_iter();
            for (field, source) in fields {
                // SAFETY: the fields belong to the object's type.
                unsafe {
                    match source {
                        FieldSource::Default => set_field_to_default(field, obj.as_ptr())?,
                        FieldSource::Node | FieldSource::Inline => {
                            let value = values.next().expect("one value per set field");
                            set_field(field, obj.as_ptr(), value.as_raw())?
                        }
                    }
                }
            }
            Any::object(obj)
        }
    })
}

/// The registered singleton of enum type `type_index` with canonical index `index`.
fn enum_singleton(type_index: i32, index: &Any) -> Result<Any, Error> {
    let missing = || {
        let shown = match index.type_index() {
            // SAFETY: the tag says the payload is an integer.
            tindex::INT => unsafe { index.as_raw().value.v_int64 }.to_string(),
            // SAFETY: an owned value is valid.
            _ => String::from_utf8_lossy(
                unsafe { crate::value::string::str_bytes(index.as_raw()) }.unwrap_or_default(),
            )
            .into_owned(),
        };
        Error::new(
            "ValueError",
            format!(
                "Enum `{}` has no instance with index {shown}",
                type_key_of(type_index)
            ),
        )
    };
    crate::compat::before_enum_column_read(b"__ffi_enum__");
    let state =
        crate::registry::types::attr_value(b"__ffi_enum__", type_index).ok_or_else(missing)?;
    let state = state.as_object().ok_or_else(missing)?;
    // SAFETY: an EnumState holds its `indexes` Dict pointer at +32.
    let indexes = unsafe {
        state
            .as_ptr()
            .cast::<u8>()
            .add(32)
            .cast::<*mut crate::abi::TVMFFIObject>()
            .read()
    };
    if indexes.is_null() {
        return Err(missing());
    }
    // SAFETY: the state keeps the Dict alive while we read it.
    let view = unsafe { MapView::from_raw(indexes) }.ok_or_else(missing)?;
    view.get(index)?.ok_or_else(missing)
}

fn read_graph(graph: &Value) -> Result<Any, Error> {
    let (mut reader, root) = GraphReader::new(graph)?;
    reader.run(root)
}

/// `ffi.FromJSONGraph`: the value of a graph given as a JSON value (Maps, Arrays, scalars).
pub fn from_json_graph(graph: &Any) -> Result<Any, Error> {
    let graph =
        Value::from_any(graph).map_err(|e| graph_error(String::from_utf8_lossy(e.message())))?;
    read_graph(&graph)
}

/// `ffi.FromJSONGraphString`: the value of a graph given as JSON text (parsed straight into
/// a plain tree: no FFI containers are built for the document itself).
pub fn from_json_graph_string(text: &[u8]) -> Result<Any, Error> {
    read_graph(&crate::walks::json::parse_value(text)?)
}

// ------------------------------------------------------------------------------------------
// Payload encodings
// ------------------------------------------------------------------------------------------

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        out.push(BASE64[(n >> 18) as usize & 63]);
        out.push(BASE64[(n >> 12) as usize & 63]);
        out.push(if chunk.len() > 1 {
            BASE64[(n >> 6) as usize & 63]
        } else {
            b'='
        });
        out.push(if chunk.len() > 2 {
            BASE64[n as usize & 63]
        } else {
            b'='
        });
    }
    out
}

fn base64_decode(text: &[u8]) -> Result<Vec<u8>, Error> {
    let invalid = || graph_error("invalid base64 encoding");
    if !text.len().is_multiple_of(4) {
        return Err(invalid());
    }
    let sextet = |c: u8| -> Result<u32, Error> {
        match c {
            b'=' => Ok(0),
            _ => BASE64
                .iter()
                .position(|&e| e == c)
                .map(|p| p as u32)
                .ok_or_else(invalid),
        }
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for chunk in text.chunks(4) {
        let mut n = 0;
        for &c in chunk {
            n = n << 6 | sextet(c)?;
        }
        out.push((n >> 16) as u8);
        if chunk[2] != b'=' {
            out.push((n >> 8) as u8);
        }
        if chunk[3] != b'=' {
            out.push(n as u8);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for text in [&b""[..], b"a", b"ab", b"abc", b"abcd\xff\x00"] {
            let encoded = base64_encode(text);
            assert_eq!(base64_decode(&encoded).unwrap(), text);
        }
        assert_eq!(base64_encode(b"ab"), b"YWI=");
        assert!(base64_decode(b"YW*=").is_err());
        assert!(base64_decode(b"YWI").is_err());
    }
}
