//! Compiles the C shim over Embree 3 (Debian: `apt-get install libembree-dev`).
fn main() {
    println!("cargo:rerun-if-changed=shim.c");
    cc::Build::new()
        .file("shim.c")
        .opt_level(3)
        .compile("oeshim");
    println!("cargo:rustc-link-lib=embree3");
}
