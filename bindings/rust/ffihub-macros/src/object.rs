//! `#[derive(ffihub::Object)]`.

use crate::util::{doc_of, replace_self, take_options, unique_marker, Allowed};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, LitStr, Type};

/// Whether the struct has `#[repr(C)]` (possibly among other reprs).
fn has_repr_c(input: &DeriveInput) -> bool {
    input.attrs.iter().any(|attr| {
        let mut found = false;
        if attr.path().is_ident("repr") {
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("C") {
                    found = true;
                }
                Ok(())
            });
        }
        found
    })
}

/// The `type_key` of `#[ffihub(type_key = "...")]` on the struct.
fn type_key(input: &DeriveInput) -> syn::Result<LitStr> {
    let mut key: Option<LitStr> = None;
    for attr in &input.attrs {
        if !attr.path().is_ident("ffihub") {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("type_key") {
                if key.is_some() {
                    return Err(meta.error("`type_key` is given twice"));
                }
                let value: LitStr = meta.value()?.parse()?;
                if value.value().is_empty() || value.value().chars().any(char::is_whitespace) {
                    return Err(syn::Error::new(
                        value.span(),
                        "a type key is non-empty, without whitespace (`demo.Point`)",
                    ));
                }
                key = Some(value);
                Ok(())
            } else {
                let name = meta
                    .path
                    .get_ident()
                    .map_or_else(|| "?".to_owned(), ToString::to_string);
                Err(meta.error(format!(
                    "unknown ffihub option `{name}` on an object type; expected `type_key = \"...\"`"
                )))
            }
        })?;
    }
    key.ok_or_else(|| {
        syn::Error::new(
            input.ident.span(),
            "missing type key: add `#[ffihub(type_key = \"<namespace>.<Name>\")]` to the struct",
        )
    })
}

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let ident = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "object types cannot be generic: a type key names one layout",
        ));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            Span::call_site(),
            "#[derive(ffihub::Object)] applies to a struct",
        ));
    };
    let key = type_key(&input)?;
    if !has_repr_c(&input) {
        return Err(syn::Error::new(
            ident.span(),
            "object types must be `#[repr(C)]`: the object header and the parent's fields come first",
        ));
    }
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new(
            data.fields.span(),
            "an object type has named fields, the first one being its parent (`base: ffihub::Object`)",
        ));
    };
    let mut iter = fields.named.iter();
    let Some(base) = iter.next() else {
        return Err(syn::Error::new(
            ident.span(),
            "an object type's first field is its parent: add `base: ffihub::Object` (or the parent type)",
        ));
    };
    if base.attrs.iter().any(|a| a.path().is_ident("ffihub")) {
        return Err(syn::Error::new(
            base.span(),
            "the first field is the parent object and takes no `#[ffihub]` options",
        ));
    }
    let self_ty: Type = syn::parse_quote!(#ident);
    let parent_ty = &base.ty;
    let allowed = Allowed {
        default: true,
        skip: true,
        init: false,
        name: false,
    };
    let mut field_defs = Vec::new();
    for field in iter {
        let mut attrs = field.attrs.clone();
        let options = take_options(&mut attrs, &allowed)?;
        if options.skip {
            if options.default.is_some() {
                return Err(syn::Error::new(
                    field.span(),
                    "a skipped field is not reflected and has no default",
                ));
            }
            continue;
        }
        let name = field.ident.as_ref().expect("named field").clone();
        let name_text = name.to_string();
        let doc = doc_of(&field.attrs);
        let ty = replace_self(&field.ty, &self_ty);
        let default = match &options.default {
            None => quote!(::core::option::Option::None),
            Some(expr) => quote_spanned! {expr.span()=>
                ::core::option::Option::Some(|| {
                    let value: <#ty as ::ffihub::reflection::FieldStorage>::Value =
                        ::core::convert::Into::into(#expr);
                    ::ffihub::IntoAny::into_any(value)
                })
            },
        };
        field_defs.push(quote_spanned! {field.ty.span()=>
            ::ffihub::__private::FieldDef::new::<#ty>(
                #name_text,
                #doc,
                ::core::mem::offset_of!(#ident, #name),
                #default,
            )
        });
    }
    let doc = doc_of(&input.attrs);
    let marker = unique_marker("object_type", &key.value());
    let parent_check = quote_spanned! {parent_ty.span()=>
        <#parent_ty as ::ffihub::ObjectType>::type_index()
    };
    Ok(quote! {
        const _: () = {
            #marker

            static __FFIHUB_TYPE: ::ffihub::__private::TypeCell = ::ffihub::__private::TypeCell::new();

            fn __ffihub_type_def() -> ::ffihub::__private::TypeDef {
                ::ffihub::__private::TypeDef {
                    type_key: #key,
                    parent_index: #parent_check,
                    doc: #doc,
                    total_size: ::core::mem::size_of::<#ident>(),
                    fields: ::std::vec![#(#field_defs),*],
                }
            }

            // SAFETY: the struct is `#[repr(C)]` (checked by the derive) and its first field is
            // the parent's struct (an `ObjectType`, checked by the bound above), so it starts
            // with the object header followed by the parent's fields; its type index is the one
            // registered for `type_key`.
            unsafe impl ::ffihub::ObjectType for #ident {
                const TYPE_KEY: &'static str = #key;

                fn type_index() -> i32 {
                    __FFIHUB_TYPE.index(__ffihub_type_def)
                }

                fn __layout_is_ours() -> bool {
                    let _ = __FFIHUB_TYPE.index(__ffihub_type_def);
                    __FFIHUB_TYPE.is_ours()
                }
            }

            impl ::ffihub::FfiType for #ident {
                fn schema() -> ::ffihub::Schema {
                    ::ffihub::Schema::named(#key)
                }
                const STATIC_TYPE_INDEX: i32 = 64;
            }

            impl ::ffihub::IntoAny for #ident {
                fn into_any(self) -> ::ffihub::Result<::ffihub::Any> {
                    ::ffihub::IntoAny::into_any(::ffihub::ObjectRef::new(self))
                }
            }

            fn __ffihub_register_type() {
                let _ = <#ident as ::ffihub::ObjectType>::type_index();
            }
            ::ffihub::__run_at_load!(__ffihub_register_type);
        };
    })
}
