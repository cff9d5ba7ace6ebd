//! `#[ffihub::function]` and `#[ffihub::methods]`.

use crate::util::{doc_of, replace_self, take_options, unique_marker, Allowed};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, ItemFn, ItemImpl, LitStr, Pat, ReturnType, Signature, Type};

/// The options of `#[ffihub::function(...)]`.
struct FunctionArgs {
    name: Option<LitStr>,
    export: Option<LitStr>,
}

fn parse_function_args(attr: TokenStream) -> syn::Result<FunctionArgs> {
    let mut args = FunctionArgs {
        name: None,
        export: None,
    };
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("name") {
            if args.name.is_some() {
                return Err(meta.error("`name` is given twice"));
            }
            args.name = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("export") {
            if args.export.is_some() {
                return Err(meta.error("`export` is given twice"));
            }
            args.export = Some(meta.value()?.parse()?);
        } else {
            let key = meta
                .path
                .get_ident()
                .map_or_else(|| "?".to_owned(), ToString::to_string);
            return Err(meta.error(format!(
                "unknown argument `{key}`; expected `name = \"<global name>\"` and/or `export = \"<symbol name>\"`"
            )));
        }
        Ok(())
    });
    syn::parse::Parser::parse2(parser, attr.clone()).map_err(|e| {
        // A bare `#[ffihub::function("x")]` gives syn's terse "expected identifier".
        if attr.to_string().starts_with('"') {
            syn::Error::new(
                attr.span(),
                "expected `name = \"<global name>\"` and/or `export = \"<symbol name>\"`",
            )
        } else {
            e
        }
    })?;
    for lit in [&args.name, &args.export].into_iter().flatten() {
        let value = lit.value();
        if value.is_empty() || value.chars().any(|c| c.is_whitespace() || c == '\0') {
            return Err(syn::Error::new(
                lit.span(),
                "a function name must be non-empty, without whitespace",
            ));
        }
    }
    if args.name.is_none() && args.export.is_none() {
        return Err(syn::Error::new(
            Span::call_site(),
            "#[ffihub::function] needs `name = \"<global name>\"` (a global function) and/or `export = \"<symbol name>\"` (a module export)",
        ));
    }
    Ok(args)
}

/// One parameter of a registered function.
struct Param {
    name: String,
    ty: Type,
    default: Option<syn::Expr>,
}

/// How a function takes its arguments.
enum Params {
    /// Converted one by one.
    Typed(Vec<Param>),
    /// `&[AnyView]`: the packed convention.
    Packed,
}

/// Whether `ty` is `&[...]` (a packed function's argument slice).
fn is_slice_ref(ty: &Type) -> bool {
    matches!(ty, Type::Reference(r) if matches!(*r.elem, Type::Slice(_)))
}

/// Checks a parameter or return type for what can never be converted.
fn check_type(ty: &Type, what: &str) -> syn::Result<()> {
    match ty {
        Type::Reference(_) => Err(syn::Error::new(
            ty.span(),
            format!(
                "unsupported {what} type: references cannot cross TVM-FFI; take an owned value \
                 (`String`, `ffihub::String`, `Array<T>`, `ObjectRef<T>`...), or `&[AnyView]` as the only parameter of a packed function"
            ),
        )),
        Type::ImplTrait(_) => Err(syn::Error::new(
            ty.span(),
            format!("unsupported {what} type: `impl Trait` has no TVM-FFI type; name a concrete type"),
        )),
        Type::Ptr(_) => Err(syn::Error::new(
            ty.span(),
            format!("unsupported {what} type: raw pointers cannot cross TVM-FFI safely"),
        )),
        _ => Ok(()),
    }
}

