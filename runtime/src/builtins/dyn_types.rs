//! The object types Apache's runtime registers beyond the fixed indices, in its order (so they get
//! indices 128-137), with the same fields, methods, metadata and type attributes; plus the
//! reflection records of the fixed types that have fields (`ffi.Module`, `ffi.VisitInterrupt`).
//!
//! Extensions resolve these types by key and inherit from them (for example enum classes derive
//! from `ffi.IntEnum`), so their layouts and field records must be Apache's.

use crate::abi::{
    TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo, TVMFFIMethodInfo,
    TVMFFIObjectCreator, TVMFFITypeMetadata,
};
use crate::registry::reflection::{create_reflected, new_reflected, shallow_copy, Accessor};
use crate::registry::type_schema::{
    function, function_metadata, Ty, ANY, BOOL, INT, OBJECT, STRING,
};
use crate::registry::types::{TypeRegistrar, TypeSpec};
use crate::tindex;
use crate::value::any::{byte_array, Any, RAW_NONE};
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use crate::walks::access_path::kind::*;
use crate::walks::access_path::{
    extend, new_path, new_step, path_depth, path_parent, path_steps, paths_equal,
};

/// One reflected field.
struct Field {
    name: &'static str,
    doc: &'static str,
    ty: Ty,
    flags: i64,
    offset: i64,
    accessor: Accessor,
    /// `field_static_type_index` as Apache's C++ registration computes it.
    static_index: i32,
}

impl Field {
    fn new(
        name: &'static str,
        ty: Ty,
        offset: i64,
        accessor: Accessor,
        static_index: i32,
    ) -> Field {
        Field {
            name,
            doc: "",
            ty,
            flags: 0,
            offset,
            accessor,
            static_index,
        }
    }

    fn doc(mut self, doc: &'static str) -> Field {
        self.doc = doc;
        self
    }

    fn flags(mut self, flags: i64) -> Field {
        self.flags = flags;
        self
    }

    fn size_align(&self) -> (i64, i64) {
        match self.accessor {
            Accessor::Any => (16, 8),
            Accessor::I32 | Accessor::DataType => (4, 4),
            Accessor::Bool => (1, 1),
            _ => (8, 8),
        }
    }
}

/// One reflected method.
struct Method {
    name: &'static str,
    doc: &'static str,
    is_static: bool,
    ty: Ty,
    function: ObjectRef,
}

/// One type to register.
struct TypeDef {
    key: &'static str,
    /// The index this registration must produce (checked).
    index: i32,
    parent: i32,
    depth: i32,
    total_size: i32,
    eq_hash_kind: i32,
    creator: TVMFFIObjectCreator,
    fields: Vec<Field>,
    methods: Vec<Method>,
}

const INIT_OFF: i64 = Flag::kTVMFFIFieldFlagBitMaskInitOff as i64;
const SEQ_HASH_IGNORE: i64 = Flag::kTVMFFIFieldFlagBitMaskSEqHashIgnore as i64;
const HAS_DEFAULT: i64 = Flag::kTVMFFIFieldFlagBitMaskHasDefault as i64;
const STATIC_METHOD: i64 = Flag::kTVMFFIFieldFlagBitMaskIsStaticMethod as i64;

use crate::registry::types::runtime_index::{
    ACCESS_PATH, ACCESS_STEP, ENUM, ENUM_STATE, INT_ENUM, STRUCTURAL_KEY, STRUCTURAL_MUTATOR,
    STRUCTURAL_VISITOR, STR_ENUM, VISIT_ERROR_CONTEXT,
};

fn generic(origin: &'static str, args: Vec<Ty>) -> Ty {
    Ty::Generic(origin, args)
}

fn optional(ty: Ty) -> Ty {
    generic("Optional", vec![ty])
}

fn path_ty() -> Ty {
    Ty::Named("ffi.reflection.AccessPath")
}

fn step_ty() -> Ty {
    Ty::Named("ffi.reflection.AccessStep")
}

/// A method wrapper: checks the argument count and the receiver types.
fn method(
    name: &'static str,
    is_static: bool,
    ret: Ty,
    params: Vec<Ty>,
    imp: impl Fn(&crate::registry::args::Call) -> Result<Any, Error> + Send + Sync + 'static,
) -> Method {
    let ty = function(ret.clone(), params.clone());
    let function = crate::registry::define::typed_function(
        crate::registry::args::Signature { name, ret, params },
        imp,
    );
    Method {
        name,
        doc: "",
        is_static,
        ty,
        function,
    }
}

