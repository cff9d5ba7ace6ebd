//! Procedural macros of the `ffihub` crate (use them through `ffihub`):
//!
//! - `#[ffihub::function(name = "...", export = "...")]` registers a Rust function as a global
//!   TVM-FFI function and/or exports it as a module symbol;
//! - `#[derive(ffihub::Object)]` registers a `#[repr(C)]` struct as an object type with its
//!   reflected fields;
//! - `#[ffihub::methods]` registers the methods and the constructor of such a type.
//!
//! Everything is registered when the library is loaded, from an `.init_array` entry. Misuse is a
//! compile error pointing at the offending item.

#![warn(missing_docs)]

mod function;
mod object;
mod util;

use proc_macro::TokenStream;

/// See `ffihub::function`.
#[proc_macro_attribute]
pub fn function(attr: TokenStream, item: TokenStream) -> TokenStream {
    function::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// See `ffihub::methods`.
#[proc_macro_attribute]
pub fn methods(attr: TokenStream, item: TokenStream) -> TokenStream {
    function::expand_methods(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// See `ffihub::Object`.
#[proc_macro_derive(Object, attributes(ffihub))]
pub fn derive_object(input: TokenStream) -> TokenStream {
    object::expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
