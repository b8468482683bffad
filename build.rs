//! Tells the crate whether the compiler has the AVX-512 intrinsics (stable from Rust 1.89):
//! the fast path's AVX-512 backend is compiled only where it does (`cfg(irinorm_avx512)`),
//! so the crate still builds with older compilers, down to its `rust-version`.

use std::env;
use std::process::Command;

/// The first Rust release with the AVX-512 intrinsics and target features stable.
const AVX512_MINOR: u32 = 89;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(irinorm_avx512)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
    if rustc_version().is_some_and(has_avx512) {
        println!("cargo:rustc-cfg=irinorm_avx512");
    }
}

/// The version of the compiler that builds the crate: its major and minor numbers, and
/// whether it is a nightly or development build (`rustc 1.89.0-nightly (...)`).
struct Version {
    major: u32,
    minor: u32,
    unreleased: bool,
}

/// Whether a compiler of `v` has the AVX-512 intrinsics stable. A nightly or development
/// build of 1.89 may predate their stabilization: only from 1.90 on for those.
fn has_avx512(v: Version) -> bool {
    let release = if v.unreleased {
        AVX512_MINOR + 1
    } else {
        AVX512_MINOR
    };
    v.major > 1 || v.minor >= release
}

/// The version `rustc --version` reports, if it reads as one (`rustc 1.MINOR.PATCH...`).
fn rustc_version() -> Option<Version> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc).arg("--version").output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut numbers = version.split('.');
    let major = numbers.next()?.parse().ok()?;
    let minor = numbers.next()?.parse().ok()?;
    let unreleased = version.contains("-nightly") || version.contains("-dev");
    Some(Version {
        major,
        minor,
        unreleased,
    })
}