// ---- ffi.reflection.AccessStep / AccessPath (the objects: crate::walks::access_path) ----

fn access_path_methods() -> Vec<Method> {
    let p = || path_ty();
    let extend_with = |name: &'static str, kind: i64, key_ty: Ty| {
        method(
            name,
            false,
            path_ty(),
            vec![path_ty(), key_ty],
            move |call| {
                let path = call.object(0, ACCESS_PATH)?;
                // SAFETY: arguments are valid views for the call.
                let key = unsafe { crate::value::any::view_to_owned(call.any(1))? };
                match kind {
                    ATTR | ATTR_MISSING => drop(call.string(1)?),
                    ARRAY_ITEM | ARRAY_ITEM_MISSING => drop(call.int(1)?),
                    _ => {}
                }
                extend(&path, &new_step(kind, &key)?)
            },
        )
    };
    vec![
        method("_root", true, p(), vec![], |_| new_path(None, None, 0)),
        method("_extend", false, p(), vec![p(), step_ty()], |call| {
            extend(&call.object(0, ACCESS_PATH)?, &call.object(1, ACCESS_STEP)?)
        }),
        extend_with("_attr", ATTR, STRING),
        extend_with("_array_item", ARRAY_ITEM, INT),
        extend_with("_map_item", MAP_ITEM, ANY),
        extend_with("_attr_missing", ATTR_MISSING, STRING),
        extend_with("_array_item_missing", ARRAY_ITEM_MISSING, INT),
        extend_with("_map_item_missing", MAP_ITEM_MISSING, ANY),
        method("_is_prefix_of", false, BOOL, vec![p(), p()], |call| {
            let (this, mut other) = (call.object(0, ACCESS_PATH)?, call.object(1, ACCESS_PATH)?);
            if path_depth(&this) > path_depth(&other) {
                return Ok(Any::bool(false));
            }
            while path_depth(&other) > path_depth(&this) {
                other = path_parent(&other).ok_or_else(|| {
                    Error::new(
                        "InternalError",
                        "an AccessPath is deeper than its parent chain",
                    )
                })?;
            }
            Ok(Any::bool(paths_equal(&this, &other)?))
        }),
        method(
            "_to_steps",
            false,
            generic("ffi.Array", vec![step_ty()]),
            vec![p()],
            |call| {
                let steps: Vec<Any> = path_steps(&call.object(0, ACCESS_PATH)?)?
                    .into_iter()
                    .map(Any::object)
                    .collect();
                let views: Vec<TVMFFIAny> = steps.iter().map(|s| *s.as_raw()).collect();
                crate::registry::globals::call("ffi.Array", &views)
            },
        ),
        method("_path_equal", false, BOOL, vec![p(), p()], |call| {
            Ok(Any::bool(paths_equal(
                &call.object(0, ACCESS_PATH)?,
                &call.object(1, ACCESS_PATH)?,
            )?))
        }),
    ]
}

