/* Every difference between Apple's Objective-C runtime and GCC's runtime + GNUstep (Linux)
   that the runtime core depends on lives in this file. */
#ifndef PE_PLATFORM_H
#define PE_PLATFORM_H
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <objc/message.h>
#include <string.h>
#include <stdlib.h>
#include <stdbool.h>

#if defined(GNU_RUNTIME) || defined(__GNU_LIBOBJC__)
#define PE_GNU_RUNTIME 1
#else
#define PE_GNU_RUNTIME 0
#endif

/* Manual reference counting everywhere: GCC's runtime has no ARC, so the code is written for
   retain/release, and SwiftPM turns ARC on for Darwin unless Package.swift says -fno-objc-arc. */
#if __has_feature(objc_arc)
#error "PatchRuntime is manual reference counting: compile it with -fno-objc-arc (Package.swift, appleObjCFlags)"
#endif

/* libffi, where the platform has it: Debian's <ffi.h>; the macOS SDK's <ffi/ffi.h>; iOS has no
   public libffi (no header, no library to link), so the runtime core does without it there:
   register-only closure entries, the forwarding route for every other patched method, and
   NSInvocation for calls into Objective-C (PEInvocationCall.m). On Linux PEUsesLibFFI() can be
   made false at run time (PATCHENGINE_WITHOUT_LIBFFI=1), so the iOS paths run in the tests here. */
#if defined(__APPLE__)
#include <TargetConditionals.h>
#endif
#if defined(__linux__)
#include <ffi.h>
#define PE_HAS_LIBFFI 1
#elif defined(__APPLE__) && TARGET_OS_OSX && __has_include(<ffi/ffi.h>)
#include <ffi/ffi.h>
#define PE_HAS_LIBFFI 1
#else
#define PE_HAS_LIBFFI 0
#endif

/* Without libffi, calls with floating-point arguments go in registers (PEMixedRegisters.m): both
   64-bit conventions fill the integer and floating-point registers independently, in argument
   order. A struct made only of doubles travels in consecutive floating-point registers when it has
   at most this many members: 2 on x86-64 (System V: 16 bytes, two SSE eightbytes; a CGRect goes in
   memory), 4 on arm64 (AAPCS64 and Apple's arm64 ABI: a homogeneous aggregate; CGRect included).
   0 elsewhere: no mixed-register calls. */
#if defined(__x86_64__)
#define PE_DOUBLE_AGGREGATE_REGISTERS 2
#elif defined(__aarch64__) || defined(__arm64__)
#define PE_DOUBLE_AGGREGATE_REGISTERS 4
#else
#define PE_DOUBLE_AGGREGATE_REGISTERS 0
#endif
/* Where a variadic argument goes: Apple's arm64 ABI puts every one on the stack, in an 8-byte
   slot; x86-64 System V and standard AAPCS64 (Linux arm64) pass them as if named. */
#if defined(__APPLE__) && (defined(__aarch64__) || defined(__arm64__))
#define PE_VARIADIC_ARGUMENTS_ON_STACK 1
#else
#define PE_VARIADIC_ARGUMENTS_ON_STACK 0
#endif
/* x86-64 System V passes a struct over 16 bytes (CGRect) as a copy on the stack; arm64 passes a
   struct of up to 4 doubles in registers and other large ones by reference. */
#if defined(__x86_64__)
#define PE_LARGE_STRUCTS_ON_STACK 1
#else
#define PE_LARGE_STRUCTS_ON_STACK 0
#endif

/* Type encodings. `l` / `L` in an encoding: GCC's runtime reads them as C's long (8 bytes here,
   though clang encodes a long as `q`); Apple's runtime reads them as 32 bits on every platform
   (its 64-bit `@encode(long)` is `q`, and `l` is what a 32-bit long encodes to). */
#if PE_GNU_RUNTIME
#define PE_ENCODED_LONG long
#define PE_ENCODED_ULONG unsigned long
#define PE_ENCODING_C_LONG "l"
#define PE_ENCODING_C_ULONG "L"
#else
#define PE_ENCODED_LONG int32_t
#define PE_ENCODED_ULONG uint32_t
#define PE_ENCODING_C_LONG "q"      /* C's long, as @encode writes it (LP64) */
#define PE_ENCODING_C_ULONG "Q"
#endif
/* The geometry structs' encodings as the platform's @encode writes them: GNUstep's CGRect is its
   NSRect (`_NSRect`, `_NSPoint`, `_NSSize`); Apple's are tagged CGRect, CGPoint, CGSize (and
   CGFloat is a double on both 64-bit platforms). NSRange is `_NSRange` on both. */
