//! Parameters as every backend offers them, decided once: the identifiers (each language's
//! spelling, respelled with a trailing `_` where a reserved or earlier name is taken) and the
//! groups callers see: required positional parameters, positional ones with a default (after
//! the required ones), keyword-only ones. Each backend renders the groups in its own idiom
//! (Julia keywords, a Node options object, a C++ options struct) and calls the library with
//! the arguments in the library's order.

use super::naming::Scope;
use crate::ir::{self, Literal, ParamDefault};

/// A parameter of a binding.
pub struct Offered<'a> {
    /// The parameter.
    pub param: &'a ir::Param,
    /// Its identifier in the target language.
    pub ident: String,
    /// Its position in the library's order.
    pub index: usize,
}

impl Offered<'_> {
    /// The value the binding passes when the caller leaves it out, when it has one.
    pub fn default_value(&self) -> Option<&Literal> {
        self.param.default.as_ref().and_then(ParamDefault::value)
    }

    /// Its default as docs show it: the value as `spell` writes it in the language, or "the
    /// library's" when only the library knows it; `None` without a default.
    pub fn default_doc(&self, spell: impl Fn(&Literal) -> String) -> Option<String> {
        let default = self.param.default.as_ref()?;
        Some(
            default
                .value()
                .map_or_else(|| "the library's".to_string(), spell),
        )
    }
}

/// The parameters of one function, method or constructor, grouped.
pub struct Layout<'a> {
    /// Positional parameters without a default, in the library's order.
    pub required: Vec<Offered<'a>>,
    /// Positional parameters with a default, in the library's order (after the required ones).
    pub optional: Vec<Offered<'a>>,
    /// Keyword-only parameters, in the library's order.
    pub keyword: Vec<Offered<'a>>,
    /// The identifiers in the library's order.
    pub idents: Vec<String>,
}

impl<'a> Layout<'a> {
    /// Groups `params`: identifiers from `spell` (the language's `names.rs`), made unique in
    /// a scope where `reserved` is taken; `item` names the callable in diagnostics.
    ///
    /// A positional parameter without default that follows one with a default (which the IR
    /// refuses from the overlay and `arg_defaults` never writes) is required and takes the
    /// defaulted ones before it with it.
    pub fn new(
        params: &'a [ir::Param],
        reserved: &[&str],
        spell: impl Fn(&str) -> String,
        item: &str,
    ) -> Self {
        let mut scope = Scope::with_reserved(reserved);
        let idents: Vec<String> = params
            .iter()
            .map(|p| scope.claim_free(&spell(&p.name), &format!("{item}({})", p.name)))
            .collect();
        let last_required = params
            .iter()
            .rposition(|p| !p.kw_only && p.default.is_none());
        let mut layout = Layout {
            required: Vec::new(),
            optional: Vec::new(),
            keyword: Vec::new(),
            idents: idents.clone(),
        };
        for (index, (param, ident)) in params.iter().zip(idents).enumerate() {
            let offered = Offered {
                param,
                ident,
                index,
            };
            if param.kw_only {
                layout.keyword.push(offered);
            } else if param.default.is_some() && last_required.is_none_or(|r| index > r) {
                layout.optional.push(offered);
            } else {
                layout.required.push(offered);
            }
        }
        layout
    }

    /// Every parameter in the order callers see them: required, optional, keyword-only.
    pub fn offered(&self) -> impl Iterator<Item = &Offered<'a>> {
        self.required
            .iter()
            .chain(&self.optional)
            .chain(&self.keyword)
    }

    /// Every parameter in the library's order.
    pub fn in_library_order(&self) -> Vec<&Offered<'a>> {
        let mut all: Vec<&Offered<'a>> = self.offered().collect();
        all.sort_by_key(|o| o.index);
        all
    }

    /// Whether the parameters say more than a signature shows (a doc, a default or
    /// keyword-only): then every language's docs list them.
    pub fn worth_listing(&self) -> bool {
        self.offered()
            .any(|o| !o.param.doc.is_empty() || o.param.default.is_some() || o.param.kw_only)
    }

    /// Whether a keyword-only parameter has no default (callers must name it).
    pub fn has_required_keyword(&self) -> bool {
        self.keyword.iter().any(|k| k.param.default.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{NameSource, Param, Type};

    fn param(name: &str, default: Option<Literal>, kw_only: bool) -> Param {
        Param {
            default: default.map(ParamDefault::Binding),
            kw_only,
            ..Param::new(name, NameSource::Overlay, Type::Int)
        }
    }

    #[test]
    fn groups_and_idents() {
        let params = vec![
            param("self", None, false),
            param("x", None, true),
            param("n", Some(Literal::Int(1)), false),
            param("flag", Some(Literal::Bool(true)), true),
        ];
        let layout = Layout::new(&params, &["self"], |n| n.to_uppercase(), "f");
        let idents = |g: &[Offered<'_>]| g.iter().map(|o| o.ident.clone()).collect::<Vec<_>>();
        assert_eq!(idents(&layout.required), ["SELF"]);
        assert_eq!(idents(&layout.optional), ["N"]);
        assert_eq!(idents(&layout.keyword), ["X", "FLAG"]);
        assert!(layout.has_required_keyword());
        let order: Vec<usize> = layout.in_library_order().iter().map(|o| o.index).collect();
        assert_eq!(order, [0, 1, 2, 3]);
        // A reserved name is respelled.
        let layout = Layout::new(&params[..1], &["SELF"], |n| n.to_uppercase(), "f");
        assert_eq!(layout.idents, ["SELF_"]);
    }

    #[test]
    fn a_required_parameter_after_a_defaulted_one_keeps_both_positional() {
        let params = vec![
            param("a", Some(Literal::Int(1)), false),
            param("b", None, false),
            param("c", Some(Literal::Int(2)), false),
        ];
        let layout = Layout::new(&params, &[], str::to_string, "f");
        assert_eq!(layout.required.len(), 2);
        assert_eq!(layout.optional.len(), 1);
        assert_eq!(layout.optional[0].ident, "c");
    }
}