fn definitions() -> Vec<TypeDef> {
    let object_ref = Accessor::ObjectRef;
    let def =
        |key, index, parent, depth, total_size, eq_hash_kind, creator: TVMFFIObjectCreator| {
            TypeDef {
                key,
                index,
                parent,
                depth,
                total_size,
                eq_hash_kind,
                creator,
                fields: Vec::new(),
                methods: Vec::new(),
            }
        };
    let enum_state_init = method("__ffi_init__", true, OBJECT, vec![], |_| {
        crate::compat::new_enum_state()
    });
    vec![
        TypeDef {
            fields: vec![
                Field::new(
                    "entries",
                    generic("ffi.List", vec![OBJECT]),
                    24,
                    object_ref,
                    tindex::LIST,
                )
                .doc("Enum singletons in registration order.")
                .flags(INIT_OFF),
                Field::new(
                    "indexes",
                    generic("ffi.Dict", vec![ANY, OBJECT]),
                    32,
                    object_ref,
                    tindex::OBJECT,
                )
                .doc("Canonical integer and string indices to enum singletons.")
                .flags(INIT_OFF),
                Field::new(
                    "attrs",
                    generic(
                        "ffi.Dict",
                        vec![STRING, generic("ffi.Dict", vec![OBJECT, ANY])],
                    ),
                    40,
                    object_ref,
                    tindex::OBJECT,
                )
                .doc("Extensible-attribute columns keyed by enum singleton.")
                .flags(INIT_OFF),
            ],
            methods: vec![enum_state_init],
            ..def(
                "ffi.EnumState",
                ENUM_STATE,
                tindex::OBJECT,
                1,
                48,
                0,
                Some(create_reflected::<ENUM_STATE, 48>),
            )
        },
        TypeDef {
            fields: vec![
                Field::new("_int_index", INT, 24, Accessor::I64, tindex::INT)
                    .doc("Canonical integer index.")
                    .flags(SEQ_HASH_IGNORE),
                Field::new("_str_index", STRING, 32, Accessor::Any, tindex::ANY)
                    .doc("Canonical string index."),
            ],
            ..def(
                "ffi.Enum",
                ENUM,
                tindex::OBJECT,
                1,
                48,
                5,
                Some(create_reflected::<ENUM, 48>),
            )
        },
        TypeDef {
            fields: vec![Field::new("value", INT, 24, Accessor::I64, tindex::INT)
                .doc("Canonical integer index.")
                .flags(INIT_OFF | SEQ_HASH_IGNORE)],
            ..def(
                "ffi.IntEnum",
                INT_ENUM,
                ENUM,
                2,
                48,
                5,
                Some(create_reflected::<INT_ENUM, 48>),
            )
        },
        TypeDef {
            fields: vec![Field::new("value", STRING, 32, Accessor::Any, tindex::ANY)
                .doc("Canonical string index.")
                .flags(INIT_OFF | SEQ_HASH_IGNORE)],
            ..def(
                "ffi.StrEnum",
                STR_ENUM,
                ENUM,
                2,
                48,
                5,
                Some(create_reflected::<STR_ENUM, 48>),
            )
        },
        TypeDef {
            fields: vec![
                Field::new("kind", INT, 24, Accessor::I32, tindex::INT),
                Field::new("key", ANY, 32, Accessor::Any, tindex::ANY),
            ],
            ..def(
                "ffi.reflection.AccessStep",
                ACCESS_STEP,
                tindex::OBJECT,
                1,
                48,
                4,
                Some(create_reflected::<ACCESS_STEP, 48>),
            )
        },
        TypeDef {
            fields: vec![
                Field::new("parent", optional(OBJECT), 24, object_ref, tindex::ANY),
                Field::new("step", optional(step_ty()), 32, object_ref, tindex::ANY),
                Field::new("depth", INT, 40, Accessor::I32, tindex::INT),
            ],
            methods: access_path_methods(),
            ..def(
                "ffi.reflection.AccessPath",
                ACCESS_PATH,
                tindex::OBJECT,
                1,
                48,
                4,
                Some(create_reflected::<ACCESS_PATH, 48>),
            )
        },
        def(
            "ffi.StructuralVisitor",
            STRUCTURAL_VISITOR,
            tindex::OBJECT,
            1,
            40,
            0,
            None,
        ),
        TypeDef {
            fields: vec![
                Field::new(
                    "reverse_visit_pattern",
                    generic("ffi.List", vec![OBJECT]),
                    24,
                    object_ref,
                    tindex::LIST,
                ),
                Field::new(
                    "prev_error_context",
                    optional(OBJECT),
                    32,
                    object_ref,
                    tindex::ANY,
                ),
            ],
            ..def(
                "ffi.VisitErrorContext",
                VISIT_ERROR_CONTEXT,
                tindex::OBJECT,
                1,
                40,
                0,
                Some(create_reflected::<VISIT_ERROR_CONTEXT, 40>),
            )
        },
        def(
            "ffi.StructuralMutator",
            STRUCTURAL_MUTATOR,
            tindex::OBJECT,
            1,
            40,
            0,
            None,
        ),
        TypeDef {
            fields: vec![
                Field::new("key", ANY, 24, Accessor::Any, tindex::ANY),
                Field::new("hash_i64", INT, 40, Accessor::I64, tindex::INT),
            ],
            methods: vec![Method {
                doc: "Constructor that takes any key and computes its structural hash",
                ..method("__ffi_init__", true, OBJECT, vec![ANY], |call| {
                    // SAFETY: the argument is a valid view for the call.
                    crate::walks::structural::key::new_key(unsafe {
                        crate::value::any::view_to_owned(call.any(0))?
                    })
                })
            }],
            ..def(
                "ffi.StructuralKey",
                STRUCTURAL_KEY,
                tindex::OBJECT,
                1,
                48,
                0,
                Some(create_reflected::<STRUCTURAL_KEY, 48>),
            )
        },
    ]
}

