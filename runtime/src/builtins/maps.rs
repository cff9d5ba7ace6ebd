//! The Map and Dict globals (`ffi.Map*`, `ffi.Dict*`), with Apache's names, type schemas,
//! argument conversions and errors.
//!
//! Behaviours taken from Apache's runtime (`src/ffi/container.cc`) and checked against it:
//! * `ffi.Map` / `ffi.Dict` take `k0, v0, k1, v1, ...` and insert them one by one into an empty
//!   container, so the result has exactly the layout Apache's runtime would build; an odd count
//!   is an `InternalError` "Check failed: args.size() % 2 == 0 (1 vs. 0) : ".
//! * A missing key is a `KeyError` "key is not in Map" (for Dicts too).
//! * `ffi.Map*` accept only Maps and `ffi.Dict*` readers only Dicts (TypeError otherwise); the
//!   mutators (`ffi.DictSetItem`, `ffi.DictErase`, `ffi.DictClear`) take a `Dict<Any, Any>`,
//!   which also accepts a Map by converting it into a new Dict, so the call changes nothing
//!   visible.
//! * The iterator functor answers `f(0)` with the current key, `f(1)` with the current value
//!   and any other integer by advancing, returning whether an entry is left.

use crate::abi::TVMFFIAny;
use crate::containers::map::{Cursor, Dict, Map, MapView};
use crate::registry::args::{Call, Signature};
use crate::registry::define::{def_packed, def_typed, Globals};
use crate::registry::type_schema::{function, Ty, ANY, INT, NONE, PACKED_FUNCTION};
use crate::tindex;
use crate::value::any::{view_to_owned, Any};
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::sync::Mutex;

const MAP: Ty = Ty::Named("ffi.Map");
const DICT: Ty = Ty::Named("ffi.Dict");

fn dict_any_any() -> Ty {
    Ty::Generic("ffi.Dict", vec![ANY, ANY])
}

pub(super) fn register(globals: &mut Globals) {
    def_packed(globals, "ffi.Map", |args| {
        Ok(Map::from_insertions(owned_pairs(args)?)?.into_any())
    });
    def_typed(globals, "ffi.MapSize", INT, vec![MAP], |call| {
        let obj = call.object_view(0, tindex::MAP)?;
        Ok(Any::int(view(&obj)?.len() as i64))
    });
    def_typed(globals, "ffi.MapGetItem", ANY, vec![MAP, ANY], |call| {
        let obj = call.object_view(0, tindex::MAP)?;
        get_item(view(&obj)?, call.any(1))
    });
    def_typed(
        globals,
        "ffi.MapGetItemOrMissing",
        ANY,
        vec![MAP, ANY],
        |call| {
            let obj = call.object_view(0, tindex::MAP)?;
            get_item_or_missing(view(&obj)?, call.any(1))
        },
    );
    def_typed(globals, "ffi.MapCount", INT, vec![MAP, ANY], |call| {
        let obj = call.object_view(0, tindex::MAP)?;
        count(view(&obj)?, call.any(1))
    });
    def_typed(
        globals,
        "ffi.MapForwardIterFunctor",
        PACKED_FUNCTION,
        vec![MAP],
        |call| iter_functor(call.object(0, tindex::MAP)?),
    );

    def_packed(globals, "ffi.Dict", |args| {
        Ok(Dict::from_insertions(owned_pairs(args)?)?.into_any())
    });
    def_typed(globals, "ffi.DictSize", INT, vec![DICT], |call| {
        let obj = call.object_view(0, tindex::DICT)?;
        Ok(Any::int(view(&obj)?.len() as i64))
    });
    def_typed(globals, "ffi.DictGetItem", ANY, vec![DICT, ANY], |call| {
        let obj = call.object_view(0, tindex::DICT)?;
        get_item(view(&obj)?, call.any(1))
    });
    def_typed(
        globals,
        "ffi.DictGetItemOrMissing",
        ANY,
        vec![DICT, ANY],
        |call| {
            let obj = call.object_view(0, tindex::DICT)?;
            get_item_or_missing(view(&obj)?, call.any(1))
        },
    );
    def_typed(globals, "ffi.DictCount", INT, vec![DICT, ANY], |call| {
        let obj = call.object_view(0, tindex::DICT)?;
        count(view(&obj)?, call.any(1))
    });
    def_typed(
        globals,
        "ffi.DictForwardIterFunctor",
        PACKED_FUNCTION,
        vec![DICT],
        |call| iter_functor(call.object(0, tindex::DICT)?),
    );
    def_dict_mutator(
        globals,
        "ffi.DictSetItem",
        vec![dict_any_any(), ANY, ANY],
        |call, dict| {
            // SAFETY: arguments are valid views for the duration of the call.
            let (key, value) =
                unsafe { (view_to_owned(call.any(1))?, view_to_owned(call.any(2))?) };
            dict.set(key, value)
        },
    );
    def_dict_mutator(
        globals,
        "ffi.DictErase",
        vec![dict_any_any(), ANY],
        |call, dict| {
            // SAFETY: as above.
            let key = unsafe { view_to_owned(call.any(1))? };
            dict.erase(&key)
        },
    );
    def_dict_mutator(globals, "ffi.DictClear", vec![dict_any_any()], |_, dict| {
        dict.clear();
        Ok(())
    });
}

