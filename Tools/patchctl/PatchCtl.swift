import ArgumentParser

/// `patchctl`: the command-line tool for patch authors and QA.
/// Each subcommand lives in its own file, named after it.
@main
struct PatchCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patchctl",
        abstract: "Author, check, sign and serve PatchEngine patches.",
        subcommands: PatchCtl.allSubcommands
    )
}
