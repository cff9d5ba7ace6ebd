//! The members a type's Python API makes of globals (ADR 0019), as Julia methods that call the
//! global's Julia function: constructors (methods of the type) and methods (`M(self::AbstractC,
//! ...)`). Properties are branches of the type's `getproperty` (`object.rs`).
//!
//! Julia keeps one method per signature, the types of the positional arguments (keywords take
//! no part): a second definition with the same types overwrites the first, which recent Julia
//! refuses while it precompiles a package. So no two methods of one function may have the same
//! dispatch key ([`Signatures`]); what would repeat one is left out, and stays reachable as the
//! global.

use super::names;
use super::signature::{join_decls, Protocol, Rendered};
use super::text::{docstring, prose};
use super::types::TypeNames;
use crate::ir;
use crate::lang::doc_lines;
use std::collections::BTreeSet;

/// The dispatch key of `f(args...)`, which a packed callable and a typed one's fallback have.
pub const VARARGS: &str = "Vararg{Any}";

/// The signatures (positional argument types) that one Julia function's methods have.
#[derive(Default)]
pub struct Signatures(BTreeSet<Vec<String>>);

impl Signatures {
    /// Takes `key` if no method has it; whether it was free.
    pub fn claim(&mut self, key: &[String]) -> bool {
        self.0.insert(key.to_vec())
    }
}

/// A member rendered as Julia methods that call a global's Julia function.
pub struct Member {
    /// The name its methods are defined under (the type's, or like a registered method's:
    /// `Base.copy` for a name Base exports, `Tvm.ir.with_attr` for a type of a namespace).
    pub def_name: String,
    /// The method's identifier in its module (for a constructor, the type's).
    pub ident: String,
    /// Defined under `TVMFFI.@extend_base` (see `object::Method::extend_base`).
    pub extend_base: bool,
    /// Docstring lines (escaped), starting with the signature line.
    pub doc: Vec<String>,
    /// The docstring's signature line (a constructor's goes on the type's docstring too).
    pub doc_signature: String,
    /// The methods, fewest arguments first.
    pub overloads: Vec<MemberOverload>,
    /// The method that takes anything else and throws the error in the caller's words: its
    /// declarations and what it calls.
    pub fallback: Option<(String, String)>,
    /// The dispatch key of each of `overloads`, then of the fallback (not rendered: for the
    /// check against the global functions of the same name).
    pub keys: Vec<Vec<String>>,
}

/// One Julia method of a member.
pub struct MemberOverload {
    /// Its declarations (`self::AbstractX, a::Integer; b::Bool = true`).
    pub params: String,
    /// After the parenthesis: ` where {N}` for a packed constructor, else empty.
    pub where_clause: String,
    /// The call of the global's Julia function.
    pub call: String,
}

impl Member {
    /// Leaves out the fallback (where Julia would find calls ambiguous between it and another
    /// function's methods).
    pub fn drop_fallback(&mut self) {
        if self.fallback.take().is_some() {
            self.keys.pop();
        }
    }

    /// Keeps the methods whose signature `taken` does not have yet, claiming them; the
    /// fallback only if its signature is free too.
    fn claiming(mut self, taken: &mut Signatures) -> Member {
        let fallback_key = self.keys.pop();
        let mut keys = Vec::new();
        let overloads = std::mem::take(&mut self.overloads);
        for (o, key) in overloads.into_iter().zip(std::mem::take(&mut self.keys)) {
            if taken.claim(&key) {
                self.overloads.push(o);
                keys.push(key);
            }
        }
        match fallback_key {
            Some(k) if self.fallback.is_some() && taken.claim(&k) => keys.push(k),
            _ => self.fallback = None,
        }
        self.keys = keys;
        self
    }
}

