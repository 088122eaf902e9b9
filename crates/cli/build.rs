//! Links the `schema2iceberg` binary with the functions that typical commands run side by side,
//! in the order of `symbol-order.txt`, so that a run maps fewer pages of its 19 MB of code
//! (docs/performance.md, "Code layout"; `cargo xtask symbol-order` writes the file).
//!
//! Only rust-lld, the default linker of x86_64-unknown-linux-gnu since Rust 1.90, is given the
//! file: a linker the user chose may not know the option, and then the link would fail. A name
//! the file lists that the build does not define (another toolchain, a changed dependency) is
//! skipped by the linker; `cargo xtask symbol-order --check` is what notices a stale file.

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=symbol-order.txt");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    if env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu") {
        return;
    }
    // Cargo sets RUSTC_LINKER when `target.<triple>.linker` is configured; the flags name the
    // other ways to choose a linker (`-C linker=`, `-C linker-features=`, `-fuse-ld=`).
    if env::var_os("RUSTC_LINKER").is_some() {
        return;
    }
    let rustflags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if rustflags
        .split('\x1f')
        .any(|flag| flag.contains("linker") || flag.contains("fuse-ld"))
    {
        return;
    }
    let Some(manifest_dir) = env::var_os("CARGO_MANIFEST_DIR") else {
        return;
    };
    let order = Path::new(&manifest_dir).join("symbol-order.txt");
    let Some(order) = order.to_str() else {
        return;
    };
    // `-Wl,` splits its argument at commas.
    if order.contains(',') || !Path::new(order).is_file() {
        return;
    }
    println!("cargo:rustc-link-arg-bin=schema2iceberg=-Wl,--symbol-ordering-file={order}");
    println!("cargo:rustc-link-arg-bin=schema2iceberg=-Wl,--no-warn-symbol-ordering");
}