fn register_field(registrar: &mut TypeRegistrar, index: i32, field: &Field) -> Result<(), Error> {
    let (size, alignment) = field.size_align();
    let metadata = format!(
        r#"{{"type_schema":"{}"}}"#,
        field.ty.schema_json().replace('"', "\\\"")
    );
    let info = TVMFFIFieldInfo {
        name: byte_array(field.name.as_bytes()),
        doc: byte_array(field.doc.as_bytes()),
        metadata: byte_array(metadata.as_bytes()),
        flags: field.flags,
        size,
        alignment,
        offset: field.offset,
        getter: Some(field.accessor.getter()),
        setter: field.accessor.setter() as *mut std::ffi::c_void,
        default_value_or_factory: RAW_NONE,
        field_static_type_index: field.static_index,
    };
    registrar.register_field(index, &info)
}

fn register_method(
    registrar: &mut TypeRegistrar,
    index: i32,
    method: &Method,
) -> Result<(), Error> {
    let metadata = function_metadata(&method.ty);
    let function = Any::object(method.function.clone());
    let info = TVMFFIMethodInfo {
        name: byte_array(method.name.as_bytes()),
        doc: byte_array(method.doc.as_bytes()),
        metadata: byte_array(metadata.as_bytes()),
        flags: if method.is_static { STATIC_METHOD } else { 0 },
        method: *function.as_raw(),
    };
    registrar.register_method(index, &info)
}

fn register_type(registrar: &mut TypeRegistrar, def: &TypeDef) -> Result<(), Error> {
    let spec = TypeSpec {
        static_index: if def.index < tindex::DYN_OBJECT_BEGIN {
            def.index
        } else {
            -1
        },
        depth: def.depth,
        num_child_slots: 0,
        child_slots_can_overflow: true,
        parent_index: def.parent,
    };
    let index = registrar.get_or_alloc_index(def.key.as_bytes(), spec)?;
    if index != def.index {
        return Err(Error::new(
            "InternalError",
            format!("{} got index {index}, expected {}", def.key, def.index),
        ));
    }
    for field in &def.fields {
        register_field(registrar, index, field)?;
    }
    for method in &def.methods {
        register_method(registrar, index, method)?;
    }
    let metadata = TVMFFITypeMetadata {
        doc: byte_array(b""),
        creator: def.creator,
        total_size: def.total_size,
        structural_eq_hash_kind: def.eq_hash_kind,
    };
    registrar.register_metadata(index, &metadata)?;
    register_type_attrs(registrar, def)
}

/// The builtin types that user code subclasses (enums, visitors, mutators).
const OPEN_TYPES: [&str; 5] = [
    "ffi.Enum",
    "ffi.IntEnum",
    "ffi.StrEnum",
    "ffi.StructuralMutator",
    "ffi.StructuralVisitor",
];

fn register_type_attrs(registrar: &mut TypeRegistrar, def: &TypeDef) -> Result<(), Error> {
    let (index, size) = (def.index, def.total_size as usize);
    // Finality mirrors the C++ classes: the bases meant for subclassing are not final.
    let is_final = !OPEN_TYPES.contains(&def.key);
    registrar.register_attr(index, b"__ffi_type_final__", Any::bool(is_final).as_raw())?;
    if def.creator.is_some() {
        let new = crate::value::function::from_closure(move |_| {
            Ok(Any::object(new_reflected(index, size)))
        });
        registrar.register_attr(index, b"__ffi_new__", Any::object(new).as_raw())?;
    }
    let copy = crate::value::function::from_closure(move |args| match args.first() {
        Some(src)
            if crate::value::object::is_object_index(src.type_index) && src.type_index == index =>
        {
            // SAFETY: the argument is a live object of this reflected type.
            Ok(Any::object(unsafe { shallow_copy(src.value.v_obj, size)? }))
        }
        _ => Err(Error::new(
            "TypeError",
            "__ffi_shallow_copy__ expects an object of its type",
        )),
    });
    registrar.register_attr(index, b"__ffi_shallow_copy__", Any::object(copy).as_raw())?;
    if let Some(init) = def.methods.iter().find(|m| m.name == "__ffi_init__") {
        registrar.register_attr(
            index,
            b"__ffi_init__",
            Any::object(init.function.clone()).as_raw(),
        )?;
    }
    Ok(())
}

