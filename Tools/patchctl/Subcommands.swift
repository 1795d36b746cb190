import ArgumentParser

extension PatchCtl {
    /// Every subcommand, in the order `--help` lists them.
    static let allSubcommands: [ParsableCommand.Type] = [
        Lint.self,
        // Writing patches: the app's interface, and patches checked against it.
        Interface.self, Check.self, Convert.self,
        Preprocess.self,
        Serve.self,
        Dev.self,
        // Releases: the TUF repository, published as a static tree or to the release service (docs/patch-delivery.md).
        Repo.self,
    ]
}
