import PatchRuntime

extension PatchEngine {
    /// Why the engine never takes over `selector` (patch, hook, swizzle), or nil when it may.
    /// Tools use it to report such a method before a patch ships; the runtime core keeps the list.
    public static func reservedSelectorReason(_ selector: String) -> String? {
        PEReservedSelectorReason(selector).map { String(cString: $0) }
    }
}