/// Type-attribute columns that header code caches on first use: they exist from the start.
const STANDARD_COLUMNS: [&str; 19] = [
    "__ffi_new__",
    "__ffi_init__",
    "__ffi_convert__",
    "__ffi_shallow_copy__",
    "__ffi_type_final__",
    "__ffi_repr__",
    "__ffi_hash__",
    "__ffi_eq__",
    "__ffi_compare__",
    "__any_hash__",
    "__any_equal__",
    "__data_to_json__",
    "__data_from_json__",
    "__s_equal__",
    "__s_hash__",
    "__s_visit__",
    "__s_mutate__",
    "__s_maybe_inplace_mutate__",
    "__ffi_enum__",
];

/// Registers the reflection of the fixed types with fields, the dynamic builtin types, and the
/// standard attribute columns.
pub(crate) fn register(registrar: &mut TypeRegistrar) -> Result<(), Error> {
    for column in STANDARD_COLUMNS {
        registrar.register_attr(tindex::NONE, column.as_bytes(), &RAW_NONE)?;
    }
    // ffi.Module: the imports array is reflected; the C++ class is final.
    register_field(
        registrar,
        tindex::MODULE,
        &Field::new(
            "imports_",
            generic("ffi.Array", vec![ANY]),
            24,
            Accessor::ObjectRef,
            tindex::ARRAY,
        ),
    )?;
    let module_metadata = TVMFFITypeMetadata {
        doc: byte_array(b""),
        creator: None,
        total_size: 48,
        structural_eq_hash_kind: 0,
    };
    registrar.register_metadata(tindex::MODULE, &module_metadata)?;
    registrar.register_attr(
        tindex::MODULE,
        b"__ffi_type_final__",
        Any::bool(true).as_raw(),
    )?;
    // ffi.BigInt: no fields.
    let bigint_metadata = TVMFFITypeMetadata {
        doc: byte_array(b""),
        creator: None,
        total_size: 32,
        structural_eq_hash_kind: 0,
    };
    registrar.register_metadata(tindex::BIG_INT, &bigint_metadata)?;
    registrar.register_attr(
        tindex::BIG_INT,
        b"__ffi_type_final__",
        Any::bool(true).as_raw(),
    )?;
    // Map keys that are BigInts hash by value; header code finds these hooks by column.
    for (column, hook) in crate::containers::any_hash::bigint_hooks() {
        registrar.register_attr(tindex::BIG_INT, column, hook.as_raw())?;
    }
    // Value hashing, comparison and JSON-graph encoding of BigInts.
    for (column, hook) in crate::containers::bigint::type_attrs() {
        registrar.register_attr(tindex::BIG_INT, column, hook.as_raw())?;
    }
    // ffi.VisitInterrupt has a fixed index but is defined like the dynamic types.
    let visit_interrupt = TypeDef {
        key: "ffi.VisitInterrupt",
        index: tindex::VISIT_INTERRUPT,
        parent: tindex::OBJECT,
        depth: 1,
        total_size: 40,
        eq_hash_kind: 0,
        creator: Some(create_reflected::<{ tindex::VISIT_INTERRUPT }, 40>),
        fields: vec![Field::new("value", ANY, 24, Accessor::Any, tindex::ANY).flags(HAS_DEFAULT)],
        methods: Vec::new(),
    };
    register_type(registrar, &visit_interrupt)?;
    for def in definitions() {
        register_type(registrar, &def)?;
    }
    crate::compat::register_enum_schema(registrar)?;
    register_structural_attrs(registrar)?;
    super::convert::register(registrar)
}

/// Type attributes of the structural machinery (hooks of the containers and of StructuralKey).
fn register_structural_attrs(registrar: &mut TypeRegistrar) -> Result<(), Error> {
    for (column, hook) in crate::walks::structural::key::key_hooks() {
        registrar.register_attr(STRUCTURAL_KEY, column, hook.as_raw())?;
    }
    let step_repr = crate::walks::repr::access_step_repr_hook(ACCESS_STEP);
    registrar.register_attr(
        ACCESS_STEP,
        b"__ffi_repr__",
        Any::object(step_repr).as_raw(),
    )?;
    let path_repr = crate::walks::repr::access_path_repr_hook(ACCESS_PATH);
    registrar.register_attr(
        ACCESS_PATH,
        b"__ffi_repr__",
        Any::object(path_repr).as_raw(),
    )?;
    let hooks = crate::walks::structural::visit::type_attrs()
        .into_iter()
        .chain(crate::walks::structural::mutate::type_attrs());
    for (index, column, value) in hooks {
        registrar.register_attr(index, column, value.as_raw())?;
    }
    Ok(())
}
