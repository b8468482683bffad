//! Hosts: IP literals (RFC 3986 §3.2.2, RFC 5952) and IDNA (UTS #46 through the `idna` crate).
