extension PatchLoader {
    /// One patch file the app asks for, and the patch id its signed manifest must carry. The
    /// binding stops mix-and-match: a mirror that serves another validly signed patch (for this
    /// app, by a trusted key) under this file name is refused.
    public struct PatchFile: Equatable, Hashable, Sendable {
        /// The file's path under the loader's base URL.
        public var path: String
        /// The patch id the file must carry.
        public var patchID: String

        public init(_ path: String, patchID: String) {
            self.path = path
            self.patchID = patchID
        }
    }
}
