//! `cargo run -p xtask-codegen [-- --check]`: the generator alone (the same as `cargo xtask codegen`),
//! usable when the generated code itself does not compile.

fn main() -> anyhow::Result<()> {
    let check = std::env::args().skip(1).any(|arg| arg == "--check");
    xtask_codegen::run(check)
}
