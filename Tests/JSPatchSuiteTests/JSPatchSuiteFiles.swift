import Crypto
import Foundation

/// JSPatch's own test suite where the project keeps outside suites,
/// `../shared/third_party/jspatch-tests` beside the repository, read there at test time (never
/// copied into the project) and checked against the SHA-256 of every file it had when the port
/// was written, so an altered suite is noticed instead of silently measured.
enum JSPatchSuiteFiles {
    /// The suite's folder: `JSPATCH_SUITE_DIR` if set, else `../shared/third_party/jspatch-tests`
    /// from the repository root.
    static let folder: URL = {
        if let path = ProcessInfo.processInfo.environment["JSPATCH_SUITE_DIR"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return repository.deletingLastPathComponent().appendingPathComponent("shared/third_party/jspatch-tests", isDirectory: true)
    }()

    /// Every file of the suite (bang590/JSPatch e80a557, Demo/iOSDemo/JSPatchTests) and its SHA-256.
    static let expectedFiles: [String: String] = [
        "Info.plist": "568c58922bea0b7cb58966a97ae545743ed7710d0cac2334d4e6d80dafbc9a5e",
        "InheritTest.js": "527f47e857ec9697428c92be934d67862165d8fd0ed970749931d3dcae9bde61",
        "JPCFunctionTest.h": "cb9500b0cdf48d015aac95124ce84a852c811216d4bdcc9c92c8f9a9e904043d",
        "JPCFunctionTest.m": "11724e79125350c9333642146440147da1421b6a75f2bd0c21cd67515f6b3644",
        "JPInheritanceTestObjects.h": "1c03c51bf31b99a280afa73f24f810b6078069156160c4cfb1487ad561324325",
        "JPInheritanceTestObjects.m": "06587c7537423c26f9daa858199b9cbf8019c1165b241cd7fa7318fe2843c885",
        "JPJSClassTest.h": "7d9d0340effc798d9a59aaa8bfc2db7eddbd5b59ea1c4fd22a2a9d1956431b6b",
        "JPJSClassTest.m": "a147ac6fb4db9c457d7abc3c5059312ad1d6e9604ea6466f278a42928ad6a796",
        "JPMultithreadTestObject.h": "59317e7c47d8fefa459f3ebb4b7e36debd69b6517acb1f541d339f2428def41c",
        "JPMultithreadTestObject.m": "07774cd6d4d5bf9bb06ee44dcc2f8ab1ae4898f77ef287a040e8e07ecd038734",
        "JPNumberTest.h": "15387bc96f7098656dcca4548dce6cd59b5d897f5381fadec612d26223489f15",
        "JPNumberTest.m": "19d763ab620c1fa68088005de91212e792252c8a6570e1029f6644b105d7b2d6",
        "JPPerformanceTest.h": "07177232e9e2adfd3438026d93c429b06c4eeddc91171e4c08bc3f6f30956c0c",
        "JPPerformanceTest.m": "ed897e93c67b426a1b2ac30f52e7e678c80991078b72575d22bf6d6e2ee59e8e",
        "JPSuperTestObject.h": "d71b8d9c818c4673bc54bbe3383f3299620e596c89720a073d4b96bc59c0d9f3",
        "JPSuperTestObject.m": "4b10831d4ba1b7297c2d7128fa415430d26aca789045267cde715c0276d321df",
        "JPTestObject.h": "81961fbeae6dce5fe25ae8051372ca42790ca1dd7c664f039dc074311d1bd3e3",
        "JPTestObject.m": "7db4ae7418957836ab102407ba84061cfe6d6a8b9746ce21acb1ff46037ba339",
        "JSPatchTests.m": "d2a4d7a6c83d001b09d65786131a23165ddc5a3ea0443fe18372443032f23539",
        "LICENSE": "c08c9603fc30afd19dc4f4de351e8db4a88fb2f4ce4f10115b1782535f2f7783",
        "SOURCE": "525b0cb512beda631839d7ba6431ef65cf6d732dc0a06350b0068ac0a8fb45f0",
        "jsCFunctionTest.js": "22c728438800a5ec3e0b8eb9c06ea83cf16aa7ed854a0396c1c911d09e2f8293",
        "jsClassTest.js": "59f92c0ef8db573415cce4a9916fc09d086f2227e9dc22d523a93e53031fa69c",
        "jsNumberTest.js": "c75b4de7203e6b8977e4bcd028be10df0587479e59584d2482afe95de9d3cac0",
        "multithreadTest.js": "eca31206fc3494393141c7620516adeb304fa27f03a8a999750929fda22610d4",
        "newBlockTest.h": "ddf8c03b95d2e0227633ff67ec103eeb78401d18fbc5325dcdc0adc392f552c2",
        "newBlockTest.js": "288259a3aa22152f334ae6e20c23f5fc52d22b8626a4e106a72d7a36ab075d03",
        "newBlockTest.m": "00211d1111b2579cd2dc83baada5223c68fdef66b162d499544ba7450ec66a01",
        "newProtocolTest.h": "279b8b787107a8ba398427717b233b75b8047094cd6efc04aad126be27fd4afb",
        "newProtocolTest.js": "5eec364f030aab1bfe108b35cdc30c7e9ad8cbad7071f323d2a2d0abbfb391b2",
        "newProtocolTest.m": "baa82ab7eebd99a399fc766a5ed4f0be1f25226235f0935b6f978d7ac0e04078",
        "performanceTest.js": "8b713e168afb26cd5879ed99e55da9743616271c9b350b18ec7360b2c20b763e",
        "protocolTest.js": "33bfe8c2f6edf1193501aca671a454c707e8f8887a96eefad1d9bc06b4ec199b",
        "superTest.js": "297cbab7f87867dad8149cf441ffbfc1d7aef7ffd8d3220e0d77cdf3b17d5d8d",
        "test.js": "f1e5ff0fa37f95e34fed2fbc7be480b3c54072ac0e277c426db4098159250dbb",
    ]

    enum Status {
        /// Every expected file is there with its hash: the scripts by file name.
        case verified(scripts: [String: String])
        /// The folder is absent (a clone without `../shared`).
        case missing(String)
        /// A file is missing, changed or extra.
        case altered(String)
    }

    /// Checked once per process.
    static let status: Status = {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return .missing("JSPatch's suite was NOT run: no folder at \(folder.path) (expected ../shared/third_party/jspatch-tests beside the repository, or JSPATCH_SUITE_DIR)")
        }
        let present = Set((try? manager.contentsOfDirectory(atPath: folder.path)) ?? [])
        var problems: [String] = []
        var scripts: [String: String] = [:]
        for (name, hash) in expectedFiles.sorted(by: { $0.key < $1.key }) {
            guard let data = manager.contents(atPath: folder.appendingPathComponent(name).path) else {
                problems.append("\(name) is missing"); continue
            }
            let actual = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            if actual != hash { problems.append("\(name) changed (sha256 \(actual))"); continue }
            if name.hasSuffix(".js") { scripts[name] = String(decoding: data, as: UTF8.self) }
        }
        for extra in present.subtracting(expectedFiles.keys).sorted() { problems.append("\(extra) is not part of the suite") }
        if !problems.isEmpty {
            return .altered("JSPatch's suite at \(folder.path) is not the one this port was written against: " + problems.joined(separator: "; "))
        }
        return .verified(scripts: scripts)
    }()

    /// The script JSPatchTests.m loads as `name` (`[NSBundle pathForResource:name ofType:@"js"]`):
    /// matched without regard to case, as the bundle lookup on Apple's default file systems does
    /// (the suite asks for "inheritTest", the file is InheritTest.js).
    static func script(named name: String, in scripts: [String: String]) -> (url: URL, source: String)? {
        let wanted = (name + ".js").lowercased()
        guard let file = scripts.keys.first(where: { $0.lowercased() == wanted }) else { return nil }
        return (folder.appendingPathComponent(file), scripts[file]!)
    }
}
