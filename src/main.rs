fn main() -> std::process::ExitCode {
    nagger::cmd::main()
}
