//! Problems found while generating, each naming the item it is about.

use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The backend cannot express the item and left it out; fatal unless the item is listed
    /// with `--allow-unsupported`.
    Unsupported,
    /// Generation cannot produce correct code (for example, two items get the same name).
    Error,
}

/// One problem.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    /// The language whose backend reported it.
    pub lang: &'static str,
    /// How bad it is.
    pub severity: Severity,
    /// The item path: a function name, a type key, or `type.member`.
    pub item: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Unsupported => "unsupported",
            Severity::Error => "error",
        };
        write!(f, "{}: {kind}: {}: {}", self.lang, self.item, self.message)
    }
}

/// The diagnostics of one run (an error store: backends push and keep going).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Records that `item` cannot be expressed and was left out.
    pub fn unsupported(&mut self, lang: &'static str, item: &str, message: impl Into<String>) {
        self.push(lang, Severity::Unsupported, item, message.into());
    }

    /// Records an error about `item`.
    pub fn error(&mut self, lang: &'static str, item: &str, message: impl Into<String>) {
        self.push(lang, Severity::Error, item, message.into());
    }

    fn push(&mut self, lang: &'static str, severity: Severity, item: &str, message: String) {
        self.items.push(Diagnostic {
            lang,
            severity,
            item: item.to_string(),
            message,
        });
    }

    /// Adds every diagnostic of `other`.
    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    /// All diagnostics, sorted (language, severity, item).
    pub fn sorted(&self) -> Vec<&Diagnostic> {
        let mut v: Vec<&Diagnostic> = self.items.iter().collect();
        v.sort();
        v
    }

    /// No diagnostics at all.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The diagnostics that make the run fail: errors, and unsupported items not allowed by
    /// `allowed` (item paths; a trailing `*` matches a prefix).
    pub fn fatal(&self, allowed: &[String]) -> Diagnostics {
        let ok = |item: &str| {
            allowed.iter().any(|pat| match pat.strip_suffix('*') {
                Some(prefix) => item.starts_with(prefix),
                None => item == pat,
            })
        };
        Diagnostics {
            items: self
                .items
                .iter()
                .filter(|d| d.severity == Severity::Error || !ok(&d.item))
                .cloned()
                .collect(),
        }
    }

    /// `out` when nothing is [fatal](Self::fatal), else the fatal diagnostics: how a backend
    /// ends.
    pub fn result<T>(&self, out: T, allowed: &[String]) -> Result<T, Diagnostics> {
        let fatal = self.fatal(allowed);
        if fatal.is_empty() {
            Ok(out)
        } else {
            Err(fatal)
        }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.sorted().into_iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}