/// Checks the signature and collects the parameters (removing their `#[ffihub]` attributes).
/// `has_receiver` is set for `&self` methods; other receivers are rejected.
fn collect_params(sig: &mut Signature, in_impl: bool) -> syn::Result<(Params, bool)> {
    if let Some(asyncness) = &sig.asyncness {
        return Err(syn::Error::new(
            asyncness.span(),
            "async functions cannot be registered: TVM-FFI calls are synchronous",
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            sig.generics.span(),
            "generic functions cannot be registered: a TVM-FFI function has one concrete signature",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        return Err(syn::Error::new(
            variadic.span(),
            "C variadics are not supported; take `&[AnyView]` for a packed function",
        ));
    }
    let allowed = Allowed {
        default: true,
        skip: false,
        init: false,
        name: false,
    };
    let mut has_receiver = false;
    let mut params = Vec::new();
    let mut packed = false;
    let count = sig.inputs.len();
    for input in sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(receiver) => {
                if !in_impl {
                    return Err(syn::Error::new(receiver.span(), "unexpected `self`"));
                }
                if receiver.reference.is_none() || receiver.mutability.is_some() {
                    return Err(syn::Error::new(
                        receiver.span(),
                        "methods take `&self`: objects are shared between languages; keep mutable state in `Writable<T>` fields",
                    ));
                }
                has_receiver = true;
            }
            FnArg::Typed(typed) => {
                let options = take_options(&mut typed.attrs, &allowed)?;
                let name = match &*typed.pat {
                    Pat::Ident(ident) => ident.ident.to_string(),
                    Pat::Wild(_) => format!("_{}", params.len()),
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "parameters must be plain names (`x: i64`)",
                        ))
                    }
                };
                if is_slice_ref(&typed.ty) {
                    let only = count == 1 + usize::from(has_receiver);
                    if !only || has_receiver {
                        return Err(syn::Error::new(
                            typed.ty.span(),
                            "a packed function takes `&[AnyView]` as its only parameter",
                        ));
                    }
                    packed = true;
                    continue;
                }
                check_type(&typed.ty, "parameter")?;
                if options.default.is_none() && params.iter().any(|p: &Param| p.default.is_some()) {
                    return Err(syn::Error::new(
                        typed.pat.span(),
                        "parameters after one with `#[ffihub(default = ...)]` need a default too",
                    ));
                }
                params.push(Param {
                    name,
                    ty: (*typed.ty).clone(),
                    default: options.default,
                });
            }
        }
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        check_type(ty, "return")?;
    }
    Ok((
        if packed {
            Params::Packed
        } else {
            Params::Typed(params)
        },
        has_receiver,
    ))
}

/// What the generated code needs to know about one function or method.
struct Target<'a> {
    /// Name used in metadata and messages (a global name, or `type_key.method`).
    display_name: TokenStream,
    doc: String,
    params: &'a Params,
    /// `Some(self type)` for instance methods.
    receiver: Option<&'a Type>,
    /// The return type (`()` when omitted).
    ret: Type,
    /// Overrides the return schema (constructors report `ffi.Object`).
    ret_schema: Option<TokenStream>,
    /// The path that calls the Rust function (`add_one`, `<Point>::norm`).
    callee: TokenStream,
    /// Identifiers of the generated signature and call functions.
    sig_fn: syn::Ident,
    call_fn: syn::Ident,
}

