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
    if rustc_minor().is_some_and(|minor| minor >= AVX512_MINOR) {
        println!("cargo:rustc-cfg=irinorm_avx512");
    }
}

/// The minor version of the compiler that builds the crate (`rustc 1.MINOR.PATCH ...`).
fn rustc_minor() -> Option<u32> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc).arg("--version").output().ok()?;
    let version = String::from_utf8(output.stdout).ok()?;
    let mut numbers = version.split_whitespace().nth(1)?.split('.');
    (numbers.next()? == "1").then_some(())?;
    numbers.next()?.parse().ok()
}
