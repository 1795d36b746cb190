import ArgumentParser

extension PatchCtl {
    /// Every subcommand, in the order `--help` lists them.
    static let allSubcommands: [ParsableCommand.Type] = [
        Keygen.self,
        Sign.self,
        Verify.self,
        Lint.self,
        // Writing patches: the app's interface, and patches checked against it.
        Interface.self, Check.self, Convert.self,
        Preprocess.self,
        Serve.self,
        Dev.self,
        Revoke.self,
        // Staged releases through the release service (docs/releases.md).
        Release.self, Promote.self, Rollout.self, Disable.self, Enable.self, Status.self, Revocations.self, Publish.self,
        // The TUF repository (docs/tuf-design.md).
        Repo.self,
    ]
}
