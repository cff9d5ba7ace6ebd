"""Enum classes shared between consumers of the two ``ffi.Enum`` schemas, on ffihub's runtime
(docs/adr/0013-enum-schemas.md).

Run with the Python package of one release and ``tests/c/enum_lib.cc`` built against the headers
of a release of the other schema::

    python enum_schemas.py <enum_lib.so>

The library registers ``compat_test.Variant`` with two entries, ``Alpha`` and ``Beta``, each with
the extensible attribute ``code`` (10 and 20), through its own schema's ``EnumDef``; its
``compat_test.variant_get(name)`` looks an entry up by name the way that schema's header code
does. The package binds a class to that type, reads the entries and the attribute through its own
schema, adds an entry ``Gamma`` from Python, and checks that the library's lookup finds it after
the next access to the enum's entries. Prints one ``ok`` line per check, raises on the first
failure.
"""

from __future__ import annotations

import sys
from typing import ClassVar

import tvm_ffi
from tvm_ffi.dataclasses import Enum, auto
from tvm_ffi.dataclasses import enum as enum_module

NEW_SCHEMA = hasattr(enum_module, "EnumState")


def check(what: str, got: object, expected: object) -> None:
    if got != expected:
        raise AssertionError(f"{what}: got {got!r}, expected {expected!r}")
    print(f"ok {what} = {got!r}")


def indices(entry: object) -> tuple[int, str]:
    """The entry's ordinal and name, through this package's own field names."""
    if NEW_SCHEMA:
        return int(entry._int_index), str(entry._str_index)  # type: ignore[attr-defined]
    return int(entry._value), str(entry._name)  # type: ignore[attr-defined]


def code_of(cls: type, entry: object) -> object:
    """The extensible attribute ``code`` of an entry, through this package's own API."""
    if NEW_SCHEMA:
        return cls.def_attr("code").get(entry)  # type: ignore[attr-defined]
    return cls.attr_dict["code"][indices(entry)[0]]  # type: ignore[attr-defined]


def main(enum_lib: str) -> None:
    tvm_ffi.load_module(enum_lib)
    schema = "0.1.13+" if NEW_SCHEMA else "0.1.11/0.1.12"
    print(f"tvm_ffi {tvm_ffi.__version__} ({schema} schema), library {enum_lib}")

    class Variant(Enum, type_key="compat_test.Variant"):
        Alpha: ClassVar[Variant]
        Beta: ClassVar[Variant]
        Gamma = auto()

    check("entries in order", [indices(e) for e in Variant], [(0, "Alpha"), (1, "Beta"), (2, "Gamma")])
    check("code of Alpha", code_of(Variant, Variant.Alpha), 10)
    check("code of Beta", code_of(Variant, Variant.Beta), 20)
    get = tvm_ffi.get_global_func("compat_test.variant_get")
    check("the library's lookup of Beta", get("Beta").same_as(Variant.Beta), True)
    # `list(Variant)` above read the entries after Gamma was added: the library sees it too.
    check("the library's lookup of Gamma", get("Gamma").same_as(Variant.Gamma), True)


if __name__ == "__main__":
    main(sys.argv[1])