#if PE_GNU_RUNTIME
#define PE_ENCODING_CGPOINT "{_NSPoint=dd}"
#define PE_ENCODING_CGSIZE "{_NSSize=dd}"
#define PE_ENCODING_CGRECT "{_NSRect={_NSPoint=dd}{_NSSize=dd}}"
#else
#define PE_ENCODING_CGPOINT "{CGPoint=dd}"
#define PE_ENCODING_CGSIZE "{CGSize=dd}"
#define PE_ENCODING_CGRECT "{CGRect={CGPoint=dd}{CGSize=dd}}"
#endif
#define PE_ENCODING_NSRANGE "{_NSRange=QQ}"

/* The IMP that a message send for `sel` to `receiver` would call. GCC's runtime has no
   objc_msgSend; objc_msg_lookup returns the IMP. Apple: class_getMethodImplementation. */
static inline IMP PELookupIMP(id receiver, SEL sel) {
#if PE_GNU_RUNTIME
    return objc_msg_lookup(receiver, sel);
#else
    return class_getMethodImplementation(object_getClass(receiver), sel);
#endif
}

/* The runtime's generic forwarding IMP for a method of signature `types`: calling it builds an
   NSInvocation and sends -forwardInvocation: to the receiver.
   Apple: _objc_msgForward (and _objc_msgForward_stret for large struct returns on x86_64).
   GNUstep: __objc_msg_forward2 exists but returns a closure that is freed when the current
   autorelease pool drains (verified), so it cannot be installed in a class; PEForwarding.m builds
   an equivalent closure per signature that lives for the process. */
#if PE_GNU_RUNTIME
IMP PEGNUForwardingIMP(const char *types);
static inline IMP PEForwardingIMP(const char *types) { return PEGNUForwardingIMP(types); }
#else
extern void _objc_msgForward(void);
extern void _objc_msgForward_stret(void);
static inline IMP PEForwardingIMP(const char *types) {
#if defined(__x86_64__)
    if (types && types[0] == '{') {
        NSMethodSignature *s = [NSMethodSignature signatureWithObjCTypes:types];
        if ([s methodReturnLength] > 16) return (IMP)_objc_msgForward_stret;
    }
#else
    (void)types;
#endif
    return (IMP)_objc_msgForward;
}
#endif

/* Selectors on GCC's runtime may carry types; registering the typed name lets GNUstep's
   forwarding find the signature. Apple selectors are untyped. */
static inline SEL PESelectorWithTypes(const char *name, const char *types) {
#if PE_GNU_RUNTIME
    return types ? sel_registerTypedName(name, types) : sel_registerName(name);
#else
    (void)types; return sel_registerName(name);
#endif
}

/* Sets `cls`'s own implementation of `sel`, adding the method to `cls` when it only inherits it.
   Apple's class_replaceMethod does exactly that. GCC's class_replaceMethod searches the whole
   hierarchy and replaces the superclass's method when `cls` has none of its own (verified), which
   would patch the parent and every sibling: so on GCC the class's own method list is searched here.
   GCC's method_setImplementation updates the dispatch table of the class that owns the method
   only: a subclass whose table was already built (any subclass instance messaged before) keeps
   calling the old IMP (verified); PEGNURefreshInherited writes the new answer into those tables.
   `own`, when given, remembers the class's own method between calls (a class never loses one):
   finding it is a scan of the class's method list, which made applying or reverting a patch of
   n methods of one class cost O(n²). */
#if PE_GNU_RUNTIME
/* The GCC ABI's class structure (module-abi-8.h); libobjc's public headers keep it opaque. */
struct PEGNUClass {
    struct PEGNUClass *isa, *superclass;
    const char *name;
    long version;
    unsigned long info;
    long instanceSize;
    void *ivars, *methods;
    void *dtable;
    struct PEGNUClass *subclasses, *nextSibling;
    void *protocols, *gcObjectType;
};

/* clang's GCC-ABI metaclasses carry bit 0x10 in their info field, which GCC's libobjc reads as
   _CLS_IN_CONSTRUCTION (a class pair not registered yet). On such a live metaclass (verified):
   class_getSuperclass returns Nil (it reads the superclass field as a class *name*), and
   class_addMethod only links the method with its name still a C string, never registering it
   nor updating dispatch tables. The flag is cleared on classes that are live (resolved, 0x08),
   never on a pair still being built. */
