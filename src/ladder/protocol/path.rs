//! Stage 3, the path (RFC 3987 §5.3.4; SPEC §4, "protocol"): `lowercase-path`, then
//! `drop-path-params`, then `trailing-slash`.
//!
//! A path parameter starts at a `;` inside a segment and runs to the next `;` or the end of
//! the segment; an encoded `%3B` is not a separator (RFC 3986 §2.2, §3.3).

use super::kind::RuleKind;
use super::rule::{Action, Rule, SlashPolicy};
use super::{Fired, Rules};

impl Rules {
    /// Stage 3: lowercase, path parameters, trailing slash. Writes the path to `out`.
    pub(super) fn path_stage(
        &self,
        path: &str,
        has_authority: bool,
        in_scope: &dyn Fn(&Rule) -> bool,
        out: &mut String,
        fired: &mut dyn Fired,
    ) {
        let start = out.len();
        let lowered;
        let mut path = path;
        if self.any_in_scope(RuleKind::LowercasePath, in_scope) {
            lowered = lowercase_path(path);
            if lowered != path {
                fired.fire(RuleKind::LowercasePath);
            }
            path = &lowered;
        }
        if path.contains(';') && self.any_in_scope(RuleKind::DropPathParams, in_scope) {
            if self.drop_path_params(path, in_scope, out) {
                fired.fire(RuleKind::DropPathParams);
                // Without an authority, a path may not start with "//" (it would be read as
                // one): write "/." first, as the scheme rung does (RFC 3986 §5.2.4, §5.3).
                if !has_authority && out[start..].starts_with("//") {
                    out.insert_str(start, "/.");
                }
            }
        } else {
            out.push_str(path);
        }
        self.trailing_slash(start, in_scope, out, fired);
    }

    /// Writes `path` without the path parameters that a rule in scope drops; whether it
    /// dropped one.
    fn drop_path_params(
        &self,
        path: &str,
        in_scope: &dyn Fn(&Rule) -> bool,
        out: &mut String,
    ) -> bool {
        let mut dropped = false;
        for (i, segment) in path.split('/').enumerate() {
            if i > 0 {
                out.push('/');
            }
            let mut parts = segment.split(';');
            out.push_str(parts.next().unwrap_or(""));
            for param in parts {
                let drop = self.rules.iter().any(|r| match &r.action {
                    Action::DropPathParams(f) => in_scope(r) && f.matches(param),
                    _ => false,
                });
                if drop {
                    dropped = true;
                } else {
                    out.push(';');
                    out.push_str(param);
                }
            }
        }
        dropped
    }

    /// Applies the first trailing-slash rule in scope to the path written from `start`.
    fn trailing_slash(
        &self,
        start: usize,
        in_scope: &dyn Fn(&Rule) -> bool,
        out: &mut String,
        fired: &mut dyn Fired,
    ) {
        let policy = self.rules.iter().find_map(|r| match r.action {
            Action::TrailingSlash(p) if in_scope(r) => Some(p),
            _ => None,
        });
        let p = &out[start..];
        if !p.starts_with('/') {
            return;
        }
        match policy {
            Some(SlashPolicy::Remove) => {
                let mut keep = p.trim_end_matches('/').len().max(1);
                // A key without an authority writes a path that starts with `//` behind the
                // guard `/.` (RFC 3986 §3.3); with the slashes gone the guard would stand
                // alone as a dot segment, which the scheme rung removes: the path is `/`.
                if &p[..keep] == "/." {
                    keep = 1;
                }
                if keep < p.len() {
                    out.truncate(start + keep);
                    fired.fire(RuleKind::TrailingSlash);
                }
            }
            Some(SlashPolicy::Add) => {
                let last = &p[p.rfind('/').map_or(0, |i| i + 1)..];
                if !last.is_empty() && !last.contains('.') {
                    out.push('/');
                    fired.fire(RuleKind::TrailingSlash);
                }
            }
            Some(SlashPolicy::Keep) | None => {}
        }
    }
}

/// ASCII letters to lowercase, except the hex digits of `%XX`.
fn lowercase_path(path: &str) -> String {
    let mut b = path.as_bytes().to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            i += 3;
        } else {
            b[i] = b[i].to_ascii_lowercase();
            i += 1;
        }
    }
    // Only ASCII bytes changed, so the text is still UTF-8.
    String::from_utf8(b).unwrap_or_else(|_| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::super::ParamFilter;
    use super::*;

    fn rules(actions: Vec<Action>) -> Rules {
        Rules::new(actions.into_iter().map(Rule::new).collect())
    }

    fn path(rules: &Rules, path: &str, has_authority: bool) -> (String, Vec<RuleKind>) {
        let mut out = String::new();
        let mut fired: Vec<RuleKind> = Vec::new();
        rules.path_stage(path, has_authority, &|_| true, &mut out, &mut fired);
        (out, fired)
    }

    #[test]
    fn lowercase_keeps_percent_encodings() {
        assert_eq!(lowercase_path("/A%C3%A9B/%2F"), "/a%C3%A9b/%2F");
        assert_eq!(lowercase_path("/É"), "/É");
    }

    #[test]
    fn a_dropped_parameter_never_leaves_an_authority() {
        let r = rules(vec![Action::DropPathParams(
            ParamFilter::new(&["sid"]).unwrap(),
        )]);
        assert_eq!(path(&r, ";sid=1//a", false).0, "/.//a");
        assert_eq!(path(&r, "/;sid=1/a", true).0, "//a");
        assert_eq!(path(&r, "/a;%3Bsid=1", true).0, "/a;%3Bsid=1");
    }

    #[test]
    fn trailing_slash_policies() {
        let add = rules(vec![Action::TrailingSlash(SlashPolicy::Add)]);
        assert_eq!(
            path(&add, "/a/b", true),
            ("/a/b/".into(), vec![RuleKind::TrailingSlash])
        );
        assert_eq!(path(&add, "/a/b.html", true).0, "/a/b.html");
        assert_eq!(path(&add, "a/b", false).0, "a/b");
        let remove = rules(vec![Action::TrailingSlash(SlashPolicy::Remove)]);
        assert_eq!(path(&remove, "/a//", true).0, "/a");
        assert_eq!(path(&remove, "//", true).0, "/");
        // The authority guard of `x:/.//` does not become a dot segment.
        assert_eq!(path(&remove, "/.//", false).0, "/");
        let keep_first = rules(vec![
            Action::TrailingSlash(SlashPolicy::Keep),
            Action::TrailingSlash(SlashPolicy::Remove),
        ]);
        assert_eq!(path(&keep_first, "/a/", true), ("/a/".into(), vec![]));
    }
}
