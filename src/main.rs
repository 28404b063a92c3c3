fn main() -> std::process::ExitCode {
    nagger::edge::cmd::main()
}
