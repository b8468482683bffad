//! Reference resolution (RFC 3986 §5.2, RFC 3987 §6.5) and recomposition (RFC 3986 §5.3).

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