/// Generates the signature function and the safe-call function of a target.
fn generate(target: &Target<'_>) -> TokenStream {
    let Target {
        display_name,
        doc,
        params,
        receiver,
        ret,
        ret_schema,
        callee,
        sig_fn,
        call_fn,
    } = target;
    let ret_schema = ret_schema
        .clone()
        .unwrap_or_else(|| quote!(::ffihub::__private::return_schema::<#ret>()));
    let (sig_expr, body) = match params {
        Params::Packed => (
            quote!(::ffihub::__private::FnSig::packed(#display_name, #doc)),
            quote!(::ffihub::__private::ret(#callee(args))),
        ),
        Params::Typed(params) => {
            let offset = usize::from(receiver.is_some());
            let mut schema_items = Vec::new();
            let mut conversions = Vec::new();
            let mut call_args = Vec::new();
            if let Some(self_ty) = receiver {
                schema_items.push(quote!(::ffihub::__private::Param::receiver::<#self_ty>()));
                conversions.push(quote!(
                    let __ffihub_self: &#self_ty = ::ffihub::__private::receiver(args, #sig_fn)?;
                ));
                call_args.push(quote!(__ffihub_self));
            }
            for (i, param) in params.iter().enumerate() {
                let ty = &param.ty;
                let name = &param.name;
                let index = i + offset;
                let var = format_ident!("__ffihub_arg{}", i);
                match &param.default {
                    None => {
                        schema_items.push(
                            quote_spanned!(ty.span()=> ::ffihub::__private::param::<#ty>(#name)),
                        );
                        conversions.push(quote_spanned!(ty.span()=>
                            let #var: #ty = ::ffihub::__private::arg(args, #index, #sig_fn)?;
                        ));
                    }
                    Some(default) => {
                        let make = quote_spanned!(default.span()=> || -> #ty { ::core::convert::Into::into(#default) });
                        schema_items.push(quote_spanned!(ty.span()=>
                            ::ffihub::__private::param_with_default::<#ty>(#name, #make)
                        ));
                        conversions.push(quote_spanned!(ty.span()=>
                            let #var: #ty =
                                ::ffihub::__private::arg_or(args, #index, #make, #sig_fn)?;
                        ));
                    }
                }
                call_args.push(quote!(#var));
            }
            // The count bounds are constants here, so the hot path never reads the
            // signature (built once, on first use): only errors do.
            let total = offset + params.len();
            let required = params
                .iter()
                .position(|p| p.default.is_some())
                .map_or(total, |i| i + offset);
            (
                quote!(::ffihub::__private::FnSig::typed(
                    #display_name,
                    #doc,
                    ::std::vec![#(#schema_items),*],
                    #ret_schema,
                )),
                quote! {
                    ::ffihub::__private::check_count(args, #required, #total, #sig_fn)?;
                    #(#conversions)*
                    ::ffihub::__private::ret(#callee(#(#call_args),*))
                },
            )
        }
    };
    quote! {
        fn #sig_fn() -> &'static ::ffihub::__private::FnSig {
            static SIG: ::ffihub::__private::OnceLock<::ffihub::__private::FnSig> =
                ::ffihub::__private::OnceLock::new();
            SIG.get_or_init(|| #sig_expr)
        }

        unsafe extern "C" fn #call_fn(
            _: *mut ::ffihub::__private::CVoid,
            args: *const ::ffihub::__private::RawAny,
            num_args: i32,
            result: *mut ::ffihub::__private::RawAny,
        ) -> i32 {
            // SAFETY: called through the safe-call convention: `num_args` valid argument views
            // and a result slot holding no owned value.
            unsafe {
                ::ffihub::__private::safe_call(args, num_args, result, |args| {
                    #body
                })
            }
        }
    }
}

fn return_type(sig: &Signature) -> Type {
    match &sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    }
}

/// `#[ffihub::function(...)]`.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = parse_function_args(attr)?;
    let mut func: ItemFn = syn::parse2(item)
        .map_err(|e| syn::Error::new(e.span(), "#[ffihub::function] applies to a free function"))?;
    let (params, _) = collect_params(&mut func.sig, false)?;
    let ident = &func.sig.ident;
    let doc = doc_of(&func.attrs);
    let display = args
        .name
        .as_ref()
        .or(args.export.as_ref())
        .map(LitStr::value)
        .unwrap_or_default();
    let target = Target {
        display_name: quote!(#display),
        doc,
        params: &params,
        receiver: None,
        ret: return_type(&func.sig),
        ret_schema: None,
        callee: quote!(#ident),
        sig_fn: format_ident!("__ffihub_sig"),
        call_fn: format_ident!("__ffihub_call"),
    };
    let generated = generate(&target);

    let mut extra = TokenStream::new();
    if let Some(name) = &args.name {
        extra.extend(unique_marker("global_function", &name.value()));
        extra.extend(quote! {
            fn __ffihub_register() {
                ::ffihub::__private::register_global(__ffihub_sig(), __ffihub_call);
            }
            ::ffihub::__run_at_load!(__ffihub_register);
        });
    }
    if let Some(export) = &args.export {
        extra.extend(unique_marker("module_export", &export.value()));
        let symbol = format!("__tvm_ffi_{}", export.value());
        let metadata_symbol = format!("__tvm_ffi__metadata_{}", export.value());
        let doc_symbol = format!("__tvm_ffi__doc_{}", export.value());
        extra.extend(quote! {
            #[unsafe(export_name = #symbol)]
            pub unsafe extern "C" fn __ffihub_export(
                handle: *mut ::ffihub::__private::CVoid,
                args: *const ::ffihub::__private::RawAny,
                num_args: i32,
                result: *mut ::ffihub::__private::RawAny,
            ) -> i32 {
                // SAFETY: forwarded from our caller, under the same contract.
                unsafe { __ffihub_call(handle, args, num_args, result) }
            }

            #[unsafe(export_name = #metadata_symbol)]
            pub unsafe extern "C" fn __ffihub_export_metadata(
                _: *mut ::ffihub::__private::CVoid,
                args: *const ::ffihub::__private::RawAny,
                num_args: i32,
                result: *mut ::ffihub::__private::RawAny,
            ) -> i32 {
                // SAFETY: called through the safe-call convention.
                unsafe {
                    ::ffihub::__private::string_result(args, num_args, result, || {
                        __ffihub_sig().metadata()
                    })
                }
            }

            #[unsafe(export_name = #doc_symbol)]
            pub unsafe extern "C" fn __ffihub_export_doc(
                _: *mut ::ffihub::__private::CVoid,
                args: *const ::ffihub::__private::RawAny,
                num_args: i32,
                result: *mut ::ffihub::__private::RawAny,
            ) -> i32 {
                // SAFETY: called through the safe-call convention.
                unsafe {
                    ::ffihub::__private::string_result(args, num_args, result, || {
                        __ffihub_sig().doc().to_owned()
                    })
                }
            }
        });
    }
    Ok(quote! {
        #func
        const _: () = {
            #generated
            #extra
        };
    })
}

/// `#[ffihub::methods]` on an inherent impl block of a `#[derive(ffihub::Object)]` type.
pub fn expand_methods(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(
            attr.span(),
            "#[ffihub::methods] takes no arguments",
        ));
    }
    let mut block: ItemImpl = syn::parse2(item).map_err(|e| {
        syn::Error::new(
            e.span(),
            "#[ffihub::methods] applies to an inherent `impl` block of an object type",
        )
    })?;
    if let Some((_, path, _)) = &block.trait_ {
        return Err(syn::Error::new(
            path.span(),
            "#[ffihub::methods] applies to an inherent `impl` block, not a trait impl",
        ));
    }
    if !block.generics.params.is_empty() {
        return Err(syn::Error::new(
            block.generics.span(),
            "object types are not generic",
        ));
    }
    let self_ty = (*block.self_ty).clone();
    let allowed = Allowed {
        default: false,
        skip: true,
        init: true,
        name: true,
    };
    let mut generated = TokenStream::new();
    let mut registrations = Vec::new();
    let mut init_seen: Option<Span> = None;
    let mut names = std::collections::BTreeSet::new();
    for item in block.items.iter_mut() {
        let ImplItem::Fn(method) = item else { continue };
        let options = take_options(&mut method.attrs, &allowed)?;
        if options.skip {
            continue;
        }
        let (params, has_receiver) = collect_params(&mut method.sig, true)?;
        if options.init {
            if has_receiver {
                return Err(syn::Error::new(
                    method.sig.span(),
                    "the `#[ffihub(init)]` constructor is a static function (no `self`) returning the object",
                ));
            }
            if let Some(first) = init_seen {
                let mut error = syn::Error::new(
                    method.sig.ident.span(),
                    "a type has one `#[ffihub(init)]` constructor",
                );
                error.combine(syn::Error::new(first, "the first one is here"));
                return Err(error);
            }
            init_seen = Some(method.sig.ident.span());
        }
        let ident = method.sig.ident.clone();
        let name = options
            .name
            .as_ref()
            .map_or_else(|| ident.to_string(), LitStr::value);
        if !options.init && !names.insert(name.clone()) {
            return Err(syn::Error::new(
                ident.span(),
                format!("method `{name}` is registered twice"),
            ));
        }
        let ret = replace_self(&return_type(&method.sig), &self_ty);
        let params = match params {
            Params::Typed(list) => Params::Typed(
                list.into_iter()
                    .map(|p| crate::function::Param {
                        ty: replace_self(&p.ty, &self_ty),
                        ..p
                    })
                    .collect(),
            ),
            Params::Packed => Params::Packed,
        };
        let sig_fn = format_ident!("__ffihub_sig_{}", ident);
        let call_fn = format_ident!("__ffihub_call_{}", ident);
        let target = Target {
            display_name: quote!(::std::format!(
                "{}.{}",
                <#self_ty as ::ffihub::ObjectType>::TYPE_KEY,
                #name
            )),
            doc: doc_of(&method.attrs),
            params: &params,
            receiver: has_receiver.then_some(&self_ty),
            ret,
            ret_schema: options
                .init
                .then(|| quote!(::ffihub::Schema::named("ffi.Object"))),
            callee: quote!(<#self_ty>::#ident),
            sig_fn: sig_fn.clone(),
            call_fn: call_fn.clone(),
        };
        generated.extend(generate(&target));
        let kind = if options.init {
            quote!(::ffihub::__private::MethodKind::Init)
        } else if has_receiver {
            quote!(::ffihub::__private::MethodKind::Instance)
        } else {
            quote!(::ffihub::__private::MethodKind::Static)
        };
        registrations.push(quote! {
            ::ffihub::__private::register_method::<#self_ty>(#sig_fn(), #kind, #call_fn);
        });
    }
    Ok(quote! {
        #block
        const _: () = {
            #generated
            fn __ffihub_register_methods() {
                #(#registrations)*
            }
            ::ffihub::__run_at_load!(__ffihub_register_methods);
        };
    })
}
