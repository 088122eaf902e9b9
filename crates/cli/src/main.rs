//! The `schema2iceberg` binary: everything but the process exit lives in the library.

fn main() -> std::process::ExitCode {
    schema2iceberg::run(std::env::args_os())
}