impl TypeNames {
    /// A member constructor of the type `ident` (defined as `def_name`) calling the global
    /// whose Julia name is `global`; only the methods whose signature `taken` does not have
    /// yet, which they claim. `None` when none is left.
    pub fn member_constructor(
        &self,
        m: &ir::Member,
        (ident, def_name): (&str, &str),
        global: &str,
        taken: &mut Signatures,
    ) -> Option<Member> {
        let Some(sig) = &m.signature else {
            // Packed: one method that takes anything, unless an earlier packed member has it
            // (the caller claims the own constructor's fallback after the packed members).
            if !taken.claim(&[VARARGS.to_string()]) {
                return None;
            }
            let doc_signature = format!("{ident}(args...)");
            return Some(Member {
                def_name: def_name.to_string(),
                ident: ident.to_string(),
                extend_base: false,
                doc: docstring(
                    std::slice::from_ref(&doc_signature),
                    &[
                        doc_lines(&crate::lang::naming::member_doc(m)),
                        prose(&format!("In Julia the global is `{global}`.")),
                    ],
                ),
                doc_signature,
                overloads: vec![MemberOverload {
                    params: "args::Vararg{Any,N}".into(),
                    where_clause: " where {N}".into(),
                    call: format!("{global}(args...)"),
                }],
                fallback: None,
                keys: vec![vec![VARARGS.to_string()]],
            });
        };
        let r = self.signature(
            &Self::layout(&sig.params, &m.function),
            Protocol::Positional,
        );
        let member = self.member(m, sig, &r, ident, def_name, None, global);
        Some(member.claiming(taken)).filter(|c| !c.overloads.is_empty())
    }

    /// A member method of the type whose abstract type is `receiver`, under `def_name` with
    /// identifier `ident`, calling the global whose Julia name is `global`. `fallback`: whether
    /// it gets the method that throws the error of arguments no method takes.
    pub fn member_method(
        &self,
        m: &ir::Member,
        (ident, def_name): (&str, &str),
        receiver: &str,
        global: &str,
        fallback: bool,
    ) -> Option<Member> {
        let sig = m.signature.as_ref()?;
        let r = self.signature(
            &Self::layout(&sig.params, &m.function),
            Protocol::Positional,
        );
        let mut member = self.member(m, sig, &r, ident, def_name, Some(receiver), global);
        member.extend_base = names::extends_base_on_load(ident);
        if !fallback || names::is_base_export(ident) {
            member.drop_fallback();
        }
        Some(member)
    }

    /// The methods of a member with `receiver` (its declaration's type) or none (a
    /// constructor), each calling `global` with the receiver first and the arguments it was
    /// given; the globals pass on what is left out (its defaults, `TVMFFI.OMITTED` keywords).
    #[allow(clippy::too_many_arguments)]
    fn member(
        &self,
        m: &ir::Member,
        sig: &ir::Signature,
        r: &Rendered,
        ident: &str,
        def_name: &str,
        receiver: Option<&str>,
        global: &str,
    ) -> Member {
        let receiver_decl = receiver.map(|t| format!("self::{t}"));
        let keywords: Vec<String> = r.keywords.iter().map(|k| format!("{k} = {k}")).collect();
        let overloads = r
            .overloads
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let args: Vec<&str> = receiver
                    .map(|_| "self")
                    .into_iter()
                    .chain(
                        r.positional[..r.required + i]
                            .iter()
                            .map(|p| p.ident.as_str()),
                    )
                    .collect();
                let call = match keywords.as_slice() {
                    [] => format!("{global}({})", args.join(", ")),
                    k => format!("{global}({}; {})", args.join(", "), k.join(", ")),
                };
                MemberOverload {
                    params: join_decls(receiver_decl.as_deref(), &o.params),
                    where_clause: String::new(),
                    call,
                }
            })
            .collect();
        let spelled_receiver = receiver.map(|_| "self");
        let mut keys = r.dispatch_keys(receiver);
        keys.push(
            receiver
                .into_iter()
                .map(str::to_string)
                .chain([VARARGS.to_string()])
                .collect(),
        );
        let ret = self.returns(&sig.ret);
        let doc_signature = format!(
            "{ident}({}){}",
            join_decls(receiver_decl.as_deref(), &r.doc_params),
            Self::arrow(&ret)
        );
        Member {
            def_name: def_name.to_string(),
            ident: ident.to_string(),
            extend_base: false,
            doc: docstring(
                std::slice::from_ref(&doc_signature),
                &[
                    doc_lines(&crate::lang::naming::member_doc(m)),
                    r.doc_args.clone(),
                    prose(&format!("In Julia the global is `{global}`.")),
                ],
            ),
            doc_signature,
            overloads,
            fallback: Some((
                join_decls(receiver_decl.as_deref(), "args...; kwargs..."),
                super::arguments::fallback(ident, spelled_receiver, r),
            )),
            keys,
        }
    }
}