static inline void PEGNUClearStrayConstructionFlag(Class cls) {
    struct PEGNUClass *header = (struct PEGNUClass *)(void *)cls;
    if (header && (header->info & 0x10UL) && (header->info & 0x08UL)) header->info &= ~0x10UL;
}
/* Clears the stray flag on every loaded class and metaclass (again only when classes were loaded
   since the last call), so metaclass hierarchies can be walked. PEGNURuntime.m. */
void PEGNUNormalizeClasses(void);

/* After `sel`'s implementation changed in `cls`: writes the IMP each subclass should now answer
   into every subclass dispatch table already built, the way GCC's own method_setImplementation
   writes the owner's table (copy-on-write, safe for threads sending messages meanwhile).
   GCC's __objc_update_dispatch_table_for_class would also do it, by freeing and rebuilding the
   tables while other threads may be reading them: a use-after-free (verified, a crash within a
   few hundred patch/revert cycles with three threads calling). PEGNURuntime.m. */
void PEGNURefreshInherited(Class cls, SEL sel);

/* method_setImplementation for a method that `cls` owns, then PEGNURefreshInherited; without
   libobjc's __objc_update_classes_with_methods, which scans every method of every loaded class
   for the one changed (37 % of applying a patch of 2,000 methods, and growing with the class).
   Only `cls`'s table lists the method, so only it and its subclasses' tables are written.
   PEGNURuntime.m. */
IMP PEGNUSetOwnImplementation(Class cls, Method own, IMP imp);

/* class_addMethod for a class that may be in use on other threads: the new method's entry is
   written into the class's table and its subclasses' in place, as above, instead of the rebuild
   class_addMethod runs. Falls back to that rebuild when the class has no table yet (nothing to
   free) or a table would have to grow for the selector (a selector registered after the table
   was built; growing frees the old bucket list). PEGNURuntime.m. */
bool PEGNUAddMethod(Class cls, SEL sel, IMP imp, const char *types);
#endif

/* The method `cls` itself defines for `sel` (not an inherited one), or NULL. */
static inline Method PEClassOwnMethod(Class cls, SEL sel) {
#if PE_GNU_RUNTIME
    /* The class's own method lists, walked in place (class_copyMethodList would copy them). */
    struct PEGNUMethod { SEL name; const char *types; IMP imp; };
    struct PEGNUMethodList { struct PEGNUMethodList *next; int count; struct PEGNUMethod methods[]; };
    const char *name = sel_getName(sel);
    if (!name) return NULL;
    for (struct PEGNUMethodList *list = ((struct PEGNUClass *)(void *)cls)->methods; list; list = list->next) {
        for (int i = 0; i < list->count; i++) {
            Method m = (Method)(void *)&list->methods[i];
            /* sel_isEqual first (an index compare): sel_getName takes the runtime's lock, and
               this loop runs for every method a patch takes over. Selectors of one name share
               the index on GCC's runtime, so this skips no match. */
            if (!sel_isEqual(method_getName(m), sel)) continue;
            /* GCC's runtime can list methods whose selector has no name yet: skip them. */
            const char *candidate = sel_getName(method_getName(m));
            if (candidate && strcmp(candidate, name) == 0) return m;
        }
    }
    return NULL;
#else
    unsigned count = 0;
    Method *methods = class_copyMethodList(cls, &count);
    Method own = NULL;
    const char *name = sel_getName(sel);
    for (unsigned i = 0; i < count && !own; i++) {
        /* GCC's runtime can list methods whose selector has no name yet: skip them. */
        const char *candidate = methods[i] ? sel_getName(method_getName(methods[i])) : NULL;
        if (candidate && name && strcmp(candidate, name) == 0) own = methods[i];
    }
    free(methods);
    return own;
#endif
}

static inline IMP PEReplaceMethod(Class cls, SEL sel, IMP imp, const char *types, Method *ownCache) {
#if PE_GNU_RUNTIME
    PEGNUClearStrayConstructionFlag(cls);
    Method own = ownCache && *ownCache ? *ownCache : PEClassOwnMethod(cls, sel);
    if (own) {
        if (ownCache) *ownCache = own;
        /* GCC's method_setImplementation writes the new IMP into the class's dispatch table even
           when that table is not installed yet, i.e. into the one table every class shares until
           its first message: every such class then answers `sel` with `imp` (verified: a subclass
           that overrides the class method ran the parent's patch instead). Installing the table
           first (which runs +initialize, as the first message would) keeps the write local. */
        class_respondsToSelector(cls, sel);
        return PEGNUSetOwnImplementation(cls, own, imp);
    }
    PEGNUAddMethod(cls, sel, imp, types);
    return NULL;
#else
    (void)ownCache;
    return class_replaceMethod(cls, sel, imp, types);
#endif
}

