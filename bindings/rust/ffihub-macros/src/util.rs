//! Helpers shared by the macros: doc comments, `#[ffihub(...)]` attributes, `Self` rewriting,
//! symbol names.

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Attribute, Expr, LitStr, Type};

/// The doc comment of an item: its `#[doc = "..."]` lines, one leading space removed, joined
/// with newlines and trimmed.
pub fn doc_of(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) = &nv.value
            {
                let value = text.value();
                for line in value.lines() {
                    lines.push(line.strip_prefix(' ').unwrap_or(line).to_owned());
                }
            }
        }
    }
    lines.join("\n").trim().to_owned()
}

/// The options of `#[ffihub(...)]` attributes on fields, parameters and methods.
#[derive(Default)]
pub struct ItemOptions {
    /// `default = expr`
    pub default: Option<Expr>,
    /// `skip`
    pub skip: bool,
    /// `init`
    pub init: bool,
    /// `name = "..."`
    pub name: Option<LitStr>,
}

/// Which options an item accepts, for error messages.
pub struct Allowed {
    pub default: bool,
    pub skip: bool,
    pub init: bool,
    pub name: bool,
}

impl Allowed {
    fn describe(&self) -> String {
        let mut names = Vec::new();
        if self.default {
            names.push("`default = <expr>`");
        }
        if self.skip {
            names.push("`skip`");
        }
        if self.init {
            names.push("`init`");
        }
        if self.name {
            names.push("`name = \"...\"`");
        }
        names.join(", ")
    }
}

/// Parses and removes the `#[ffihub(...)]` attributes of an item.
pub fn take_options(attrs: &mut Vec<Attribute>, allowed: &Allowed) -> syn::Result<ItemOptions> {
    let mut options = ItemOptions::default();
    let mut error: Option<syn::Error> = None;
    attrs.retain(|attr| {
        if !attr.path().is_ident("ffihub") {
            return true;
        }
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("default") && allowed.default {
                options.default = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("skip") && allowed.skip {
                options.skip = true;
            } else if meta.path.is_ident("init") && allowed.init {
                options.init = true;
            } else if meta.path.is_ident("name") && allowed.name {
                options.name = Some(meta.value()?.parse()?);
            } else {
                let key = meta
                    .path
                    .get_ident()
                    .map_or_else(|| "?".to_owned(), ToString::to_string);
                return Err(meta.error(format!(
                    "unknown ffihub option `{key}` here; expected {}",
                    allowed.describe()
                )));
            }
            Ok(())
        });
        if let Err(e) = parsed {
            match &mut error {
                Some(first) => first.combine(e),
                None => error = Some(e),
            }
        }
        false
    });
    match error {
        Some(e) => Err(e),
        None => Ok(options),
    }
}

/// Replaces `Self` in a type by `self_ty` (generated helpers are free functions, where `Self`
/// means nothing).
pub fn replace_self(ty: &Type, self_ty: &Type) -> Type {
    struct Replace<'a>(&'a Type);
    impl VisitMut for Replace<'_> {
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if let Type::Path(path) = ty {
                if path.qself.is_none() && path.path.is_ident("Self") {
                    *ty = self.0.clone();
                    return;
                }
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut ty = ty.clone();
    Replace(self_ty).visit_type_mut(&mut ty);
    ty
}

/// A marker unique to `what` (a global name, an export, a type key) within the crate: an
/// exported `macro_rules!` lives in the crate root's macro namespace, so a second registration
/// of the same name anywhere in the crate is an error at name resolution ("the name
/// `__ffihub_global_function__demo_2e_add_one` is defined multiple times"), even under
/// `cargo check`.
pub fn unique_marker(what: &str, name: &str) -> TokenStream {
    let mut ident = format!("__ffihub_{what}__");
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            ident.push(c);
        } else {
            ident.push_str(&format!("_{:x}_", c as u32));
        }
    }
    let ident = proc_macro2::Ident::new(&ident, proc_macro2::Span::call_site());
    let message = format!("{what} `{name}` is defined more than once in this crate");
    quote! {
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #ident {
            () => { compile_error!(#message) };
        }
    }
}
