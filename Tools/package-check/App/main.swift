// The app Tools/package-check/run.sh builds: evaluates a patch through the versioned dependency.
import PatchEngine

var lines: [String] = []
PatchEngine.logHandler = { lines.append($0) }
_ = try PatchEngine.evaluate("console.log('versioned dependency: ' + (6 * 7));", name: "check.js")
for line in lines { print(line) }
