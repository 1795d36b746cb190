import ArgumentParser

extension PatchCtl {
    /// Every subcommand, in the order `--help` lists them.
    static let allSubcommands: [ParsableCommand.Type] = [
        Preprocess.self,
    ]
}
