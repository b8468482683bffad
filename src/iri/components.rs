//! The five components of a reference (RFC 3986 §3, as §5.2 names them) and their
//! recomposition (RFC 3986 §5.3). The parser produces them ([`crate::iri::parse::IriRef::components`]);
//! resolution ([`crate::iri::resolve`]) consumes them.

/// The five components of a reference as RFC 3986 §5.2 names them, each `None` when the
/// component (with its delimiter) is absent. `path` is always present, possibly empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Components<'a> {
    /// The scheme, without its `:`.
    pub scheme: Option<&'a str>,
    /// The authority, without its leading `//`.
    pub authority: Option<&'a str>,
    /// The path (possibly empty).
    pub path: &'a str,
    /// The query, without its `?`.
    pub query: Option<&'a str>,
    /// The fragment, without its `#`.
    pub fragment: Option<&'a str>,
}

impl<'a> Components<'a> {
    /// Recomposes the components into a reference, appending it to `out`, following
    /// RFC 3986 §5.3: `scheme ":"`, `"//" authority`, the path, `"?" query`, `"#" fragment`,
    /// each only when defined. Components are written exactly as given (no case folding,
    /// no encoding, no dot removal).
    ///
    /// One rule is added to §5.3: when there is no authority and the path starts with
    /// `//`, `/.` is written before the path (so `a:` + path `//x` gives `a:/.//x`). Without
    /// it the result would be re-read as having an authority (`a://x`); `/.//x` is the same
    /// path once its dot segments are removed (RFC 3986 §5.2.4), so this is stable under
    /// re-normalization.
    ///
    /// No other fix-up is made: an authority with a non-empty path that does not start with
    /// `/`, or a scheme-less reference whose first path segment contains `:` (RFC 3986
    /// §4.2), is written as is.
    pub fn write(&self, out: &mut String) {
        if let Some(scheme) = self.scheme {
            out.push_str(scheme);
            out.push(':');
        }
        if let Some(authority) = self.authority {
            out.push_str("//");
            out.push_str(authority);
        } else if self.path.starts_with("//") {
            out.push_str("/.");
        }
        out.push_str(self.path);
        write_query_fragment(self.query, self.fragment, out);
    }
}

/// Appends `"?" query` and `"#" fragment` when defined (RFC 3986 §5.3).
pub(crate) fn write_query_fragment(query: Option<&str>, fragment: Option<&str>, out: &mut String) {
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
}
