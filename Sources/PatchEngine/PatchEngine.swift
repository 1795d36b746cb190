import CJavaScriptCore
import PatchRuntime
public enum PatchEngine {
    public static func smoke() -> Double {
        let ctx = JSGlobalContextCreate(nil)
        defer { JSGlobalContextRelease(ctx) }
        let s = JSStringCreateWithUTF8CString("6*7")
        defer { JSStringRelease(s) }
        let v = JSEvaluateScript(ctx, s, nil, nil, 1, nil)
        return JSValueToNumber(ctx, v, nil) + Double(PESmoke())
    }
}
