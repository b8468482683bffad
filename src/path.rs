//! Dot-segment removal (RFC 3986 §5.2.4).