/// The map view of an argument already checked to be a Map or a Dict.
#[inline]
fn view(obj: &ObjectRef) -> Result<MapView<'_>, Error> {
    MapView::new(obj).ok_or_else(|| {
        Error::new(
            "InternalError",
            format!("type index {} is not a map", obj.type_index()),
        )
    })
}

/// The packed `k0, v0, k1, v1, ...` arguments as owned pairs, converted one by one.
fn owned_pairs(
    args: &[TVMFFIAny],
) -> Result<impl Iterator<Item = Result<(Any, Any), Error>> + '_, Error> {
    let odd = args.len() % 2;
    if odd != 0 {
        return Err(Error::new(
            "InternalError",
            format!("Check failed: args.size() % 2 == 0 ({odd} vs. 0) : "),
        ));
    }
    Ok(args.chunks_exact(2).map(|pair| {
        // SAFETY: arguments are valid views for the duration of the call.
        unsafe { Ok((view_to_owned(&pair[0])?, view_to_owned(&pair[1])?)) }
    }))
}

// Keys are looked up as the caller passed them: the hash and equality of `any_hash` treat a raw
// string like the String it would become, without allocating one for common keys.

#[inline]
fn get_item(map: MapView<'_>, key: &TVMFFIAny) -> Result<Any, Error> {
    // SAFETY: arguments are valid views for the duration of the call.
    unsafe { map.get_raw(key) }?.ok_or_else(|| Error::new("KeyError", "key is not in Map"))
}

fn get_item_or_missing(map: MapView<'_>, key: &TVMFFIAny) -> Result<Any, Error> {
    // SAFETY: as for `get_item`.
    match unsafe { map.get_raw(key) }? {
        Some(value) => Ok(value),
        None => missing_sentinel(),
    }
}

fn count(map: MapView<'_>, key: &TVMFFIAny) -> Result<Any, Error> {
    // SAFETY: as for `get_item`.
    Ok(Any::int(unsafe { map.contains_raw(key) }? as i64))
}

/// The "MISSING" sentinel, from the global `ffi.GetInvalidObject`.
fn missing_sentinel() -> Result<Any, Error> {
    let entry = crate::registry::globals::get(b"ffi.GetInvalidObject").ok_or_else(|| {
        Error::new(
            "RuntimeError",
            "Global Function is not found: ffi.GetInvalidObject",
        )
    })?;
    // SAFETY: registered globals are live Function objects; no arguments.
    unsafe { crate::value::function::call(entry.function.as_ptr(), &[]) }
}

/// Apache's `MapForwardIterFunctor` over a Map or Dict (the functor keeps the map alive).
fn iter_functor(map: ObjectRef) -> Result<Any, Error> {
    let cursor = Cursor::new(map)
        .ok_or_else(|| Error::new("InternalError", "iterator over a non-map object"))?;
    let cursor = Mutex::new(cursor);
    let signature = Signature {
        name: "",
        ret: ANY,
        params: vec![INT],
    };
    let functor = crate::registry::define::typed_function(signature, move |call| {
        let command = call.int(0)?;
        let mut cursor = cursor.lock().unwrap_or_else(|e| e.into_inner());
        match command {
            0 => cursor.key(),
            1 => cursor.value(),
            _ => Ok(Any::bool(cursor.advance())),
        }
    });
    Ok(Any::object(functor))
}

/// Registers a Dict mutator `(Dict<Any, Any>, ...) -> None`: a Map first argument is converted
/// into a new Dict (so nothing visible changes), as in Apache's runtime.
fn def_dict_mutator(
    globals: &mut Globals,
    name: &'static str,
    params: Vec<Ty>,
    imp: impl Fn(&Call, &mut Dict) -> Result<(), Error> + Send + Sync + 'static,
) {
    let ty = function(NONE, params.clone());
    let signature = Signature {
        name,
        ret: NONE,
        params,
    };
    let functor = crate::registry::define::typed_function(signature, move |call| {
        let mut dict = if call.any(0).type_index == tindex::MAP {
            let obj = call.object_view(0, tindex::MAP)?;
            view(&obj)?.copy_to_dict()?
        } else {
            let obj = call.object(0, tindex::DICT)?;
            Dict::from_object(obj)
                .map_err(|_| Error::new("InternalError", "Dict argument is not a Dict"))?
        };
        imp(call, &mut dict)?;
        Ok(Any::none())
    });
    crate::registry::define::insert(globals, name, &ty, functor);
}
