// The JavaScriptCore C API: WebKitGTK's javascriptcoregtk-4.1 on Linux,
// the system JavaScriptCore.framework on Apple platforms. Same header path, same API.
#include <JavaScriptCore/JavaScript.h>
