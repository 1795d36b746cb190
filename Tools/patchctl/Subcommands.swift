import ArgumentParser

extension PatchCtl {
    /// Every subcommand, in the order `--help` lists them.
    static let allSubcommands: [ParsableCommand.Type] = [
        Keygen.self,
        Sign.self,
        Verify.self,
        Lint.self,
        Preprocess.self,
        Serve.self,
        Dev.self,
        Revoke.self,
    ]
}
