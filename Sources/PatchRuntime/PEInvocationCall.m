/* Calls into Objective-C without libffi (iOS has no public libffi): NSInvocation makes the calls
   whose arguments don't all fit in integer registers (those go through PECallFunction's register
   call). On Linux these run when PATCHENGINE_WITHOUT_LIBFFI=1, so the iOS paths are tested here. */
#include "PEInternal.h"
#include "PEDispatch.h"
#include <pthread.h>
#include <stdio.h>

static NSInvocation *invocationFor(const char *types) {
    return [NSInvocation invocationWithMethodSignature:[NSMethodSignature signatureWithObjCTypes:types]];
}

/* Arguments from `from` on (0 the target, 1 the selector of a method; a block has no selector). */
static void setArguments(NSInvocation *inv, const PESignature *sig, void **arguments, unsigned from) {
    unsigned count = PESignatureGetArgumentCount(sig);
    for (unsigned i = from; i < count; i++) [inv setArgument:arguments[i] atIndex:(NSInteger)i];
}

static void takeReturn(NSInvocation *inv, const PESignature *sig, void *returnValue) {
    const PEType *rt = PESignatureGetReturnType(sig);
    if (!returnValue || PETypeGetKind(rt) == PETypeKindVoid) return;
    [inv getReturnValue:returnValue];
    PEWidenReturn(rt, returnValue);
}

void PEInvocationSend(PEFrame *frame) {
    NSInvocation *inv = invocationFor(PESignatureGetRuntimeEncoding(frame->signature));
    [inv setTarget:*(id *)frame->arguments[0]];
    [inv setSelector:*(SEL *)frame->arguments[1]];
    setArguments(inv, frame->signature, frame->arguments, 2);
    [inv invoke];
    takeReturn(inv, frame->signature, frame->returnValue);
}

/* NSInvocation sends a selector; there is no public way to make it call a given IMP. So each
   (class, IMP) pair that has to be called this way gets an alias method in the class whose
   selector names the IMP, as JSPatch's ORIG- and SUPER_-prefixed methods do. The IMP then sees
   the alias as its _cmd: methods that read _cmd (forwarding stubs, a resolver's dynamic methods)
   can tell the difference, which is why this runs only for calls registers can't carry. */
static pthread_mutex_t aliasLock = PTHREAD_MUTEX_INITIALIZER;
static NSMutableDictionary *aliases;    /* alias name -> its selector, for aliases added */

static SEL aliasFor(IMP imp, Class owner, SEL sel, const char *types) {
    char name[512];
    snprintf(name, sizeof name, "__pe_%p_%p_%s", (void *)owner, (void *)imp, sel_getName(sel));
    NSString *key = [NSString stringWithUTF8String:name];
    pthread_mutex_lock(&aliasLock);
    if (!aliases) aliases = [NSMutableDictionary new];
    NSValue *found = [aliases objectForKey:key];
    SEL alias = found ? (SEL)[found pointerValue] : NULL;
    if (!alias) {
        alias = PESelectorWithTypes(name, types);
        PEReplaceMethod(owner, alias, imp, types, NULL);
        [aliases setObject:[NSValue valueWithPointer:(const void *)alias] forKey:key];
    }
    pthread_mutex_unlock(&aliasLock);
    return alias;
}

void PEInvocationCallIMP(IMP imp, Class owner, PEFrame *frame) {
    const char *types = PESignatureGetRuntimeEncoding(frame->signature);
    SEL alias = aliasFor(imp, owner, *(SEL *)frame->arguments[1], types);
    NSInvocation *inv = invocationFor(types);
    [inv setTarget:*(id *)frame->arguments[0]];
    [inv setSelector:alias];
    setArguments(inv, frame->signature, frame->arguments, 2);
    [inv invoke];
    takeReturn(inv, frame->signature, frame->returnValue);
}

void PEInvocationCallBlock(void *block, const PESignature *sig, void **arguments, void *returnValue) {
#if PE_GNU_RUNTIME
    /* Apple's NSInvocation calls a block given as its target with a block signature (what Aspects
       relies on); GNUstep's can't (blocks are not objects on GCC's runtime). This runs here only
       with PATCHENGINE_WITHOUT_LIBFFI=1, where libffi stands in for Apple's NSInvocation. */
    ffi_cif *cif = PESignatureGetCIF(sig);
    if (!cif) [NSException raise:NSInvalidArgumentException format:@"block signature %s cannot be called", PESignatureGetEncoding(sig)];
    ffi_call(cif, (void (*)(void))PEBlockGetInvokeFunction(block), returnValue, arguments);
#else
    /* The block's own encoding (`@?` first), which is how NSInvocation knows to call a block. */
    NSInvocation *inv = invocationFor(PESignatureGetEncoding(sig));
    setArguments(inv, sig, arguments, 1);
    [inv invokeWithTarget:(id)block];
    takeReturn(inv, sig, returnValue);
#endif
}