/* Makes the runtime initialise a class (dispatch tables, +initialize) before its methods change.
   GCC's runtime crashes building the dispatch table of a class whose metaclass got a method
   added before the class's first message (verified); Apple's runtime needs nothing, and the
   message is harmless there. Must not be called with dispatcher locks held (+initialize may run
   patched code). */
static inline void PEEnsureClassInitialized(Class cls) {
    Class c = class_isMetaClass(cls) ? objc_lookUpClass(class_getName(cls)) : cls;
    if (c) (void)[(id)c self];
}

/* A process-wide memory barrier: when it returns, every thread of the process has executed a full
   barrier. Lets the epoch readers on the hot path (PEEpochs.h) go without a fence of their own
   (about 5.5 ns per call measured here), the writer paying instead.
   Linux: membarrier(2) with MEMBARRIER_CMD_PRIVATE_EXPEDITED (kernel 4.14+), after registering
   once; PEProcessBarrierAvailable() is false when the kernel or a seccomp filter refuses it.
   Apple: no public equivalent (the mprotect/thread-suspension tricks are not API): unavailable, so
   readers keep their fence there. */
#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
static inline bool PEProcessBarrierRegister(void) {
    long commands = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (commands < 0 || !(commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return false;
    return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}
static inline bool PEProcessBarrier(void) {
    return syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
}
#else
static inline bool PEProcessBarrierRegister(void) { return false; }
static inline bool PEProcessBarrier(void) { return false; }
#endif

/* Which bits of an object's first word say its class, so that the engine's JS can see an object's
   class change (object_setClass, as KVO does when an observer is added) without calling native
   code. GCC's runtime: the word is the class pointer. Apple: a non-pointer isa keeps reference
   counts and flags beside the class bits (objc_debug_isa_class_mask, exported for debuggers),
   and a tagged pointer has no first word at all (objc_debug_taggedpointer_mask). */
#if PE_GNU_RUNTIME
static inline uintptr_t PEIsaClassMask(void) { return ~(uintptr_t)0; }
static inline bool PEObjectHasIsaWord(const void *obj) { return obj != NULL; }
#else
/* Both masks are private symbols, looked up at run time (PEPrivateSymbols.m); without them no
   object reports a class word. */
uintptr_t PEIsaClassMask(void);
bool PEObjectHasIsaWord(const void *obj);
#endif

/* Protocol objects. Apple: every `@protocol(X)` in compiled code is the runtime's one protocol
   object for X (the runtime fixes protocol references up at load), a Protocol, an NSObject.
   GCC's runtime, for clang's -fobjc-runtime=gcc code (verified): a module's compiled
   `@protocol(X)` object is registered (its class word set to the Protocol class) only when a
   class or category of that same module adopts X. Otherwise its class word stays the GCC ABI's
   protocol version, 2: it is no object (any message crashes), protocol_getName answers NULL for
   it, and `[obj conformsToProtocol:]` with it answers NO. A registered one may still be another
   module's copy, not the one objc_getProtocol answers. And a Protocol is a subclass of the bare
   root class Object: it answers -isEqual:, -class, -_conformsToProtocolNamed: and the port-coder
   pair, and a message it lacks (-retain, -release, -description, -methodSignatureForSelector:...)
   raises. So wherever a protocol pointer crosses into JS the engine takes the canonical one, and
   never sends a protocol a message it does not answer. */
#if PE_GNU_RUNTIME
#define PE_GNU_UNREGISTERED_PROTOCOL_WORD ((uintptr_t)2)
/* The GCC ABI's protocol (module-abi-8.h), and its method description and protocol lists. */
struct PEGNUMethodDescriptionList { int count; struct objc_method_description list[]; };
struct PEGNUProtocolList { struct PEGNUProtocolList *next; size_t count; struct PEGNUProtocol *list[]; };
struct PEGNUProtocol {
    Class class_pointer;
    char *protocol_name;
    struct PEGNUProtocolList *protocol_list;
    struct PEGNUMethodDescriptionList *instance_methods, *class_methods;
};
/* Whether `obj`'s first word makes it a protocol object, registered or not. */
static inline bool PEPlatformIsProtocol(const void *obj, Class protocolClass) {
    uintptr_t word = *(const uintptr_t *)obj;
    return word == (uintptr_t)protocolClass || word == PE_GNU_UNREGISTERED_PROTOCOL_WORD;
}
/* Builds and registers a protocol in the ABI's layout (defineProtocol's, PEClassBuilder.m), with
   `inherited` (may be NULL) as its protocol list. */
void *PEGNUProtocolCreate(const char *name, unsigned count, const char *const *selectors, const char *const *types,
                          const bool *instance, struct PEGNUProtocolList *inherited, char **error);
/* The protocol objc_getProtocol answers for `protocol`'s name. A compiled protocol no module
   registered gets a registered twin first: its name, its methods (their selectors registered
   with their types, as the runtime does for a registered one) and its inherited protocols
   (canonical in turn), so that it exists for the runtime as it would on Apple. PEGNURuntime.m. */
void *PEGNUCanonicalProtocol(void *protocol);
static inline void *PEPlatformCanonicalProtocol(void *protocol) { return PEGNUCanonicalProtocol(protocol); }
#else
static inline bool PEPlatformIsProtocol(const void *obj, Class protocolClass) {
    return object_getClass((id)obj) == protocolClass;
}
static inline void *PEPlatformCanonicalProtocol(void *protocol) { return protocol; }
#endif

/* A forwarded call's object result that must not be retained: a protocol object, which answers
   no -retain on GCC's runtime (above). GNUstep's -setReturnValue: retains an object result, and
   the invocation's -dealloc (or GNUstep's forwarding callback) releases or autoreleases it again
   (verified: a patched method returning a protocol on the forwarding route raised "does not
   respond to forwardInvocation: for 'retain'"). So on GNUstep such a result is written straight
   into the invocation's return buffer (NSInvocation's public ivars there) and left marked as not
   set, which makes all of them leave it alone; PEGNUInvocationReturn reads it back for the
   engine's own forwarding closure (GNUstep's callback returns that buffer as it is). Apple: a
   Protocol is an NSObject, and -setReturnValue: is right. */
static inline void PEPlatformSetInvocationReturn(NSInvocation *inv, void *ret, bool unretained) {
#if PE_GNU_RUNTIME
    if (unretained) {
        *(void **)inv->_retval = *(void **)ret;
        inv->_validReturn = NO;
        return;
    }
#else
    (void)unretained;
#endif
    [inv setReturnValue:ret];
}
#if PE_GNU_RUNTIME
/* The result of a forwarded call the engine's forwarding closure made: `objectResult` when the
   method returns an object, which may have been set unretained (above). The invocation's return
   buffer is cleared before the call (PEGNUInvocationClearReturn), so a result nobody set reads
   as nil there rather than as what the buffer held. */
static inline void PEGNUInvocationClearReturn(NSInvocation *inv, bool objectResult) {
    if (objectResult) *(void **)inv->_retval = NULL;
}
static inline void PEGNUInvocationReturn(NSInvocation *inv, void *ret, bool objectResult) {
    if (objectResult && !inv->_validReturn) *(void **)ret = *(void **)inv->_retval;
    else [inv getReturnValue:ret];
}
#endif

/* The address of the word a method's IMP is kept in, so that a reader can see a replacement
   (method_setImplementation, method_exchangeImplementations, class_replaceMethod) without a call.
   GCC's runtime: `struct objc_method {SEL; const char *types; IMP}`, the IMP written in place.
   Apple: a "big" method_t has the same three words; a "small" one (relative method lists, bit 0 of
   the Method set) keeps replaced IMPs in a side table, so there is no word to read: NULL, and the
   caller must ask the runtime instead. Checked on the method itself: NULL unless the word holds
   what method_getImplementation answers. */
static inline const void *PEMethodIMPAddress(Method method) {
    if (!method || ((uintptr_t)method & (sizeof(void *) - 1)) != 0) return NULL;
    IMP const *word = (IMP const *)((const char *)method + 2 * sizeof(void *));
    return *word == method_getImplementation(method) ? (const void *)word : NULL;
}

/* Threads not started by NSThread (Dispatch, Swift concurrency) must be made known to
   GNUstep before they use Foundation. Apple needs nothing. */
#if PE_GNU_RUNTIME
/* GNUstep wants the process arguments handed over when main() is not its own (here main is
   Swift's); without it, NSProcessInfo and exception reporting print an internal error. */
void PEGNUInitializeProcess(void);
#endif

static inline void PEEnsureThreadRegistered(void) {
#if PE_GNU_RUNTIME
    extern BOOL GSRegisterCurrentThread(void);
    static __thread BOOL registered = NO;
    if (!registered) { PEGNUInitializeProcess(); PEGNUNormalizeClasses(); GSRegisterCurrentThread(); registered = YES; }
#endif
}

#endif
